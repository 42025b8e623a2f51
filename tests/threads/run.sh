#!/bin/sh
# tests/threads/run.sh BINARY - analyze with a second thread (-j2: lines are
# read, parsed and scanned on one thread, matched and applied on another;
# the fast regexes tried ahead on the first when the second is behind, or
# with NT_TRY_AHEAD=all on every batch, none on none) must give
# byte-identical reports to one thread (-j1), whatever the input: every real
# capture and pasted report in fixtures/ and tests/, damaged inputs, and
# inputs built to cross the pipeline's edges (many batches, a line larger
# than a batch, the --max-lines cap, many documents in one archive, stdin).
# Ends with "N passed, N failed".
BIN=${1:-./nccl-triage}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
pass=0
fail=0
T=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT

# same NAME ARGS...: -j1 and -j2 print the same JSON, text and warnings, exit alike
same() {
	name=$1; shift
	for fmt in json text; do
		r1=0; "$BIN" analyze -j1 --format $fmt "$@" > "$T/1.out" 2> "$T/1.err" || r1=$?
		r2=0; "$BIN" analyze -j2 --format $fmt "$@" > "$T/2.out" 2> "$T/2.err" || r2=$?
		if [ "$r1" != "$r2" ] || ! cmp -s "$T/1.out" "$T/2.out" || ! cmp -s "$T/1.err" "$T/2.err" || [ "$r1" -gt 1 ]; then
			fail=$((fail + 1)); echo "FAIL: $name ($fmt): -j1 exit $r1, -j2 exit $r2"
			diff "$T/1.out" "$T/2.out" | head -5; diff "$T/1.err" "$T/2.err" | head -5
			return
		fi
		# the reading thread may run the fast regexes ahead of the consumer
		# (pipeline.h): when it does for every batch, and when for none
		[ "$fmt" = json ] || continue
		for ta in all none; do
			r2=0; NT_TRY_AHEAD=$ta "$BIN" analyze -j2 --format $fmt "$@" > "$T/2.out" 2> "$T/2.err" || r2=$?
			if [ "$r1" != "$r2" ] || ! cmp -s "$T/1.out" "$T/2.out" || ! cmp -s "$T/1.err" "$T/2.err"; then
				fail=$((fail + 1)); echo "FAIL: $name ($fmt, tried ahead: $ta): -j1 exit $r1, -j2 exit $r2"
				diff "$T/1.out" "$T/2.out" | head -5; diff "$T/1.err" "$T/2.err" | head -5
				return
			fi
		done
	done
	pass=$((pass + 1))
}

for d in fixtures/captures/*/scenarios/*/ fixtures/captures/h200-2gpu-more/*/; do
	[ -d "$d" ] && same "$d" "$d"
done
for f in tests/corpus/*.log tests/heldout/*.log fixtures/bad-input/*.tar fixtures/bad-input/*.gz fixtures/bad-input/*.log; do
	[ -f "$f" ] && same "$f" "$f"
done
same "demo" fixtures/demo/ticket-oom.tar.gz

# many batches: ~6 MiB of real lines from every capture, in one document
cat fixtures/captures/*/scenarios/*/*.log fixtures/captures/h200-2gpu-more/*/*.log > "$T/one.log" 2>/dev/null
i=0
while [ "$i" -lt 3 ]; do cat "$T/one.log" "$T/one.log" > "$T/two.log"; mv "$T/two.log" "$T/one.log"; i=$((i + 1)); done
[ "$(wc -c < "$T/one.log")" -gt 2000000 ] || { fail=$((fail + 1)); echo "FAIL: big input too small"; }
same "big" "$T/one.log"
# ... with a line of 300 KB (more than a batch holds) in the middle, analysed whole
{ head -n 2000 "$T/one.log"; head -c 300000 /dev/zero | tr '\0' 'x'; echo " NCCL WARN Cuda failure 'out of memory'"; tail -n 2000 "$T/one.log"; } > "$T/long.log"
same "long line" --max-line 1M "$T/long.log"
same "long line, cut" "$T/long.log"
# ... every line past a small --max-line: with two threads a whole line of a
# chunk read into the batch is cut where it lies (bundle.c, feed_lines)
same "lines cut at --max-line" --max-line 100 "$T/one.log"
# a quoted NCCL WARN is a second record of its line (XLA's words, short:
# records, not text, fill the batches); one line before them puts a batch's
# edge between a line's two records, so that the rest of a chunk read into
# the batch moves to the next one under the quoted message (fill_next)
awk 'BEGIN { print "first"; for (i = 0; i < 20000; i++)
	print "Last NCCL warning(error) log entry (may be unrelated) '"'"'Cuda failure '"'"'out of memory'"'"''"'"'." }' > "$T/xla.log"
same "quoted WARNs across batches" "$T/xla.log"
# ... cut by --max-lines (the warning is reported once, as with one thread)
same "max-lines" --max-lines 5000 "$T/one.log"
# many documents in one archive, and the same through stdin
mkdir -p "$T/tree"
for d in fixtures/captures/h200-2gpu-more/*/; do cp -r "$d" "$T/tree/"; done
tar czf "$T/tree.tar.gz" -C "$T" tree
same "archive" "$T/tree.tar.gz"
r1=0; "$BIN" analyze -j1 --format json - < "$T/tree.tar.gz" > "$T/s1" 2>/dev/null || r1=$?
r2=0; "$BIN" analyze -j2 --format json - < "$T/tree.tar.gz" > "$T/s2" 2>/dev/null || r2=$?
if [ "$r1" = "$r2" ] && cmp -s "$T/s1" "$T/s2" && [ -s "$T/s1" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: stdin"; fi
# several operands: one bundle each, in order
same "operands" fixtures/captures/h200-2gpu/scenarios/ok fixtures/captures/h200-2gpu/scenarios/duplicate_gpu "$T/one.log"

# -j4 asks for more threads than a bundle uses (two): the same report again
for f in "$T/one.log" "$T/tree.tar.gz" fixtures/demo/ticket-oom.tar.gz; do
	r1=0; "$BIN" analyze -j1 --format json "$f" > "$T/41" 2>&1 || r1=$?
	r4=0; "$BIN" analyze -j4 --format json "$f" > "$T/44" 2>&1 || r4=$?
	if [ "$r1" = "$r4" ] && cmp -s "$T/41" "$T/44" && [ -s "$T/41" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: -j4 $f"; fi
done

# memory stays bounded with two threads, whatever the lines: 20 million
# empty lines (records, not text, fill the batches) and the big input
# (peak RSS from GNU time; not for sanitizer builds, which inflate it)
head -c 20000000 /dev/zero | tr '\0' '\n' > "$T/empty.log"
case "$BIN" in
*-asan|*-tsan) ;;
*)
	if [ -x /usr/bin/time ]; then
		for f in "$T/empty.log" "$T/one.log"; do
			/usr/bin/time -f "%M" -o "$T/rss" "$BIN" analyze -j2 -q --format json "$f" > /dev/null 2>&1
			kib=$(tail -n 1 "$T/rss")
			if [ "$kib" -gt 0 ] 2>/dev/null && [ "$kib" -lt 65536 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: peak RSS $kib KiB on $(basename "$f") (limit 64 MiB)"; fi
		done
	else
		echo "skip: /usr/bin/time missing (GNU time): peak memory not checked"
	fi
	;;
esac
same "empty lines" --max-lines 200000 "$T/empty.log"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
