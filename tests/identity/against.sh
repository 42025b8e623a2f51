#!/bin/sh
# tests/identity/against.sh REV|BINARY [BINARY] - the reports of this tree's
# build are byte for byte those of another: REV (a commit, e.g. the
# merge-base of a speed change: built from `git archive` in a temporary
# folder, with its own patterns/) or a binary given.  Compares analyze
# --format json (and the warnings on stderr, and the exit status) of every
# fixture (each capture scenario, the demo ticket, the damaged inputs, the
# system reports), every public report of tests/learn, tests/corpus and
# tests/heldout, and a slice of both bench corpora (bench/make-corpus.sh:
# 32 MiB in 8 files each, one file and batch over the gzip'ed jobs), with
# -j1 and -j2 (and batch -j1 -j2 -j4, and --summary-only).  For a change that must not change
# what the tool says (issue 24): run it before merging.  Not part of
# make check (it builds another tree); ends with "N passed, N failed".
# FORMATS=all also compares every other format of analyze (text, md, html,
# junit, sarif, github), text in colour, and json/text/html under --redact,
# of each fixture and report (with -j1): for a restructuring of the
# renderers or the report document (issue 25).
#   sh tests/identity/against.sh $(git merge-base HEAD main)
#   sh tests/identity/against.sh /tmp/old/nccl-triage ./nccl-triage
#   FORMATS=all sh tests/identity/against.sh $(git merge-base HEAD main)
# (a binary copied out of its tree finds the database with NCCL_TRIAGE_DATADIR=$PWD)
# DBVER=mask compares with the database's version masked: for a change of
# patterns/ that must not change what the tool finds (literals, regex rewrites).
set -u
cd "$(dirname "$0")/../.."
REF=${1:?usage: against.sh REV|BINARY [BINARY]}
NEW=${2:-./nccl-triage}
case "$NEW" in /*) ;; *) NEW="$(pwd)/$NEW" ;; esac
T=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
if [ -x "$REF" ] && [ -f "$REF" ]; then
	OLD=$REF
else
	mkdir -p "$T/ref"
	git archive "$REF" | tar -x -C "$T/ref" || { echo "against: cannot read $REF"; echo "0 passed, 1 failed"; exit 1; }
	echo "against: building $REF in $T/ref ..." >&2
	make -s -C "$T/ref" -j2 nccl-triage > "$T/build.log" 2>&1 || { tail "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
	OLD=$T/ref/nccl-triage
fi
[ -x "$NEW" ] || make -s nccl-triage
pass=0
fail=0
# cmp_run NAME ARGS...: both binaries, same stdout, stderr and exit status
cmp_run() {
	name=$1; shift
	r1=0; "$OLD" "$@" > "$T/1.out" 2> "$T/1.err" || r1=$?
	r2=0; "$NEW" "$@" > "$T/2.out" 2> "$T/2.err" || r2=$?
	# DBVER=mask: a change of patterns/ alone changes the database's version
	# (signatures.diagnoses-hash of the pattern files) in every report, and nothing else may
	[ "${DBVER:-}" != mask ] || sed -E -i 's/[0-9]+\.[0-9]+-[0-9a-f]{12}/DBVER/g' "$T/1.out" "$T/2.out" "$T/1.err" "$T/2.err"
	if [ "$r1" = "$r2" ] && cmp -s "$T/1.out" "$T/2.out" && cmp -s "$T/1.err" "$T/2.err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name: exit $r1 / $r2"
		diff "$T/1.out" "$T/2.out" | head -6
		diff "$T/1.err" "$T/2.err" | head -4
	fi
}
# every_format NAME OPERAND: FORMATS=all's other reports of one operand
every_format() {
	[ "${FORMATS:-json}" = all ] || return 0
	for f in text md html junit sarif github; do
		cmp_run "$1 --format $f" analyze -j1 --format "$f" --color never "$2"
	done
	cmp_run "$1 --format text --color always" analyze -j1 --format text --color always "$2"
	for f in json text html; do
		cmp_run "$1 --redact --format $f" analyze -j1 --redact --format "$f" --color never "$2"
	done
}
for j in 1 2; do
	for d in fixtures/captures/*/scenarios/*/ fixtures/captures/h200-2gpu-more/*/; do
		[ -d "$d" ] || continue
		cmp_run "$d -j$j" analyze -j$j --format json "$d"
		[ $j = 1 ] && every_format "$d" "$d"
	done
	for f in fixtures/demo/*.tar.gz fixtures/bad-input/* fixtures/sys/*/* tests/learn/*.log tests/corpus/*.log tests/heldout/*.log; do
		[ -f "$f" ] || continue
		cmp_run "$f -j$j" analyze -j$j --format json "$f"
		[ $j = 1 ] && every_format "$f" "$f"
	done
done
cmp_run "learn, one report of all" analyze --format json tests/learn
# the bench corpora, small
for c in captures tickets; do
	CORPUS_DIR=$T/corpus sh bench/make-corpus.sh 32 8 "$c" >/dev/null 2>&1 || { fail=$((fail + 1)); echo "FAIL: corpus $c"; continue; }
	C=$T/corpus/$c
	for j in 1 2; do cmp_run "bench $c all.log -j$j" analyze -j$j --format json "$C/all.log"; done
	for j in 1 2 4; do cmp_run "bench $c batch -j$j" batch -j$j --format jsonl "$C/gz"; done
	# --summary-only keeps no context lines (nothing shows them): the same summary
	for f in text json sarif; do
		cmp_run "bench $c batch --summary-only --format $f" batch -j2 --summary-only --fail-on warning --format "$f" "$C/gz"
	done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
