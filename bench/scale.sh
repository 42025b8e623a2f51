#!/bin/sh
# bench/scale.sh - how batch scales on a machine with more cores than the
# 2-vCPU bench VM (issue 24: "measure -j1/-j2/-j4 where cores exist"):
# `batch -q -jN --summary-only` over the FILES gzip archives of each corpus
# (bench/make-corpus.sh, as bench/run.sh builds them) for N = 1, 2, 4, 8, ...
# up to the cores, against `gzip -dc` of the same archives on one core (and
# `igzip -dc` where installed, the inflater's own speed).  Needs no ripgrep
# and no GNU time (python3 times each process with wait4: wall, CPU, peak
# RSS), so it runs where bench/run.sh cannot (the GPU host: no network).
# Environment: MB (512), FILES (64), RUNS (3: the median is shown),
# CORPORA ("captures tickets"), BIN (./nccl-triage), JOBS ("1 2 4 ... cores").
# Prints one table per corpus; writes bench/results/scale.txt.
set -eu
cd "$(dirname "$0")/.."
MB=${MB:-512}
FILES=${FILES:-64}
RUNS=${RUNS:-3}
CORPORA=${CORPORA:-captures tickets}
BIN=${BIN:-./nccl-triage}
[ -x "$BIN" ] || make -s nccl-triage
NCPU=$(nproc)
if [ -z "${JOBS:-}" ]; then
	JOBS=1
	n=2
	while [ "$n" -le "$NCPU" ]; do JOBS="$JOBS $n"; n=$((n * 2)); done
	case " $JOBS " in *" $NCPU "*) ;; *) JOBS="$JOBS $NCPU" ;; esac
fi
for c in $CORPORA; do
	echo "building the corpus '$c': $MB MiB in $FILES job logs (bench/corpus/$c) ..." >&2
	sh bench/make-corpus.sh "$MB" "$FILES" "$c"
done
mkdir -p bench/results
{
	echo "bench/scale.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $NCPU cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "corpora: $MB MiB each in $FILES gzip archives; median of $RUNS runs; $("$BIN" --version 2>/dev/null | head -n 1)"
	python3 - "$BIN" "$RUNS" "$JOBS" $CORPORA <<'EOF'
import os, shutil, subprocess, sys, time
binary, runs, jobs, corpora = sys.argv[1], int(sys.argv[2]), [int(j) for j in sys.argv[3].split()], sys.argv[4:]

# peak RSS from GNU time where it is installed: wait4's ru_maxrss of a child
# started by Python counts Python's own pages before the exec
gnu_time = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None

def timed(cmd):
    """median wall s, median CPU s (user + system, with the waited-for children), largest peak RSS MiB (None without GNU time)"""
    walls, cpus, rss = [], [], 0
    if gnu_time:
        cmd = [gnu_time, "-f", "%M", "-o", "bench/corpus/.scale.rss"] + cmd
    for _ in range(runs):
        # output to a file, not /dev/null (a tool may stop early when it sees /dev/null)
        with open(os.devnull, "wb") as null, open("bench/corpus/.scale.out", "wb") as out:
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, stdout=out, stderr=null)
            _, status, ru = os.wait4(p.pid, 0)
            walls.append(time.perf_counter() - t0)
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            sys.exit("bench/scale.sh: %s exited with %d" % (" ".join(cmd), code))
        cpus.append(ru.ru_utime + ru.ru_stime)
        if gnu_time:
            with open("bench/corpus/.scale.rss") as f:
                rss = max(rss, int(f.read().split()[-1]) / 1024)
    med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
    return med(walls), med(cpus), rss if gnu_time else None

for c in corpora:
    gz = "bench/corpus/%s/gz" % c
    files = sorted(os.path.join(gz, f) for f in os.listdir(gz) if f.endswith(".gz"))
    ref = timed(["sh", "-c", "gzip -dc " + " ".join(files)])
    rows = [("gzip -dc (one core)", ref)]
    if shutil.which("igzip"):
        rows.append(("igzip -dc (one core)", timed(["sh", "-c", "igzip -dc " + " ".join(files)])))
    base = None
    for j in jobs:
        t = timed([binary, "batch", "-q", "-j%d" % j, "--summary-only", gz])
        base = base or t
        rows.append(("batch -j%d" % j, t))
    print()
    print("%s: %d archives" % (c, len(files)))
    print("%-22s %8s %8s %9s %12s %9s" % ("command", "wall s", "cpu s", "peak MiB", "/ gzip -dc", "speed-up"))
    for name, (w, cpu, rss) in rows:
        up = "%.2f" % (base[0] / w) if name.startswith("batch") else ""
        print("%-22s %8.3f %8.3f %9s %12.2f %9s" % (name, w, cpu, "%.0f" % rss if rss is not None else "n/a", w / ref[0], up))
for f in ("bench/corpus/.scale.out", "bench/corpus/.scale.rss"):
    if os.path.exists(f):
        os.unlink(f)
EOF
} | tee bench/results/scale.txt
