#!/bin/sh
# tests/verify/run.sh [NCCL_TRIAGE_BINARY] - CPU-only tests of `nccl-triage verify`:
# the no-GPU / no-driver / no-libnccl path (message and exit status 3) and the
# process handling (unique id relay, value check, failure, hang, crash, watchdog,
# no leftover processes), using fake libcuda.so.1 / libnccl.so.2 built here from
# tests/fake-nccl/*.c.  Without an argument, a stand-alone driver is built from
# analyzer/ (verify files + util).  Prints one final "N passed, N failed" line.
set -u
# Under ASan the fake library's deliberate crashes must stay signals, as they
# are for users: let the default handlers run.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigfpe=0"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/nt-verify.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
CC=${CC:-cc}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# Fake libraries: one folder with both, one with only libcuda, one with only libnccl.
mkdir -p "$T/fake" "$T/cudaonly" "$T/ncclonly" "$T/x"
$CC -shared -fPIC -O1 -pthread -Wl,-soname,libcuda.so.1 -o "$T/fake/libcuda.so.1" "$ROOT/tests/fake-nccl/fake_cuda.c" || { echo "0 passed, 1 failed"; exit 1; }
$CC -shared -fPIC -O1 -pthread -Wl,-soname,libnccl.so.2 -o "$T/fake/libnccl.so.2" "$ROOT/tests/fake-nccl/fake_nccl.c" -ldl || { echo "0 passed, 1 failed"; exit 1; }
cp "$T/fake/libcuda.so.1" "$T/cudaonly/"; cp "$T/fake/libnccl.so.2" "$T/ncclonly/"

if [ $# -ge 1 ]; then
	BIN=$1
else
	BIN=$ROOT/nccl-triage
	[ -x "$BIN" ] || make -C "$ROOT" -s nccl-triage || { echo "0 passed, 1 failed"; exit 1; }
fi
export FAKE_NCCL_DIR="$T/x" NO_COLOR=1
unset FAKE_NCCL_MODE FAKE_NCCL_RANK FAKE_CUDA_MODE FAKE_CUDA_NDEV NCCL_SOCKET_IFNAME NCCL_ALGO \
	NCCL_P2P_DISABLE NCCL_SHM_DISABLE NCCL_NET NCCL_DEBUG_FILE
F="--cuda-lib $T/fake --nccl-lib $T/fake --size 64k --iters 3 --no-analysis"

# run NAME EXPECTED_STATUS ARGS... ; output in $T/NAME.out, $T/NAME.err
run() {
	name=$1 want=$2; shift 2
	"$BIN" verify "$@" >"$T/$name.out" 2>"$T/$name.err"
	got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$name: exit status $got, expected $want"; sed 's/^/  | /' "$T/$name.err" "$T/$name.out" >&2; fi
}
has() { # has NAME FILE-SUFFIX TEXT
	if grep -qF -- "$3" "$T/$1.$2"; then ok; else bad "$1: '$3' not in $2"; sed 's/^/  | /' "$T/$1.$2" >&2; fi
}
hasnt() {
	if grep -qF -- "$3" "$T/$1.$2"; then bad "$1: '$3' unexpectedly in $2"; else ok; fi
}
# No process of ours may survive a run (watchdog kills the whole group).
no_leftovers() {
	sleep 0.2
	if ps -eo pid,args | grep -v grep | grep -q "$T/nccl-triage verify\|$BIN verify"; then
		bad "$1: processes left behind"; ps -eo pid,pgid,args | grep -F "$BIN" >&2
	else ok; fi
}

# ---- environment that cannot run verify: exit 3 and a precise message -------------
run nodriver 3 --cuda-lib "$T/ncclonly" --nccl-lib "$T/ncclonly"
has nodriver err "no CUDA driver: libcuda.so.1 could not be loaded"
has nodriver err "exit status 3"
hasnt nodriver out "baseline"

run nonccl 3 --cuda-lib "$T/cudaonly" --nccl-lib "$T/cudaonly"
has nonccl err "no NCCL: libnccl.so.2 could not be loaded"
has nonccl err "tried: $T/cudaonly/libnccl.so.2"

run nonccl_json 3 --cuda-lib "$T/cudaonly" --nccl-lib "$T/cudaonly" --format json
has nonccl_json out '"verdict":	"unavailable"'
has nonccl_json out '"exit_status":	3'

FAKE_CUDA_MODE=nodev run nodev 3 $F
has nodev err "no usable GPU: cuInit failed: CUDA_ERROR_NO_DEVICE (100)"

FAKE_CUDA_NDEV=0 run zerodev 3 $F
has zerodev err "no usable GPU"

FAKE_CUDA_NDEV=1 run toofew 3 $F --nranks 2
has toofew err "2 ranks asked for but only 1 GPU is visible"

run notvisible 3 $F --gpus 0,5
has notvisible err "GPU 5 is not visible"

FAKE_CUDA_MODE=hang run probehang 3 $F --timeout 2
has probehang err "did not finish within 2 s"
no_leftovers probehang

FAKE_CUDA_MODE=crash run probecrash 3 $F
has probecrash err "killed by signal 11"

# ---- usage errors: exit 2 --------------------------------------------------------------
run badopt 2 --bogus
has badopt err "unknown option '--bogus'"
run badenv 2 --env NOEQUALS
run badgpus 2 --gpus 0,0
run badranks 2 --gpus 0 --nranks 2
echo '{"bundles":[{"diagnoses":[{"id":"x","category":"OTHER"}]}]}' > "$T/noenv.json"
run noenvreport 2 $F --from-report "$T/noenv.json"
has noenvreport err "no diagnosis proposes an environment"
run help 0 --help
has help out "Exit status: 0"

# ---- healthy replay: unique id relayed, values checked, bandwidth measured ------------
run healthy 0 $F
has healthy out "baseline  PASS"
has healthy out "transports: P2P/CUMEM/read"
has healthy out "verdict: healthy (exit status 0)"
run healthy1 0 $F --nranks 1 --format json
has healthy1 out '"result":	"pass"'
has healthy1 out '"checks_ok":	2'
FAKE_CUDA_NDEV=4 run four 0 $F --format json
has four out '"nranks":	4'
has four out '"rank":	3'

# ---- ordering: copies and collective on one stream (issue 15) ---------------------------
# The fake's streams are asynchronous: a pageable cuMemcpyHtoD lands FAKE_CUDA_DMA_MS after
# it returns, on the legacy stream, which the run's non-blocking stream does not wait for;
# the collective starts FAKE_NCCL_COLL_MS after its stream reaches it.  Copies that are not
# ordered with the all-reduce read back the 0xff poison (NaN) or stale data: WRONG VALUES.
# Whatever the delays, a correctly ordered run passes.
for delays in "100 2 2" "5 40 1" "0 0 30"; do
	set -- $delays
	FAKE_CUDA_DMA_MS=$1 FAKE_CUDA_ASYNC_MS=$2 FAKE_NCCL_COLL_MS=$3 run "order_$1_$2_$3" 0 $F --nranks 1 --format json
	has "order_$1_$2_$3" out '"checks_ok":	2'
	hasnt "order_$1_$2_$3" out 'wrong_values'
done
FAKE_CUDA_ASYNC_MS=20 FAKE_NCCL_COLL_MS=20 run order2 0 $F
has order2 out "baseline  PASS"
hasnt order2 out "WRONG VALUES"

# ---- a broken environment and its fix ------------------------------------------------------
NCCL_SOCKET_IFNAME=nonexist0 run ifname 0 $F --env NCCL_SOCKET_IFNAME=eth0
has ifname out 'baseline  FAIL'
has ifname out 'NCCL WARN Bootstrap : no socket interface found'
has ifname out 'candidate PASS  NCCL_SOCKET_IFNAME=eth0'
has ifname out 'verdict: fix_confirmed (exit status 0)'
has ifname out "baseline fails with NCCL WARN 'Bootstrap : no socket interface found' (rank 0, ncclGetUniqueId: invalid usage)"
no_leftovers ifname

NCCL_ALGO=simple run algo 0 $F --unset NCCL_ALGO --logs "$T/logs"
has algo out 'Unrecognized element token "simple" when parsing "simple"'
has algo out 'candidate PASS  unset NCCL_ALGO'
if grep -q "NCCL_ALGO set by environment to simple" "$T/logs/baseline/rank1.log"; then ok; else bad "algo: --logs did not keep rank 1's NCCL output"; fi
if grep -q "NCCL_ALGO" "$T/logs/candidate/rank0.log"; then bad "algo: NCCL_ALGO leaked into the candidate"; else ok; fi

# candidate from analyze's JSON: the top diagnosis with a verify.env
cat > "$T/report.json" <<'EOF'
{"schema_version":1,"bundles":[{"name":"t","verdict":"diagnosed","diagnoses":[
 {"id":"env.algo_invalid","category":"ENV_MISCONFIG","verify":{"env":{}}},
 {"id":"env.algo_token","category":"ENV_MISCONFIG","verify":{"env":{"NCCL_ALGO":"Ring"}}}]}]}
EOF
NCCL_ALGO=simple run fromreport 0 $F --from-report "$T/report.json" --format json
has fromreport out '"verdict":	"fix_confirmed"'
has fromreport out '"NCCL_ALGO":	"Ring"'
has fromreport out 'diagnosis env.algo_token (ENV_MISCONFIG)'

# an empty verify.env value means "unset"
echo '{"bundles":[{"diagnoses":[{"id":"socket.no_interface","category":"SOCKET_NETWORK","verify":{"env":{"NCCL_SOCKET_IFNAME":""}}}]}]}' > "$T/unset.json"
NCCL_SOCKET_IFNAME=nonexist0 run fromunset 0 $F --from-report "$T/unset.json"
has fromunset out "candidate PASS  unset NCCL_SOCKET_IFNAME"

# the same in JSON with null (what analyze writes for "unset it")
echo '{"bundles":[{"diagnoses":[{"id":"socket.no_interface","category":"SOCKET_NETWORK","verify":{"env":{"NCCL_SOCKET_IFNAME":null}}}]}]}' > "$T/unsetnull.json"
NCCL_SOCKET_IFNAME=nonexist0 run fromnull 0 $F --from-report "$T/unsetnull.json"
has fromnull out "candidate PASS  unset NCCL_SOCKET_IFNAME"

# One proposal for one diagnosis (issue 15): verify's "try:" line, analyze's "Confirm:" line and
# analyze's JSON all say "unset NCCL_SOCKET_IFNAME" -- not "--env NCCL_SOCKET_IFNAME=", which
# sets it to the empty string (NCCL then picks an interface itself, but an empty variable still
# hides a value from ~/.nccl.conf or /etc/nccl.conf).  Needs the analysis engine (the full binary).
if "$BIN" analyze --help >/dev/null 2>&1; then
	E="--cuda-lib $T/fake --nccl-lib $T/fake --size 64k --iters 3"
	NCCL_SOCKET_IFNAME=nonexist0 run ifname_try 1 $E --logs "$T/ilogs"
	has ifname_try out "diagnosis: socket.no_interface"
	has ifname_try out "try: nccl-triage verify --unset NCCL_SOCKET_IFNAME"
	hasnt ifname_try out "--env NCCL_SOCKET_IFNAME"
	"$BIN" analyze "$T/ilogs/baseline" > "$T/ian.out" 2>&1
	has ian out "Confirm: nccl-triage verify --unset NCCL_SOCKET_IFNAME"
	hasnt ian out "--env NCCL_SOCKET_IFNAME"
	"$BIN" analyze --format json "$T/ilogs/baseline" > "$T/ianj.out" 2>&1
	has ianj out '"NCCL_SOCKET_IFNAME":	null'
	NCCL_SOCKET_IFNAME=nonexist0 run ifname_round 0 $E --from-report "$T/ianj.out"
	has ifname_round out "candidate PASS  unset NCCL_SOCKET_IFNAME"
	has ifname_round out "verdict: fix_confirmed (exit status 0)"
fi

# candidate that does not help; candidate that breaks a healthy baseline
NCCL_ALGO=simple run nofix 1 $F --env NCCL_P2P_DISABLE=1
has nofix out "verdict: fix_failed (exit status 1)"
run breaks 1 $F --env NCCL_ALGO=simple
has breaks out "verdict: candidate_breaks (exit status 1)"
run bothpass 0 $F --env NCCL_P2P_DISABLE=1
has bothpass out "verdict: both_pass"
has bothpass out "transports: SHM/direct/direct"

# ---- failures inside the ranks ----------------------------------------------------------------
FAKE_NCCL_MODE=init_fail FAKE_NCCL_RANK=1 run initfail 1 $F --timeout 20
has initfail out "rank 1 (GPU 1): ncclCommInitRank: unhandled system error"
has initfail out "NCCL WARN Error: failed to extend"
has initfail out "killed by verify (after another rank failed)"
no_leftovers initfail

FAKE_NCCL_MODE=wrong_values FAKE_NCCL_RANK=1 run wrong 1 $F
has wrong out "WRONG VALUES"
has wrong out "element 128 expected 25 got 26"

FAKE_NCCL_MODE=init_crash FAKE_NCCL_RANK=0 run crash 1 $F --timeout 20
has crash out "CRASH"
has crash out "killed by signal 11 (Segmentation fault) during ncclCommInitRank"

# ---- hangs: watchdog, each rank's last NCCL lines, clean kill, exit 4 ------------------
FAKE_NCCL_MODE=init_hang run hang 4 $F --timeout 2
has hang out "baseline  HANG"
has hang out "timed out after 2 s: ranks 0,1 still in ncclCommInitRank"
has hang out "Init START"
has hang out "killed by verify (timeout)"
no_leftovers hang

FAKE_NCCL_MODE=init_hang run hangfix 0 $F --timeout 2 --env FAKE_NCCL_MODE=ok
has hangfix out "verdict: fix_confirmed"

FAKE_NCCL_MODE=coll_hang FAKE_NCCL_RANK=1 run collhang 4 $F --timeout 2 --format json
has collhang out '"result":	"hang"'
has collhang out '"killed_by_verify":	true'
no_leftovers collhang

# ---- transport survey ---------------------------------------------------------------------------
run survey 0 $F --survey
has survey out "transport survey"
has survey out "P2P         works"
has survey out "SHM         works"
has survey out "NET/Socket  works"
run survey1 0 $F --survey --nranks 1
has survey1 out "transport survey skipped"
run surveymd 0 $F --survey --format md
has surveymd out "| NET/Socket | works |"

# ---- library lookup honours LD_LIBRARY_PATH (dlopen's own search) -----------------------
LD_LIBRARY_PATH="$T/fake" run ldpath 0 --size 64k --iters 2 --no-analysis
has ldpath out "NCCL 2.28.9 ($T/fake/libnccl.so.2)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
