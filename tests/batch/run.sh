#!/bin/sh
# tests/batch/run.sh BINARY - batch and merge over a folder of archives built
# from the real captures in fixtures/captures, including damaged ones (empty,
# corrupt, truncated).  Checks: stable output order for -j1/-j2/-j4, damaged
# archives listed with their errors while the rest is analysed, merge of
# shards equal to one run, every JSONL line valid JSON with the analyze
# contract's bundle keys.  Ends with "N passed, N failed".
unset RUNNER_TEMP # the github format counts a job's annotations there (cli/formats.c)
BIN=${1:-./nccl-triage}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
DB="--no-builtin -p tests/db-min"
CAP=fixtures/captures/h200-2gpu
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { # check NAME CMD...: passes when CMD exits 0
	name=$1; shift
	if "$@"; then ok; else bad "$name"; fi
}

if [ ! -d "$CAP/scenarios" ]; then
	echo "fixtures/captures missing: run from the repository root"
	echo "0 passed, 1 failed"
	exit 1
fi

T=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
IN=$T/in
mkdir -p "$IN"

# --- the corpus: one archive per captured scenario, in every container kind ---
for d in "$CAP"/scenarios/*/; do
	n=$(basename "$d")
	tar czf "$IN/$n.tar.gz" -C "$CAP/scenarios" "$n"
done
tar cf "$IN/sys.tar" -C "$CAP" sys
tar czf "$IN/dup-again.tgz" -C "$CAP/scenarios" duplicate_gpu
gzip -c "$CAP/scenarios/bad_socket_ifname/run.log" > "$IN/socket-run.log.gz"
cp "$CAP/scenarios/ok/run.log" "$IN/plain-ok.log"
mkdir -p "$IN/folder-dup" && cp "$CAP/scenarios/duplicate_gpu/run.log" "$IN/folder-dup/"
# damaged ones
: > "$IN/zz-empty.gz"
: > "$IN/zz-empty.tar.gz"
gzip -c < /dev/null > "$IN/zz-empty-content.gz"
mkdir -p "$IN/zz-empty-folder"
head -c 4000 /dev/urandom > "$IN/zz-corrupt.tar.gz"
printf 'this is not a tar archive\n' > "$IN/zz-not-a.tar"
printf '\037\213\010\000\000\000\000\000\000\003garbage-garbage-garbage' > "$IN/zz-bad-deflate.gz"
full=$(wc -c < "$IN/ok.tar.gz")
head -c $((full / 2)) "$IN/ok.tar.gz" > "$IN/zz-truncated.tar.gz"
printf 'README: not a bundle\n' > "$IN/MANIFEST"
NB=$(ls "$IN" | grep -vc MANIFEST)

# --- stable order whatever -j ---
"$BIN" batch $DB -q --format jsonl -j1 "$IN" > "$T/j1.jsonl"; rc1=$?
"$BIN" batch $DB -q --format jsonl -j2 "$IN" > "$T/j2.jsonl"
"$BIN" batch $DB -q --format jsonl -j4 "$IN" > "$T/j4.jsonl"
"$BIN" batch $DB -q -j3 "$IN" > "$T/j3.txt"
"$BIN" batch $DB -q -j1 "$IN" > "$T/j1.txt"
check "exit status 1 (failures found) with damaged archives present, got $rc1" [ "$rc1" -eq 1 ]
check "-j1 and -j2 jsonl identical" cmp -s "$T/j1.jsonl" "$T/j2.jsonl"
check "-j1 and -j4 jsonl identical" cmp -s "$T/j1.jsonl" "$T/j4.jsonl"
check "-j1 and -j3 text identical" cmp -s "$T/j1.txt" "$T/j3.txt"
lines=$(wc -l < "$T/j1.jsonl")
check "one line per bundle ($NB) plus the summary, got $lines" [ "$lines" -eq $((NB + 1)) ]
names=$(head -n "$NB" "$T/j1.jsonl" | sed 's/^{"name":"\([^"]*\)".*/\1/' | sed "s|^$IN/||")
sorted=$(echo "$names" | LC_ALL=C sort)
check "bundles in sorted name order" [ "$names" = "$sorted" ]
check "MANIFEST (not an archive) skipped" sh -c "! grep -q MANIFEST '$T/j1.jsonl'"

# --- JSON validity and the analyze contract's keys ---
if command -v jq >/dev/null 2>&1; then
	n=0
	while IFS= read -r l; do
		n=$((n + 1))
		[ "$n" -gt "$NB" ] && break
		echo "$l" | jq -e 'has("name") and has("verdict") and has("inputs") and has("warnings") and has("facts") and has("diagnoses")
			and (.verdict | IN("healthy","diagnosed","unknown_failure","no_evidence"))
			and has("input_errors") and has("readable") and has("evidence_counts")' >/dev/null 2>&1 || { bad "jsonl line $n lacks contract keys"; n=-1; break; }
	done < "$T/j1.jsonl"
	[ "$n" -ge 0 ] && ok
	check "last line is the summary" sh -c "tail -n 1 '$T/j1.jsonl' | jq -e '.summary.bundles == $NB and .schema_version == 1 and (.db|has(\"version\"))' >/dev/null"
	check "--format json is one valid document with $NB bundles" sh -c "'$BIN' batch $DB -q --format json '$IN' | jq -e '(.bundles|length) == $NB and .summary.bundles == $NB' >/dev/null"
	S="$T/sum.json"
	tail -n 1 "$T/j1.jsonl" | jq .summary > "$S"
	check "diagnosed bundles found (dup GPU x3, socket x2)" sh -c "jq -e '.diagnoses[\"t.dup\"].bundles == 3 and .diagnoses[\"t.socket\"].bundles == 2' '$S' >/dev/null"
	check "category counts" sh -c "jq -e '.categories.DEVICE_ASSIGNMENT == 3 and .categories.SOCKET_NETWORK == 2' '$S' >/dev/null"
	check "fingerprint: t.dup with busid=60 in 3 bundles, with examples" sh -c \
		"jq -e '[.fingerprints[] | select(.diagnosis == \"t.dup\" and .captures.busid == \"60\" and .bundles == 3 and (.examples|length) == 3)] | length == 1' '$S' >/dev/null"
	check "evidence counts per signature" sh -c "jq -e '.evidence[\"t.dup_gpu\"].bundles == 3' '$S' >/dev/null"
	# damaged archives: listed with their error, the rest analysed
	for z in zz-empty.gz zz-empty.tar.gz zz-empty-content.gz zz-empty-folder zz-corrupt.tar.gz zz-not-a.tar zz-bad-deflate.gz zz-truncated.tar.gz; do
		check "$z listed in the summary's input errors" sh -c "jq -e --arg b '$IN/$z' '[.input_errors[] | select(.bundle == \$b and (.error|length) > 0)] | length == 1' '$S' >/dev/null"
	done
	check "no other input errors" sh -c "jq -e '.with_input_errors == 8' '$S' >/dev/null"
	check "unreadable: the 0-byte, corrupt, not-a-tar and bad-deflate archives" sh -c "jq -e '.verdicts.unreadable == 5' '$S' >/dev/null"
	check "truncated archive analysed as far as it goes" sh -c \
		"grep '\"name\":\"$IN/zz-truncated.tar.gz\"' '$T/j1.jsonl' | jq -e '.readable and (.inputs|length) > 0 and (.input_errors[0]|test(\"end of gzip\"))' >/dev/null"
	check "error messages say what is wrong" sh -c "jq -r '.input_errors[].error' '$S' | grep -q 'not a gzip file' && jq -r '.input_errors[].error' '$S' | grep -q 'empty file' && jq -r '.input_errors[].error' '$S' | grep -q 'not a tar archive'"
else
	echo "jq not installed: JSON checks skipped"
fi
check "text summary lists the input errors" grep -q "zz-corrupt.tar.gz: not a gzip file" "$T/j1.txt"
check "text summary has verdicts and fingerprints" sh -c "grep -q '^verdicts' '$T/j1.txt' && grep -q 'most frequent fingerprints' '$T/j1.txt'"

# --- merge of shards equals one run ---
"$BIN" batch $DB -q --summary-only --format json "$IN" > "$T/one.json"
"$BIN" batch $DB -q --summary-only "$IN" > "$T/one.txt"
ls "$IN" | grep -v MANIFEST | sed "s|^|$IN/|" > "$T/all"
split -n l/3 "$T/all" "$T/part."
i=0
for p in "$T"/part.*; do
	i=$((i + 1))
	"$BIN" batch $DB -q --format jsonl -j2 "@$p" > "$T/shard$i.jsonl"
done
"$BIN" merge --format json "$T"/shard*.jsonl > "$T/merged.json"
check "merge of 3 shards == one run (json)" cmp -s "$T/one.json" "$T/merged.json"
"$BIN" merge --format json "$T/shard3.jsonl" "$T/shard1.jsonl" "$T/shard2.jsonl" > "$T/merged-rev.json"
check "merge order does not matter" cmp -s "$T/one.json" "$T/merged-rev.json"
"$BIN" merge "$T"/shard*.jsonl > "$T/merged.txt"
check "merge of 3 shards == one run (text)" cmp -s "$T/one.txt" "$T/merged.txt"
# --summary-only builds a lighter object per bundle (report_bundle_summary_json):
# its summary and exit status are those of the whole objects, with the full
# database over the public tickets (diagnoses, captures, unexplained kinds)
if command -v jq >/dev/null 2>&1; then
	for fo in "" "--fail-on warning"; do
		r1=0; "$BIN" batch -q $fo --summary-only --format json tests/learn > "$T/so.json" || r1=$?
		r2=0; "$BIN" batch -q $fo --format json tests/learn > "$T/full.json" || r2=$?
		jq -c .summary "$T/so.json" > "$T/so.sum"; jq -c .summary "$T/full.json" > "$T/full.sum"
		check "summary-only == the whole reports' summary, tests/learn ${fo:-(default)}" sh -c \
			"[ $r1 = $r2 ] && [ -s '$T/so.sum' ] && grep -q fingerprints '$T/so.sum' && cmp -s '$T/so.sum' '$T/full.sum'"
	done
fi
# round robin split, summary-only shards, one gzipped
awk 'NR % 2 == 1' "$T/all" > "$T/odd"; awk 'NR % 2 == 0' "$T/all" > "$T/even"
"$BIN" batch $DB -q --summary-only --format jsonl "@$T/odd" > "$T/odd.jsonl"
"$BIN" batch $DB -q --format jsonl @- < "$T/even" | gzip > "$T/even.jsonl.gz"
"$BIN" merge --format json "$T/odd.jsonl" "$T/even.jsonl.gz" > "$T/merged2.json"
check "merge of summary-only + gzipped shards == one run" cmp -s "$T/one.json" "$T/merged2.json"
"$BIN" merge --format jsonl "$T"/shard*.jsonl > "$T/merged.jsonl"
check "merge --format jsonl: all bundle lines + one summary" [ "$(wc -l < "$T/merged.jsonl")" -eq $((NB + 1)) ]
# every format batch offers, from the same table: merge of the shards in
# order renders what one batch over the same list renders, byte for byte
for f in $("$BIN" batch --help | sed -n 's/.*output format: //p' | sed 's/ (default)//; s/,//g'); do
	check "merge --help offers batch's format $f" sh -c "'$BIN' merge --help | grep 'output format:' | grep -qw '$f'"
done
for f in md html junit sarif github; do
	"$BIN" batch $DB -q --format $f "@$T/all" > "$T/one.$f"
	"$BIN" merge --format $f "$T"/shard*.jsonl > "$T/merged.$f"
	check "merge of 3 shards == one run ($f)" sh -c "[ -s '$T/one.$f' ] && cmp -s '$T/one.$f' '$T/merged.$f'"
done
"$BIN" merge --format xml "$T/shard1.jsonl" > /dev/null 2> "$T/xml.err"; rc=$?
check "merge: a format batch does not offer is refused, exit 2 (got $rc)" sh -c "[ $rc -eq 2 ] && grep -q \"unknown format 'xml' (text, json, jsonl, md, html, junit, sarif, github)\" '$T/xml.err'"
# a shard cut short (no summary line) still counts, with a warning
head -n 3 "$T/shard1.jsonl" > "$T/cut.jsonl"
"$BIN" merge --format json "$T/cut.jsonl" > /dev/null 2> "$T/cut.err"
check "cut shard warned about" grep -q "no summary line" "$T/cut.err"
printf '{"name":"x","verdict":"healthy"}\nnot json\n' > "$T/badline.jsonl"
"$BIN" merge "$T/badline.jsonl" > /dev/null 2> "$T/bad.err"; rc=$?
check "merge: invalid line reported, exit 2 (got $rc)" sh -c "[ $rc -eq 2 ] && grep -q 'line 2: not a JSON object' '$T/bad.err'"

# --- odds and ends ---
"$BIN" batch $DB -q "$T/does-not-exist" > "$T/ne.txt" 2>&1; rc=$?
check "a missing operand is an unreadable bundle, exit 2 when nothing is readable (got $rc)" sh -c "[ $rc -eq 2 ] && grep -q 'cannot open' '$T/ne.txt'"
"$BIN" batch $DB --format yaml "$IN" > /dev/null 2>&1; rc=$?
check "unknown format: exit 2" [ "$rc" -eq 2 ]
"$BIN" batch $DB --progress always -j2 "$IN" > /dev/null 2> "$T/prog.err"
check "--progress always draws the bar" grep -q "bundles" "$T/prog.err"
"$BIN" batch $DB -j2 "$IN" > /dev/null 2> "$T/noprog.err"
check "no progress bar when stderr is not a terminal" sh -c "! grep -q 'MB/s' '$T/noprog.err'"
"$BIN" batch $DB -q "$IN/ok.tar.gz" "$CAP/scenarios/duplicate_gpu" > "$T/ops.txt"
check "a file operand is one bundle, a folder operand holds bundles" sh -c "grep -q '^healthy.*ok.tar.gz\$' '$T/ops.txt' && grep -q '^diagnosed.*scenarios/duplicate_gpu/run.log\$' '$T/ops.txt'"
echo "$CAP/scenarios/duplicate_gpu" | "$BIN" batch $DB -q @- > "$T/list.txt"
check "@- : each listed path is one bundle (a folder too)" sh -c "! grep -q run.log '$T/list.txt' && grep -q '^diagnosed.*scenarios/duplicate_gpu\$' '$T/list.txt'"
"$BIN" batch $DB -q @"$T/no-such-list" > /dev/null 2>&1; rc=$?
check "unreadable @LIST: exit 2" [ "$rc" -eq 2 ]
check "batch --help" sh -c "'$BIN' batch --help | grep -q -- '--jobs'"

# --format html: one page with the summary and a row per bundle; --redact
# hides the captures' host name (vm) and addresses in every batch format
CAPS=fixtures/captures/h200-2gpu/scenarios
"$BIN" batch -q --format html -o "$T/b.html" "$CAPS"
check "html batch report written" grep -q '<html' "$T/b.html"
check "html lists every bundle" sh -c "for s in ok duplicate_gpu oom_unshard; do grep -q \"\$s\" '$T/b.html' || exit 1; done"
check "html names a diagnosis" grep -q 'DEVICE_ASSIGNMENT\|Device assignment\|device' "$T/b.html"
for f in text jsonl html; do
	"$BIN" batch -q --redact --format $f -o "$T/red.$f" "$CAPS"
	check "--redact $f: no host name left" sh -c "! grep -q 'vm:1\|\"vm\"\|192\.0\.2\.2' '$T/red.$f'"
done
"$BIN" batch -q --format jsonl "$CAPS" | grep -v '"summary"' | sed 's/"name":"[^"]*"//' | grep -o '"verdict":"[a-z_]*"' >"$T/v1"
"$BIN" batch -q --redact --format jsonl "$CAPS" | grep -v '"summary"' | grep -o '"verdict":"[a-z_]*"' >"$T/v2"
check "--redact does not change the verdicts" cmp -s "$T/v1" "$T/v2"

# --- unknown failures group by their telling line's exception class ---
# real tracebacks, written by python3 itself: two jobs die of a ValueError
# (different messages), one of a ZeroDivisionError
if command -v jq >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	U=$T/unknown
	mkdir -p "$U"
	python3 -c 'raise ValueError("bad shard size 3")' 2> "$U/a.log"
	python3 -c 'import sys; print("step 1"); raise ValueError("no such split: valid")' > "$U/b.log" 2>&1
	python3 -c 'print(1 / 0)' 2> "$U/c.log"
	"$BIN" batch $DB -q --summary-only --format json "$U" > "$T/unk.json"
	check "unknown failures: 3 bundles" sh -c "jq -e '.summary.verdicts.unknown_failure == 3' '$T/unk.json' >/dev/null"
	check "unknown failures: the two ValueErrors in one fingerprint, by class" sh -c \
		"jq -e '[.summary.fingerprints[] | select(.diagnosis == \"(unknown_failure)\" and .captures.kind == \"exception\" and .captures.exception == \"ValueError\" and .bundles == 2)] | length == 1' '$T/unk.json' >/dev/null"
	check "unknown failures: the ZeroDivisionError in its own" sh -c \
		"jq -e '[.summary.fingerprints[] | select(.diagnosis == \"(unknown_failure)\" and .captures.exception == \"ZeroDivisionError\" and .bundles == 1)] | length == 1' '$T/unk.json' >/dev/null"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
