#!/bin/sh
# tests/flight/run.sh BINARY - PyTorch flight-recorder dumps (issue 28,
# docs/flight.md):
#   1  every case of fixtures/flight/expected.tsv (real dumps of torch 2.11
#      and synthetic multi-rank cases built from them): verdict, first root
#      diagnosis, its ranks, the headline
#   2  the differential with torch's own analyzer: its stored output
#      (fixtures/flight/torch/, made on the GPU machine) against this tool's
#      JSON, every case as fixtures/flight/torch/expected-diff.tsv records;
#      where torch is installed, fr_trace is run again on the same dumps
#   3  hostile and damaged dumps (fixtures/flight/bad): one line each naming
#      the file (and the byte offset), nothing executed, the other documents
#      of the bundle still analysed
#   4  the dumps next to a log in a .tar.gz; the log and the dumps agree
#   5  every format shows the dumps: text and Markdown tables, HTML lanes,
#      JSON section; batch summaries carry the headline
# Ends with "N passed, N failed".
BIN=${1:-./nccl-triage}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
F=fixtures/flight
PASS=0
FAIL=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ok() { PASS=$((PASS + 1)); }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -n 12 | sed 's/^/     /'; }
check() { name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }

# 1 the cases
grep -v '^#' $F/expected.tsv | while IFS='	' read -r c verdict diag ranks head; do
	"$BIN" analyze --format json "$F/$c" > "$T/o.json" 2> "$T/err"
	got=$(python3 - "$T/o.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["bundles"][0]
roots = [d for d in b["diagnoses"] if d["role"] == "root" and d["severity"] == "error"]
fr = b.get("flight_recorder") or {}
print("\t".join([b["verdict"], roots[0]["id"] if roots else "-",
                 ",".join(map(str, roots[0]["ranks"])) if roots else "-", fr.get("headline") or "-"]))
PY
)
	want="$verdict	$diag	$ranks	$head"
	case "$got" in
	"$want"*) echo "ok $c" ;;
	*) echo "FAIL $c: want [$want] got [$got]" ;;
	esac
done > "$T/cases"
n=$(grep -c '^ok' "$T/cases"); PASS=$((PASS + n))
if grep -q '^FAIL' "$T/cases"; then FAIL=$((FAIL + $(grep -c '^FAIL' "$T/cases"))); grep '^FAIL' "$T/cases"; fi

# 2 the differential with torch's analyzer
dir_of() { case "$1" in real_timeout) echo $F/real/timeout ;; real_pending) echo $F/real/ondemand/pending ;; *) echo $F/synthetic/$1 ;; esac; }
grep -v '^#' $F/torch/expected-diff.tsv | while IFS='	' read -r c want; do
	"$BIN" analyze --format json "$(dir_of "$c")" > "$T/$c.json" 2>/dev/null
	got=$(python3 tests/flight/torch_diff.py "$F/torch/$c.txt" "$T/$c.json")
	[ "$got" = "$want" ] && echo "ok" || echo "FAIL differential $c: recorded [$want] now [$got]"
done > "$T/diff"
PASS=$((PASS + $(grep -c '^ok' "$T/diff")))
if grep -q '^FAIL' "$T/diff"; then FAIL=$((FAIL + $(grep -c '^FAIL' "$T/diff"))); grep '^FAIL' "$T/diff"; fi
check "every stored torch output is of torch 2.11" grep -q 'torch 2.11' $F/torch/torch-version.txt
if python3 -c 'import torch.distributed.flight_recorder.fr_trace' 2>/dev/null; then
	sh $F/scripts/device-diff.sh "$T/fresh" >/dev/null 2>&1
	for f in "$T"/fresh/*.txt; do
		c=$(basename "$f" .txt); [ "$c" = torch-version ] && continue
		"$BIN" analyze --format json "$(dir_of "$c")" > "$T/x.json" 2>/dev/null
		want=$(grep "^$c	" $F/torch/expected-diff.tsv | cut -f2)
		got=$(python3 tests/flight/torch_diff.py "$f" "$T/x.json")
		check "fresh fr_trace run: $c" [ "$got" = "$want" ]
	done
else
	echo "note: torch is not installed here: the stored fr_trace outputs of the GPU machine were compared"
fi

# 3 hostile and damaged dumps, next to a good dump and its log
mkdir -p "$T/bad"
cp $F/bad/* $F/real/timeout/* "$T/bad/"
"$BIN" analyze --format json "$T/bad" > "$T/bad.json" 2> "$T/bad.err"
rc=$?
check "hostile dumps: exit 1 (the good dump still diagnosed)" [ $rc -eq 1 ]
for b in $F/bad/*; do
	n=$(basename "$b")
	check "hostile $n: one line naming it" sh -c "grep -c '^nccl-triage: $n: ' '$T/bad.err' | grep -qx 1"
done
check "GLOBAL refused with its offset and the global's name" grep -q 'global_os_system_1: offset 48: GLOBAL (0x63) names the Python global os.system: refused' "$T/bad.err"
check "REDUCE never reached: STACK_GLOBAL refused first" grep -q 'stack_global_2: offset [0-9]*: STACK_GLOBAL (0x93)' "$T/bad.err"
check "a cut dump says where the data ends" grep -q 'truncated_5: offset [0-9]*: .*the data ends at offset 1047' "$T/bad.err"
check "the good dump is still analysed" python3 -c "
import json; b = json.load(open('$T/bad.json'))['bundles'][0]
assert b['flight_recorder']['dumps_read'] == 1, b['flight_recorder']['dumps_read']
assert len(b['flight_recorder']['dumps_not_read']) == 12
assert b['diagnoses'][0]['id'] == 'flight.stalled'"
check "nothing executed: no file made by the exploit pickles" sh -c "! ls '$T'/bad/pwned* 2>/dev/null"

# 4 dumps next to a log, in a .tar.gz
mkdir -p "$T/ticket/logs" "$T/ticket/dumps"
cp $F/real/timeout/torchrun.log "$T/ticket/logs/"
cp $F/real/timeout/nccl_trace_rank_0 "$T/ticket/dumps/"
tar -C "$T" -czf "$T/ticket.tar.gz" ticket
"$BIN" analyze --format json "$T/ticket.tar.gz" > "$T/t.json" 2>/dev/null
check "tar.gz: the dump recognised by content, the log agrees with it" python3 -c "
import json; b = json.load(open('$T/t.json'))['bundles'][0]
k = {i['path']: i['kind'] for i in b['inputs']}
assert k['ticket/dumps/nccl_trace_rank_0'] == 'flight_recorder', k
fr = b['flight_recorder']
assert fr['log'] and all(l['agrees'] for l in fr['log']), fr['log']
assert any('SeqNum 7' in l['text'] for l in fr['log'])
assert b['diagnoses'][0]['id'] == 'flight.stalled'"
cp $F/real/timeout/nccl_trace_rank_0 "$T/renamed.bin.log"
"$BIN" analyze --format json "$T/renamed.bin.log" > "$T/r.json" 2>/dev/null
check "recognised by content, not by name" python3 -c "
import json; b = json.load(open('$T/r.json'))['bundles'][0]
assert b['inputs'][0]['kind'] == 'flight_recorder'"
# a log that disagrees: the watchdog's SeqNum edited (the dump is the real one)
mkdir -p "$T/dis"
sed 's/SeqNum=7,/SeqNum=5,/; s/work sequence id: 7 /work sequence id: 5 /' $F/real/timeout/torchrun.log > "$T/dis/torchrun.log"
cp $F/real/timeout/nccl_trace_rank_0 "$T/dis/"
"$BIN" analyze --format json "$T/dis" > "$T/d.json" 2>/dev/null
check "a log that disagrees with the dump is said to" python3 -c "
import json; b = json.load(open('$T/d.json'))['bundles'][0]
fr = b['flight_recorder']
assert any(not l['agrees'] and 'SeqNum 5' in l['text'] for l in fr['log']), fr['log']
assert any(d['id'] == 'flight.log_disagrees' for d in b['diagnoses'])"

# the watchdog's wording of torch 2.2-2.5 ("[PG 0 (default_pg) Rank 0] Timeout at NCCL work: 7, last
# enqueued NCCL work: 7, last completed NCCL work: 6.", ProcessGroupNCCL.cpp of those releases) in
# place of the 2.11 lines of the real log: the SeqNum and the counters are still compared
mkdir -p "$T/old"
cp $F/real/timeout/nccl_trace_rank_0 "$T/old/"
sed -e '/ProcessGroupNCCL.cpp:689\] \[Rank 0\] Watchdog caught/d' \
    -e 's/^\(\[rank0\]:\[E1202 07:40:46.759258443\) ProcessGroupNCCL.cpp:2303\].*/\1 ProcessGroupNCCL.cpp:1709] [PG 0 (default_pg) Rank 0] Timeout at NCCL work: 7, last enqueued NCCL work: 7, last completed NCCL work: 6./' \
    $F/real/timeout/torchrun.log > "$T/old/torchrun.log"
"$BIN" analyze --format json "$T/old" > "$T/old.json" 2>/dev/null
check "the watchdog wording of torch 2.2-2.5 agrees with the dump" python3 -c "
import json; b = json.load(open('$T/old.json'))['bundles'][0]
log = b['flight_recorder']['log']
assert len(log) == 2 and all(l['agrees'] for l in log), log
assert any('last enqueued 7, last completed 6' in l['text'] for l in log)"

# 5 formats
"$BIN" analyze --format text $F/synthetic/behind > "$T/o.txt" 2>/dev/null
check "text: the flight-recorder table" sh -c "grep -q '^Flight recorder' '$T/o.txt' && grep -q 'behind' '$T/o.txt'"
"$BIN" analyze --format md $F/synthetic/behind > "$T/o.md" 2>/dev/null
check "md: the flight-recorder table" sh -c "grep -q '^### Flight recorder' '$T/o.md' && grep -q '^| rank |' '$T/o.md'"
"$BIN" analyze --format html $F/synthetic/behind > "$T/o.html" 2>/dev/null
check "html: a lane per rank, the stop marked" sh -c "grep -q 'class=\"fr-lane' '$T/o.html' && grep -q 'fr-stop' '$T/o.html'"
mkdir -p "$T/fleet"
cp -r $F/synthetic/behind $F/synthetic/desync_op "$T/fleet/"
"$BIN" batch "$T/fleet" > "$T/batch.txt" 2>/dev/null
check "batch summary: the dumps' headline" grep -q 'hang: rank 2 behind at _all_gather_base #6' "$T/batch.txt"
"$BIN" batch --format json "$T/fleet" > "$T/batch.json" 2>/dev/null
check "batch json summary: flight_recorder headlines" python3 -c "
import json; s = json.load(open('$T/batch.json'))
s = s.get('summary', s)
h = [x['headline'] for x in s['flight_recorder']]
assert any(x.startswith('desync:') for x in h) and any(x.startswith('hang:') for x in h), h"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
