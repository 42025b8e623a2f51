#!/bin/sh
# No file of the repository may cite a thread of the reserved half of the public
# issue threads (../shared/tools/thread-split: sha1 of owner/repo#N; those threads
# are for the project's evaluation only). The threads the project held before the
# split are listed in thread-split.known and may stay.
#
# The checker is ../shared/tools/thread-split when the checkout has one beside it
# (the workplace), else the copy kept here (a clean clone in CI); when both exist
# the copy must be the same, so the two can never judge differently.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 1
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tool=$here/thread-split
shared=$top/../shared/tools
if [ -x "$shared/thread-split" ]; then
	if cmp -s "$shared/thread-split" "$here/thread-split" &&
	   cmp -s "$shared/thread-split.known" "$here/thread-split.known"; then ok
	else bad "tests/threadsplit holds a stale copy of ../shared/tools/thread-split(.known): copy them again"
	fi
	tool=$shared/thread-split
fi
command -v python3 >/dev/null 2>&1 || { echo "threadsplit: python3 is needed"; echo "0 passed, 1 failed"; exit 1; }
# the checker must be able to fail: a reserved thread not in the known list
# (example/repo#1 is reserved, #2 is learn)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "see https://github.com/example/repo/issues/1 and example/repo#2" > "$tmp/planted.md"
out=$("$tool" --check "$tmp/planted.md"); rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -q 'example/repo#1 is reserved' && ! echo "$out" | grep -q 'repo#2'; then ok
else bad "thread-split --check did not flag a planted reserved citation (exit $rc: $out)"
fi
# every file the project keeps: patterns/, tests/, fixtures/, docs/, README.md
files=$(find patterns tests fixtures docs README.md -type f ! -path 'tests/threadsplit/*' | sort)
out=$(echo "$files" | xargs "$tool" --check); rc=$?
if [ $rc -eq 0 ]; then ok
else bad "reserved threads cited (remove them and anything learned from them):"; echo "$out"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
