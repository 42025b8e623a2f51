#!/bin/sh
# tests/floor/run.sh BIN - the floor (docs/derived.md, "The floor") against the
# full tool on the learn set (tests/learn/expected*.tsv; never tests/blind):
# for every failure row, the JSON's "floor" category (the keyword tier alone)
# and the tool's top category (the first diagnosis of severity error or
# warning, as tests/accuracy scores it, the rank aside).  Fails on any row
# where the floor alone is right and the tool is wrong: then the keyword
# tier knows something the tool does not use; tests/floor/known.tsv lists the
# rows that are so today with the reason (and fails when one no longer is).
# Prints the floor's figures.
BIN=${1:-./nccl-triage}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TAB=$(printf '\t')
cat tests/learn/expected*.tsv | while IFS="$TAB" read -r path want rank mode; do
	case "$path" in ''|'#'*) continue ;; esac
	[ -e "$path" ] && printf '%s\t%s\n' "$path" "$want"
done | sort -u > "$TMP/rows"
[ -s "$TMP/rows" ] || { echo "no learn rows"; echo "0 passed, 1 failed"; exit 1; }
cut -f1 "$TMP/rows" | tr '\n' '\0' | xargs -0 "$BIN" analyze -q --format json > "$TMP/out.json" 2>/dev/null
python3 - "$TMP/rows" "$TMP/out.json" tests/floor/known.tsv <<'PY'
import json, sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
known = {l.split('\t')[0] for l in open(sys.argv[3]) if l.strip() and not l.startswith('#')}
doc = json.load(open(sys.argv[2]))
by = {b['name']: b for b in doc['bundles']}
fails = total = floor_right = tool_right = both = named = 0
only_floor, only_tool = [], []
for path, want in rows:
    if want in ('healthy', 'no_evidence', 'unknown_failure', 'diagnosed'):
        continue
    b = by.get(path)
    if b is None:
        print('missing from the report:', path); fails += 1; continue
    total += 1
    top = next((d['category'] for d in b['diagnoses'] if d['severity'] in ('error', 'warning')), b['verdict'])
    if b['verdict'] == 'healthy':
        top = 'healthy'
    fl = (b.get('floor') or {}).get('category')
    named += fl is not None
    f_ok, t_ok = fl == want, top == want
    floor_right += f_ok; tool_right += t_ok; both += f_ok and t_ok
    if f_ok and not t_ok:
        only_floor.append((path, want, top, b['floor']['keyword'], b['floor']['evidence']))
    if t_ok and not f_ok:
        only_tool.append(path)
print(f'floor: {floor_right}/{total} failure reports right (a keyword on {named}), the tool {tool_right}/{total}; '
      f'both {both}, the tool alone {len(only_tool)}, the floor alone {len(only_floor)}')
new = 0
for p, w, t, k, e in only_floor:
    tag = 'known' if p in known else 'FLOOR RIGHT, TOOL WRONG'
    new += p not in known
    print(f'{tag}  {p}: want {w}, the tool says {t}; the floor read "{k}" at {e}')
stale = sorted(known - {p for p, *_ in only_floor})
for p in stale:
    print(f'STALE tests/floor/known.tsv row (no longer floor-only): {p}')
fails += new + len(stale)
print(f'{total - new} passed, {fails} failed')
sys.exit(1 if fails else 0)
PY
