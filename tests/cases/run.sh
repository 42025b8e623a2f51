#!/bin/sh
# tests/cases/run.sh BIN - data-driven parser cases.  Each
# tests/cases/PARSER/NAME.EXT is a real system report; NAME.facts.json beside
# it is what `BIN analyze --format json NAME.EXT` (run in that folder, so that
# paths are relative) gives, projected by project.py: the inputs' kinds and
# line counts, the warnings, and bundles[0].facts.  NT_UPDATE_CASES=1 writes
# the expected files instead of failing on them; review the diff.  Before the
# cases, the comparison is proved able to fail (a missing and a differing
# expected file, on a temporary copy).  Ends with "N passed, N failed".
BIN=${1:-./nccl-triage}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ="$HERE/project.py"
command -v python3 >/dev/null 2>&1 || { echo "cases: python3 is needed"; echo "0 passed, 1 failed"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

# project DIR NAME OUT: the projection of NAME analysed inside DIR.
# analyze exits 0 or 1 on a readable input; anything else is a failure.
project() {
	(cd "$1" && "$BIN" analyze --format json -q "$2" >"$T/raw" 2>"$T/err"; rc=$?
	 [ $rc -le 1 ] || { echo "exit $rc: $(head -c 300 "$T/err")"; exit 1; }
	 python3 "$PROJ" "$(pwd)" <"$T/raw" >"$3") || return 1
}

# check DIR NAME: 0 when NAME's projection equals NAME-less-extension.facts.json,
# 1 otherwise (the reason on stdout).  NT_UPDATE_CASES=1 writes it first.
check() {
	exp="$1/${2%.*}.facts.json"
	project "$1" "$2" "$T/out" || { echo "cannot analyse $2"; return 1; }
	if [ "${NT_UPDATE_CASES:-}" = 1 ]; then cp "$T/out" "$exp"; fi
	if [ ! -f "$exp" ]; then echo "no expected file $(basename "$exp") (NT_UPDATE_CASES=1 writes it)"; return 1; fi
	if ! diff -u "$exp" "$T/out" >"$T/diff"; then echo "differs from $(basename "$exp"):"; head -40 "$T/diff"; return 1; fi
	return 0
}

# is_input FILE: a case input, not an expected file or a note
is_input() {
	case "$1" in *.facts.json|*.source|*/README*|*.md) return 1 ;; esac
	[ -f "$1" ]
}

# the check can fail: a temporary copy of the first case without, then
# with a changed, expected file (never updated, whatever NT_UPDATE_CASES says)
first=""
for f in "$HERE"/*/*; do is_input "$f" && { first=$f; break; }; done
if [ -z "$first" ]; then echo "cases: no case found"; echo "0 passed, 1 failed"; exit 1; fi
mkdir "$T/self"
cp "$first" "$T/self/"
n=$(basename "$first")
if NT_UPDATE_CASES= check "$T/self" "$n" >/dev/null; then
	fail=$((fail + 1)); echo "self-check: a missing expected file passed"
else pass=$((pass + 1)); fi
project "$T/self" "$n" "$T/self/${n%.*}.facts.json" && sed -i 's/"lines": \([0-9]*\)/"lines": 1\1/' "$T/self/${n%.*}.facts.json"
if NT_UPDATE_CASES= check "$T/self" "$n" >/dev/null; then
	fail=$((fail + 1)); echo "self-check: a differing expected file passed"
else pass=$((pass + 1)); fi

for f in "$HERE"/*/*; do
	is_input "$f" || continue
	rel=${f#"$HERE"/}
	if msg=$(check "$(dirname "$f")" "$(basename "$f")"); then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "case $rel: $msg"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
