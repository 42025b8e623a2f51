#!/bin/sh
# tests/tools/report-snapshot.sh BIN OUTDIR - every report of every fixture,
# for comparing two builds byte for byte (a restructuring must not change
# them): `report-snapshot.sh ./old before; report-snapshot.sh ./new after;
# diff -r before after`.  Operands: every file and scenario folder under
# fixtures/ (README.md files excepted), the golden cases' argument lists, the
# public report sets (tests/corpus, tests/heldout, tests/learn; never
# tests/blind).  Formats: every format of analyze, text in colour, and
# json/text/html again under --redact.  One file per operand and format, named after both;
# standard error goes beside it (*.err) with the exit status.
BIN=$1
OUT=$2
[ -n "$BIN" ] && [ -n "$OUT" ] || { echo "usage: $0 BIN OUTDIR" >&2; exit 2; }
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
cd "$(dirname "$0")/../.." || exit 2
# the database of this checkout, whichever binary runs
export NCCL_TRIAGE_DATADIR="${NCCL_TRIAGE_DATADIR:-$(pwd)}"
mkdir -p "$OUT" || exit 2
FORMATS="json text md html junit sarif github"
one() { # NAME ARGS...: every format of one operand list
	name=$1
	shift
	for f in $FORMATS; do
		"$BIN" analyze --format "$f" --color never "$@" >"$OUT/$name.$f" 2>"$OUT/$name.$f.err"
		echo "rc=$?" >>"$OUT/$name.$f.err"
	done
	"$BIN" analyze --format text --color always "$@" >"$OUT/$name.color.text" 2>/dev/null
	for f in json text html; do
		"$BIN" analyze --format "$f" --color never --redact "$@" >"$OUT/$name.redact.$f" 2>"$OUT/$name.redact.$f.err"
		echo "rc=$?" >>"$OUT/$name.redact.$f.err"
	done
}
slug() { echo "$1" | tr '/' '~'; }
{
	find fixtures -type f ! -name README.md
	find fixtures/captures/*/scenarios -mindepth 1 -maxdepth 1 -type d
	find tests/corpus tests/heldout tests/learn -type f ! -name 'expected*' ! -name README.md
} | LC_ALL=C sort | while read -r p; do
	one "$(slug "$p")" "$p"
done
for a in tests/golden/*/args; do
	c=$(basename "$(dirname "$a")")
	# shellcheck disable=SC2046
	one "golden~$c" $(grep -v '^#' "$a")
done
