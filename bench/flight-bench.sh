#!/bin/sh
# bench/flight-bench.sh - flight-recorder dumps at scale (issue 28): RANKS
# per-rank pickles (default 1024) of ENTRIES entries each (default 2000),
# made from the real torch 2.11 dump of fixtures/flight/real/timeout (its
# entries repeated with rising sequence numbers, their frames shared through
# the pickle memo as torch shares them; rank 17 stops 10 collectives early),
# then `nccl-triage analyze --format json` over the folder: wall time and
# peak RSS (GNU time), and the culprit it names.  Target: <= 2 s, <= 64 MiB.
#   sh bench/flight-bench.sh            RANKS=256 ENTRIES=2000 sh bench/flight-bench.sh
# Not a test: numbers depend on the machine; see bench/README.md.
set -e
RANKS=${RANKS:-1024}
ENTRIES=${ENTRIES:-2000}
BIN=${BIN:-./nccl-triage}
W=${W:-$(mktemp -d)}
trap 'rm -rf "$W"' EXIT
python3 - "$W/dumps" "$RANKS" "$ENTRIES" <<'PY'
import copy, os, pickle, sys
out, nranks, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out, exist_ok=True)
real = pickle.load(open("fixtures/flight/real/timeout/nccl_trace_rank_0", "rb"))
tmpl = [e for e in real["entries"] if e["state"] == "completed" and e["profiling_name"] == "nccl:all_reduce"]
frames = [e["frames"] for e in tmpl]  # shared: memoised once per dump, as torch's pickler does
base = []
for i in range(n):
    e = dict(tmpl[i % len(tmpl)])
    e["frames"] = frames[i % len(frames)]
    e["record_id"] = i
    e["collective_seq_id"] = i + 1
    e["op_id"] = i + 1
    e["time_created_ns"] = 1796197221826735492 + i * 1000
    base.append(e)
last = dict(base[-1]); last["state"] = "started"; base[-1] = last
head = {k: v for k, v in real.items() if k != "entries"}
head["pg_config"] = {"0": {"name": "0", "desc": "default_pg", "ranks": str(list(range(nranks)))}}
for r in range(nranks):
    d = dict(head)
    d["entries"] = base[: n - 10] if r == 17 else base
    with open(os.path.join(out, "nccl_trace_rank_%d" % r), "wb") as f:
        pickle.dump(d, f, protocol=2)
PY
du -sh "$W/dumps" | sed 's/^/dumps: /'
/usr/bin/time -f "%e s wall, %U s user + %S s sys CPU, %M KiB peak RSS" "$BIN" analyze --format json "$W/dumps" > "$W/out.json" 2> "$W/time" || true
tail -1 "$W/time"
python3 -c "
import json; b = json.load(open('$W/out.json'))['bundles'][0]
print('verdict', b['verdict'], '|', b['flight_recorder']['headline'], '| dumps read', b['flight_recorder']['dumps_read'])"
