#!/bin/sh
# tests/funclen/run.sh - no function of analyzer/ is longer than 150 lines
# (docs/architecture.md), counted from the line of its opening brace to the
# line of its closing brace (tests/funclen/funclen.awk).  It first proves on
# planted files that it finds a long function (brace on its own line, brace
# on the signature line, braces inside strings and comments) and lets a table
# or a function of exactly 150 lines pass.  Ends with "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 2
MAX=150
AWK=tests/funclen/funclen.awk
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

# body N: N-2 statement lines (with the two brace lines: N lines)
body() { i=0; while [ $i -lt $(($1 - 2)) ]; do echo "	x += $i;"; i=$((i + 1)); done; }

{ echo 'static int planted_long(int x)'; echo '{'; body 151; echo '}'; } > "$T/long.c"
{ echo 'int planted_kr(int x) {'; body 160; echo '}'; } > "$T/kr.c"
{ echo 'static int planted_strings(int x)'; echo '{'
  echo '	const char *s = "}"; char c = '"'}'"'; /* } */ // }'
  body 150; echo '}'; } > "$T/strings.c"
{ echo 'static int planted_limit(int x)'; echo '{'; body 150; echo '}'; } > "$T/limit.c"
{ echo 'static const int planted_table[] = {'; body 300 | sed 's/x += \(.*\);/\1,/'; echo '};'
  echo '#define PLANTED_MACRO(x) do { \'; body 200 | sed 's/$/ \\/'; echo '} while (0)'; } > "$T/table.c"

# expect FILE NAME yes|no: the check reports NAME in FILE, or not
expect() {
	out=$(awk -v MAX=$MAX -f $AWK "$1")
	rc=$?
	case "$3" in
	yes) if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q ": $2 is "; then pass=$((pass + 1))
	     else echo "self-test: $2 in $(basename "$1") was not reported (exit $rc): $out"; fail=$((fail + 1)); fi ;;
	no)  if [ $rc -eq 0 ] && [ -z "$out" ]; then pass=$((pass + 1))
	     else echo "self-test: $(basename "$1") reported (exit $rc): $out"; fail=$((fail + 1)); fi ;;
	esac
}
expect "$T/long.c" planted_long yes
expect "$T/kr.c" planted_kr yes
expect "$T/strings.c" planted_strings yes
expect "$T/limit.c" planted_limit no
expect "$T/table.c" planted_table no

# the tree: every function of analyzer/
find analyzer -name '*.[ch]' | sort > "$T/files"
# shellcheck disable=SC2046 (paths of analyzer/ hold no blanks)
awk -v MAX=$MAX -v LIST=1 -f $AWK $(cat "$T/files") > "$T/all"
total=$(wc -l < "$T/all")
if [ "$total" -lt 100 ]; then
	echo "only $total functions found in analyzer/: the counter is broken"
	fail=$((fail + 1))
fi
grep '(limit ' "$T/all" > "$T/over"
n=$(wc -l < "$T/over")
cat "$T/over"
echo "funclen: $total functions in analyzer/, $n longer than $MAX lines"
echo "$((pass + total - n)) passed, $((fail + n)) failed"
[ $((fail + n)) -eq 0 ]
