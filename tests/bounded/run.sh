#!/bin/sh
# tests/bounded/run.sh BINARY - issue 27, bounded work on every input: each
# reproducer of the issue at the command line, bounded by a count (entries
# kept, bytes written, the messages that count what was dropped) or by
# memory (ulimit -v, in the normal build: the sanitizers reserve address
# space), never by time.  The unit-level reproducers (work counters of the
# rank timelines, facts.env, the rules, merge's tables, the CI filter, the
# names budget) are in tests/unit/test_bounded.c.
#   1  communicators, members, uniqueId waits: capped and counted
#   2  "set by environment" lines: 4096 variables, 1 KiB of a value
#   4  a padded line does not switch a signature off; check-db's probe
#   5  a tar of long member names: memory, output bytes
#   6  workflow commands from a bundle's names and text, every format
#   7  merge: a hostile line, bad numbers, control characters
#   8,9 long lines: captures cut
#   10 hard links read once
#   11 an NCCL WARN without file:line; exit records of one process
# Ends with "N passed, N failed".
unset RUNNER_TEMP # the github format counts a job's annotations there (cli/formats.c)
BIN=${1:-./nccl-triage}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
PASS=0
FAIL=0
T=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
SAN=0
case "$BIN" in *-asan | *-tsan) SAN=1 ;; esac

ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -n 15 | sed 's/^/     /'; }
check() { # check NAME COND-COMMAND...
	name=$1; shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}
# $T/py FILE EXPR: EXPR with d = the JSON document in FILE, b = its first bundle
cat >"$T/py" <<'EOF'
#!/usr/bin/env python3
import json, sys
try:
    d = json.load(open(sys.argv[1], encoding="utf-8"))
except Exception as e:
    print("invalid JSON:", e); sys.exit(1)
b = d["bundles"][0] if isinstance(d, dict) and "bundles" in d else d
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
chmod +x "$T/py"
py() { "$T/py" "$@"; }
size() { wc -c <"$1" | tr -d ' '; }
WARN='ubuntu:39964:40075 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 10.0.0.2<45763> failed : Software caused connection abort'

# ---------------------------------------------------------------------------
# 1. communicators: 20000 distinct commIds, 20000 uniqueId waits of distinct roots
# ---------------------------------------------------------------------------
awk 'BEGIN{for(i=0;i<20000;i++) printf "host0:1:1 [0] NCCL INFO comm 0x%x rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 10 commId 0x%x - Init START\n", i+4096, i+1}' >"$T/comms.log"
"$BIN" analyze --format json -o "$T/comms.json" "$T/comms.log" 2>"$T/comms.err"
check "1 20000 communicators: 4096 followed, the others counted in the timeline warning" \
	sh -c "grep -q 'more than 4096 communicators: 15904 Init lines of the others were matched but not placed on rank timelines' '$T/comms.err' && '$T/py' '$T/comms.json' 'len(b[\"communicators\"]) == 4096'"
awk 'BEGIN{for(i=0;i<3;i++) print "[1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '"'"'0'"'"', but store->get('"'"'0'"'"') got error: timeout"}' >"$T/uid.log"
"$BIN" analyze --format json -o "$T/uid.json" "$T/uid.log" 2>/dev/null
check "1 one waiter for one root, three lines: 'rank 1', not 'ranks 1, 1, 1'" \
	py "$T/uid.json" "any('rank 1 waited for the ncclUniqueId' in e['text'] for x in b['diagnoses'] for e in x['evidence'])"
awk 'BEGIN{for(i=0;i<8000;i++) printf "host0:%d:1 [0] NCCL INFO comm 0x1 rank 0 nranks 999999 cudaDev 0 nvmlDev 0 busId 10 commId 0x%x - Init START\n", i%4000+1, i+1}' >"$T/nranks.log"
"$BIN" analyze --format json -o "$T/nranks.json" "$T/nranks.log" 2>/dev/null
check "3 nranks 999999: the missing ranks listed from the gaps (999998 in all)" \
	py "$T/nranks.json" "any('(999998 in all)' in x['title'] for x in b['diagnoses'])"

# ---------------------------------------------------------------------------
# 2. NCCL_X set by environment to Y
# ---------------------------------------------------------------------------
awk 'BEGIN{for(i=0;i<20000;i++) printf "host0:1:1 [0] NCCL INFO NCCL_X%06d set by environment to 1\n", i}' >"$T/env.log"
"$BIN" analyze --format json -o "$T/env.json" "$T/env.log" 2>"$T/env.err"
check "2 20000 variables: 4096 kept, the rest counted" \
	sh -c "grep -q 'more than 4096 environment variables: 15904 \"set by environment\" lines of others were not kept' '$T/env.err' && '$T/py' '$T/env.json' 'len(b[\"facts\"][\"env\"]) == 4096'"
python3 -c "
import sys
v = 'a' * 60000
with open(sys.argv[1], 'w') as f:
    for i in range(300):
        f.write('host0:1:1 [0] NCCL INFO NCCL_V%04d set by environment to %s\n' % (i, v))" "$T/envv.log"
"$BIN" analyze --format json -o "$T/envv.json" "$T/envv.log" 2>/dev/null
n=$(size "$T/envv.json")
check "2 300 values of 60 kB (18 MB): 1 KiB of each kept, $n bytes of JSON (the whole values: 18 MB)" \
	sh -c "[ $n -lt 2000000 ] && '$T/py' '$T/envv.json' 'b[\"facts\"][\"env\"][\"NCCL_V0001\"][\"length\"] == 60000'"

# ---------------------------------------------------------------------------
# 4. padded lines: the line and the next still diagnosed; check-db's probe
# ---------------------------------------------------------------------------
for nb in 1450 65000; do
	python3 -c "import sys; sys.stdout.write(sys.argv[1] + ' ' * int(sys.argv[2]) + 'x\n' + sys.argv[1] + '\n')" "$WARN" $nb >"$T/pad.log"
	"$BIN" analyze --format json -o "$T/pad.json" "$T/pad.log" 2>"$T/pad.err"
	check "4 a failure message, $nb blanks and a character: diagnosed, both lines, no limit hit" \
		sh -c "! grep -q 'match limit' '$T/pad.err' && '$T/py' '$T/pad.json' 'b[\"diagnoses\"][0][\"id\"] == \"socket.connect_failed\" and b[\"diagnoses\"][0][\"evidence_total\"] == 2'"
done
mkdir -p "$T/lazy"
cat >"$T/lazy/u.json" <<'EOF'
{"family": "user", "description": "a lazy capture before the end of the line",
 "signatures": [{"id": "u.lazy", "on": "any", "regex": "failed ?: (?<error>.+?)\\s*$",
   "samples": [{"line": "Call to connect failed : refused", "captures": {"error": "refused"}}],
   "negative_samples": ["b"]}],
 "diagnoses": [{"id": "u.d", "category": "OTHER", "severity": "warning", "role": "root",
   "confidence": 0.1, "title": "t", "explanation": "e", "fix": ["f"], "when": {"any": ["u.lazy"]}}]}
EOF
"$BIN" check-db "$T/lazy" >/dev/null 2>"$T/lazy.err"; rc=$?
check "4 check-db: a lazy capture before \\s*\$ fails the padded-line probe (exit $rc)" \
	sh -c "[ $rc -ne 0 ] && grep -q 'followed by 65000 blanks and a character' '$T/lazy.err'"
"$BIN" check-db >/dev/null 2>"$T/db.err"; rc=$?
check "4 check-db: every built-in signature passes the probe (exit $rc)" sh -c "[ $rc -eq 0 ] && ! grep -q 'blanks and a character' '$T/db.err'"

# ---------------------------------------------------------------------------
# 5. 20000 members of 4000-byte names (a 0.5 MB .tar.gz)
# ---------------------------------------------------------------------------
python3 -c "
import gzip, io, sys, tarfile
with gzip.GzipFile(fileobj=open(sys.argv[1], 'wb'), mode='wb', mtime=0) as gz:
    with tarfile.open(fileobj=gz, mode='w', format=tarfile.PAX_FORMAT) as t:
        for i in range(20000):
            ti = tarfile.TarInfo(('d/' + ('n%06d' % i) * 600)[:4000] + '.log'); ti.size = 2; ti.mtime = 0
            t.addfile(ti, io.BytesIO(b'x\n'))" "$T/names.tar.gz"
"$BIN" analyze -j1 --format json -o "$T/names.json" "$T/names.tar.gz" 2>"$T/names.err"
n=$(size "$T/names.json")
check "5 long names: $n bytes of JSON (names kept whole: 82 MB), the cut said once" \
	sh -c "[ $n -lt 10000000 ] && [ \$(grep -c 'the document names of this bundle reached 1048576 bytes' '$T/names.err') = 1 ]"
check "5 ... every member is a document, names unique" \
	py "$T/names.json" "len(b['inputs']) == 20000 and len(set(i['path'] for i in b['inputs'])) == 20000"
if [ "$SAN" = 0 ]; then
	(ulimit -v 200000; ulimit -c 0; "$BIN" analyze -j1 --format json "$T/names.tar.gz" >/dev/null 2>"$T/names.err"); rc=$?
	check "5 ... analysed within 200 MB of address space (it took 255 MB of memory, 1.25 GB for 100000; exit $rc)" [ $rc -eq 0 ]
	(ulimit -v 150000; ulimit -c 0; "$BIN" analyze -j1 --format text "$T/names.tar.gz" >/dev/null 2>/dev/null); rc=$?
	check "5 ... and as text within 150 MB (exit $rc)" [ $rc -eq 0 ]
fi

# ---------------------------------------------------------------------------
# 6. GitHub workflow commands in names and log text
# ---------------------------------------------------------------------------
mkdir -p "$T/ci"
printf '%s\n##[error]forged by log text\n' "$WARN" >"$T/ci/##[error]x.log"
printf '%s\n' "$WARN" >"$T/ci/::error::y.log"
printf '%s\n' "$WARN" >"$T/ci/##[stop-commands]tok.log"
head -c 70000 /dev/urandom >"$T/ci/##[warning]bin.log"
for fmt in text md github json html junit sarif; do
	"$BIN" analyze --format $fmt -o "$T/ci.$fmt" "$T/ci" 2>"$T/ci.$fmt.err"
	# what GitHub's runner reads: "##[" anywhere, "::" at the start of a line (after blanks)
	n=$(cat "$T/ci.$fmt" "$T/ci.$fmt.err" | grep -c '##\[')
	if [ $fmt = github ]; then
		l=$(grep -E '^[[:space:]]*::' "$T/ci.$fmt" | grep -cvE '^::(error|warning|notice) ')
	else
		l=$(cat "$T/ci.$fmt" "$T/ci.$fmt.err" | grep -cE '^[[:space:]]*::')
	fi
	check "6 --format $fmt: no '##[' ($n) and no line-leading '::' of the bundle ($l), report and stderr" \
		sh -c "[ $n = 0 ] && [ $l = 0 ] && [ -s '$T/ci.$fmt' ]"
done
check "6 the JSON still holds the names as they are" \
	py "$T/ci.json" "sorted(i['path'] for i in b['inputs']) == ['##[error]x.log', '##[stop-commands]tok.log', '##[warning]bin.log', '::error::y.log']"
"$BIN" batch --format jsonl "$T/ci" >"$T/ci.jsonl" 2>/dev/null
"$BIN" merge --format text "$T/ci.jsonl" >"$T/ci.merge" 2>&1
check "6 batch jsonl and merge: no '##['" sh -c "! grep -q '##\\[' '$T/ci.jsonl' '$T/ci.merge'"

# ---------------------------------------------------------------------------
# 7. merge
# ---------------------------------------------------------------------------
python3 -c "
import sys
sys.stdout.write('{\"name\":\"b2\",\"verdict\":\"healthy\",\"inputs\":[' + ','.join(['{}'] * 2500000) + ']}\n')" >"$T/wide.jsonl"
"$BIN" merge "$T/wide.jsonl" >/dev/null 2>"$T/wide.err"; rc=$?
check "7 merge: a 7.5 MB line of 2.5 million objects refused by its tree's size (exit $rc)" \
	sh -c "[ $rc -eq 2 ] && grep -q 'line 1: its JSON needs more than 8 times its 7500044 bytes of memory' '$T/wide.err'"
if [ "$SAN" = 0 ]; then
	(ulimit -v 200000; ulimit -c 0; "$BIN" merge "$T/wide.jsonl" >/dev/null 2>"$T/wide.err"); rc=$?
	check "7 ... within 200 MB of address space (its tree took 27 times the line: 200 MB; exit $rc)" \
		sh -c "[ $rc -eq 2 ] && ! grep -q 'out of memory' '$T/wide.err'"
fi
cat >"$T/bad.jsonl" <<'EOF'
{"name":"b3\u001b]0;pwned\u0007\u001b[2J","verdict":"diagnosed","inputs":[{"bytes":-5},{"bytes":1e300}],"diagnoses":[{"id":"x\u001b[31mred","role":"root","category":"CAT\u001b]8;;http://evil\u0007"}],"evidence_counts":{"e1":-5,"e2":1e400},"input_errors":["\u001b[2Jerr"]}
{"summary":{"bundles":-5,"verdicts":{"healthy":1e300,"diagnosed":-1},"documents":1e999,"categories":{"C":-7},"fingerprints":[{"diagnosis":"f\u001b[5m","bundles":-2,"captures":{},"examples":["\u001b]0;x\u0007"]}]}}
EOF
"$BIN" merge --format text "$T/bad.jsonl" >"$T/bad.txt" 2>"$T/bad.err"
"$BIN" merge --format json "$T/bad.jsonl" >"$T/bad.json" 2>/dev/null
esc=$(printf '\033')
check "7 merge: no ESC or BEL reaches the terminal, no wrapped count" \
	sh -c "! grep -q '$esc' '$T/bad.txt' '$T/bad.err' && ! grep -q 1844674407 '$T/bad.txt' '$T/bad.json'"
check "7 merge: the bad counts are counted as such" grep -q 'counts were negative, not finite or over 2^53; counted as 0' "$T/bad.err"

# ---------------------------------------------------------------------------
# 8, 9. 200 lines of 64 KiB matched at their end: captures cut
# ---------------------------------------------------------------------------
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(200):
        f.write('host0:1:1 [0] misc/socket.cc:483 NCCL WARN socketStartConnect:\t' + 'a:' * 2000 + ' Connect to 10.0.0.2<45763> failed : ' + 'b' * 60000 + '\n')" "$T/long.log"
"$BIN" analyze --format json -o "$T/long.json" "$T/long.log" 2>/dev/null
n=$(size "$T/long.json")
check "8,9 200 matches with 60 kB captures: $n bytes of JSON (with whole captures: 1.4 MB)" \
	sh -c "[ $n -lt 400000 ] && '$T/py' '$T/long.json' 'all(len(v) <= 503 for x in b[\"diagnoses\"] for e in x[\"evidence\"] for v in e.get(\"captures\", {}).values())'"

# ---------------------------------------------------------------------------
# 10. one file, 80 hard links
# ---------------------------------------------------------------------------
mkdir -p "$T/hl"
awk 'BEGIN{for(i=0;i<20000;i++) print "host0:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM"}' >"$T/hl/a.log"
i=1
while [ $i -le 80 ]; do ln "$T/hl/a.log" "$T/hl/h$i.log"; i=$((i + 1)); done
"$BIN" analyze --format json -o "$T/hl.json" "$T/hl" 2>"$T/hl.err"
check "10 81 names of one file: one document of its size, the other names listed" \
	sh -c "'$T/py' '$T/hl.json' 'len(b[\"inputs\"]) == 1 and b[\"inputs\"][0][\"bytes\"] == $(size "$T/hl/a.log")' && grep -q 'hl/a.log: the same file (a hard link or a link inside the folder) is also .*hl/h1.log, .*(80 other names): read once' '$T/hl.err'"

# ---------------------------------------------------------------------------
# 11. small ones
# ---------------------------------------------------------------------------
printf 'host0:1:1 [0] NCCL WARN something odd happened here\n' >"$T/w.log"
"$BIN" analyze --format json -o "$T/w.json" "$T/w.log" 2>/dev/null; rc=$?
check "11 an NCCL WARN without file:line: unknown_failure (exit $rc), as with it" \
	sh -c "[ $rc -eq 1 ] && '$T/py' '$T/w.json' 'b[\"verdict\"] == \"unknown_failure\"'"
awk 'BEGIN{for(i=0;i<5000;i++) printf "E1130 14:16:26.028000 1183 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: 1) local_rank: 0 (pid: 1225) of binary: /usr/bin/python3\n"}' >"$T/ex.log"
"$BIN" analyze --format json -o "$T/ex.json" "$T/ex.log" 2>"$T/ex.err"
check "11 5000 exit records of one process: no 'more than 4096 processes'" \
	sh -c "! grep -q 'more than 4096' '$T/ex.err' && '$T/py' '$T/ex.json' 'len(b[\"ranks\"]) == 1'"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
