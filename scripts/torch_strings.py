#!/usr/bin/env python3
"""Extract failure/warning message templates from C++ and Python sources.

usage: extract.py ROOT FILE... -> TSV rows: file line level template
Templates: string literals joined, other expressions replaced by {}.
"""
import re
import sys

CPP_MACROS = [
    (r'LOG\((ERROR|WARNING|FATAL)\)', None),
    (r'(?:C10D_)?(ERROR|WARNING)\s*\(', None),
    (r'C10_THROW_ERROR\s*\(', 'throw'),
    (r'C10D_THROW_ERROR\s*\(', 'throw'),
    (r'C10_BUILD_ERROR\s*\(', 'throw'),
    (r'TORCH_CHECK_WITH\s*\(', 'check'),
    (r'TORCH_CHECK\s*\(', 'check'),
    (r'TORCH_WARN(?:_ONCE)?\s*\(', 'warn'),
    (r'TORCH_INTERNAL_ASSERT\s*\(', 'assert'),
]
CPP_RE = re.compile(r'\b(LOG\((?:ERROR|WARNING|FATAL)\)|C10D_(?:ERROR|WARNING)\s*\(|C10_THROW_ERROR\s*\(|C10D_THROW_ERROR\s*\(|C10_BUILD_ERROR\s*\(|TORCH_CHECK_WITH\s*\(|TORCH_CHECK\s*\(|TORCH_WARN(?:_ONCE)?\s*\(|std::runtime_error\s*\(|c10::DistBackendError\s*\(|fmt::format\s*\(|c10::str\s*\(|std::string\s+\w+\s*=\s*\"|errorMsg\s*=\s*|exitMsg\s*=\s*|fprintf\s*\(\s*stderr\s*,|return\s+(?=")|interpret\s*=\s*(?="))')
# "return" literals are kept only where they are messages: getNcclErrorDetailStr's texts
RETURN_FILES = re.compile(r'NCCLUtils')


def cpp_statement(src, start):
    """From start, return text up to the ';' that ends the statement (paren-balanced)."""
    depth = 0
    i = start
    n = len(src)
    while i < n:
        c = src[i]
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == '\\' else 1
            i = j + 1
            continue
        if c == "'":
            j = i + 1
            while j < n and src[j] != "'":
                j += 2 if src[j] == '\\' else 1
            i = j + 1
            continue
        if c == '/' and src.startswith('//', i):
            i = src.find('\n', i)
            if i < 0:
                return src[start:]
            continue
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth < 0:
                return src[start:i]
        elif c == ';' and depth <= 0:
            return src[start:i]
        i += 1
    return src[start:]


STR_RE = re.compile(r'"((?:[^"\\]|\\.)*)"')


def cpp_template(stmt):
    """Join adjacent literals; each maximal non-literal run between literals becomes {}."""
    out = []
    pos = 0
    lits = list(STR_RE.finditer(stmt))
    if not lits:
        return None
    # the part before the first literal: macro and condition; skip
    prev_end = None
    for m in lits:
        if prev_end is not None:
            between = stmt[prev_end:m.start()]
            b = re.sub(r'\s+', '', between)
            if b not in ('', '<<', ','):
                # an expression between literals
                b2 = b.strip('<,')
                if b2.strip('<,'):
                    out.append('{}')
        s = m.group(1)
        s = s.replace('\\n', '\\n').replace('\\"', '"').replace("\\'", "'")
        out.append(s)
        prev_end = m.end()
    tail = re.sub(r'\s+', '', stmt[prev_end:])
    if tail.strip('<,);') and not tail.startswith(')'):
        out.append('{}')
    t = ''.join(out)
    return t


def level_of(tok, stmt):
    if tok.startswith('LOG('):
        return tok[4:-1].lower()
    if tok.startswith('C10D_ERROR'):
        return 'error'
    if tok.startswith('C10D_WARNING'):
        return 'warning'
    if 'THROW' in tok or 'BUILD_ERROR' in tok or 'runtime_error' in tok or 'DistBackendError' in tok:
        m = re.match(r'\w+\s*\(\s*(\w+)', stmt)
        return 'throw:' + (m.group(1) if m else '?')
    if tok.startswith('TORCH_CHECK_WITH'):
        m = re.match(r'\w+\s*\(\s*(\w+)', stmt)
        return 'check:' + (m.group(1) if m else '?')
    if tok.startswith('TORCH_CHECK'):
        return 'check'
    if tok.startswith('TORCH_WARN'):
        return 'warn'
    if tok.startswith('fprintf'):
        return 'error'
    if tok.startswith(('return', 'interpret')):
        return 'msg'
    if tok.startswith('fmt::') or tok.startswith('c10::str') or 'std::string' in tok or 'Msg' in tok:
        return 'msg'
    return '?'


def do_cpp(path, rel):
    src = open(path, encoding='utf-8', errors='replace').read()
    rows = []
    for m in CPP_RE.finditer(src):
        if m.group(1).startswith(('return', 'interpret')) and not RETURN_FILES.search(rel):
            continue
        stmt = cpp_statement(src, m.start())
        if len(stmt) > 3000:
            stmt = stmt[:3000]
        if m.group(1).startswith('fprintf'):
            stmt = stmt[len(m.group(1)):]
        t = cpp_template(stmt)
        if t and m.group(1).startswith('fprintf'):
            t = re.sub(r'%[-\d.]*[sdiuzl]+', '{}', t)
        if not t or len(t.replace('{}', '').strip()) < 8:
            continue
        lv = level_of(m.group(1), stmt[len(m.group(1)) - 1:] if m.group(1).endswith('(') else stmt)
        if lv == 'msg' and len(t.replace('{}', '').strip()) < 20:
            continue
        line = src.count('\n', 0, m.start()) + 1
        rows.append((rel, line, lv, t))
    return rows


PY_RE = re.compile(r'\b(raise\s+[\w.]+\s*\(|(?:log|logger|_logger|LOG)\.(?:error|warning|warn|exception|critical|info)\s*\(|warnings\.warn\s*\()')
PYSTR_RE = re.compile(r'([rbfRBF]{0,2})("""|\'\'\'|"|\')')


def py_call(src, start):
    i = src.index('(', start)
    depth = 0
    n = len(src)
    while i < n:
        c = src[i]
        m = PYSTR_RE.match(src, i)
        if m and (m.group(1) == '' or not src[i - 1].isalnum()):
            q = m.group(2)
            j = m.end()
            while j < n and not src.startswith(q, j):
                j += 2 if src[j] == '\\' else 1
            i = j + len(q)
            continue
        if c == '#':
            i = src.find('\n', i)
            continue
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                return src[start:i + 1]
        i += 1
    return src[start:]


def py_template(call):
    out = []
    i = call.index('(') + 1
    n = len(call)
    got = False
    while i < n:
        m = PYSTR_RE.match(call, i)
        if m and (i == 0 or not call[i - 1].isalnum()):
            pre, q = m.group(1).lower(), m.group(2)
            j = m.end()
            buf = []
            while j < n and not call.startswith(q, j):
                if call[j] == '\\':
                    buf.append(call[j:j + 2])
                    j += 2
                else:
                    buf.append(call[j])
                    j += 1
            s = ''.join(buf)
            if 'f' in pre:
                s = re.sub(r'\{[^{}]*\}', '{}', s)
            s = s.replace('\\n', '\\n')
            out.append(s)
            got = True
            i = j + len(q)
            continue
        c = call[i]
        if c == '%' and got:
            out.append('')
        i += 1
    if not got:
        return None
    t = ''.join(out)
    t = re.sub(r'%[-\d.]*[sdrfi]', '{}', t)
    return t


def do_py(path, rel):
    src = open(path, encoding='utf-8', errors='replace').read()
    rows = []
    for m in PY_RE.finditer(src):
        try:
            call = py_call(src, m.start())
        except ValueError:
            continue
        t = py_template(call)
        if not t or len(t.replace('{}', '').strip()) < 8:
            continue
        tok = m.group(1)
        if tok.startswith('raise'):
            lvl = 'raise:' + re.match(r'raise\s+([\w.]+)', tok).group(1).split('.')[-1]
        elif tok.startswith('warnings'):
            lvl = 'warn'
        else:
            lvl = tok.split('.')[1].rstrip('( ')
        line = src.count('\n', 0, m.start()) + 1
        rows.append((rel, line, lvl, t))
    return rows


def main():
    root = sys.argv[1].rstrip('/') + '/'
    for f in sys.argv[2:]:
        rel = f[len(root):] if f.startswith(root) else f
        rows = do_py(f, rel) if f.endswith('.py') else do_cpp(f, rel)
        for r in rows:
            msg = r[3].replace('\t', ' ').replace('\n', '\\n')
            print(f'{r[0]}\t{r[1]}\t{r[2]}\t{msg}')


if __name__ == "__main__":
    main()
