#!/bin/sh
# tests/db-bad/run.sh BINARY - broken signature databases (lnav's test style):
# each tests/db-bad/NAME/ holds the *.json files of one database with one
# mistake, README (what is wrong) and expected: the exact messages check-db
# prints on standard error.  check-db must exit 2 and print exactly those
# lines.  NT_UPDATE_DBBAD=1 rewrites the expected files instead.
BIN=${1:-./nccl-triage}
pass=0
fail=0
T=$(mktemp)
trap 'rm -f "$T"' EXIT
for dir in tests/db-bad/*/; do
	dir=${dir%/}
	name=$(basename "$dir")
	"$BIN" check-db "$dir" >/dev/null 2>"$T"
	rc=$?
	if [ "${NT_UPDATE_DBBAD:-}" = 1 ]; then
		cp "$T" "$dir/expected"
	fi
	if [ $rc -ne 2 ]; then
		fail=$((fail + 1))
		echo "db-bad $name: check-db exited $rc, not 2"
	elif ! diff -u "$dir/expected" "$T" >/dev/null 2>&1; then
		fail=$((fail + 1))
		echo "db-bad $name: messages differ:"
		diff -u "$dir/expected" "$T" | head -20
	else
		pass=$((pass + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
