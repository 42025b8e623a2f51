#!/bin/sh
# tests/unexplained/run.sh BIN - every line of the corpora (fixtures/captures through
# tests/accuracy/expected.tsv, tests/corpus, tests/heldout, tests/learn: never tests/blind) that
# holds a failure word (error, fail, fatal, abort, killed, signal, exception, timed out, warn)
# and that nothing explains: no signature, benign entry, derived row, launcher record,
# traceback or crash-report frame (analyze --unexplained), nor a documented exemption of
# tests/unexplained/exempt.tsv.  Each such line fails: give it a signature, a derived row, a
# benign entry with its reason, or an exemption with its reason.  Exemptions no line needs
# any longer are listed (stale) without failing.
BIN=${1:-./nccl-triage}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TAB=$(printf '\t')
for t in tests/accuracy/expected.tsv tests/corpus/expected.tsv tests/heldout/expected.tsv tests/learn/expected*.tsv; do
	[ -f "$t" ] || continue
	while IFS="$TAB" read -r path rest; do
		case "$path" in ''|'#'*) continue ;; esac
		case "$path" in tests/blind/*) continue ;; esac
		[ -e "$path" ] && echo "$path"
	done < "$t"
done | sort -u > "$TMP/paths"
[ -s "$TMP/paths" ] || { echo "no corpus"; echo "0 passed, 1 failed"; exit 1; }
# shellcheck disable=SC2046 (the corpora's paths hold no blanks)
"$BIN" analyze -q -j1 --unexplained $(cat "$TMP/paths") > "$TMP/lines" 2>"$TMP/err"
rc=$?
if [ $rc -gt 1 ]; then echo "analyze --unexplained failed ($rc):"; cat "$TMP/err"; echo "0 passed, 1 failed"; exit 1; fi
grep -v '^#' tests/unexplained/exempt.tsv | grep -v '^$' | cut -f1 > "$TMP/regex"
total=$(wc -l < "$TMP/lines")
# the text of each line after "path:line: "
sed 's/^[^ ]*: //' "$TMP/lines" > "$TMP/text"
paste -d '\t' "$TMP/lines" "$TMP/text" | while IFS="$TAB" read -r whole text; do
	printf '%s\n' "$text" | grep -E -q -f "$TMP/regex" || printf '%s\n' "$whole"
done > "$TMP/left"
n=$(wc -l < "$TMP/left")
while IFS= read -r re; do
	grep -E -q -e "$re" "$TMP/text" || echo "stale exemption (no line needs it): $re"
done < "$TMP/regex"
sed 's/^/UNEXPLAINED  /' "$TMP/left"
echo "unexplained: $total failure-word lines nothing in the database explains, $((total - n)) of them exempted (tests/unexplained/exempt.tsv), $n left"
echo "$(wc -l < "$TMP/paths") passed, $n failed"
[ "$n" -eq 0 ]
