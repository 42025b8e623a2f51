#!/bin/sh
# bench/run.sh - time nccl-triage against ripgrep and gunzip on two corpora
# made from real text in the repository (bench/make-corpus.sh):
#   captures  the logs of fixtures/captures (mostly NCCL INFO lines)
#   tickets   the public tickets of tests/learn, tests/corpus, tests/heldout
#             (tracebacks, WARN lines, launcher output: denser in errors)
# and prints the targets of issue 24 (bench/README.md):
#   analyze of MB MiB (one file), 2 threads and -j1   vs  rg -c -f (the database's regexes)
#   batch over FILES gzip archives holding MB MiB      vs  gzip -dc on one core
#   (pigz -dc and igzip -dc as references for the inflater)
#   peak memory (GNU time), start-up (a one-line file: CPU ms, best of 15),
#   instructions per line (perf stat where it counts instructions, else
#   callgrind over the first SLICE_MB MiB of each corpus, start-up taken off)
#
# Environment: MB (default 512), FILES (64), RUNS (3: the median is shown),
# CORPORA ("captures tickets"), JOBS (batch -j for the ratio, default: the
# cores), DB ("--no-builtin -p DIR" for another database), RG (ripgrep;
# installed with apt-get when missing and run as root), CPUS (e.g. "0,1":
# pin every command with taskset), TIME (GNU time), SLICE_MB (8),
# IPL=0 (skip the instruction counts), SLICES=1 (also the captures' NCCL
# lines alone and their other lines alone).
# Writes bench/results/latest.txt.
set -eu
cd "$(dirname "$0")/.."
MB=${MB:-512}
FILES=${FILES:-64}
RUNS=${RUNS:-3}
DB=${DB:-}
CORPORA=${CORPORA:-captures tickets}
SLICE_MB=${SLICE_MB:-8}
BIN=${BIN:-./nccl-triage}
[ -x "$BIN" ] || make -s nccl-triage
apt_install() { # apt_install PACKAGE: as root, when apt-get is there
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null 2>&1 ||
			{ apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null 2>&1; } || :
	fi
}
RG=${RG:-rg}
command -v "$RG" >/dev/null 2>&1 || apt_install ripgrep
command -v "$RG" >/dev/null 2>&1 || { echo "bench: ripgrep not found (apt-get install ripgrep, or RG=/path/to/rg)" >&2; exit 1; }
# references for the inflater, only when they can be had
command -v pigz >/dev/null 2>&1 || apt_install pigz
command -v igzip >/dev/null 2>&1 || apt_install isal
PIN=""
if [ -n "${CPUS:-}" ]; then PIN="taskset -c $CPUS"; fi
NCPU=$(${PIN:-} nproc)
JOBS=${JOBS:-$NCPU}
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p bench/corpus bench/results
R=bench/corpus
# shellcheck disable=SC2086
"$BIN" list $DB --regex > "$R/regexes.txt"
NRE=$(wc -l < "$R/regexes.txt")

for c in $CORPORA; do
	echo "building the corpus '$c': $MB MiB in $FILES job logs (bench/corpus/$c) ..." >&2
	sh bench/make-corpus.sh "$MB" "$FILES" "$c"
done

# ripgrep's default engine takes the same regexes once PCRE-only syntax is
# rewritten: named groups become plain groups (rg counts lines, not
# captures), a backreference \k<name> becomes \d+ (the default engine has no
# backreferences; the only one repeats a number), \" becomes ".  A regex the default engine still
# cannot parse (a look-ahead) is left out of rg's set and counted in the results' header: rg -P
# with the whole set is no baseline (PCRE2 refuses the signatures' repeated group names in the
# one pattern rg joins them into, and with the names dropped it takes minutes a run on 307
# regexes).  Only should the rest still not parse, rg -P with the originals.
sed -E -e 's/\(\?<([A-Za-z_][A-Za-z0-9_]*)>/(?:/g' -e 's/\\k<[A-Za-z_][A-Za-z0-9_]*>/\\d+/g' -e 's/\\"/"/g' "$R/regexes.txt" > "$R/regexes-all-rg.txt"
: > "$R/regexes-rg.txt"
NSKIP=0
while IFS= read -r re; do
	printf '%s\n' "$re" > "$R/.re"
	rc=0; "$RG" -f "$R/.re" -q "$R/regexes.txt" 2>/dev/null || rc=$?
	if [ "$rc" -le 1 ]; then printf '%s\n' "$re" >> "$R/regexes-rg.txt"; else NSKIP=$((NSKIP + 1)); fi
done < "$R/regexes-all-rg.txt"
rm -f "$R/.re" "$R/regexes-all-rg.txt"
[ "$NSKIP" -eq 0 ] || echo "bench: $NSKIP of $NRE regexes are not for ripgrep's default engine (a look-ahead): rg searches for the other $((NRE - NSKIP))" >&2
# --no-unicode: \w, \b, \s, \d and . as the tool's PCRE2 compiles them (no
# UTF, no UCP: ASCII classes over bytes); also rg's fast path: in its default
# Unicode mode a \b before a non-ASCII byte stops its DFA, and on the
# tickets (UTF-8 box drawing, CJK) rg then runs 5 times slower, counting the
# same lines.
RGOPT="--no-unicode"
rc=0; "$RG" -f "$R/regexes-rg.txt" -q "$R/regexes.txt" 2>/dev/null || rc=$?
if [ "$rc" -gt 1 ]; then
	echo "bench: rg does not parse the rewritten regexes; using rg -P (PCRE2) with the originals" >&2
	RGOPT="-P --no-unicode"; cp "$R/regexes.txt" "$R/regexes-rg.txt"; NSKIP=0
fi

# time_cmd NAME CMD...: RUNS runs; prints "NAME wall_s cpu_s max_rss_kib".
# Output goes to a file, not /dev/null (a tool may stop early when it sees
# /dev/null).
time_cmd() {
	name=$1; shift
	: > "$R/.times"
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		# shellcheck disable=SC2086
		"${TIME:-/usr/bin/time}" -f "%e %U %S %M" -o "$R/.t" $PIN "$@" > "$R/.out" 2>"$R/.err" || [ $? -le 1 ] || { cat "$R/.err" >&2; exit 1; }
		tail -n 1 "$R/.t" >> "$R/.times" # GNU time may add "Command exited with non-zero status 1" first
		r=$((r + 1))
	done
	rm -f "$R/.out"
	# median wall seconds, median CPU seconds (user + system), largest peak RSS
	awk -v n="$name" '{w[NR]=$1; c[NR]=$2+$3; if ($4>m) m=$4}
		function med(a, k, i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
		END {printf "%s %.3f %.3f %d\n", n, med(w, NR), med(c, NR), m}' "$R/.times"
}

# instructions of CMD (perf stat where the machine counts them, else callgrind); empty when neither
PERF_OK=0
if command -v perf >/dev/null 2>&1 && perf stat -x, -e instructions true 2>&1 | grep -q '^[0-9]'; then PERF_OK=1; fi
instr() {
	if [ "$PERF_OK" = 1 ]; then
		perf stat -x, -e instructions -o "$R/.perf" "$@" >/dev/null 2>&1 || :
		awk -F, '$3 ~ /instructions/ || $3 == "instructions" {print $1; exit}' "$R/.perf"
	elif command -v valgrind >/dev/null 2>&1; then
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" >/dev/null 2>"$R/.vg" || :
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$R/.vg" | tail -n 1
	fi
}
IPL_HOW=$([ "$PERF_OK" = 1 ] && echo "perf stat: whole corpus minus its first half" || echo "callgrind: first $SLICE_MB MiB minus first $((SLICE_MB / 2))")

# start-up: a one-line file (the NCCL version line of a capture)
grep -m 1 -h "NCCL version" fixtures/captures/h200-2gpu/scenarios/ok/run.log > "$R/one.log"
START_MS=$(python3 -c '
import resource, subprocess, sys
best = None
for _ in range(15):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    best = cpu if best is None else min(best, cpu)
print("%.1f" % (best * 1000))' $BIN analyze $DB -q "$R/one.log")
START_IR=$(instr $BIN analyze $DB -q "$R/one.log")

: > "$R/.res"
for c in $CORPORA; do
	C=$R/$c
	cat "$C/all.log" "$C"/gz/*.gz > /dev/null # warm the page cache
	{
	time_cmd "$c:analyze" "$BIN" analyze $DB -q --format json "$C/all.log"
	time_cmd "$c:analyze-j1" "$BIN" analyze $DB -q -j1 --format json "$C/all.log"
	time_cmd "$c:rg" "$RG" $RGOPT -c -f "$R/regexes-rg.txt" "$C/all.log"
	[ "$c" != captures ] || time_cmd "$c:rg-folder" "$RG" $RGOPT -c -f "$R/regexes-rg.txt" "$C/plain"
	time_cmd "$c:gunzip" sh -c "gzip -dc $C/gz/*.gz"
	if command -v pigz >/dev/null 2>&1; then time_cmd "$c:pigz" sh -c "pigz -dc $C/gz/*.gz"; fi
	if command -v igzip >/dev/null 2>&1; then time_cmd "$c:igzip" sh -c "igzip -dc $C/gz/*.gz"; fi
	time_cmd "$c:batch-j1" "$BIN" batch $DB -q -j1 --summary-only "$C/gz"
	time_cmd "$c:batch-j2" "$BIN" batch $DB -q -j2 --summary-only "$C/gz"
	[ "$JOBS" -le 2 ] || time_cmd "$c:batch-j$JOBS" "$BIN" batch $DB -q "-j$JOBS" --summary-only "$C/gz"
	[ "$NCPU" -lt 4 ] || [ "$JOBS" -eq 4 ] || time_cmd "$c:batch-j4" "$BIN" batch $DB -q -j4 --summary-only "$C/gz"
	if [ -n "${SLICES:-}" ] && [ "$c" = captures ]; then
		# the line mix matters: the corpus's NCCL lines alone, and its other lines alone
		grep -a ' NCCL ' "$C/all.log" > "$C/nccl-lines.log" || :
		grep -av ' NCCL ' "$C/all.log" > "$C/other-lines.log" || :
		for sl in nccl-lines other-lines; do
			time_cmd "$c:analyze-$sl" "$BIN" analyze $DB -q --format json "$C/$sl.log"
			time_cmd "$c:rg-$sl" "$RG" $RGOPT -c -f "$R/regexes-rg.txt" "$C/$sl.log"
		done
		rm -f "$C/nccl-lines.log" "$C/other-lines.log"
	fi
	} >> "$R/.res"
	if [ "${IPL:-1}" != 0 ]; then
		# the instructions of the lines alone: two slices (SLICE_MB and half of
		# it, whole lines), the difference over the difference in lines (the
		# start-up and the end of the analysis cancel out)
		if [ "$PERF_OK" = 1 ]; then h=$((MB / 2)); f=$MB; else h=$((SLICE_MB / 2)); f=$SLICE_MB; fi
		head -c $((h * 1048576)) "$C/all.log" | awk 1 > "$R/.slice1"
		head -c $((f * 1048576)) "$C/all.log" | awk 1 > "$R/.slice2"
		ir1=$(instr $BIN analyze $DB -q -j1 --format json "$R/.slice1")
		ir2=$(instr $BIN analyze $DB -q -j1 --format json "$R/.slice2")
		nl1=$(wc -l < "$R/.slice1"); nl2=$(wc -l < "$R/.slice2")
		[ -z "$ir1" ] || [ -z "$ir2" ] || echo "$c:ipl $(awk -v a="$ir1" -v b="$ir2" -v n="$nl1" -v m="$nl2" 'BEGIN {printf "%.0f", (b - a) / (m - n)}')" >> "$R/.res"
		rm -f "$R/.slice1" "$R/.slice2"
	fi
done

get() { awk -v n="$1" -v f="$2" '$1 == n {print $f}' "$R/.res"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b}'; }
mib() { awk -v k="$1" 'BEGIN {if (k == "") print "-"; else printf "%d", k / 1024}'; }
{
	echo "nccl-triage benchmark  $(date -u +%Y-%m-%d)  $(uname -m), $NCPU CPUs${CPUS:+ (taskset $CPUS)}, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
	echo "corpora: $MB MiB each in $FILES files ($CORPORA); $NRE regexes ($("$RG" --version 2>/dev/null | sed -n 1p) $RGOPT; $NSKIP not for rg's engine, left out of its set); median of $RUNS runs"
	echo "load average: $LOAD0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (wall-clock ratios need an idle machine; CPU seconds beside them)"
	echo
	printf '%-32s %8s %8s %10s\n' command "wall s" "cpu s" "peak RSS"
	grep -v ':ipl ' "$R/.res" | while read -r n s c m; do
		printf '%-32s %8s %8s %6s MiB\n' "$n" "$s" "$c" "$((m / 1024))"
	done
	echo
	printf '%-44s' "target (issue 24)"
	for c in $CORPORA; do printf ' %12s' "$c"; done
	printf '   %s\n' "target"
	row() { # row LABEL TARGET A B [scale]: wall(A) / wall(B) per corpus
		printf '%-44s' "$1"
		for c in $CORPORA; do printf ' %12s' "$(ratio "$(get "$c:$3" 2)" "$(get "$c:$4" 2)")"; done
		printf '   %s\n' "$2"
	}
	row "analyze / rg -c -f (one file, 2 threads)" "<= 0.6" analyze rg
	row "analyze -j1 / rg -c -f" "<= 1.0" analyze-j1 rg
	row "batch -j$JOBS / gzip -dc (one core)" "<= 0.5" "batch-j$JOBS" gunzip
	row "batch -j1 / gzip -dc" "" batch-j1 gunzip
	row "batch speed-up -j1 / -j2" "" batch-j1 batch-j2
	[ "$NCPU" -lt 4 ] || row "batch speed-up -j1 / -j4" "" batch-j1 batch-j4
	row "pigz -dc / gzip -dc (reference)" "" pigz gunzip
	row "igzip -dc / gzip -dc (reference)" "" igzip gunzip
	printf '%-44s' "peak memory, MiB (analyze; batch -j$JOBS)"
	for c in $CORPORA; do printf ' %12s' "$(mib "$(get "$c:analyze" 4)"); $(mib "$(get "$c:batch-j$JOBS" 4)")"; done
	printf '   %s\n' "<= 48"
	printf '%-44s' "analyze MB/s (2 threads; -j1)"
	for c in $CORPORA; do printf ' %12s' "$(awk -v a="$(get "$c:analyze" 2)" -v b="$(get "$c:analyze-j1" 2)" -v mb="$MB" 'BEGIN {printf "%.0f; %.0f", mb * 1.048576 / a, mb * 1.048576 / b}')"; done
	echo
	printf '%-44s' "instructions per line (analyze -j1)"
	for c in $CORPORA; do printf ' %12s' "$(get "$c:ipl" 2)"; done
	printf '   %s\n' "($IPL_HOW)"
	printf '%-44s %12s   %s\n' "start-up: analyze of a one-line file" "$START_MS ms" "<= 8 ms (CPU, best of 15; ${START_IR:-?} instructions)"
	if [ -n "${SLICES:-}" ]; then
		echo "analyze / rg, captures' NCCL lines only  $(ratio "$(get captures:analyze-nccl-lines 2)" "$(get captures:rg-nccl-lines 2)")"
		echo "analyze / rg, captures' other lines only $(ratio "$(get captures:analyze-other-lines 2)" "$(get captures:rg-other-lines 2)")"
	fi
} | tee bench/results/latest.txt
