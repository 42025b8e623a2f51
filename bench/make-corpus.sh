#!/bin/sh
# bench/make-corpus.sh [MB] [FILES] - build the benchmark corpus from the
# real logs in fixtures/captures: FILES job logs (default 64) holding MB
# mebibytes of text in all (default 512), each made of whole captured runs
# (NCCL INFO/WARN chatter, torch tracebacks, torchrun output) with the host
# and pid/tid fields rewritten so that every file looks like a different
# set of ranks on a different node (the pids of one file repeat when its
# templates do, as in a long job).  Lines are never invented: every line is
# a captured one with other numbers in its host:pid:tid prefix.
#   bench/corpus/plain/job-NNN.log     the text
#   bench/corpus/all.log               the same text as one file
#   bench/corpus/gz/job-NNN.log.gz     each job gzip'ed (gzip -6)
# Rebuilt only when MB or FILES change.
set -eu
MB=${1:-512}
FILES=${2:-64}
GEN=2 # bump when the recipe changes
cd "$(dirname "$0")"
C=corpus
if [ -f "$C/.params" ] && [ "$(cat "$C/.params")" = "$MB $FILES $GEN" ] && [ -f "$C/all.log" ]; then
	exit 0
fi
rm -rf "$C"
mkdir -p "$C/plain" "$C/gz"

# templates: every captured log that NCCL or torchrun wrote, one run per file
find ../fixtures/captures -type f -name '*.log' | LC_ALL=C sort > "$C/templates"
[ -s "$C/templates" ] || { echo "make-corpus: no logs under fixtures/captures" >&2; exit 1; }

per=$((MB * 1048576 / FILES))
i=0
while [ "$i" -lt "$FILES" ]; do
	n=$(printf '%03d' "$i")
	# each job starts at a different template and uses its own host and pid range
	xargs cat < "$C/templates" | awk -v target="$per" -v job="$i" -v ntpl="$(wc -l < "$C/templates")" '
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
	i=$((i + 1))
done
cat "$C"/plain/*.log > "$C/all.log"
for f in "$C"/plain/*.log; do
	gzip -6 -c "$f" > "$C/gz/$(basename "$f").gz"
done
echo "$MB $FILES $GEN" > "$C/.params"
