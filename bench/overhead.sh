#!/bin/sh
# bench/overhead.sh [BIN] - the CPU that `nccl-triage run` itself uses to copy
# a job's output to the terminal and into the bundle (issue 23: <= 1% of a
# core for a job writing 10 MB/s).  The job (bench/writer.c) writes 10 MB/s of
# 120-byte lines, one write() each, for SECONDS (default 10); run records its
# own CPU time (getrusage of its process: every thread, not the job's) in the
# manifest (run.cpu_ms), and this prints it against the job's duration.
# Cases: stdout to a pipe (what a scheduler or a container runtime reads),
# to /dev/null, to a file (sbatch's --output; run's direct mode: the job
# writes the file itself, the log follows it), stdout and stderr apart (two
# files, two pipes), and at 100 MB/s; then GNU tee and cat on the same job,
# for scale.
BIN=${1:-./nccl-triage}
SECS=${SECONDS_RUN:-10}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -O2 -o "$T/writer" bench/writer.c || exit 2
one() { # NAME RATE OUT [both]: OUT file, null or pipe
	case $3 in
	file) "$BIN" run --no-collect --bundle "$T/$1" -- "$T/writer" "$2" "$SECS" 120 $4 >"$T/$1.out" 2>"$T/$1.err" ;;
	null) "$BIN" run --no-collect --bundle "$T/$1" -- "$T/writer" "$2" "$SECS" 120 $4 >/dev/null 2>"$T/$1.err" ;;
	pipe) "$BIN" run --no-collect --bundle "$T/$1" -- "$T/writer" "$2" "$SECS" 120 $4 2>"$T/$1.err" | cat >/dev/null ;;
	pipes) # stdout and stderr, each its own pipe (stderr through a fifo)
		rm -f "$T/$1.fifo" && mkfifo "$T/$1.fifo"
		cat "$T/$1.fifo" >/dev/null &
		"$BIN" run --no-collect --bundle "$T/$1" -- "$T/writer" "$2" "$SECS" 120 $4 2>"$T/$1.fifo" | cat >/dev/null
		wait ;;
	esac
	python3 - "$T/$1" "$1" "$2" <<'PY'
import glob, json, sys
m = glob.glob(sys.argv[1] + "/*/manifest.jsonl")[0]
r = json.loads(open(m).read().splitlines()[-1])["run"]
mb = (r["stdout_bytes"] + r["stderr_bytes"]) / 1e6
print("%-14s %6.1f MB/s  %6.0f MB in %5.1f s  run's CPU %6.0f ms = %5.2f%% of one core  (lost %d, max RSS %d MiB)" %
      (sys.argv[2], mb / (r["ms"] / 1000), mb, r["ms"] / 1000, r["cpu_ms"], 100 * r["cpu_ms"] / r["ms"],
       r["log_lost"] + r["terminal_lost"], r["max_rss_kib"] // 1024))
PY
}
one to-pipe 10000000 pipe
one to-null 10000000 null
one to-file 10000000 file
one two-files 10000000 file both
one two-pipes 10000000 pipes both
one at-100MB 100000000 null
# the same job through GNU tee and cat, for scale: their own CPU time
"$T/writer" 10000000 "$SECS" 120 | /usr/bin/time -f "tee (GNU) to a file and the log: %U s user %S s sys in %e s" tee "$T/tee.log" >"$T/tee.out"
"$T/writer" 10000000 "$SECS" 120 | /usr/bin/time -f "cat (GNU) to a file: %U s user %S s sys in %e s" cat >"$T/cat.out"
