#!/bin/sh
# bench/run.sh - time nccl-triage against ripgrep and gunzip on a corpus made
# from the real logs in fixtures/ (bench/make-corpus.sh).  Prints medians of
# RUNS runs, peak memory and the ratios the project's targets are stated in:
#
#   analyze over MB MiB of plain NCCL logs, full database   vs  rg -f (the database's regexes)
#     (analyze uses two threads, as it does by default on two cores or more; -j1 is timed too)
#   batch over FILES gzip archives holding MB MiB of text     vs  gzip -dc on one core
#   batch -j1 vs -j2 (scaling), peak RSS of both (/usr/bin/time)
#
# Environment: MB (default 512), FILES (64), RUNS (5), SLICES=1 (also time the
# corpus's NCCL lines alone and its other lines alone), JOBS (batch -j for the
# ratio, default: cores), DB ("--no-builtin -p DIR" to use another database),
# RG (ripgrep binary; installed with apt-get when missing and possible),
# CPUS (e.g. "0,1": pin every command to these CPUs with taskset), TIME (GNU
# time, default /usr/bin/time).
# Writes bench/results/latest.txt.
set -eu
cd "$(dirname "$0")/.."
MB=${MB:-512}
FILES=${FILES:-64}
RUNS=${RUNS:-5}
DB=${DB:-}
BIN=./nccl-triage
[ -x "$BIN" ] || make -s nccl-triage
RG=${RG:-rg}
if ! command -v "$RG" >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		apt-get install -y ripgrep >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y ripgrep >/dev/null 2>&1; }
	fi
	command -v "$RG" >/dev/null 2>&1 || { echo "bench: ripgrep not found (apt-get install ripgrep, or RG=/path/to/rg)" >&2; exit 1; }
fi
PIN=""
if [ -n "${CPUS:-}" ]; then PIN="taskset -c $CPUS"; fi
NCPU=$(${PIN:-} nproc)
JOBS=${JOBS:-$NCPU}

echo "building the corpus: $MB MiB in $FILES job logs (bench/corpus) ..." >&2
sh bench/make-corpus.sh "$MB" "$FILES"
C=bench/corpus
mkdir -p bench/results
# shellcheck disable=SC2086
"$BIN" list $DB --regex > "$C/regexes.txt"
NRE=$(wc -l < "$C/regexes.txt")
# ripgrep's default engine takes the same regexes once PCRE-only syntax is
# rewritten: named groups become plain groups (rg reports lines, not
# captures), a backreference \k<name> becomes \d+ (the default engine has no
# backreferences; the only one repeats a number), \" becomes ".  A regex the default engine still
# cannot parse (a look-ahead) is left out of rg's set and counted in the results' header: rg -P
# with the whole set is no baseline (PCRE2 refuses the signatures' repeated group names in the
# one pattern rg joins them into, and with the names dropped it takes minutes a run on 307
# regexes).  Only should the rest still not parse, rg -P with the originals.
sed -E -e 's/\(\?<([A-Za-z_][A-Za-z0-9_]*)>/(?:/g' -e 's/\\k<[A-Za-z_][A-Za-z0-9_]*>/\\d+/g' -e 's/\\"/"/g' "$C/regexes.txt" > "$C/regexes-all-rg.txt"
: > "$C/regexes-rg.txt"
NSKIP=0
while IFS= read -r re; do
	printf '%s\n' "$re" > "$C/.re"
	rc=0; "$RG" -f "$C/.re" -q "$C/templates" 2>/dev/null || rc=$?
	if [ "$rc" -le 1 ]; then printf '%s\n' "$re" >> "$C/regexes-rg.txt"; else NSKIP=$((NSKIP + 1)); fi
done < "$C/regexes-all-rg.txt"
rm -f "$C/.re" "$C/regexes-all-rg.txt"
[ "$NSKIP" -eq 0 ] || echo "bench: $NSKIP of $NRE regexes are not for ripgrep's default engine (a look-ahead): rg searches for the other $((NRE - NSKIP))" >&2
RGOPT=""
rc=0; "$RG" -f "$C/regexes-rg.txt" -q "$C/templates" 2>/dev/null || rc=$?
if [ "$rc" -gt 1 ]; then
	echo "bench: rg does not parse the rewritten regexes; using rg -P (PCRE2) with the originals" >&2
	RGOPT="-P"; cp "$C/regexes.txt" "$C/regexes-rg.txt"; NSKIP=0
fi

# time_cmd NAME CMD...: RUNS runs; prints "NAME wall_s cpu_s max_rss_kib"
time_cmd() {
	name=$1; shift
	: > "$C/.times"
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		# shellcheck disable=SC2086
		"${TIME:-/usr/bin/time}" -f "%e %U %S %M" -o "$C/.t" $PIN "$@" > /dev/null 2>"$C/.err" || [ $? -le 1 ] || { cat "$C/.err" >&2; exit 1; }
		tail -n 1 "$C/.t" >> "$C/.times" # GNU time may add "Command exited with non-zero status 1" first
		r=$((r + 1))
	done
	# median wall seconds, median CPU seconds (user + system), largest peak RSS
	awk -v n="$name" '{w[NR]=$1; c[NR]=$2+$3; if ($4>m) m=$4}
		function med(a, k, i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
		END {printf "%s %.3f %.3f %d\n", n, med(w, NR), med(c, NR), m}' "$C/.times"
}

# warm the page cache
cat "$C/all.log" "$C"/gz/*.gz > /dev/null

{
time_cmd analyze "$BIN" analyze $DB -q --format json "$C/all.log"
time_cmd analyze-j1 "$BIN" analyze $DB -q -j1 --format json "$C/all.log"
time_cmd rg "$RG" $RGOPT -f "$C/regexes-rg.txt" "$C/all.log"
time_cmd rg-folder "$RG" $RGOPT -f "$C/regexes-rg.txt" "$C/plain"
time_cmd gunzip sh -c "gzip -dc $C/gz/*.gz"
time_cmd batch-j1 "$BIN" batch $DB -q -j1 --summary-only "$C/gz"
time_cmd batch-j2 "$BIN" batch $DB -q -j2 --summary-only "$C/gz"
[ "$JOBS" -le 2 ] || time_cmd "batch-j$JOBS" "$BIN" batch $DB -q "-j$JOBS" --summary-only "$C/gz"
if [ -n "${SLICES:-}" ]; then
	# the line mix matters: the corpus's NCCL lines alone, and its other lines alone
	grep -a ' NCCL ' "$C/all.log" > "$C/nccl-lines.log" || :
	grep -av ' NCCL ' "$C/all.log" > "$C/other-lines.log" || :
	for sl in nccl-lines other-lines; do
		time_cmd "analyze-$sl" "$BIN" analyze $DB -q --format json "$C/$sl.log"
		time_cmd "rg-$sl" "$RG" $RGOPT -f "$C/regexes-rg.txt" "$C/$sl.log"
	done
	rm -f "$C/nccl-lines.log" "$C/other-lines.log"
fi
} > "$C/.res"

get() { awk -v n="$1" -v f="$2" '$1 == n {print $f}' "$C/.res"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }
{
	echo "nccl-triage benchmark  $(date -u +%Y-%m-%d)  $(uname -m), $NCPU CPUs${CPUS:+ (taskset $CPUS)}, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
	echo "corpus: $MB MiB of NCCL/PyTorch logs in $FILES files from fixtures/captures; $(du -sm "$C/gz" | cut -f1) MiB gzip'ed; $NRE regexes ($("$RG" --version 2>/dev/null | sed -n 1p)${RGOPT:+, -P}; $NSKIP not for rg's engine, left out of its set); median of $RUNS runs"
	echo
	printf '%-20s %10s %10s %12s\n' command "wall s" "cpu s" "peak RSS"
	while read -r n s c m; do
		printf '%-20s %10s %10s %9s MiB\n' "$n" "$s" "$c" "$((m / 1024))"
	done < "$C/.res"
	echo
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (wall-clock ratios need an idle machine; CPU ratios are in brackets)"
	echo "analyze / rg (one file)        $(ratio "$(get analyze 2)" "$(get rg 2)") [cpu $(ratio "$(get analyze 3)" "$(get rg 3)")]   (target <= 1.0, goal 0.5)"
	echo "analyze -j1 / rg (one thread)  $(ratio "$(get analyze-j1 2)" "$(get rg 2)")"
	echo "analyze / rg (folder, threads) $(ratio "$(get analyze 2)" "$(get rg-folder 2)")"
	echo "batch -j$JOBS / gzip -dc        $(ratio "$(get "batch-j$JOBS" 2)" "$(get gunzip 2)") [cpu/$JOBS $(ratio "$(get "batch-j$JOBS" 3)" "$(awk -v g="$(get gunzip 3)" -v j="$JOBS" 'BEGIN {print g * j}')")]   (target <= 1.0)"
	echo "batch -j1 / -j2 (speed-up)     $(ratio "$(get batch-j1 2)" "$(get batch-j2 2)")   (target >= 1.7)"
	echo "analyze MB/s                   $(awk -v s="$(get analyze 2)" -v mb="$MB" 'BEGIN {printf "%.0f", mb / s}')"
	if [ -n "${SLICES:-}" ]; then
		echo "analyze / rg, NCCL lines only  $(ratio "$(get analyze-nccl-lines 2)" "$(get rg-nccl-lines 2)")"
		echo "analyze / rg, other lines only $(ratio "$(get analyze-other-lines 2)" "$(get rg-other-lines 2)")"
	fi
} | tee bench/results/latest.txt
