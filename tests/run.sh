#!/bin/sh
# tests/run.sh BUILD_DIR BINARY - run the whole suite against one build.
# Each part prints "N passed, N failed"; this script sums them and ends with
# one such line for the whole run.  Exit status 1 when anything failed.
# NT_SUITES="threads batch" runs only those tests/NAME/run.sh parts (the
# ThreadSanitizer build runs the multi-threaded ones).
unset RUNNER_TEMP # the github format counts a job's annotations there (cli/formats.c)
B=${1:-build}
BIN=${2:-./nccl-triage}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
export NT_BIN="$BIN" NT_BUILD="$B"
TOTAL_P=0
TOTAL_F=0
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

# run NAME CMD...: run a part, take its last "N passed, N failed" line
run() {
	name=$1; shift
	"$@" >"$LOG" 2>&1
	rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOG" | tail -n 1)
	if [ -n "$line" ]; then
		p=$(echo "$line" | sed 's/ passed.*//')
		f=$(echo "$line" | sed 's/.*passed, //; s/ failed.*//')
	elif [ $rc -eq 0 ]; then p=1; f=0
	else p=0; f=1
	fi
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	TOTAL_P=$((TOTAL_P + p)); TOTAL_F=$((TOTAL_F + f))
	if [ "$f" -ne 0 ]; then
		echo "FAIL $name ($p passed, $f failed; exit $rc):"
		# the failed checks first (a long part's tail may not reach them),
		# then the part's last lines
		grep -E '^(FAIL|not ok)' "$LOG" | head -n 10 | sed 's/^/  > /'
		sed 's/^/    /' "$LOG" | grep -v '^    *$' | tail -n 40
	else
		echo "ok   $name ($p passed)"
	fi
}

if [ -n "${NT_SUITES:-}" ]; then
	for n in $NT_SUITES; do
		# golden takes the projection tool as its second operand, as below
		case "$n" in
		golden) run "$n" sh tests/golden/run.sh "$BIN" "$B/tools/jsonproj" ;;
		*) run "$n" sh "tests/$n/run.sh" "$BIN" ;;
		esac
	done
else
	for t in "$B"/tests/test_*; do
		[ -x "$t" ] && run "unit $(basename "$t")" "$t"
	done
	for t in "$B"/fuzz-replay/fuzz_*; do
		[ -x "$t" ] || continue
		n=$(basename "$t")
		run "fuzz replay $n" "$t" "tests/fuzz/corpus/${n#fuzz_}" tests/fuzz/crashes
	done
	run "check-db (patterns/)" "$BIN" check-db
	run "catalog up to date" sh -c "\"$BIN\" list --format md | diff -u docs/catalog.md -"
	run "coverage table up to date" sh -c "\"$BIN\" coverage --format md | diff -u docs/coverage.md -"
	run "golden fixtures" sh tests/golden/run.sh "$BIN" "$B/tools/jsonproj"
	for s in tests/*/run.sh; do
		case "$s" in tests/golden/run.sh) continue ;; esac
		run "$(dirname "$s" | sed 's|tests/||')" sh "$s" "$BIN"
	done
fi
echo "$TOTAL_P passed, $TOTAL_F failed"
echo "$TOTAL_P $TOTAL_F" >"$B/test-totals"
[ "$TOTAL_F" -eq 0 ]
