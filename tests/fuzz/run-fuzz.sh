#!/bin/sh
# tests/fuzz/run-fuzz.sh BUILD_DIR SECONDS [TARGET...] - `make fuzz`.
# Links every tests/fuzz/fuzz_NAME.c with libFuzzer (clang,
# -fsanitize=fuzzer,address,undefined) against BUILD_DIR/libnccltriage.a, runs
# each for SECONDS seconds on its working corpus BUILD_DIR/corpus/NAME plus the
# committed tests/fuzz/corpus/NAME and the seeds (made from fixtures/ by
# seed.sh on the first run), writes crashes, hangs and leaks to
# tests/fuzz/crashes/NAME-*, then minimises the working corpus with -merge=1
# and replaces the committed corpus by the smallest inputs that reach every
# coverage edge (cover.awk), so that it stays small.  FUZZ_JOBS=2 runs two
# targets at a time.  Prints executions and findings per target.
set -u
B=${1:?usage: run-fuzz.sh BUILD_DIR SECONDS [TARGET...]}
SECS=${2:-60}
shift 2
TARGETS=${*:-gzip tar detect logline sysreport sigdb analyze scan}
JOBS=${FUZZ_JOBS:-1}
CC=${CC:-clang}
FLAGS="-std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
DEPS="$(pkg-config --cflags --libs libpcre2-8 libcjson zlib) $(pkg-config --exists libisal 2>/dev/null && pkg-config --libs libisal)"
mkdir -p "$B/bin" "$B/logs" tests/fuzz/crashes
[ -d "$B/seeds" ] || sh tests/fuzz/seed.sh "$B/seeds" || exit 2

maxlen() {
	case $1 in
	logline | scan) echo 4096 ;; sigdb) echo 8192 ;; detect) echo 16384 ;;
	sysreport) echo 32768 ;; *) echo 65536 ;;
	esac
}

one() {
	t=$1
	bin=$B/bin/fuzz_$t
	$CC $FLAGS -Ianalyzer -o "$bin" tests/fuzz/fuzz_$t.c "$B/libnccltriage.a" $DEPS -lpthread -ldl -lm || return 1
	work=$B/corpus/$t            # the working corpus: grows, not committed
	corpus=tests/fuzz/corpus/$t    # the committed corpus: a small edge cover of it
	mkdir -p "$work" "$corpus"
	log=$B/logs/$t.log
	before=$(ls tests/fuzz/crashes | grep -c "^$t-")
	# -timeout: one input taking longer is a hang; -rss_limit_mb: memory cap
	"$bin" -max_total_time="$SECS" -max_len="$(maxlen "$t")" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="tests/fuzz/crashes/$t-" \
		"$work" "$corpus" "$B/seeds/$t" >"$log" 2>&1
	rc=$?
	# minimise the working corpus (-merge=1 keeps the inputs that add features)
	rm -rf "$work.min" "$B/cover-$t"
	mkdir -p "$work.min" "$B/cover-$t"
	if "$bin" -merge=1 -merge_control_file="$B/merge-$t.ctl" -max_len="$(maxlen "$t")" -timeout=10 \
		"$work.min" "$work" "$corpus" >"$log.merge" 2>&1; then
		# the committed corpus: the smallest inputs that reach every edge
		awk -f tests/fuzz/cover.awk "$B/merge-$t.ctl" | while read -r f; do cp "$f" "$B/cover-$t/"; done
		if [ -n "$(ls "$B/cover-$t")" ]; then
			rm -rf "$corpus" && mv "$B/cover-$t" "$corpus"
		fi
		rm -rf "$work" && mv "$work.min" "$work"
	fi
	rm -rf "$work.min" "$B/cover-$t" "$B/merge-$t.ctl"
	execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
	cov=$(grep -E '#[0-9]+.*cov:' "$log" | tail -n 1 | sed 's/.*cov: \([0-9]*\).*ft: \([0-9]*\).*/cov \1 ft \2/')
	after=$(ls tests/fuzz/crashes | grep -c "^$t-")
	echo "fuzz_$t: ${SECS}s, ${execs:-?} executions, ${cov:-?}, corpus $(ls "$work" | wc -l) files ($(ls "$corpus" | wc -l) committed), exit $rc, new findings $((after - before))"
}

n=0
for t in $TARGETS; do
	one "$t" &
	n=$((n + 1))
	if [ "$n" -ge "$JOBS" ]; then wait; n=0; fi
done
wait
ls tests/fuzz/crashes | sed 's/^/finding: /'
