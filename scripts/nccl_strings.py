#!/usr/bin/env python3
"""nccl_strings.py - extract NCCL's failure messages from its git history.

usage: scripts/nccl_strings.py GIT_DIR [--tags all|minor] [-o OUT.tsv]
       [--map scripts/nccl_coverage_map.tsv] [--dev REF] [--stats]

GIT_DIR is a clone (or bare mirror) of github.com/NVIDIA/nccl.  For the last
tag of every minor release from 2.3 to 2.30 and the newest tag, the script
reads every file under src/ (.cc, .cu, .c, .h: releases up to 2.4.2 were .cu
sources) and extracts

  - every WARN(...) format string (level WARN),
  - every INFO(...)/TRACE(...) format string that reports a failure (a word
    such as "failed", "error", "unable", "cannot", "timeout", "abort",
    "retry" in it; level INFO / TRACE),
  - the strings ncclGetErrorString returns (level RESULT),

with the source file (relative to src/, as NCCL's __FILE__ prints it), the
first and last release in which the exact string exists, and the line in
the last one.  Format strings are kept as in the source (C escapes kept;
PRIu64 and friends become the conversion they expand to; a macro argument
pasted into the string becomes <#name>).

It then applies the mapping rules (scripts/nccl_coverage_map.tsv: the first
rule whose file and format regexes match a row gives its mapping and the
sample arguments) and writes the table that patterns/coverage/nccl.tsv holds:

  file first_release last_release level format mapping note sample

`sample` is the line as NCCL prints it (prefix of the last release that has
the string, its line number, the arguments instantiated); `nccl-triage
check-db` checks that it is an instance of the format and, for sig:ID rows,
that signature ID matches it.  Not run by make check (it needs the NCCL
history); rerun it after a new NCCL release or a mapping change.

--dev REF also reads REF (a branch or commit, e.g. dev) as one more release
after the newest tag, named by its makefiles/version.mk (2.31.0 while 2.31
has no tag); the header names the commit, so `--dev COMMIT` reproduces the
table (tests/coverage/run.sh does, when the mirror is present).
"""
import argparse
import re
import subprocess
import sys
from collections import OrderedDict

MINORS = range(3, 100)   # 2.3 and later: every minor that has a tag
SRC_EXT = ('.cc', '.h', '.cu', '.cuh', '.c', '.cpp', '.hpp')
FAIL_WORDS = re.compile(
    r"fail|error|unable|cannot|can't|could not|couldn't|timeout|timed out|abort|retry|retrie|invalid|"
    r"mismatch|refused|exceed|fatal|unrecoverable|corrupt|unexpected|not supported|unsupported|truncated",
    re.I)
PRI = {'PRIu64': 'lu', 'PRIx64': 'lx', 'PRId64': 'ld', 'PRIi64': 'li', 'PRIX64': 'lX',
       'PRIu32': 'u', 'PRIx32': 'x', 'PRId32': 'd', 'PRIi32': 'i', 'PRIu16': 'hu', 'PRIu8': 'hhu',
       'PRIuPTR': 'lu', 'PRIxPTR': 'lx'}


def git(gitdir, *args, inp=None):
    return subprocess.run(['git', '--git-dir', gitdir] + list(args), input=inp,
                          capture_output=True, check=True).stdout


def vkey(tag):
    m = re.match(r'v(\d+)\.(\d+)\.(\d+)-(\d+)$', tag)
    return tuple(int(x) for x in m.groups()) if m else None


def pick_tags(gitdir, mode):
    """-> [(ref, release)] oldest first"""
    tags = [t for t in git(gitdir, 'tag').decode().split() if vkey(t)]
    tags.sort(key=vkey)
    out = []
    for minor in MINORS:
        mine = [t for t in tags if vkey(t)[0] == 2 and vkey(t)[1] == minor]
        if not mine:
            continue
        out += mine if mode == 'all' else [mine[-1]]
    newest = tags[-1]
    if newest not in out:
        out.append(newest)
    return [(t, rel(t)) for t in out]


def rel(tag):
    """v2.18.6-1 -> 2.18.6"""
    return '.'.join(str(x) for x in vkey(tag)[:3])


def dev_release(gitdir, ref):
    """(commit, "2.31.0") of a branch or commit, from its makefiles/version.mk"""
    commit = git(gitdir, 'rev-parse', ref + '^{commit}').decode().strip()
    mk = git(gitdir, 'show', commit + ':makefiles/version.mk').decode()
    v = [re.search(r'^NCCL_%s\s*:=\s*(\d+)' % k, mk, re.M) for k in ('MAJOR', 'MINOR', 'PATCH')]
    if not all(v):
        sys.exit('%s: no NCCL_MAJOR/MINOR/PATCH in makefiles/version.mk' % ref)
    return commit, '.'.join(m.group(1) for m in v)


def read_tree(gitdir, tag):
    names = [n for n in git(gitdir, 'ls-tree', '-r', '--name-only', tag, 'src').decode().splitlines()
             if n.endswith(SRC_EXT)]
    blob = git(gitdir, 'cat-file', '--batch', inp=''.join(f'{tag}:{n}\n' for n in names).encode())
    files, pos = {}, 0
    for n in names:
        nl = blob.index(b'\n', pos)
        hdr = blob[pos:nl].split()
        size = int(hdr[2])
        files[n[len('src/'):]] = blob[nl + 1:nl + 1 + size].decode('utf-8', 'replace')
        pos = nl + 1 + size + 1
    return files


# --- a small C lexer: comments out, strings kept, line numbers tracked ---

TOKEN = re.compile(r'''
    (?P<ws>[ \t\r\f\v]+|\\\n)
  | (?P<nl>\n)
  | (?P<lc>//[^\n]*)
  | (?P<bc>/\*.*?\*/)
  | (?P<str>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*")
  | (?P<chr>'(?:[^'\\\n]|\\.)*')
  | (?P<id>[A-Za-z_]\w*)
  | (?P<num>\d[\w.]*)
  | (?P<op>.)
''', re.S | re.X)


def lex(text):
    """yield (kind, value, line, in_define)"""
    line, in_define, bol = 1, False, True
    for m in TOKEN.finditer(text):
        k = m.lastgroup
        v = m.group(k)
        if k == 'nl':
            line += 1
            in_define, bol = False, True
            continue
        if k == 'ws':
            line += v.count('\n')
            continue
        if k in ('lc',):
            continue
        if k == 'bc':
            line += v.count('\n')
            continue
        if bol and k == 'op' and v == '#':
            # a preprocessor line: #define bodies are scanned (macros hold WARNs)
            rest = text[m.end():m.end() + 16].lstrip()
            in_define = rest.startswith('define')
        bol = False
        yield k, v, line, in_define


def calls(text, names=('WARN', 'INFO', 'TRACE')):
    """Find NAME(args...) calls; yield (name, [arg token lists], line, in_define)."""
    toks = list(lex(text))
    i = 0
    while i < len(toks):
        k, v, line, indef = toks[i]
        if k == 'id' and v in names and i + 1 < len(toks) and toks[i + 1][1] == '(':
            # skip the macro's own definition: "#define WARN(...)"
            if i >= 2 and toks[i - 1][1] == 'define':
                i += 1
                continue
            depth, j, args, cur = 0, i + 1, [], []
            while j < len(toks):
                tk, tv = toks[j][0], toks[j][1]
                if tk == 'op' and tv in '([{':
                    depth += 1
                    if depth > 1:
                        cur.append(toks[j])
                elif tk == 'op' and tv in ')]}':
                    depth -= 1
                    if depth == 0:
                        args.append(cur)
                        break
                    cur.append(toks[j])
                elif tk == 'op' and tv == ',' and depth == 1:
                    args.append(cur)
                    cur = []
                else:
                    cur.append(toks[j])
                j += 1
            yield v, args, line, indef
            i = j
        i += 1


def fmt_of(arg):
    """The format string of one argument's tokens, or None when it has no literal."""
    if not any(t[0] == 'str' for t in arg):
        return None
    out = []
    for k, v, _, _ in arg:
        if k == 'str':
            out.append(v[v.index('"') + 1:-1].replace('\\\n', ''))
        elif k == 'id' and v in PRI:
            out.append(PRI[v])
        elif k == 'id':
            out.append('<#%s>' % v)
        elif k == 'op' and v == '#':
            continue
        else:
            return None   # an expression (cond ? "a" : "b"): not one format
    return ''.join(out)


def extract(files):
    """-> {(file, level, fmt): (line, in_define)}"""
    found = {}
    for path, text in files.items():
        if 'WARN' not in text and 'INFO' not in text and 'TRACE' not in text and \
           'ncclGetErrorString' not in text:
            continue
        for name, args, line, indef in calls(text):
            idx = 0 if name == 'WARN' else 1
            if len(args) <= idx:
                continue
            f = fmt_of(args[idx])
            if f is None:
                continue
            if name != 'WARN' and not FAIL_WORDS.search(f):
                continue
            found.setdefault((path, name, f), (line, indef))
        # ncclGetErrorString: case ncclX : return "...";
        m = re.search(r'ncclGetErrorString\s*\([^)]*\)\s*\{(.*?)\n\}', text, re.S)
        if m and 'switch' in m.group(1):
            body = m.group(1)
            start = text[:m.start(1)].count('\n') + 1
            for cm in re.finditer(r'case\s+(\w+)\s*:\s*return\s*"((?:[^"\\]|\\.)*)"|default\s*:\s*return\s*"((?:[^"\\]|\\.)*)"', body):
                s = cm.group(2) if cm.group(2) is not None else cm.group(3)
                ln = start + body[:cm.start()].count('\n')
                found.setdefault((path, 'RESULT', s), (ln, cm.group(1) or 'default'))
    return found


# --- sample lines ---

CONV = r'%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfgGcspnm%])'
PIECE = re.compile(CONV + r'|<#(?P<ph>\w+)>')


NUMERIC = re.compile(r'^-?(?:0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?)$')


def instantiate(fmt, args):
    """Fill the conversions and <#macro-argument> placeholders of fmt, left to
    right: a numeric conversion (%d, %lx, %p ...) takes the next argument
    that looks like a number, %s / %c / <#name> the next one that does not;
    defaults when none is left."""
    fmt = fmt.split('\\n')
    # a message that starts with \n prints the first non-empty piece on the line
    first = next((p for p in fmt if p.strip()), '')
    text = first.replace('\\"', '"').replace('\\t', ' ').replace('\\\\', '\\')
    nums = [a for a in args if NUMERIC.match(a)]
    strs = [a for a in args if not NUMERIC.match(a)]
    defaults = {'d': '1', 'i': '1', 'u': '1', 'o': '1', 'x': '1f', 'X': '1F', 'e': '1.0e+00', 'E': '1.0E+00',
                'f': '1.000000', 'g': '1', 'G': '1', 'c': 'x', 's': 'x', 'p': '0x7f3a5c000000', 'm': 'x'}

    def sub(m):
        if m.group('ph'):
            return strs.pop(0) if strs else m.group('ph')
        conv = m.group(5)
        if conv == '%':
            return '%'
        if conv in 'scm':
            return strs.pop(0) if strs else (nums.pop(0) if nums else defaults[conv])
        return nums.pop(0) if nums else defaults[conv]
    return PIECE.sub(sub, text)


def prefix(level, file, line, version):
    v = vkey('v' + version + '-1')
    ts = '[2026-01-01 00:00:00] ' if v >= (2, 26, 0) else ''
    fn = ''
    if level == 'WARN':
        return f'{ts}node1:4242:4242 [0] {file}:{line} NCCL WARN '
    if level == 'TRACE':
        return f'node1:4242:4242 [0] 1.000000 {file}:{line} NCCL TRACE '
    return 'node1:4242:4242 [0] NCCL INFO '


# --- mapping rules ---

def load_map(path):
    rules = []
    with open(path, encoding='utf-8') as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            cols = line.split('\t')
            if len(cols) < 4:
                sys.exit(f'{path}:{n}: want file-regex, level-regex, format-regex, mapping[, note[, args]]')
            cols += [''] * (6 - len(cols))
            try:
                rules.append((re.compile(cols[0]), re.compile(cols[1]), re.compile(cols[2]), cols[3], cols[4],
                              [a for a in cols[5].split('|')] if cols[5] else [], n, [0]))
            except re.error as e:
                sys.exit(f'{path}:{n}: {e}')
    return rules


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('gitdir')
    ap.add_argument('--tags', default='minor', choices=('minor', 'all'))
    ap.add_argument('--map', default='scripts/nccl_coverage_map.tsv')
    ap.add_argument('-o', '--output', default='-')
    ap.add_argument('--dev', metavar='REF', help='also read branch/commit REF as the next, untagged release')
    ap.add_argument('--stats', action='store_true')
    a = ap.parse_args()

    tags = pick_tags(a.gitdir, a.tags)
    dev = None
    if a.dev:
        commit, drel = dev_release(a.gitdir, a.dev)
        if vkey('v%s-1' % drel) <= vkey('v%s-1' % tags[-1][1]):
            sys.exit('%s is %s, not newer than the newest tag %s' % (a.dev, drel, tags[-1][1]))
        tags.append((commit, drel))
        dev = (drel, commit)
    rows = OrderedDict()   # key -> dict
    for tag, release in tags:
        found = extract(read_tree(a.gitdir, tag))
        for key, (line, indef) in found.items():
            r = rows.get(key)
            if r is None:
                rows[key] = r = {'first': release, 'tags': []}
            r['last'] = release
            r['line'] = line
            r['indef'] = indef
            r['tags'].append(release)
    allrel = [t[1] for t in tags]

    rules = load_map(a.map) if a.map else []
    out = sys.stdout if a.output == '-' else open(a.output, 'w', encoding='utf-8')
    out.write('# NCCL failure messages, extracted by scripts/nccl_strings.py from NVIDIA/nccl tags %s .. %s\n'
              % (allrel[0], allrel[-1]))
    out.write('# (the last tag of each minor release and the newest tag; --tags all reads every tag); mapping rules: %s.\n' % a.map)
    if dev:
        out.write('# dev: %s is commit %s (--dev %s), not tagged yet\n' % (dev[0], dev[1], a.dev))
    out.write('# first_release/last_release: the first and last of the releases read that have the exact string (a string\n'
              '# first seen in 2.18.6 may already exist in 2.18.1, which was not read).\n')
    out.write('# Generated: edit the rules and rerun, do not edit by hand.  docs/coverage.md renders it.\n')
    out.write('# releases: %s\n' % ' '.join(allrel))
    out.write('file\tfirst_release\tlast_release\tlevel\tformat\tmapping\tnote\tsample\n')
    stats = {}
    for (path, level, fmt), r in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[1]['line'] if kv[1]['last'] == allrel[-1] else 10**6, kv[0][1], kv[0][2])):
        notes = []
        # a gap: the string disappeared and came back
        span = allrel[allrel.index(r['first']):allrel.index(r['last']) + 1]
        if len(span) != len(r['tags']):
            notes.append('not in ' + ','.join(t for t in span if t not in r['tags']))
        if r['indef'] is True:
            notes.append("in a macro: printed with the caller's file:line")
        if level == 'RESULT':
            notes.append('ncclGetErrorString(%s)' % r['indef'])
        mapping, args, rnote = 'not-yet', [], ''
        for fre, lre, sre, mp, nt, ar, n, used in rules:
            if fre.search(path) and lre.fullmatch(level) and sre.search(fmt):
                mapping, args, rnote = mp, ar, nt
                used[0] += 1
                break
        if rnote:
            notes.append(rnote)
        if level == 'RESULT':
            msg = instantiate(fmt, args)
            sample = ('torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/'
                      'ProcessGroupNCCL.cpp:1970, %s, NCCL version %s' % (msg, r['last']))
        else:
            sample = prefix(level, path, r['line'], r['last']) + instantiate(fmt, args)
        for s in (fmt, sample):
            if '\t' in s or '\n' in s:
                sys.exit('tab or newline in %r' % s)
        out.write('\t'.join([path, r['first'], r['last'], level, fmt, mapping, '; '.join(notes), sample]) + '\n')
        kind = mapping.split(':')[0]
        stats.setdefault(level, {}).setdefault(kind, 0)
        stats[level][kind] += 1
    if out is not sys.stdout:
        out.close()
    if a.stats:
        for lv, d in sorted(stats.items()):
            print(lv, sum(d.values()), d, file=sys.stderr)
        for fre, lre, sre, mp, nt, ar, n, used in rules:
            if not used[0]:
                print('%s:%d: rule matches no row' % (a.map, n), file=sys.stderr)


if __name__ == '__main__':
    main()
