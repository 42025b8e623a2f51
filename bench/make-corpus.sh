#!/bin/sh
# bench/make-corpus.sh [MB] [FILES] [CORPUS] - build a benchmark corpus from
# real text in the repository: FILES job logs (default 64) holding MB
# mebibytes of text in all (default 512).  Lines are never invented.
#
# CORPUS=captures (default): the logs of fixtures/captures (NCCL INFO/WARN
#   chatter, torch tracebacks, torchrun output of real runs on a 2 x H200
#   host), whole runs one after the other, with the host and pid/tid fields
#   rewritten so that every file looks like a different set of ranks on a
#   different node (the pids of one file repeat when its templates do, as in
#   a long job): every line a captured one with other numbers in its
#   host:pid:tid prefix.  Mostly INFO lines.
# CORPUS=tickets: the public tickets of tests/learn, tests/corpus and
#   tests/heldout (the .log files: tracebacks, WARN lines, launcher output,
#   pasted with every kind of prefix) and the pasted nccl-tests and kernel
#   logs of fixtures/sys/public, each file whole and as it is, one after the
#   other from a different first ticket in each job file, replicated to the
#   size.  Denser in errors than the captures (never tests/blind).
#
#   bench/corpus/CORPUS/plain/job-NNN.log     the text
#   bench/corpus/CORPUS/all.log               the same text as one file
#   bench/corpus/CORPUS/gz/job-NNN.log.gz     each job gzip'ed (gzip -6)
#   bench/corpus/CORPUS/templates             the source files, one a line
# Rebuilt only when MB, FILES or the recipe change.
set -eu
export LC_ALL=C # awk counts bytes
MB=${1:-512}
FILES=${2:-64}
CORPUS=${3:-captures}
GEN=3 # bump when the recipe changes
cd "$(dirname "$0")"
C=${CORPUS_DIR:-corpus}/$CORPUS # CORPUS_DIR: another place (an absolute path)
if [ -f "$C/.params" ] && [ "$(cat "$C/.params")" = "$MB $FILES $GEN" ] && [ -f "$C/all.log" ]; then
	exit 0
fi
rm -rf "$C"
mkdir -p "$C/plain" "$C/gz"

case $CORPUS in
captures)
	# every captured log that NCCL or torchrun wrote, one run per file
	find "$PWD/../fixtures/captures" -type f -name '*.log' | LC_ALL=C sort > "$C/templates" ;;
tickets)
	{ find "$PWD/../tests/learn" "$PWD/../tests/corpus" "$PWD/../tests/heldout" -type f -name '*.log'
	  find "$PWD/../fixtures/sys/public" -type f \( -name 'nccl-tests-*.txt' -o -name 'dmesg-*.txt' \); } | LC_ALL=C sort > "$C/templates" ;;
*)
	echo "make-corpus: unknown corpus '$CORPUS' (captures or tickets)" >&2; exit 1 ;;
esac
[ -s "$C/templates" ] || { echo "make-corpus: no source files for $CORPUS" >&2; exit 1; }

per=$((MB * 1048576 / FILES))
i=0
while [ "$i" -lt "$FILES" ]; do
	n=$(printf '%03d' "$i")
	if [ "$CORPUS" = captures ]; then
	# each job starts at a different template and uses its own host and pid range
	xargs cat < "$C/templates" | awk -v target="$per" -v job="$i" '
	BEGIN { host = sprintf("node%03d", job % 997); off = 10000 + job * 7919 }
	{ lines[NR] = $0 }
	END {
		if (NR == 0) exit 1
		bytes = 0; rep = 0; start = (job * 1931) % NR
		while (bytes < target) {
			for (k = 0; k < NR && bytes < target; k++) {
				l = lines[(start + k) % NR + 1]
				if (match(l, /vm:[0-9]+:[0-9]+/)) {
					pre = substr(l, 1, RSTART - 1); m = substr(l, RSTART + 3, RLENGTH - 3)
					post = substr(l, RSTART + RLENGTH)
					split(m, pt, ":")
					l = pre host ":" (pt[1] + off) ":" (pt[2] + off) post
				}
				print l
				bytes += length(l) + 1
			}
			rep++
		}
	}' > "$C/plain/job-$n.log"
	else
	# whole tickets as they are, from ticket (job * 7) on, round and round;
	# a ticket whose last line has no newline gets one
	ntpl=$(wc -l < "$C/templates")
	k=$(( (i * 7) % ntpl ))
	tail -n +"$((k + 1))" "$C/templates" > "$C/.order"
	head -n "$k" "$C/templates" >> "$C/.order"
	xargs awk 1 < "$C/.order" | awk -v target="$per" '
	{ lines[NR] = $0 }
	END {
		if (NR == 0) exit 1
		bytes = 0
		while (bytes < target)
			for (k = 1; k <= NR && bytes < target; k++) {
				print lines[k]
				bytes += length(lines[k]) + 1
			}
	}' > "$C/plain/job-$n.log"
	fi
	i=$((i + 1))
done
rm -f "$C/.order"
cat "$C"/plain/*.log > "$C/all.log"
for f in "$C"/plain/*.log; do
	gzip -6 -c "$f" > "$C/gz/$(basename "$f").gz"
done
echo "$MB $FILES $GEN" > "$C/.params"
