#!/usr/bin/env python3
"""nccl_defects.py - NCCL's known defects by release, from its git history.

usage: scripts/nccl_defects.py GIT_DIR [--map scripts/nccl_defects_map.tsv]
       [-o patterns/coverage/nccl_defects.tsv] [--list] [--stats]

GIT_DIR is a clone (or bare mirror) of github.com/NVIDIA/nccl.  For every
release tag from 2.3 to the newest (vX.Y.Z-N), the script reads the messages
of the commits between the previous tag and this one (`git log A..B`: the
release commit carries the release notes; between releases NCCL also merged
single fixes with their own messages) and takes every "Fix ..." entry: a
note line or bullet that starts with Fix/Fixes/Fixed, or that says it fixes
an issue ("(fix issue #1020)", "Fixes #1618").  A wrapped entry is joined
(a line that starts in lower case, or follows a line that does not end a
sentence, continues the entry before it).

Each entry is classified by the first rule of the map file
(scripts/nccl_defects_map.tsv) whose regex matches its text:

  matchable        a diagnosis of patterns/ keyed on the NCCL version plus
                   the symptom (the row names it; check-db proves it exists
                   and that its version range ends at the fixed release)
  not-observable   no log line tells this defect apart (the rule says why)

The map also holds defects that learn-half issue threads name and the notes
do not (rows that start with "thread"), each citing its thread.

The table (patterns/coverage/nccl_defects.tsv) has one row per entry:

  id release affected class mapping message phase result hardware feature env source commit

id is nccl-<tag>-<n> (nccl-2.19.4-1-03: the tag, and the entry's place in
its notes; thread-<repo>-<number> for a thread's defect);
release the first release that has the fix; affected the range of releases
with the defect (">=2.24 <2.26.2"; the lower bound is the rule's when the
note, a thread or the feature names it, else none is given; "none": fixed
before any release had it); mapping the diagnosis
id (matchable) or the reason (not-observable); message..env the symptom as
it shows in logs (empty: the note names none); source the note's text;
commit the commit that carries it.  `nccl-triage check-db` checks the
table.  Not run by make check (it needs the NCCL history); tests/coverage
reruns it when the mirror is present and fails when the table is stale.
"""
import argparse
import re
import subprocess
import sys


def git(gitdir, *args):
    return subprocess.run(['git', '--git-dir', gitdir] + list(args), capture_output=True,
                          check=True).stdout.decode('utf-8', 'replace')


def vkey(tag):
    m = re.match(r'v(\d+)\.(\d+)\.(\d+)-(\d+)$', tag)
    return tuple(int(x) for x in m.groups()) if m else None


def rel(tag):
    return '.'.join(str(x) for x in vkey(tag)[:3])


FIX = re.compile(r'^(?:fix|fixes|fixed|fixing)\b|\bfix(?:es|ed)?\s+(?:for\s+)?(?:github\s+)?(?:issue|pr|#\d)|'
                 r'\((?:github\s+)?issues?\s+#\d+\)\s*\.?$', re.I)
BULLET = re.compile(r'^\s*(?:[-*+\u2022]|\d+[.)])\s+')
STARTS = re.compile(r'(?:Fix|Fixes|Fixed|Add|Adds|Added|Remove|Removes|Make|Makes|Improve|Improves|Enable|Enables|'
                    r'Disable|Disables|Update|Updates|Support|Supports|Avoid|Avoids|Use|Uses|Reduce|Reduces|Set|Sets|'
                    r'Change|Changes|Allow|Allows|Rework|Increase|Increases|Move|Moves|Print|Prints|Report|Reports|'
                    r'Detect|Detects|Check|Checks|Prevent|Prevents|Handle|Handles|Clean|Optimize|Optimizes|Workaround|'
                    r'Work around|Revert|Reverts|Split|Limit|Limits|Introduce|Introduces|Replace|Replaces|Rename|'
                    r'Github|GithubIssue|GithubPR|Expose|Exposes|Return|Returns|Query|Restore|Skip|Skips)\b')
VERSION_LINE = re.compile(r'^(?:NCCL\s+)?v?\d+\.\d+\.\d+(?:-\d+)?(?:\s+Release)?(?:\s*\(#\d+\))?\s*$', re.I)


def entries(body):
    """The note entries of one commit message, in order."""
    out, cur = [], None
    lines = body.splitlines()
    for raw in lines:
        line = raw.rstrip()
        if not line.strip():
            if cur is not None:
                out.append(cur)
                cur = None
            continue
        if VERSION_LINE.match(line.strip()) or re.match(r'^\s*(?:Signed-off-by|Co-authored-by|Change-Id):', line):
            continue
        b = BULLET.match(line)
        text = line[b.end():].strip() if b else line.strip()
        if b or cur is None:
            if cur is not None:
                out.append(cur)
            cur = text
            continue
        # a continuation: a lower-case start, or the entry so far does not end
        # a sentence and this line does not start like a note ("Fix ...")
        if text[:1].islower() or text[:1] in '(["\'' or \
                (not re.search(r'[.:;!?)]$', cur) and not STARTS.match(text)):
            cur += ' ' + text
        else:
            out.append(cur)
            cur = text
    if cur is not None:
        out.append(cur)
    return [re.sub(r'\s+', ' ', e).strip() for e in out if e.strip()]


def fixes(gitdir, notes=()):
    """[(release, tag, n, text, commit)] for every release from 2.3; notes:
    [(release, regex)] entries that say no "Fix" but name a defect that a
    diagnosis is keyed on (the map's "note" rows)"""
    tags = sorted((t for t in git(gitdir, 'tag').split() if vkey(t) and vkey(t) >= (2, 3, 0, 0)), key=vkey)
    res = []
    used_notes = set()
    earlier = set()   # an entry repeated by a later release's log (merges, back-ports) is the first one's
    for i, t in enumerate(tags):
        rng = '%s..%s' % (tags[i - 1], t) if i else '%s~1..%s' % (t, t)
        log = git(gitdir, 'log', '--reverse', '--format=%H%x00%B%x01', rng)
        n = 0
        seen = set()
        for rec in log.split('\x01'):
            rec = rec.strip('\n')
            if not rec:
                continue
            commit, body = rec.split('\x00', 1)
            for e in entries(body):
                hits = [nn for nr, nx, nn in notes if nr == rel(t) and nx.search(e)]
                used_notes.update(hits)
                wanted = FIX.search(e) or hits
                if not wanted or e in seen or e in earlier:
                    continue
                seen.add(e)
                n += 1
                res.append((rel(t), t, n, e, commit))
        earlier |= seen
    for nr, nx, nn in notes:
        if nn not in used_notes:
            print('note of the map, line %d: no entry of %s matches %s' % (nn, nr, nx.pattern), file=sys.stderr)
    return tags, res


COLS = ['id', 'release', 'affected', 'class', 'mapping', 'message', 'phase', 'result', 'hardware', 'feature',
        'env', 'source', 'commit']
# map columns: kind, release-regex, text-regex, class, mapping, affected-min, message, phase, result,
# hardware, feature, env (thread rows: kind=thread, release, url, class, mapping, affected, ... , text)


def load_map(path):
    rules, threads, notes = [], [], []
    with open(path, encoding='utf-8') as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            c = line.split('\t')
            c += [''] * (13 - len(c))
            if c[0] == 'rule':
                try:
                    rules.append({'n': n, 'rel': re.compile(c[1] or '.'), 're': re.compile(c[2], re.I),
                                  'class': c[3], 'mapping': c[4], 'min': c[5], 'sym': c[6:12], 'used': 0})
                except re.error as e:
                    sys.exit('%s:%d: %s' % (path, n, e))
            elif c[0] == 'note':
                notes.append((c[1], re.compile(c[2], re.I), n))
                continue
            elif c[0] == 'thread':
                threads.append({'n': n, 'release': c[1], 'url': c[2], 'class': c[3], 'mapping': c[4],
                                'affected': c[5], 'sym': c[6:12], 'text': c[12]})
            else:
                sys.exit('%s:%d: want "rule", "note" or "thread" in the first column' % (path, n))
            if c[3] not in ('matchable', 'not-observable'):
                sys.exit('%s:%d: class "%s" is not matchable or not-observable' % (path, n, c[3]))
    return rules, threads, notes


def clean(s):
    """A note's text for the table: one line; the links it holds to GitHub
    threads written as plain issue numbers (the table cites the release
    note, not the threads, and tests/threadsplit checks every link)."""
    s = re.sub(r'https?://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/(\d+)', r'issue \1', s)
    s = re.sub(r'\b[\w.-]+/[\w.-]+#(\d+)', r'issue \1', s)
    return s.replace('\t', ' ').replace('\n', ' ')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('gitdir')
    ap.add_argument('--map', default='scripts/nccl_defects_map.tsv')
    ap.add_argument('-o', '--output', default='-')
    ap.add_argument('--list', action='store_true', help='print the entries only (no map)')
    ap.add_argument('--stats', action='store_true')
    a = ap.parse_args()
    rules, threads, notes = load_map(a.map) if not a.list else ([], [], [])
    tags, fx = fixes(a.gitdir, notes)
    if a.list:
        for r, t, n, e, c in fx:
            print('%s\t%d\t%s' % (r, n, e))
        return
    first = rel(tags[0])
    out = sys.stdout if a.output == '-' else open(a.output, 'w', encoding='utf-8')
    out.write('# NCCL defects by release, generated by scripts/nccl_defects.py from NVIDIA/nccl tags %s .. %s\n'
              % (first, rel(tags[-1])))
    out.write('# and the classification rules of %s: every "Fix ..." entry of the release notes (the\n'
              '# messages of the commits between two tags), and the defects learn-half threads name.\n' % a.map)
    out.write('# class: matchable (mapping = the diagnosis keyed on version + symptom) or not-observable\n'
              '# (mapping = why no log line tells it apart).  Generated: edit the rules and rerun.\n')
    out.write('# releases: %s\n' % ' '.join(rel(t) for t in tags))
    out.write('\t'.join(COLS) + '\n')
    stats = {}
    unclassified = 0
    for r, t, n, e, commit in fx:
        hit = None
        for ru in rules:
            if ru['rel'].fullmatch(r) and ru['re'].search(e):
                hit = ru
                break
        if hit is None:
            unclassified += 1
            cls, mp, lo, sym = 'not-observable', 'UNCLASSIFIED', '', [''] * 6
        else:
            hit['used'] += 1
            cls, mp, lo, sym = hit['class'], hit['mapping'], hit['min'], hit['sym']
        affected = 'none' if lo == 'none' else ('>=%s <%s' % (lo, r)) if lo else '<%s' % r
        row = ['nccl-%s-%02d' % (t[1:], n), r, affected, cls, mp] + sym + [clean(e), commit]
        out.write('\t'.join(row) + '\n')
        stats.setdefault(r, [0, 0])[0 if cls == 'matchable' else 1] += 1
    for th in threads:
        parts = th['url'].rstrip('/').split('/')
        row = ['thread-%s-%s' % (parts[-3], parts[-1]), th['release'], th['affected'], th['class'],
               th['mapping']] + th['sym'] + [clean(th['text']), th['url']]
        out.write('\t'.join(row) + '\n')
        stats.setdefault(th['release'], [0, 0])[0 if th['class'] == 'matchable' else 1] += 1
    if out is not sys.stdout:
        out.close()
    if a.stats:
        tm = sum(v[0] for v in stats.values())
        tn = sum(v[1] for v in stats.values())
        print('entries %d (+%d from threads): matchable %d, not observable %d, unclassified %d'
              % (len(fx), len(threads), tm, tn, unclassified), file=sys.stderr)
        for ru in rules:
            if not ru['used']:
                print('%s:%d: rule matches no entry' % (a.map, ru['n']), file=sys.stderr)
    if unclassified:
        sys.exit('%d entries match no rule of %s (rows with mapping UNCLASSIFIED)' % (unclassified, a.map))


if __name__ == '__main__':
    main()
