#!/bin/sh
# Golden tests: each tests/golden/CASE/ holds `args` (analyze operands and
# options, one per line, relative to the repository root) and `expected`
# (the jsonproj projection of the JSON report).  NT_UPDATE_GOLDEN=1 rewrites
# the expected files instead of comparing.
BIN=$1
PROJ=$2
pass=0
fail=0
for dir in tests/golden/*/; do
	case=$(basename "$dir")
	[ -f "$dir/args" ] || continue
	args=$(grep -v '^#' "$dir/args" | tr '\n' ' ')
	out=$(mktemp)
	# shellcheck disable=SC2086
	"$BIN" analyze --format json -q $args | "$PROJ" $( [ -f "$dir/warnings" ] && echo --warnings ) >"$out"
	if [ "${NT_UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$out" "$dir/expected"
	fi
	if diff -u "$dir/expected" "$out" >/dev/null 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "golden $case differs:"
		diff -u "$dir/expected" "$out" | head -30
	fi
	rm -f "$out"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
