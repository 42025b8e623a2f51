#!/usr/bin/env python3
"""infra_coverage.py - the coverage tables of the software around NCCL.

usage: scripts/infra_coverage.py FAMILY [--mirror GIT_DIR] [-o OUT.tsv]
       scripts/infra_coverage.py --check [FAMILY ...]

Writes patterns/coverage/FAMILY.tsv (the 8 columns of patterns/coverage/nccl.tsv:
file first_release last_release level format mapping note sample) for one family:

  generated from a mirror of the component's repository (`fetch github:OWNER/REPO`
  puts one under /work/.mirror/OWNER+REPO/repo; --mirror names another), reading
  the releases listed in FAMILIES below and every failure message of the files it
  names, with the first and the last release read that has the exact string:
    aws-ofi-nccl  NCCL_OFI_WARN / failing NCCL_OFI_INFO (printed through NCCL's logger,
                  "NET/OFI " prepended; the location is __PRETTY_FUNCTION__)
    sharp         nccl-rdma-sharp-plugins' WARN / failing INFO (NCCL's logger, __FILE__)
    ucx           ucs_error() of the parts of UCX an NCCL/MPI job reaches
    slurm         error()/fatal() of srun, the step launch API and slurmstepd's messages
                  to the job, the cgroup OOM notices
    openmpi       the first line of every topic of the help files mpirun/prte print
    hami          HAMi-core's LOG_ERROR / LOG_WARN
    nhc           Azure NHC's die / log_* failure messages
    dcgm          dcgmi diag's failure reasons (DCGM_FR_*_MSG of dcgm_errors.h)
    tgi           text-generation-inference's launcher errors (Rust tracing::error!)

  or hand-kept (kernel, xid, fabricmanager, vllm, sglang, trtllm, xla, k8s): the
  component's source is not public or not fetchable here; each row's note cites
  the source (a vendor document, a learn-half thread, a file@commit read with the
  search tools), and the script only checks and normalises the table.

The mapping of a generated row is the first rule of scripts/infra_coverage_map.tsv
(family, file-regex, level-regex, format-regex, mapping, note, sample-arguments) that
matches it; its sample is the format instantiated with the rule's arguments behind
the component's own line prefix.  `nccl-triage check-db` proves every row (the sample
is an instance of the format; a sig: row's signature matches it).

--check (tests/coverage-infra/run.sh, part of make check): every table of a generated
family is re-mapped from the rules (mapping, note and sample must be what the rules
give: a rule changed without regenerating is stale); when the family's mirror is
present the whole table is regenerated and compared; a hand-kept table must cite a
source in every row and be sorted as the script writes it.
"""
import argparse
import os
import re
import subprocess
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import nccl_strings as ns  # noqa: E402  (the C lexer, call finder and format instantiation: one copy)

MIRRORS = os.environ.get('NT_MIRRORS', '/work/.mirror')
TABLES = os.environ.get('NT_COVERAGE_DIR', os.path.join(ROOT, 'patterns', 'coverage'))
COLS = ['file', 'first_release', 'last_release', 'level', 'format', 'mapping', 'note', 'sample']
FAIL_WORDS = ns.FAIL_WORDS


def git(gd, *args):
    return subprocess.run(['git', '--git-dir', gd] + list(args), capture_output=True, check=True).stdout


def tree(gd, rev, dirs, exts):
    names = [n for n in git(gd, 'ls-tree', '-r', '--name-only', rev, *dirs).decode().splitlines()
             if n.endswith(exts)]
    out = {}
    for n in names:
        out[n] = git(gd, 'show', f'{rev}:{n}').decode('utf-8', 'replace')
    return out


def vkey(v):
    return tuple(int(x) if x.isdigit() else 0 for x in re.split(r'[.\-]', v))


# ---------------------------------------------------------------- the C call extractor

# the tuner's refusals and the plugin's fallbacks are INFO lines without a failure word
OFI_FAIL = re.compile(FAIL_WORDS.pattern + r"|can not|fall(?:ing)? ?back|disabling", re.I)


def c_messages(files, names, fmt_arg, fail_only=(), fail_words=FAIL_WORDS):
    """{(file, level, fmt): (line, text, call-offset)} for every NAME(...) call with a
    literal format at argument fmt_arg[NAME]; names in fail_only keep failing messages
    only (a word such as failed, error, unable)."""
    found = {}
    for path, text in files.items():
        if not any(n in text for n in names):
            continue
        for name, args, line, _ in ns.calls(text, names):
            idx = fmt_arg[name]
            if len(args) <= idx:
                continue
            f = ns.fmt_of(args[idx])
            if f is None:
                continue
            if name in fail_only and not fail_words.search(f):
                continue
            # <inttypes.h> macros nccl_strings does not resolve ("%" PRIx16 -> %x)
            f = re.sub(r'%<#PRI([diouxX])(?:8|16|32|64|PTR|MAX)>', r'%\1', f)
            found.setdefault((path, names[name], f), (line, text))
    return found


FUNC_HEAD = re.compile(r'^(?!(?:if|for|while|switch|return|else|do|case|typedef|struct|enum|union|sizeof)\b)'
                       r'[A-Za-z_][\w:<>,*& ]*?[\s*&](~?[A-Za-z_]\w*(?:::~?[A-Za-z_]\w*)*)\s*\(')


def enclosing_function(text, line, cxx):
    """The function a call at `line` is in, as __PRETTY_FUNCTION__ prints it: the bare
    name in C; in C++ the return type, qualified name and parameter types (names
    dropped), reconstructed from the definition at column 0 (an approximation: g++
    also prints 'virtual' and template arguments, which a definition does not show)."""
    lines = text.split('\n')
    for indented in (False, True):
        for i in range(min(line, len(lines)) - 1, -1, -1):
            ln = lines[i]
            if indented:
                # a member function defined in its class body: its head, then "{"
                nxt = lines[i + 1].strip() if i + 1 < len(lines) else ''
                if not (ln.rstrip().endswith(')') or ln.rstrip().endswith('{')) or not (
                        '{' in ln or nxt.startswith('{')):
                    continue
                ln = ln.strip()
            if not ln or ln[0] in ' \t#/{}*' or ln.rstrip().endswith((':', ';')):
                continue
            m = FUNC_HEAD.match(ln)
            if not m:
                continue
            return pretty(lines, i, m, cxx, ln)
    return 'unknown'


def pretty(lines, i, m, cxx, ln):
    if True:
        if not cxx:
            return m.group(1).split('::')[-1]
        head = ' '.join([ln] + [x.strip() for x in lines[i + 1:i + 8]])
        head = head[:head.find(')') + 1] if ')' in head else head
        ret = head[:m.start(1)].strip()
        ret = ' '.join(w for w in ret.split() if w not in ('static', 'inline', 'extern', '__attribute__'))
        params = head[head.index('(') + 1:-1]
        out = []
        for p in params.split(','):
            p = re.sub(r'=.*', '', p).strip()
            if not p or p == 'void':
                continue
            p = re.sub(r'\s*\[\s*\w*\s*\]', '*', p)
            toks = re.findall(r'[A-Za-z_][\w:]*|\*|&', p)
            if len(toks) > 1 and re.match(r'[A-Za-z_]', toks[-1]) and toks[-1] not in ('int', 'char', 'long', 'short',
                                                                                      'unsigned', 'double', 'float'):
                toks = toks[:-1]
            s = ''
            for t in toks:
                s += t if t in '*&' or not s else ' ' + t
            out.append(s)
        ret = re.sub(r'\s*([*&])\s*', r'\1', ret)
        return f"{ret + ' ' if ret else ''}{m.group(1)}({', '.join(out)})"


# ---------------------------------------------------------------- families

def ofi_extract(gd, rev, version):
    files = tree(gd, rev, ['src', 'include'], ('.c', '.cpp', '.h', '.hpp'))
    cxx = vkey(version) >= (1, 16, 0)
    found = c_messages(files, {'NCCL_OFI_WARN': 'WARN', 'NCCL_OFI_INFO': 'INFO'},
                       {'NCCL_OFI_WARN': 0, 'NCCL_OFI_INFO': 1}, fail_only=('NCCL_OFI_INFO',),
                       fail_words=OFI_FAIL)
    out = {}
    for (path, level, f), (line, text) in found.items():
        loc = enclosing_function(text, line, cxx and path.endswith(('.cpp', '.hpp', '.h')))
        out[(path, level, 'NET/OFI ' + f)] = {'line': line, 'loc': loc}
    return out


def ofi_prefix(level, row):
    if level == 'WARN':
        return f"node1:4242:4242 [0] {row['loc']}:{row['line']} NCCL WARN "
    return 'node1:4242:4242 [0] NCCL INFO '


def sharp_extract(gd, rev, version):
    files = tree(gd, rev, ['src'], ('.c', '.h'))
    found = c_messages(files, {'WARN': 'WARN', 'INFO': 'INFO'}, {'WARN': 0, 'INFO': 1}, fail_only=('INFO',))
    return {k: {'line': ln} for k, (ln, _) in found.items()}


def sharp_prefix(level, row):
    if level == 'WARN':  # __FILE__ as automake compiles src/: the bare file name
        return f"node1:4242:4242 [0] {os.path.basename(row['file'])}:{row['line']} NCCL WARN "
    return 'node1:4242:4242 [0] NCCL INFO '


XID_DEF = re.compile(r'^#define\s+([A-Z][A-Z0-9_]*)\s+\((\d+)\)', re.M)


def xid_extract(gd, rev, version):
    """Every Xid code nverror.h defines (the driver's own names for them)."""
    text = git(gd, 'show', f'{rev}:src/common/sdk/nvidia/inc/nverror.h').decode('utf-8', 'replace')
    names = OrderedDict()
    for m in XID_DEF.finditer(text):
        name, code = m.group(1), int(m.group(2))
        if code < 3 or 'LAST_ERROR' in name or 'RECOVERY_LEVEL' in name:
            continue
        names.setdefault(code, []).append(name)
    out = {}
    for code, ns_ in names.items():
        # the format kernel_rc.c prints ("NVRM: Xid (" attr "): %d, pid=%s, name=%s, %s%s")
        out[('nverror.h', 'kernel', 'NVRM: Xid (PCI:{}): %d, {}' % code)] = {'line': code, 'names': '/'.join(ns_)}
    return out


def xid_prefix(level, row):
    return '[ 1843.308145] '


def rev_before(gd, date):
    return git(gd, 'rev-list', '-1', '--before=' + date, 'HEAD').decode().strip()


def hami_extract(gd, rev, version):
    files = tree(gd, rev, ['src'], ('.c', '.h'))
    found = c_messages(files, {'LOG_ERROR': 'error', 'LOG_WARN': 'warning'}, {'LOG_ERROR': 0, 'LOG_WARN': 0})
    return {k: {'line': ln} for k, (ln, _) in found.items() if not k[2].startswith('<#')}


def hami_prefix(level, row):
    f = os.path.basename(row['file'])
    if level == 'error':
        return f"[HAMI-core ERROR (pid:4242 thread=139872 {f}:{row['line']})]: "
    return f"[HAMI-core Warn(4242:139872:{f}:{row['line']})]: "


SH_VAR = re.compile(r'\$\(\([^)]*\)\)|\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_]\w*|\$[\d?#@*]')
NHC_DIE = re.compile(r'\bdie\s+1\s+(?:-e\s+)?"((?:[^"\\]|\\.)*)"')
NHC_FUNC = re.compile(r'^\s*(?:function\s+)?(\w+)\s*\(\)\s*\{', re.M)


def nhc_extract(gd, rev, version):
    """die 1 "..." of customTests/*.nhc: NHC prints 'ERROR:  nhc:  Health check failed:  MSG'.
    $FUNCNAME becomes the enclosing function, every other shell expansion {}."""
    files = tree(gd, rev, ['customTests'], ('.nhc',))
    out = {}
    for path, text in files.items():
        funcs = [(m.start(), m.group(1)) for m in NHC_FUNC.finditer(text)]
        for m in NHC_DIE.finditer(text):
            fn = ([f for pos, f in funcs if pos < m.start()] or ['nhc'])[-1]
            msg = m.group(1).replace('\\t', ' ').replace('\\"', '"')
            msg = msg.replace('$FUNCNAME', fn).replace('${FUNCNAME}', fn)
            msg = re.sub(r'\s+', ' ', SH_VAR.sub('{}', msg)).strip()
            line = text[:m.start()].count('\n') + 1
            out.setdefault((path, 'error', msg), {'line': line})
    return out


def nhc_prefix(level, row):
    return 'ERROR:  nhc:  Health check failed:  '


RUST_LOG = re.compile(r'tracing::(error|warn)!\(\s*(?:target:\s*"[^"]*",\s*)?"((?:[^"\\]|\\.)*)"', re.S)


def tgi_extract(gd, rev, version):
    """tracing::error!/warn! of the launcher (its own words: the shard output it relays is the
    shard's): Rust format arguments {name} become {}."""
    files = tree(gd, rev, ['launcher/src'], ('.rs',))
    out = {}
    for path, text in files.items():
        for m in RUST_LOG.finditer(text):
            msg = m.group(2).split('\\n')[0]
            msg = re.sub(r'\{[^{}]*\}', '{}', msg).replace('\\"', '"').strip()
            if not msg or msg == '{}':
                continue
            line = text[:m.start()].count('\n') + 1
            out.setdefault((path, 'error' if m.group(1) == 'error' else 'warning', msg), {'line': line})
    return out


def tgi_prefix(level, row):
    return '2024-06-20T12:34:56.789012Z %s text_generation_launcher: ' % ('ERROR' if level == 'error' else ' WARN')


# ---- Slurm: srun, sbatch, the step launch API, slurmstepd, and the plugins that run in it

SLURM_DIRS = ['src/srun', 'src/sbatch', 'src/api/step_launch.c', 'src/api/step_io.c', 'src/api/step_ctx.c',
              'src/api/allocate.c', 'src/api/pmi_server.c', 'src/slurmd/slurmstepd', 'src/plugins/task/cgroup',
              'src/plugins/mpi/pmix', 'src/plugins/mpi/pmi2', 'src/plugins/launch/slurm',
              'src/common/slurm_jobacct_gather.c', 'src/interfaces/jobacct_gather.c',
              'src/common/slurm_protocol_socket.c']
# error_in_daemon(): error() in a daemon (slurmstepd), debug in srun
SLURM_CALLS = {'error': ('error', 0), 'fatal': ('fatal', 0), 'info': ('info', 0), 'error_in_daemon': ('error', 0),
               'PMIXP_ERROR': ('error', 0), 'PMIXP_ERROR_STD': ('error', 0), 'PMIXP_ABORT': ('error', 0),
               'PMIXP_ERROR_NO': ('error', 1)}
# Slurm's printf extensions (xstrfmt): %pJ a job ("JobId=N"), %pS a step record, %ps a step id
# ("StepId=N.M"), %pA an address: each prints one word, as %s does
SLURM_PFMT = re.compile(r'%p[JSsA]')
# srun's task-exit record is built from strsignal(): "%s: %s %s: %s%s" (hosts, "task"/"tasks", ids,
# strsignal(sig), " (core dumped)"): one row per signal a rank dies of (launch.c / launch_slurm.c _task_finish)
SLURM_SIGNALS = ['Killed', 'Segmentation fault', 'Bus error', 'Aborted', 'Terminated']


def slurm_prog(path):
    if path.startswith('src/sbatch'):
        return 'sbatch'
    if 'jobacct_gather' in path:
        return 'slurmstepd'  # the accounting poll runs in the step's daemon
    if path.startswith(('src/srun', 'src/api', 'src/plugins/launch', 'src/common')):
        return 'srun'
    return 'slurmstepd'


def slurm_extract(gd, rev, version):
    """error()/fatal() of the Slurm parts that start, watch and end a job's ranks (SLURM_DIRS), and the
    info() lines of srun and the step launch API that report a failure; PMIXP_ERROR* of mpi/pmix with
    their fixed " %s: %s: %s [%d]: %s:%d: " lead (plugin, function, host, node, file:line)."""
    names = git(gd, 'ls-tree', '-r', '--name-only', rev, *SLURM_DIRS).decode().splitlines()
    out = {}
    for path in names:
        if not path.endswith('.c'):
            continue
        text = git(gd, 'show', f'{rev}:{path}').decode('utf-8', 'replace')
        if not any(n + '(' in text for n in SLURM_CALLS):
            continue
        for name, args, line, indef in ns.calls(text, tuple(SLURM_CALLS)):
            level, idx = SLURM_CALLS[name]
            if indef or len(args) <= idx:
                continue
            f = ns.fmt_of(args[idx])
            if f is None or not f.strip():
                continue
            if level == 'info' and not (path.startswith(('src/srun', 'src/api')) and FAIL_WORDS.search(f)):
                continue
            f = SLURM_PFMT.sub('%s', re.sub(r'%<#PRI([diouxX])(?:8|16|32|64|PTR|MAX)>', r'%\1', f))
            if '<#' in f or '\\0' in f:
                continue  # a format built from another macro, or one that prints a NUL: not one fixed text
            f = f.replace("\\'", "'")
            func = None
            if f.startswith('%s: ') and len(args) > idx + 1 and [t[1] for t in args[idx + 1]] == ['__func__']:
                func = enclosing_function(text, line, False)  # the sample names it, as the log does
            if f == '%s: %s %s: %s%s':
                for sig in SLURM_SIGNALS:
                    key = (path, level, '%s: %s %s: ' + sig + '%s')
                    out.setdefault(key, {'line': line, 'prog': slurm_prog(path)})
                continue
            if re.fullmatch(r'(?:%[-\d.]*l?[sdum] ?)*', f):
                continue  # nothing but conversions: the text is decided elsewhere
            if name.startswith('PMIXP_'):
                # the macro's own lead (pmixp_debug.h): plugin, function, host, node id, file:line
                f = ' %s: %s: %s [%d]: %s:%d: ' + f + (': %s (%d)' if name in ('PMIXP_ERROR_STD', 'PMIXP_ERROR_NO') else '')
            out.setdefault((path, level, f), {'line': line, 'prog': slurm_prog(path), 'func': func})
    out.update(slurm_errno(gd, rev))
    return out


# the slurm_strerror() texts srun prints after "Unable to allocate resources: " or "Task launch for ...
# failed on node ...: " (src/common/slurm_errno.c): those of connections, protocol versions and the launch
SLURM_ERRNO = re.compile(r'\{\s*(?:ERRTAB_ENTRY\()?\s*((?:SLURM|SLURMCTLD)_COMMUNICATIONS_\w+|SLURM_PROTOCOL_\w+|'
                         r'ESLURMD_(?:EXECVE_FAILED|IO_ERROR|PROLOG_FAILED|SETUP_ENVIRONMENT_ERROR|SET_UID_OR_GID_ERROR|'
                         r'CREATE_BATCH_DIR_ERROR|INVALID_JOB_CREDENTIAL|CREDENTIAL_EXPIRED|CREDENTIAL_REVOKED|KILL_TASK_FAILED))'
                         r'\)?\s*,\s*"((?:[^"\\]|\\.)*)"')


def slurm_errno(gd, rev):
    text = git(gd, 'show', f'{rev}:src/common/slurm_errno.c').decode('utf-8', 'replace')
    out = {}
    for m in SLURM_ERRNO.finditer(text):
        line = text[:m.start()].count('\n') + 1
        # srun prints a controller's error after its request, a node's after the launch it refused
        lead = ('Task launch for StepId=4012345.0 failed on node gpu-node-07: ' if m.group(1).startswith('ESLURMD')
                else 'Unable to allocate resources: ')
        out.setdefault(('src/common/slurm_errno.c', 'errno', m.group(2)),
                       {'line': line, 'prog': 'srun', 'func': None, 'lead': lead, 'names': m.group(1)})
    return out


def slurm_prefix(level, row):
    if level == 'errno':
        return 'srun: error: ' + row['lead']
    return f"{row['prog']}: " + {'error': 'error: ', 'fatal': 'fatal: '}.get(level, '')


# ---- Open MPI, PRRTE, OpenPMIx: the help messages mpirun / prterun print (opal_show_help: a box of dashes,
# the topic's text with its %s filled); a row is a topic's first line, as it starts the box

HELP_TOPIC = re.compile(r'^\[([^\]\n]+)\]\s*\n((?:#[^\n]*\n|\s*\n)*)([^\n#][^\n]*)', re.M)
# the same box printed by hand (opal_output with its own dashes) where show_help cannot reach mpirun
BOX_STRING = re.compile(r'"-{20,}\\n"\s*"((?:[^"\\]|\\.)*?)(?:\\n)?"')


def help_extract_files(gd, rev, select, boxes=()):
    names = [n for n in git(gd, 'ls-tree', '-r', '--name-only', rev).decode().splitlines()
             if re.search(select, n) and re.search(r'/help-[^/]*\.txt$', n)]
    out = {}
    for path in names:
        text = git(gd, 'show', f'{rev}:{path}').decode('utf-8', 'replace')
        for m in HELP_TOPIC.finditer(text):
            topic, first = m.group(1), m.group(3).rstrip()
            if topic.endswith(('usage', 'version')) or len(re.sub(r'%[-#0-9.]*l*[a-z]', '', first).split()) < 2:
                continue  # the usage and version texts, a topic whose first line is only a value ("%s")
            if topic == 'bogus section' or (
                    re.search(r'/help-(?:prun|prterun|prte|prted|prte-info|schizo-\w+)\.txt$', path) and ':' not in topic
                    and not re.match(r'%s |WARNING|ERROR|Internal error', first)
                    and not re.search(r'was unable|could not|cannot|\bfailed(?: to\b|\.)', first)):
                continue  # PRRTE 3+: the --help text of an option (topic = the option's name), not a message
            line = text[:m.start(3)].count('\n') + 1
            out.setdefault((path, 'help', first), {'line': line, 'names': topic})
    for path in boxes:
        try:
            text = git(gd, 'show', f'{rev}:{path}').decode('utf-8', 'replace')
        except subprocess.CalledProcessError:
            continue
        for m in BOX_STRING.finditer(text):
            out.setdefault((path, 'box', m.group(1)), {'line': text[:m.start()].count('\n') + 1, 'names': 'opal_output'})
    return out


OMPI_HELP = (r'^(?:orte/(?:tools/orterun|mca/(?:plm/(?:base|rsh|slurm)|errmgr|oob|odls/(?:base|default)|state|ess/base|'
             r'rmaps/base)|runtime|orted)|opal/mca/(?:btl/(?:openib|tcp|vader|sm|smcuda|base|uct)|common/(?:ucx|verbs|cuda|ofi|sm))|'
             r'ompi/(?:mca/(?:pml/(?:ucx|ob1)|mtl/ofi)|mpi/help-mpi-api|runtime|errhandler|tools/mpirun)|opal/runtime/help-opal-runtime)')
PRRTE_HELP = (r'(?:help-(?:prun|prterun|prte|errmgr-base|plm-base|plm-slurm|plm-ssh|oob-tcp|oob-base|prte-odls-base|'
              r'prte-odls-default|prte-rmaps-base|state-base|ess-base|prte-runtime|prted)\.txt)$')
PMIX_HELP = r'(?:src/runtime/help-pmix-runtime|src/server/help-pmix-server|src/mca/ptl/base/help-ptl-base)\.txt$'


def ompi_extract(gd, rev, version):
    return help_extract_files(gd, rev, OMPI_HELP, ['orte/mca/oob/tcp/oob_tcp_connection.c'])


def prrte_extract(gd, rev, version):
    return help_extract_files(gd, rev, PRRTE_HELP, ['src/mca/oob/tcp/oob_tcp_connection.c'])


def pmix_extract(gd, rev, version):
    return help_extract_files(gd, rev, PMIX_HELP)


def help_prefix(level, row):
    return ''  # show_help prints the box's text as is (a --tag-output prefix is logline.c's to peel)


# ---- DCGM: the failure reasons of dcgmi diag (dcgm_errors.h: DCGM_FR_<NAME>_MSG, one printf format each,
# string literals concatenated); dcgmi prints them in the table's info column cut every 45 characters
# (Diag::DisplayVerboseInfo) or whole in its JSON output

DCGM_MSG = re.compile(r'#define\s+DCGM_FR_(\w+)_MSG\b[ \t]*((?:\\[ \t]*\n[ \t]*)?(?:"(?:[^"\\\n]|\\.)*"[ \t]*(?:\\[ \t]*\n[ \t]*)?)+)')


def dcgm_extract(gd, rev, version):
    text = git(gd, 'show', f'{rev}:dcgmlib/dcgm_errors.h').decode('utf-8', 'replace')
    out = {}
    for m in DCGM_MSG.finditer(text):
        name, msg = m.group(1), ''.join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(2))).rstrip()
        if not msg or name in ('OK', 'ERROR_SENTINEL'):
            continue  # "" (the message is written where it is raised), success, the end marker
        key = ('dcgmlib/dcgm_errors.h', 'diag', msg)
        r = out.setdefault(key, {'line': text[:m.start()].count('\n') + 1, 'names': []})
        r['names'].append('DCGM_FR_' + name)
    for r in out.values():
        r['names'] = ' '.join(r['names'])
    return out


def dcgm_prefix(level, row):
    return ''  # the reason as dcgmi diag -j writes it; the table shows its first 45 characters the same way


UCX_DIRS = ['src/uct/ib', 'src/uct/cuda', 'src/uct/tcp', 'src/uct/sm', 'src/uct/base', 'src/ucp/core',
            'src/ucp/wireup', 'src/ucp/rndv', 'src/ucp/proto']


def ucx_extract(gd, rev, version):
    """ucs_error() of the parts of UCX an NCCL or MPI job reaches (IB/RoCE, CUDA, TCP and shared-memory
    transports, the UCP protocol layer); the ugni, rocm, gaudi, ze transports and tools/ are left out."""
    names = git(gd, 'ls-tree', '-r', '--name-only', rev, 'src').decode().splitlines()
    dirs = [d for d in UCX_DIRS if any(n.startswith(d + '/') for n in names)]
    files = tree(gd, rev, dirs, ('.c', '.h', '.inl'))
    found = c_messages(files, {'ucs_error': 'error'}, {'ucs_error': 0})
    return {k: {'line': ln} for k, (ln, _) in found.items() if not k[2].startswith('<#')}


def ucx_prefix(level, row):
    # UCS_LOG_FMT: "[%lu.%06lu] [%s:%-5d:%s] %17s:%-4u %-4s %-5s %*s"
    f = os.path.basename(row['file'])
    return '[1700000000.123456] [node1:4242 :0] %17s:%-4u %-4s %-5s ' % (f, row['line'], 'UCX', 'ERROR')


FAMILIES = OrderedDict([
    ('aws-ofi-nccl', {
        'repo': 'aws+aws-ofi-nccl',
        'title': 'aws-ofi-nccl (the libfabric/EFA net plugin) failure messages',
        # the last tag of each minor release
        'revs': OrderedDict((v, 'v' + v + s) for v, s in [
            ('1.0.1', ''), ('1.1.5', ''), ('1.2.0', ''), ('1.3.0', ''), ('1.4.0', ''), ('1.5.0', '-aws'),
            ('1.6.0', ''), ('1.7.4', '-aws'), ('1.8.1', '-aws'), ('1.9.2', '-aws'), ('1.10.0', '-aws'),
            ('1.11.1', '-aws'), ('1.12.1', '-aws'), ('1.13.2', '-aws'), ('1.14.2', ''), ('1.15.0', ''),
            ('1.16.3', ''), ('1.17.3', ''), ('1.18.0', ''), ('1.19.2', ''), ('1.20.0', ''), ('1.21.1', '')]),
        'extract': ofi_extract, 'prefix': ofi_prefix,
        'how': 'NCCL_OFI_WARN(...) and NCCL_OFI_INFO(...) with a failure word, from src/ and include/; '
               'the plugin prints through NCCL\'s logger with "NET/OFI " prepended and __PRETTY_FUNCTION__ '
               'as the location (a bare name in C, the whole signature in C++ from 1.16: the sample\'s '
               'signature is reconstructed from the definition)',
    }),
    ('sharp', {
        'repo': 'Mellanox+nccl-rdma-sharp-plugins',
        'title': 'nccl-rdma-sharp-plugins (IB verbs, UCX and SHARP/CollNet net plugins) failure messages',
        # tags v1.0 .. v2.1.0; 2.4-2.6 are the last commits before configure.ac's version moved on
        'revs': OrderedDict([('1.0', 'v1.0'), ('2.0.1', 'v2.0.1'), ('2.1.0', 'v2.1.0'), ('2.4', '8daeea9^'),
                             ('2.5', 'e453866^'), ('2.6', '4045cc8^'), ('2.7', '2f5ac02')]),
        'extract': sharp_extract, 'prefix': sharp_prefix,
        'how': 'WARN(...) and INFO(...) with a failure word, from src/; printed through NCCL\'s logger with '
               '__FILE__ (the bare file name, as automake compiles src/)',
    }),
    ('xid', {
        'braces': True,
        'repo': 'NVIDIA+open-gpu-kernel-modules',
        'title': "NVIDIA driver Xid codes (src/common/sdk/nvidia/inc/nverror.h: the driver's names; meanings from "
                 "NVIDIA's Xid catalog, https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html)",
        'revs': OrderedDict((v, v) for v in ['515.105.01', '520.61.07', '525.147.05', '530.41.03', '535.288.01',
                                             '545.29.06', '550.163.01', '555.58.02', '560.35.03', '565.77',
                                             '570.211.01', '575.64.05', '580.142', '590.48.01', '595.45.04']),
        'extract': xid_extract, 'prefix': xid_prefix,
        'how': 'every code nverror.h defines, as kernel_rc.c prints it: "NVRM: Xid (PCI:%s): %d, pid=%s, '
               'name=%s, %s"; the last tag of each driver branch',
    }),
    ('hami', {
        'braces': True,
        'repo': 'Project-HAMi+HAMi-core',
        'title': 'HAMi-core (libvgpu.so, the CUDA/NVML interposer of HAMi GPU sharing) error and warning messages',
        # no release tags: the last commit before each date
        'revs': OrderedDict((d.replace('-', '.'), ('date', d)) for d in
                            ['2024-06-30', '2025-01-31', '2025-07-31', '2026-01-31', '2026-06-30']),
        'extract': hami_extract, 'prefix': hami_prefix,
        'how': 'LOG_ERROR / LOG_WARN of src/ ("[HAMI-core ERROR (pid:%d thread=%ld %s:%d)]: " and '
               '"[HAMI-core Warn(%d:%ld:%s:%d)]: "); the repository has no tags: the last commit before each date',
    }),
    ('nhc', {
        'braces': True,
        'repo': 'Azure+azurehpc-health-checks',
        'title': 'Azure HPC node health checks (NHC) failure messages',
        'revs': OrderedDict([('0.2.9', 'v0.2.9'), ('0.4.0', 'v0.4.0'), ('0.4.5', 'v0.4.5')]),
        'extract': nhc_extract, 'prefix': nhc_prefix,
        'how': 'die 1 "..." of customTests/*.nhc, printed by NHC as "ERROR:  nhc:  Health check failed:  MSG" '
               '($FUNCNAME resolved, every other shell expansion {})',
    }),
    ('tgi', {
        'braces': True,
        'repo': 'huggingface+text-generation-inference',
        'title': 'text-generation-inference launcher error and warning messages',
        'revs': OrderedDict([('1.0.3', 'v1.0.3'), ('1.4.5', 'v1.4.5'), ('2.0.4', 'v2.0.4'), ('2.4.1', 'v2.4.1'),
                             ('3.0.2', 'v3.0.2'), ('3.3.7', 'v3.3.7')]),
        'extract': tgi_extract, 'prefix': tgi_prefix,
        'how': 'tracing::error! / tracing::warn! of launcher/src with a literal message (Rust {name} arguments as {}); '
               'printed by tracing_subscriber as "TIME LEVEL text_generation_launcher: MSG"',
    }),
    ('slurm', {
        'braces': True,
        'repo': 'SchedMD+slurm',
        'title': "Slurm failure messages of srun, sbatch, the step launch API and slurmstepd (task exits, signals, "
                 "cgroup OOM, cancellations, PMI2/PMIx, launch and connection errors)",
        # the last tag of each release, 17.11 .. 26.05
        'revs': OrderedDict((t.split('-')[1] + '.' + t.split('-')[2], t) for t in [
            'slurm-17-11-13-2', 'slurm-18-08-9-1', 'slurm-19-05-8-1', 'slurm-20-02-7-1', 'slurm-20-11-9-1',
            'slurm-21-08-8-2', 'slurm-22-05-11-1', 'slurm-23-02-8-1', 'slurm-23-11-11-1', 'slurm-24-05-8-1',
            'slurm-24-11-7-1', 'slurm-25-05-8-1', 'slurm-25-11-7-1', 'slurm-26-05-3-1']),
        'extract': slurm_extract, 'prefix': slurm_prefix,
        'how': 'error() / fatal() of ' + ', '.join(SLURM_DIRS) + ', and the info() lines of srun and the step launch '
               'API with a failure word; printed by log.c as "PROG: error: MSG" (PROG srun, sbatch or slurmstepd); '
               '%pJ/%ps/%pS as {}; srun\'s "%s: %s %s: %s%s" task record one row per strsignal() text',
    }),
    ('openmpi', {
        'braces': True,
        'repo': 'open-mpi+ompi',
        'title': "Open MPI's help messages about launching, process exits, the out-of-band TCP wire-up, mapping and binding, "
                 "and the btl/pml/mtl transports (openib, tcp, vader/sm, smcuda, uct, ucx, ofi)",
        'revs': OrderedDict((v[1:], v) for v in ['v3.1.6', 'v4.0.7', 'v4.1.8', 'v5.0.10']),
        'extract': ompi_extract, 'prefix': help_prefix,
        'how': 'the first line of every topic of the help files under ' + OMPI_HELP.replace('\\', '') + ' (opal_show_help '
               'prints the topic in a box of dashes, %s filled), and the hand-drawn box of orte/mca/oob/tcp/oob_tcp_connection.c; '
               'the topic names are in the note; from 5.0 mpirun is PRRTE\'s (prrte.tsv)',
    }),
    ('prrte', {
        'braces': True,
        'repo': 'openpmix+prrte',
        'title': "PRRTE's help messages (prterun / prun, the launcher of Open MPI 5): process exits, daemon launch, the TCP "
                 "wire-up, mapping",
        'revs': OrderedDict((v[1:], v) for v in ['v3.0.13', 'v4.1.0']),
        'extract': prrte_extract, 'prefix': help_prefix,
        'how': 'the first line of every topic of ' + PRRTE_HELP.replace('\\', '') + ' and the hand-drawn box of '
               'src/mca/oob/tcp/oob_tcp_connection.c',
    }),
    ('pmix', {
        'braces': True,
        'repo': 'openpmix+openpmix',
        'title': "OpenPMIx's help messages of its runtime, server and transport (PMIx_Init and server start-up failures)",
        'revs': OrderedDict((v[1:], v) for v in ['v3.2.5', 'v4.2.9', 'v5.0.10', 'v6.1.0']),
        'extract': pmix_extract, 'prefix': help_prefix,
        'how': 'the first line of every topic of ' + PMIX_HELP.replace('\\', ''),
    }),
    ('dcgm', {
        'braces': True,
        'repo': 'NVIDIA+DCGM',
        'title': "DCGM's diagnostic failure reasons (dcgmi diag: ECC, retired pages and row remapping, Xid, NVLink and "
                 "NVSwitch, PCIe, P2P, thermal and power, fabric and IMEX state, and the diagnostic's own errors)",
        'revs': OrderedDict((v[1:], v) for v in ['v2.1.4', 'v2.4.7', 'v3.1.8', 'v3.3.9', 'v4.0.0', 'v4.2.3', 'v4.4.2',
                                                 'v4.6.0']),
        'extract': dcgm_extract, 'prefix': dcgm_prefix,
        'how': 'every DCGM_FR_<NAME>_MSG of dcgmlib/dcgm_errors.h (the names in the note); dcgmi diag shows the reason '
               'in its table cut every 45 characters, or whole in -j JSON; the last tag of each minor release',
    }),
    ('ucx', {
        'braces': True,
        'repo': 'openucx+ucx',
        'title': "UCX error messages of the transports and protocol layer an NCCL (UCX net plugin) or MPI job reaches",
        'revs': OrderedDict((v[1:], v) for v in ['v1.10.1', 'v1.12.1', 'v1.14.1', 'v1.16.0', 'v1.18.1', 'v1.20.1']),
        'extract': ucx_extract, 'prefix': ucx_prefix,
        'how': 'ucs_error() of ' + ', '.join(d[4:] for d in UCX_DIRS) + ', printed as "[TIME] [HOST:PID:TID] '
               'FILE:LINE UCX  ERROR MSG" (the crash handler\'s lines are not these)',
    }),
])
HAND_KEPT = ['kernel', 'fabricmanager', 'vllm', 'sglang', 'trtllm', 'xla', 'k8s']


# ---------------------------------------------------------------- mapping

def load_map():
    rules = []
    path = os.path.join(HERE, 'infra_coverage_map.tsv')
    with open(path, encoding='utf-8') as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            c = line.split('\t')
            if len(c) < 5:
                sys.exit(f'{path}:{n}: want family, file-regex, level-regex, format-regex, mapping[, note[, args]]')
            c += [''] * (7 - len(c))
            try:
                rules.append({'family': c[0], 'file': re.compile(c[1]), 'level': re.compile(c[2]),
                              'fmt': re.compile(c[3]), 'mapping': c[4], 'note': c[5],
                              'args': c[6].split('|') if c[6] else [], 'line': n, 'used': 0})
            except re.error as e:
                sys.exit(f'{path}:{n}: {e}')
    return rules


def map_row(rules, fam, file, level, fmt):
    for r in rules:
        if re.fullmatch(r['family'], fam) and r['file'].search(file) and r['level'].fullmatch(level) and r['fmt'].search(fmt):
            r['used'] += 1
            return r
    return None


def fill(fmt, args):
    """The format with its printf conversions (nccl_strings.instantiate) and then its
    {} values filled from args, left to right (defaults: 1 and x)."""
    left = list(args)
    fmt = fmt.replace('\\\\', '\x00')  # an escaped backslash, as braces() reads it
    n_conv = len(ns.PIECE.findall(fmt.split('\\n')[0]))
    text = ns.instantiate(fmt, left[:n_conv] if '{}' in fmt else left).replace('\x00', '\\')
    rest = left[n_conv:] if '{}' in fmt else []
    while '{}' in text:
        text = text.replace('{}', rest.pop(0) if rest else 'x', 1)
    return text


def braces(fmt):
    """A printf format as a braces table writes it: every conversion and <#macro> a {}, the
    message up to its first line break (the rest is printed on further lines)."""
    # an escaped backslash is no line break: the source's "(\\\\r\\\\n)" prints "(\\r\\n)"
    first = next((p for p in fmt.replace('\\\\', '\x00').split('\\n') if p.strip()), '')
    first = first.replace('\\"', '"').replace('\\t', ' ').replace('\x00', '\\')
    return re.sub(ns.CONV + r'|<#\w+>', lambda m: '%' if m.group(0) == '%%' else '{}', first)


def sample_of(fam, rule, row):
    prefix = FAMILIES[fam]['prefix'](row['level'], row)
    # a "%s: ..." message whose first value is __func__ names its function (Slurm)
    args = ([row['func']] if row.get('func') else []) + rule['args']
    return prefix + fill(row['format'], args)


def generate(fam, gd):
    spec = FAMILIES[fam]
    rows = OrderedDict()
    for ver, rev in spec['revs'].items():
        if isinstance(rev, tuple):
            rev = rev_before(gd, rev[1])
        for (path, level, f), info in spec['extract'](gd, rev, ver).items():
            key = (path, level, f)
            r = rows.get(key)
            if r is None:
                r = rows[key] = {'file': path, 'level': level, 'format': f, 'first': ver}
            r['last'] = ver
            r.update(info)
    return rows


def render(fam, rows, rules):
    spec = FAMILIES[fam]
    vers = list(spec['revs'])
    out = [f'# {spec["title"]}, extracted by scripts/infra_coverage.py from github.com/'
           f'{spec["repo"].replace("+", "/")} (releases {vers[0]} .. {vers[-1]}: {spec["how"]}).',
           '# first_release/last_release: the first and last of the releases read that have the exact string.',
           '# mapping rules: scripts/infra_coverage_map.tsv.  Generated: edit the rules and rerun, do not edit by hand.',
           '# releases: ' + ' '.join(vers)]
    if spec.get('braces'):
        # the component's own levels, {} for every value (coverage.h), derived rows proven by tests/coverage
        out += ['# style: braces', '# derived: checked']
    out.append('\t'.join(COLS))
    missing = []
    for key in sorted(rows, key=lambda k: (k[0], k[1] != 'WARN', rows[k]['line'], k[2])):
        r = rows[key]
        # a braces family's rules read the format as the table writes it
        rule = map_row(rules, fam, r['file'], r['level'], braces(r['format']) if spec.get('braces') else r['format'])
        if rule is None:
            missing.append(key)
            continue
        note = rule['note'].replace('{names}', r.get('names', ''))
        fmt = r['format']
        if spec.get('braces'):
            fmt = braces(fmt)
        out.append('\t'.join([r['file'], r['first'], r['last'], r['level'], fmt.replace('\t', '\\t'),
                              rule['mapping'], note, sample_of(fam, rule, r)]))
    if missing:
        sys.exit('%s: %d rows no rule maps, e.g. %s' % (fam, len(missing), missing[:3]))
    return '\n'.join(out) + '\n'


# ---------------------------------------------------------------- --check

def read_table(path):
    head, rows = [], []
    with open(path, encoding='utf-8') as f:
        for raw in f:
            line = raw.rstrip('\n')
            if line.startswith('#') or line.startswith('file\t') or not line:
                head.append(line)
                continue
            rows.append(line.split('\t'))
    return head, rows


def check(fams):
    rules = load_map()
    bad = 0
    for fam in fams:
        path = os.path.join(TABLES, fam + '.tsv')
        if not os.path.exists(path):
            print(f'FAIL {fam}: {path} does not exist')
            bad += 1
            continue
        head, rows = read_table(path)
        bad0 = bad
        for i, r in enumerate(rows):
            if len(r) != 8:
                print(f'FAIL {path}: row {i + 1}: {len(r)} columns')
                bad += 1
        if fam in HAND_KEPT:
            for r in rows:
                # a URL, a commit, a source path with an extension, a learn-half report, or a capture
                if len(r) == 8 and not re.search(r'https?://|@[0-9a-f]{7,}|\w/[\w./-]*\.\w+|\b\w+\.(?:c|cc|h|py|rs|nhc)\b|'
                                                 r'tests/learn/|corpus-[ab] \S+\.log|shared/captures/|search-tool file ids? \d+', r[0] + ' ' + r[6]):
                    print(f'FAIL {path}: row "{r[4][:60]}" cites no source (file or note)')
                    bad += 1
            want = sorted(rows, key=lambda r: (r[0], r[4]))
            if want != rows:
                print(f'FAIL {path}: rows are not sorted by file and message (rerun with --normalise)')
                bad += 1
            if bad == bad0:
                print(f'ok   {fam}: hand-kept, {len(rows)} rows, each citing its source')
            continue
        for r in rows:
            if len(r) != 8:
                continue
            row = {'file': r[0], 'first': r[1], 'last': r[2], 'level': r[3], 'format': r[4].replace('\\t', '\t')}
            rule = map_row(rules, fam, row['file'], row['level'], row['format'])
            if rule is None:
                print(f'FAIL {path}: "{r[4][:60]}": no rule maps it (stale: rerun the script)')
                bad += 1
                continue
            if rule['mapping'] != r[5] or not re.fullmatch(re.escape(rule['note']).replace(r'\{names\}', '.*'), r[6]):
                print(f'FAIL {path}: "{r[4][:60]}": the rules give {rule["mapping"]}, the table {r[5]} (stale)')
                bad += 1
        gd = os.path.join(MIRRORS, FAMILIES[fam]['repo'], 'repo')
        if os.path.isdir(gd):
            fresh = render(fam, generate(fam, gd), rules)
            if fresh != open(path, encoding='utf-8').read():
                print(f'FAIL {path}: differs from what the mirror {gd} gives (stale: rerun the script)')
                bad += 1
            else:
                print(f'ok   {fam}: regenerated from {gd}, identical')
        else:
            print(f'ok   {fam}: re-mapped from the rules ({len(rows)} rows; no mirror at {gd}: not regenerated)')
    return bad


def normalise(fam):
    path = os.path.join(TABLES, fam + '.tsv')
    head, rows = read_table(path)
    rows.sort(key=lambda r: (r[0], r[4]))
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(head + ['\t'.join(r) for r in rows]) + '\n')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('family', nargs='*')
    ap.add_argument('--mirror')
    ap.add_argument('-o', '--output')
    ap.add_argument('--check', action='store_true')
    ap.add_argument('--normalise', action='store_true')
    ap.add_argument('--unused', action='store_true', help='list rules no row used')
    a = ap.parse_args()
    if a.check:
        fams = a.family or list(FAMILIES) + HAND_KEPT
        sys.exit(1 if check(fams) else 0)
    for fam in a.family:
        if a.normalise or fam in HAND_KEPT:
            normalise(fam)
            continue
        if fam not in FAMILIES:
            sys.exit(f'unknown family {fam}; generated: {", ".join(FAMILIES)}; hand-kept: {", ".join(HAND_KEPT)}')
        gd = a.mirror or os.path.join(MIRRORS, FAMILIES[fam]['repo'], 'repo')
        rules = load_map()
        text = render(fam, generate(fam, gd), rules)
        out = a.output or os.path.join(TABLES, fam + '.tsv')
        with open(out, 'w', encoding='utf-8') as f:
            f.write(text)
        if a.unused:
            for r in rules:
                if re.fullmatch(r['family'], fam) and not r['used']:
                    print(f'unused rule: infra_coverage_map.tsv:{r["line"]}', file=sys.stderr)


if __name__ == '__main__':
    main()
