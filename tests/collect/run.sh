#!/bin/sh
# tests/collect/run.sh BIN - `nccl-triage collect` and `nccl-triage run` with
# real processes on this machine (no GPU: most tools missing; fake tools on
# PATH for a denial, a timeout, the locale), and the real bundles made on a
# 1 x H200 host (fixtures/collect/h200, README there).  Ends with
# "N passed, N failed".
BIN=${1:-./nccl-triage}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
ROOT=$(pwd)
pass=0
fail=0
T=$(mktemp -d)
MNT=""
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { # DESC CMD...: passes when CMD succeeds
	d=$1; shift
	if "$@"; then ok; else bad "$d"; fi
}
HOST=$(hostname | cut -d. -f1)
ulimit -c 0
# py SCRIPT ARGS...: a check in Python (standard library), exit status 0 = pass
py() { python3 - "$@"; }

# ---------- collect on this machine ----------
cd "$T" || exit 2
mkdir home cwd
HOME_BEFORE=$(find "$T/home" | wc -l)
(cd cwd && HOME="$T/home" NCCL_IB_HCA=mlx5_0 TORCH_SECRET_KEY=abc123 UNRELATED_VAR=zz "$BIN" collect -d out >../c.out 2>../c.err)
rc=$?
check "collect -d exit 0 (got $rc)" [ $rc -eq 0 ]
check "collect -d: a summary line" grep -q "nccl-triage collect: wrote out: .* commands" c.err
check "nothing written outside the output (cwd)" [ "$(ls cwd)" = out ]
check "nothing written outside the output (HOME)" [ "$(find "$T/home" | wc -l)" -eq "$HOME_BEFORE" ]
check "manifest's first line" grep -q '^{"nccl_triage_collect":1,' cwd/out/manifest.jsonl
check "env.txt: what matters" grep -q '^NCCL_IB_HCA=mlx5_0$' cwd/out/env.txt
check "env.txt: secrets masked" grep -q '^TORCH_SECRET_KEY=\*\*\*$' cwd/out/env.txt
if grep -q UNRELATED_VAR cwd/out/env.txt; then bad "env.txt: an unrelated variable"; else ok; fi
"$BIN" analyze --format json cwd/out >c.json 2>c.aerr
# every file lands in the parser its manifest line names; every command has
# a status; the manifest's facts (what failed) are in the report
check "collect -d: kinds, statuses and facts" py cwd/out c.json <<'EOF'
import json, os, sys
d, rep = sys.argv[1], json.load(open(sys.argv[2]))
b = rep["bundles"][0]
kinds = {i["path"]: i["kind"] for i in b["inputs"]}
lines = [json.loads(l) for l in open(os.path.join(d, "manifest.jsonl"))]
head, cmds = lines[0], lines[1:]
assert head["tool"].startswith("nccl-triage ") and head["host"] and head["time"].endswith("Z"), head
bad = 0
for c in cmds:
    for k in ("file", "kind", "command", "status", "exit", "ms", "bytes", "kept", "cut"):
        assert k in c, (k, c)
    assert c["status"] in ("ok", "partial", "failed", "missing", "denied", "timeout", "skipped", "absent"), c
    f = c["file"]
    if os.path.exists(os.path.join(d, f)):
        if kinds.get(f) != c["kind"]:
            print("kind of %s: %s, manifest says %s" % (f, kinds.get(f), c["kind"])); bad += 1
    elif c["status"] in ("ok", "partial") and c["kept"] > 0:
        print("%s: ok with output but no file" % f); bad += 1
assert kinds["manifest.jsonl"] == "collect_manifest", kinds
col = b["facts"]["collected"][0]
assert len(col["commands"]) == len(cmds), (len(col["commands"]), len(cmds))
missing = [c["file"] for c in cmds if c["status"] not in ("ok", "partial")]
if missing:
    assert "collect.reports_missing" in [x["id"] for x in b["diagnoses"]], b["diagnoses"]
    assert col["files_missing"], col
sys.exit(1 if bad else 0)
EOF

# fakes: a denial (not executable), a timeout, "Operation not permitted", the locale
mkdir fake
printf '#!/bin/sh\necho hi\n' >fake/ibstat # mode 0644: not executable, even for root
printf '#!/bin/sh\nexec sleep 30\n' >fake/nvidia-smi
printf '#!/bin/sh\necho "lspci: Unable to read the standard configuration space header: Operation not permitted" >&2\nexit 1\n' >fake/lspci
printf '#!/bin/sh\necho "LC_ALL=$LC_ALL LANG=$LANG LC_MESSAGES=${LC_MESSAGES:-unset}"\n' >fake/uname
printf '#!/bin/sh\necho "lo               UNKNOWN        127.0.0.1/8 ::1/128"\necho "eth0             UP             10.11.12.13/24 fe80::5054:ff:fe12:3456/64"\n' >fake/ip
chmod 755 fake/nvidia-smi fake/lspci fake/uname fake/ip
t0=$(date +%s)
PATH="$T/fake:$PATH" LC_ALL=de_DE.UTF-8 LC_MESSAGES=fr_FR "$BIN" collect --timeout 1 -d fk >fk.out 2>fk.err
rc=$?
t1=$(date +%s)
check "collect with fakes: exit 0 (got $rc)" [ $rc -eq 0 ]
check "collect with fakes: the timeouts run in parallel ($((t1 - t0)) s)" [ $((t1 - t0)) -lt 12 ]
check "collect with fakes: statuses" py fk/manifest.jsonl <<'EOF'
import json, sys
st = {}
for l in list(open(sys.argv[1]))[1:]:
    c = json.loads(l); st[c["command"]] = c
assert st["ibstat"]["status"] == "denied", st["ibstat"]
assert "Permission denied" in st["ibstat"]["error"], st["ibstat"]
assert st["nvidia-smi"]["status"] == "timeout" and st["nvidia-smi"]["ms"] < 3000, st["nvidia-smi"]
assert st["lspci -vvv"]["status"] == "denied" and st["lspci -vvv"]["exit"] == 1, st["lspci -vvv"]
assert st["show_gids"]["status"] == "missing", st["show_gids"]
assert st["uname -a"]["status"] == "ok", st["uname -a"]
EOF
check "clean locale in the commands" grep -q '^LC_ALL=C LANG=C LC_MESSAGES=unset$' fk/sys/uname.txt
# total budget: the slow commands are stopped, the rest not started
PATH="$T/fake:$PATH" "$BIN" collect --timeout 20 --budget 1 -d bu >/dev/null 2>bu.err
check "collect --budget: exit 0" [ $? -eq 0 ]
check "collect --budget: stopped and skipped" py bu/manifest.jsonl <<'EOF'
import json, sys
cmds = [json.loads(l) for l in list(open(sys.argv[1]))[1:]]
sk = [c for c in cmds if c["status"] == "skipped"]
assert any("stopped" in c["error"] for c in sk) and any("not run" in c["error"] for c in sk), sk
assert all(c["ms"] < 3000 for c in cmds), [c["ms"] for c in cmds]
EOF

# a .tar.gz: a real ustar that GNU tar and analyze both read; --redact
PATH="$T/fake:$PATH" "$BIN" collect --timeout 1 --redact -o r.tgz >/dev/null 2>r.err
check "collect -o --redact: exit 0" [ $? -eq 0 ]
check "GNU tar lists it" sh -c 'tar -tzf r.tgz >r.list'
check "members under the host's pseudonym" grep -q '^host-1/manifest.jsonl$' r.list
mkdir rx && tar -xzf r.tgz -C rx
check "every header is POSIX ustar" py r.tgz <<'EOF'
import gzip, sys
data = gzip.open(sys.argv[1]).read()
off, n = 0, 0
while off + 512 <= len(data):
    h = data[off:off + 512]
    if h == b"\0" * 512:
        break
    assert h[257:263] == b"ustar\0" and h[263:265] == b"00", h[257:265]
    s = sum(h[:148]) + 8 * 32 + sum(h[156:])
    assert int(h[148:154], 8) == s, "checksum"
    size = int(h[124:135], 8)
    off += 512 + (size + 511) // 512 * 512
    n += 1
assert n > 3, n
EOF
if grep -rqw -- "$HOST" rx; then bad "--redact: the host name $HOST is still in the bundle"; else ok; fi
if grep -rq "10.11.12.13" rx; then bad "--redact: an address is still in the bundle"; else ok; fi
check "--redact: addresses in the documentation range" grep -q "192.0.2.1/24" rx/host-1/sys/ip-br-addr.txt
"$BIN" analyze --format json r.tgz >r.json 2>/dev/null
check "analyze reads every member, parsers still read the redacted files" py r.json r.list <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["bundles"][0]
files = [l.strip() for l in open(sys.argv[2]) if l.strip() and not l.strip().endswith("/")]
assert sorted(i["path"] for i in b["inputs"]) == sorted(files), (b["inputs"], files)
itf = [i for i in b["facts"].get("interfaces", []) if i["name"] == "eth0"]
assert itf and itf[0]["ipv4"] == ["192.0.2.1/24"], itf
EOF
# usage errors
"$BIN" collect -o a.tgz -d b >/dev/null 2>&1
check "collect -o with -d: exit 2" [ $? -eq 2 ]
"$BIN" collect extra >/dev/null 2>&1
check "collect with an operand: exit 2" [ $? -eq 2 ]
"$BIN" collect -o /nonexistent/dir/x.tgz >/dev/null 2>u.err
check "collect to a folder that does not exist: exit 2" [ $? -eq 2 ]
check "collect: the message names the file" grep -q "/nonexistent/dir/x.tgz" u.err

# ---------- run ----------
B="$T/b"
"$BIN" run --bundle "$B" -- sh -c 'echo to-stdout; echo to-stderr >&2; exit 3' >r1.out 2>r1.err
rc=$?
H="$B/$HOST"
check "run: CMD's exit status (got $rc)" [ $rc -eq 3 ]
check "run: the job's stdout on stdout" grep -qx to-stdout r1.out
check "run: the job's stderr on stderr" grep -qx to-stderr r1.err
check "run: the log has both" sh -c "grep -qx to-stdout '$H/job.log' && grep -qx to-stderr '$H/job.log'"
check "run: the result record" grep -qx 'exit=3 ms=[0-9]*' "$H/result.txt"
check "run: the summary on stderr" sh -c "grep -q '^Cause: ' r1.err && grep -q 'nccl-triage run: bundle: $H' r1.err"
check "run: the full report kept" grep -q '^# nccl-triage .* report of this bundle' "$H/report.txt"
check "run: collected on failure" test -f "$H/manifest.jsonl" -a -d "$H/sys"
check "run: the record" py "$H/manifest.jsonl" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
r = lines[-1]["run"]
assert r["status"] == 3 and r["exit"] == 3 and r["signal"] is None and not r["timed_out"], r
assert r["log_lost"] == 0 and r["log_bytes"] == r["stdout_bytes"] + r["stderr_bytes"], r
assert r["set"]["NCCL_DEBUG"] == "INFO" and r["set"]["TORCH_NCCL_DUMP_ON_TIMEOUT"] == "1", r["set"]
assert any(k.endswith("DUMP_TEMP_FILE") and "/fr/nccl_trace_rank_" in v for k, v in r["set"].items()), r["set"]
assert r["collect"] == "yes", r
assert len(lines) > 10, len(lines)
EOF
"$BIN" analyze --format json "$B" >r1.json 2>/dev/null
check "analyze of the run bundle: the report is skipped, the exit record read" py r1.json <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["bundles"][0]
k = {i["path"].split("/", 1)[1]: i["kind"] for i in b["inputs"]}
assert k["report.txt"] == "triage_report" and k["manifest.jsonl"] == "collect_manifest", k
# the job printed nothing wrong: its exit record is the finding, unless this
# machine's own state (a kernel log line, a limit in sys/) is diagnosed first
host_state = lambda d: all("/sys/" in e["path"] for e in d.get("evidence", []))
errs = [d for d in b["diagnoses"] if d["role"] == "root" and d["severity"] == "error"]
if b["verdict"] == "unknown_failure":
    assert b["diagnoses"][0]["id"] == "ranks.job_exit_nonzero", b["diagnoses"][0]["id"]
else:
    assert b["verdict"] == "diagnosed" and errs and all(host_state(d) for d in errs), [(d["id"], d["evidence"]) for d in errs]
EOF
# the user's own setting wins
NCCL_DEBUG=WARN "$BIN" run --no-collect --bundle "$T/own" -- sh -c 'echo "NCCL_DEBUG=$NCCL_DEBUG PYTHONUNBUFFERED=$PYTHONUNBUFFERED"' >own.out 2>/dev/null
check "run: the user's NCCL_DEBUG kept, the others set" grep -qx "NCCL_DEBUG=WARN PYTHONUNBUFFERED=1" own.out
# success: one line, no collection
"$BIN" run --bundle "$B" -- true >ok.out 2>ok.err
check "run: success exit 0" [ $? -eq 0 ]
check "run: success prints one line" [ "$(wc -l <ok.err)" -eq 1 ]
check "run: a second run in the bundle gets its own log" test -f "$H/job.2.log" -a -f "$H/manifest.2.jsonl"
check "run: success collects nothing" sh -c "! grep -q '\"collect\"' '$H/manifest.2.jsonl'"
# one bundle per host, per rank under a launcher; the first to fail collects
SLURM_PROCID=7 "$BIN" run --bundle "$B" -- false >/dev/null 2>r7.err
check "run per rank: exit 1" [ $? -eq 1 ]
check "run per rank: its own log" test -f "$H/job-rank7.log" -a -f "$H/report-rank7.txt"
check "run per rank: sys/ collected once" grep -q 'not here: sys/ exists' "$H/manifest-rank7.jsonl"
# not found
"$BIN" run --no-collect --bundle "$B" -- no-such-command-xyz >/dev/null 2>nf.err; rc=$?
check "run: command not found: 127 (got $rc)" [ $rc -eq 127 ]
check "run: command not found: said" grep -q "no-such-command-xyz: command not found" nf.err
"$BIN" run >/dev/null 2>&1
check "run without a command: exit 2" [ $? -eq 2 ]
# CMD's options are its own, after its name
"$BIN" run --no-collect --bundle "$B" -- sh -c 'exit 0' --timeout >/dev/null 2>&1
check "run: options after CMD are CMD's" [ $? -eq 0 ]

# each signal: 128+N
# (Linux's numbers)
for sn in HUP:1 INT:2 QUIT:3 ILL:4 TRAP:5 ABRT:6 BUS:7 FPE:8 KILL:9 USR1:10 SEGV:11 USR2:12 PIPE:13 ALRM:14 TERM:15; do
	s=${sn%:*}
	n=${sn#*:}
	"$BIN" run --no-collect --bundle "$T/sig" -- sh -c "kill -$s \$\$" >/dev/null 2>sig.err
	rc=$?
	check "run: killed by SIG$s: exit $((128 + n)) (got $rc)" [ $rc -eq $((128 + n)) ]
done
check "run: the signal in the summary" grep -q "was killed by signal 15" sig.err

# SIGINT, SIGTERM, SIGHUP forwarded to the job's process group
for s in INT TERM HUP; do
	rm -f fw.ready
	"$BIN" run --no-collect --bundle "$T/fw" -- sh -c "trap 'echo got-$s; exit 42' $s; : >fw.ready; sleep 30 & wait" >fw.out 2>fw.err &
	pid=$!
	# the signal once the job's trap is set (a loaded machine may take
	# longer than any fixed pause to start it)
	i=0
	while [ ! -e fw.ready ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	kill -$s $pid
	wait $pid
	rc=$?
	check "run: SIG$s forwarded (exit $rc, want 42)" [ $rc -eq 42 ]
	check "run: the job saw SIG$s" grep -qx "got-$s" fw.out
done

# --timeout: a job that never ends; one that ignores SIGTERM
t0=$(date +%s)
"$BIN" run --no-collect --timeout 1 --bundle "$T/to" -- sleep 100 >/dev/null 2>to.err
rc=$?
t1=$(date +%s)
check "run --timeout: SIGTERM, exit 143 (got $rc)" [ $rc -eq 143 ]
check "run --timeout: on time ($((t1 - t0)) s)" [ $((t1 - t0)) -lt 6 ]
check "run --timeout: said" grep -q "was stopped by --timeout" to.err
check "run --timeout: the result says stopped from outside" grep -qx 'exit=124 ms=[0-9]*' "$T/to/$HOST/result.txt"
"$BIN" run --no-collect --timeout 1 --kill-after 1 --bundle "$T/ig" -- sh -c 'trap "" TERM; sleep 100' >/dev/null 2>ig.err
rc=$?
check "run --timeout on a job that ignores SIGTERM: SIGKILL, 137 (got $rc)" [ $rc -eq 137 ]
check "run: killed recorded" grep -q '"killed":true' "$T/ig/$HOST/manifest.jsonl"

# order: one pipe when stdout and stderr are one file; the log is the terminal's copy
"$BIN" run --no-collect --bundle "$T/ord" -- sh -c 'i=0; while [ $i -lt 3000 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done' >ord.txt 2>&1
check "run: merged output, exact order" sh -c "grep -v '^nccl-triage run:' ord.txt | cmp -s - '$T/ord/$HOST/job.log'"
check "run: merged output, every line" [ "$(wc -l <"$T/ord/$HOST/job.log")" -eq 6000 ]
check "run: stdout and stderr one regular file: direct mode recorded" grep -q '"merged":true,"stdout_direct":true,"stderr_direct":true' "$T/ord/$HOST/manifest.jsonl"
# the same through one pipe (stdout and stderr one pipe: not a regular file, the pipes' path)
"$BIN" run --no-collect --bundle "$T/ordp" -- sh -c 'i=0; while [ $i -lt 3000 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done' 2>&1 | cat >ordp.txt
check "run: merged through one pipe, exact order" sh -c "grep -v '^nccl-triage run:' ordp.txt | cmp -s - '$T/ordp/$HOST/job.log'"
check "run: one pipe is not direct mode" sh -c "grep -q '\"merged\":true' '$T/ordp/$HOST/manifest.jsonl' && ! grep -q '_direct\"' '$T/ordp/$HOST/manifest.jsonl'"
# direct mode: a file opened for appending is followed from its end; a
# big output is copied whole and counted; stdout and stderr in two files
# are the pipes' path; a file cut while followed is said
printf 'before the job\n' >app.txt
"$BIN" run --no-collect --bundle "$T/app" -- sh -c 'echo one; echo two >&2' >>app.txt 2>&1
check "run, direct, O_APPEND: the log starts at the job's output" sh -c "printf 'one\ntwo\n' | cmp -s - '$T/app/$HOST/job.log' && head -n 1 app.txt | grep -qx 'before the job'"
"$BIN" run --no-collect --bundle "$T/big" -- sh -c 'head -c 30000000 /dev/urandom | od -An -tx1 -v' >big.txt 2>&1
check "run, direct, 90 MB: the log is the file's job part, byte for byte" py "$T/big/$HOST/manifest.jsonl" big.txt "$T/big/$HOST/job.log" <<'EOF'
import json, sys
r = json.loads(list(open(sys.argv[1]))[-1])["run"]
log = open(sys.argv[3], "rb").read()
out = open(sys.argv[2], "rb").read()
assert r["stdout_direct"] and r["log_lost"] == 0 and r["stdout_bytes"] == len(log) > 80000000, (r, len(log))
assert out.startswith(log) and out[len(log):].startswith(b"nccl-triage run:"), len(out)
EOF
"$BIN" run --no-collect --bundle "$T/two" -- sh -c 'echo out; echo err >&2' >two.out 2>two.err
check "run: stdout and stderr two files: each direct" sh -c "grep -q '\"merged\":false,\"stdout_direct\":true,\"stderr_direct\":true' '$T/two/$HOST/manifest.jsonl' && grep -qx out two.out && grep -qx err two.err && sort '$T/two/$HOST/job.log' | tr '\n' ' ' | grep -qx 'err out '"
"$BIN" run --no-collect --bundle "$T/fp" -- sh -c 'echo out; echo err >&2' 2>&1 >fp.out | cat >fp.err
"$BIN" run --no-collect --bundle "$T/pf" -- sh -c 'echo out; echo err >&2' 2>pf.err | cat >pf.out
check "run: a file and a pipe: the file direct, the pipe piped, the log has both" sh -c "grep -q '\"merged\":false,\"stdout_direct\":true,\"stdout' '$T/fp/$HOST/manifest.jsonl' && grep -qx out fp.out && grep -qx err fp.err && [ \$(sort -u '$T/fp/$HOST/job.log' | wc -l) -eq 2 ] && grep -q '\"merged\":false,\"stderr_direct\":true' '$T/pf/$HOST/manifest.jsonl' && grep -qx out pf.out && grep -qx err pf.err && [ \$(sort -u '$T/pf/$HOST/job.log' | wc -l) -eq 2 ]"
# a file opened without truncating (1<>): the old bytes past the job's offset are not its output
seq 1 5000 | sed 's/^/old content /' >ow.txt
"$BIN" run --no-collect --bundle "$T/ow" -- sh -c 'echo new one; echo new two >&2' 1<>ow.txt 2>&1
check "run, direct, a file opened read-write: the log is the job's output only" sh -c "printf 'new one\nnew two\n' | cmp -s - '$T/ow/$HOST/job.log'"
# cut while followed (logrotate's copytruncate): a job writing at its
# offset goes on past the cut, one writing O_APPEND at the new end
"$BIN" run --no-collect --bundle "$T/cut" -- sh -c 'seq 1 20000; sleep 0.3; : >cut.txt; echo after the cut' >cut.txt 2>&1
check "run, direct, the file cut while followed: the log is the job's output" sh -c "{ seq 1 20000; echo after the cut; } | cmp -s - '$T/cut/$HOST/job.log'"
"$BIN" run --no-collect --bundle "$T/cuta" -- sh -c 'seq 1 20000; sleep 0.3; : >cuta.txt; sleep 0.3; echo after the cut' >>cuta.txt 2>&1
check "run, direct, O_APPEND, the file cut while followed: said, the log goes on" sh -c "grep -q '\"direct_file_shrank\":true' '$T/cuta/$HOST/manifest.jsonl' && { seq 1 20000; echo after the cut; } | cmp -s - '$T/cuta/$HOST/job.log'"

# a closed terminal: the job goes on, the log has everything
{ "$BIN" run --no-collect --bundle "$T/cl" -- sh -c 'i=0; while [ $i -lt 50000 ]; do echo "line $i"; i=$((i+1)); done; echo END' 2>cl.err; echo $? >cl.rc; } | head -n 1 >/dev/null
check "run, terminal closed: exit 0" [ "$(cat cl.rc)" -eq 0 ]
check "run, terminal closed: the log is whole" sh -c "tail -n 1 '$T/cl/$HOST/job.log' | grep -qx END && [ \$(wc -l <'$T/cl/$HOST/job.log') -eq 50001 ]"
check "run, terminal closed: recorded" grep -q '"terminal_error":"Broken pipe"' "$T/cl/$HOST/manifest.jsonl"

# a slow terminal: the job is not held up, the terminal gets a note
{ "$BIN" run --no-collect --bundle "$T/sl" -- head -c 8000000 /dev/zero 2>sl.err; echo $? >sl.rc; } | { sleep 3; cat >sl.got; }
check "run, slow terminal: the job was not blocked" py "$T/sl/$HOST/manifest.jsonl" <<'EOF'
import json, sys
r = json.loads(list(open(sys.argv[1]))[-1])["run"]
assert r["ms"] < 2500 and r["log_bytes"] == 8000000 and r["terminal_lost"] > 0, r
EOF
check "run, slow terminal: the note" grep -aq "bytes of the job's output lost here: the terminal (stdout) was too slow" sl.got

# 1 GB through the pipe with bounded memory; a file size limit on the log
( ulimit -f 2048; "$BIN" run --no-collect --bundle "$T/gb" -- head -c 1073741824 /dev/zero >/dev/null 2>gb.err; echo $? >gb.rc )
check "run, 1 GB: exit 0" [ "$(cat gb.rc)" -eq 0 ]
check "run, 1 GB: bounded memory, loss recorded" py "$T/gb/$HOST/manifest.jsonl" <<'EOF'
import json, sys
r = json.loads(list(open(sys.argv[1]))[-1])["run"]
assert r["stdout_bytes"] == 1 << 30, r
assert r["log_bytes"] == 1 << 20 and r["log_lost"] == (1 << 30) - (1 << 20), r
assert r["log_error"] == "File too large", r
assert r["max_rss_kib"] < 64 * 1024, r["max_rss_kib"]
EOF
check "run, 1 GB: the loss said on stderr" grep -q "is incomplete: 1072693248 bytes lost (File too large)" gb.err

# a full disk: a small tmpfs when this user may mount one
mkdir small
if mount -t tmpfs -o size=512k tmpfs small 2>/dev/null; then
	MNT="$T/small"
	"$BIN" run --always --bundle small -- head -c 4000000 /dev/zero >/dev/null 2>fd.err
	rc=$?
	check "run, full disk: the job's status (got $rc)" [ $rc -eq 0 ]
	check "run, full disk: recorded in the reserved manifest" py "small/$HOST/manifest.jsonl" <<'EOF'
import json, sys
r = json.loads(list(open(sys.argv[1]))[-1])["run"]
assert r["log_error"] == "No space left on device" and r["log_lost"] > 0, r
assert r["stdout_bytes"] == 4000000, r
EOF
	"$BIN" analyze small >fd.txt 2>/dev/null
	check "run, full disk: the report says the log is incomplete" grep -q "The bundle's copy of the job's output is incomplete" fd.txt
	umount small && MNT=""
else
	echo "note: no tmpfs (not allowed to mount): the full disk is the file size limit above"
fi

# ---------- run --redact ----------
# a job that prints this host's name, the user's, an address, a GPU UUID,
# the boot id and a bad NCCL_SOCKET_IFNAME failure: with --redact none of
# them in any file of the bundle, the log as long, the same cause found
FULL=$(hostname)
BOOT=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
RU=ntredactuser7
cat >rjob.sh <<EOF
echo "$HOST:4242:4242 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to ens999"
echo "$FULL:4242:4242 [0] NCCL INFO Bootstrap : Using eth0:10.11.12.13<0> user $RU home /home/$RU/train"
echo "GPU 0: NVIDIA H200 (UUID: GPU-a081a940-a2e9-560c-ac89-e477ccfe16d0) boot $BOOT"
echo "$HOST:4242:4242 [0] misc/socket.cc:474 NCCL WARN Bootstrap : no socket interface found" >&2
exit 1
EOF
USER=$RU "$BIN" run --bundle "$T/rp" -- sh rjob.sh >/dev/null 2>rp.err
USER=$RU "$BIN" run --redact --bundle "$T/rd" -- sh rjob.sh >rd.out 2>rd.err
rc=$?
check "run --redact: CMD's exit status (got $rc)" [ $rc -eq 1 ]
check "run --redact: the terminal gets the output unchanged" grep -q "10.11.12.13" rd.out
RH=$(ls "$T/rd")
check "run --redact: one folder host-HASH ($RH)" sh -c "[ \$(ls '$T/rd' | wc -l) -eq 1 ] && echo '$RH' | grep -qx 'host-[0-9a-f]\{12\}'"
for name in "$HOST" "$FULL" "$RU" 10.11.12.13 a081a940 ${BOOT:+"$BOOT"}; do
	if grep -rqw -- "$name" "$T/rd"; then bad "run --redact: '$name' is still in the bundle: $(grep -rlw -- "$name" "$T/rd" | head -3)"; else ok; fi
done
check "run --redact: the redacted log has as many lines" [ "$(wc -l <"$T/rd/$RH/job.log")" -eq "$(wc -l <"$T/rp/$HOST/job.log")" ]
check "run --redact: the log's pseudonyms (this host: its folder's name)" grep -q "^$RH:4242:4242 \[0\] NCCL INFO Bootstrap : Using eth0:192.0.2.[0-9]*<0> user user-1 home /home/user-1/train$" "$T/rd/$RH/job.log"
check "run --redact: the report kept, the system reports collected" test -f "$T/rd/$RH/report.txt" -a -d "$T/rd/$RH/sys"
check "run --redact: the same cause on stderr" sh -c "grep '^Cause: ' rp.err >c1 && grep '^Cause: ' rd.err >c2 && cmp -s c1 c2 && grep -q SOCKET_NETWORK c1"
"$BIN" analyze --format json "$T/rp" >rp.json 2>/dev/null
"$BIN" analyze --format json "$T/rd" >rd.json 2>/dev/null
check "run --redact: analyze finds the same diagnoses in the redacted bundle" py rp.json rd.json <<'EOF'
import json, sys
a, b = (json.load(open(f))["bundles"][0] for f in sys.argv[1:3])
ids = lambda x: [d["id"] for d in x["diagnoses"] if d["severity"] != "info"]
assert a["verdict"] == b["verdict"] == "diagnosed", (a["verdict"], b["verdict"])
assert ids(a) == ids(b) and ids(a)[0] == "socket.no_interface", (ids(a), ids(b))
EOF
check "run --redact: the records say redacted" py "$T/rp/$HOST/manifest.jsonl" "$T/rd/$RH/manifest.jsonl" "$RH" <<'EOF'
import json, sys
p, r = ([json.loads(l) for l in open(f)] for f in sys.argv[1:3])
assert p[-1]["run"]["redacted"] is False and p[0]["redacted"] is False, p[-1]
assert r[-1]["run"]["redacted"] is True and r[0]["redacted"] is True and r[0]["host"] == sys.argv[3], (r[0], r[-1])
assert "fr_unredacted" not in r[-1]["run"], r[-1]
EOF
# a second run into the same bundle: the same folder; its NCCL_DEBUG_FILE
# log rewritten (no host name in its name either); a flight-recorder dump said
cat >rjob2.sh <<'EOF'
f=$(echo "$NCCL_DEBUG_FILE" | sed "s/%p/$$/")
echo "$(hostname):4242:4242 [0] NCCL INFO Bootstrap : Using eth0:10.11.12.13<0>" >"$f"
echo "pickle of $(hostname)" >"${TORCH_FR_DUMP_TEMP_FILE}0"
echo done
exit 3
EOF
USER=$RU "$BIN" run --redact --nccl-debug-file --no-collect --bundle "$T/rd" -- sh rjob2.sh >/dev/null 2>rd2.err
check "run --redact twice: one folder, the second log beside the first" sh -c "[ \$(ls '$T/rd' | wc -l) -eq 1 ] && test -f '$T/rd/$RH/job.2.log'"
check "run --redact: the NCCL log rewritten" sh -c "ls '$T/rd/$RH' | grep -qx 'nccl\.2\.[0-9]*\.log' && grep -q '^$RH:4242:4242 .*eth0:192.0.2.1<0>' '$T/rd/$RH'/nccl.2.*.log"
check "run --redact: the flight-recorder dump said on stderr" grep -q "^nccl-triage run: fr/ holds 1 flight-recorder dumps that --redact does not rewrite; " rd2.err
check "run --redact: ... and in the record" grep -q '"fr_unredacted":1' "$T/rd/$RH/manifest.2.jsonl"
"$BIN" analyze "$T/rd" >rdfr.txt 2>/dev/null
"$BIN" analyze --format json "$T/rd" >rdfr.json 2>/dev/null
check "run --redact: analyze of the bundle says its dump was not redacted, with the record's place" \
	sh -c "grep -q 'The bundle was redacted, but not its flight-recorder dumps' rdfr.txt && grep -q 'but not its 1 flight-recorder dump in fr/ .*\[$RH/manifest.2.jsonl:[0-9]*\]' rdfr.json"
rm -f "$T/rd/$RH"/fr/*
for name in "$HOST" "$FULL" 10.11.12.13; do
	if grep -rqw -- "$name" "$T/rd"; then bad "run --redact, NCCL log: '$name' is still in the bundle: $(grep -rlw -- "$name" "$T/rd" | head -3)"; else ok; fi
done
# the GPU host's log of two ranks on one GPU: bus ids keep NCCL's short form, the same cause
DUP="$ROOT/fixtures/collect/h200/run-dup/vm/job.log"
"$BIN" run --redact --no-collect --bundle "$T/rdup" -- sh -c "cat '$DUP'; exit 1" >/dev/null 2>rdup.err
check "run --redact, two ranks on one GPU: the same cause, the bus id named as in the log" sh -c "grep -q '^Cause: Two ranks use the same GPU (bus id busid-1) \[DEVICE_ASSIGNMENT\]' rdup.err && grep -q 'nvmlDev 0 busId 1000 commId' '$T/rdup'/host-*/job.log"
# two hosts into one bundle (host names of their own, when this user may
# unshare the UTS namespace): two folders, each host its folder's name, two
# hosts in the analysis of the whole bundle
if unshare -u true 2>/dev/null; then
	for hn in ntnodea ntnodeb; do
		unshare -u sh -c "hostname $hn && '$BIN' run --redact --no-collect --bundle '$T/rmh' -- sh -c 'echo \"\$(hostname):77:77 [0] NCCL INFO cudaDriverVersion 13000\"; exit 1'" >/dev/null 2>&1
	done
	"$BIN" analyze --format json "$T/rmh" >rmh.json 2>/dev/null
	check "run --redact, two hosts: two folders, two hosts, no name left" py "$T/rmh" rmh.json <<'EOF'
import json, os, sys
d = sys.argv[1]
folders = sorted(os.listdir(d))
assert len(folders) == 2, folders
for f in folders:
    text = open(os.path.join(d, f, "job.log")).read()
    assert text.startswith(f + ":77:77 "), (f, text)
    assert "ntnode" not in text, text
b = json.load(open(sys.argv[2]))["bundles"][0]
hosts = sorted(b["facts"]["nodes"])
assert hosts == folders, (hosts, folders)
EOF
else
	echo "note: no UTS namespace (unshare -u not allowed): two hosts not tried"
fi
# run killed (SIGKILL) while the job runs: no copy of the output left
USER=$RU "$BIN" run --redact --bundle "$T/rk" -- sh -c "sh rjob.sh; echo \$\$ >'$T/rk.pid'; exec sleep 30" >/dev/null 2>&1 &
rpid=$!
i=0
while [ ! -s "$T/rk.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -9 $rpid
wait $rpid 2>/dev/null
[ -s "$T/rk.pid" ] && kill "$(cat "$T/rk.pid")" 2>/dev/null
check "run --redact killed: the job had written (the folder is there)" sh -c "[ -s '$T/rk.pid' ] && [ \$(ls '$T/rk' | wc -l) -eq 1 ]"
if grep -rqw -- "$HOST" "$T/rk" || grep -rq 10.11.12.13 "$T/rk"; then bad "run --redact killed: the output is in the bundle: $(grep -rlw -- "$HOST" "$T/rk")"; else ok; fi

# the O_TMPFILE fallback (a file system without O_TMPFILE): a shim makes
# open() refuse it, as such a file system does; the copy is then a file
# created and unlinked at once: the same bundle, no file of it left behind
cat >"$T/notmp.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
static int refused(int flags)
{
	if ((flags & O_TMPFILE) != O_TMPFILE)
		return 0;
	const char *m = getenv("NOTMP_MARK");
	int fd = m ? creat(m, 0600) : -1;
	if (fd >= 0)
		close(fd);
	errno = EOPNOTSUPP;
	return 1;
}
#define SHIM(name, ...)                                                            \
	int name(__VA_ARGS__, int flags, ...)                                          \
	{                                                                              \
		mode_t mode = 0;                                                           \
		va_list ap;                                                                \
		va_start(ap, flags);                                                       \
		if (flags & (O_CREAT | O_TMPFILE))                                         \
			mode = va_arg(ap, mode_t);                                             \
		va_end(ap);                                                                \
		if (refused(flags))                                                        \
			return -1;
SHIM(open, const char *p)
	static int (*real)(const char *, int, ...);
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	return real(p, flags, mode);
}
SHIM(open64, const char *p)
	static int (*real)(const char *, int, ...);
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
	return real(p, flags, mode);
}
SHIM(openat, int d, const char *p)
	static int (*real)(int, const char *, int, ...);
	if (!real)
		real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	return real(d, p, flags, mode);
}
EOF
if cc -shared -fPIC -o "$T/notmp.so" "$T/notmp.c" -ldl 2>"$T/notmp.err"; then
	USER=$RU NOTMP_MARK="$T/notmp.mark" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		LD_PRELOAD="$T/notmp.so" "$BIN" run --redact --no-collect --bundle "$T/nt" -- sh rjob.sh >nt.out 2>nt.err
	rc=$?
	check "run --redact without O_TMPFILE: the fallback ran (the shim refused O_TMPFILE)" test -f "$T/notmp.mark"
	check "run --redact without O_TMPFILE: CMD's exit status (got $rc)" [ $rc -eq 1 ]
	check "run --redact without O_TMPFILE: the log is there, as long as the job's output" sh -c "[ \$(cat '$T'/nt/*/job.log | wc -l) -eq \$(sh rjob.sh 2>&1 | wc -l) ]"
	if grep -rqw -- "$HOST" "$T/nt" || grep -rq 10.11.12.13 "$T/nt"; then bad "run --redact without O_TMPFILE: unredacted output in the bundle"; else ok; fi
	check "run --redact without O_TMPFILE: no copy left behind" sh -c "! ls -a '$T'/nt/* | grep -q nccl-triage-run"
else
	bad "the O_TMPFILE shim does not compile: $(head -3 "$T/notmp.err")"
fi
# ---------- the bundles made on a GPU host (fixtures/collect) ----------
F="$ROOT/fixtures/collect/h200"
for d in collect-dir collect-redacted.tar.gz run-ifname/vm run-dup/vm run-ok/vm run-stuck/vm run-fr2/vm ../h100/run-hang/vm; do
	"$BIN" analyze --format json "$F/$d" >fx.json 2>fx.err
	rc=$?
	check "fixture $d: analysed (exit $rc)" [ $rc -le 1 ]
	check "fixture $d: every file in the parser its manifest names" py fx.json <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["bundles"][0]
kinds = {}
for i in b["inputs"]:
    p = i["path"]
    kinds[p.split("/", 1)[1] if p.startswith("host-1/") else p] = i["kind"]
bad = 0
for m in b["facts"]["collected"]:
    for c in m.get("commands", []):
        if c["file"] in kinds and kinds[c["file"]] != c["kind"]:
            print(c["file"], kinds[c["file"]], "want", c["kind"]); bad += 1
assert "manifest.jsonl" in kinds
sys.exit(bad)
EOF
done
# the diagnoses, on stderr at the time and now; the exit statuses of the job with and without run
check "fixture: bad NCCL_SOCKET_IFNAME diagnosed on stderr" grep -q '^Cause: .*\[SOCKET_NETWORK\]' "$F/run-ifname.stderr"
check "fixture: two ranks on one GPU diagnosed on stderr" grep -q '^Cause: .*\[DEVICE_ASSIGNMENT\]' "$F/run-dup.out"
check "fixture: the job's own exit status" sh -c "grep -qx 'plain ifname rc=1' '$F/rc.txt' && grep -qx 'run ifname rc=1' '$F/rc.txt' && grep -qx 'plain dup rc=1' '$F/rc.txt' && grep -qx 'run dup rc=1' '$F/rc.txt' && grep -qx 'run ok rc=0' '$F/rc.txt'"
check "fixture: a collective stuck behind a spinning kernel, stopped by timeout(1): diagnosed on stderr" grep -q '^Cause: .*\[COLLECTIVE_TIMEOUT\]' "$F/run-stuck.stderr"
check "fixture: the stuck job's status through run (torchrun exits 1 on SIGTERM)" grep -q 'stuck exited with status 1 after' "$F/run-stuck.stderr"
check "fixture: a watchdog timeout through run: the flight recorder's dump in the bundle" [ -s "$F/run-fr2/vm/fr/nccl_trace_rank_0" ]
check "fixture: a watchdog timeout through run: diagnosed on stderr from the dump" grep -q '^Cause: Every rank of process group 0 (default_pg) entered all_reduce #7 and none completed it (train_fr.py:25) \[COLLECTIVE_TIMEOUT\]' "$F/run-fr2.stderr"
check "fixture: a watchdog timeout through run: the job's status (torchrun exits 1 on the rank's SIGABRT)" sh -c "grep -qx 'run eager rc=1 86s' '$F/rc-fr2.txt' && grep -q 'eager exited with status 1 after' '$F/run-fr2.stderr'"
"$BIN" analyze --format json "$F/run-fr2/vm" >fx.json 2>/dev/null
check "fixture run-fr2: the flight recorder read today (its dump the first diagnosis' evidence)" py fx.json <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["bundles"][0]
kinds = {i["path"]: i["kind"] for i in b["inputs"]}
assert kinds.get("fr/nccl_trace_rank_0") == "flight_recorder", kinds
d = b["diagnoses"][0]
assert b["verdict"] == "diagnosed" and d["category"] == "COLLECTIVE_TIMEOUT", d
e = d["evidence"][0]
assert e["path"] == "fr/nccl_trace_rank_0" and e["signature"] == "flight.stalled", e
assert e["captures"]["op"] == "all_reduce" and e["captures"]["seq"] == "7" and "'scheduled'" in e["text"], e
EOF
# a rank that hangs before a collective (gpu-fr3.sh, on an H100: two ranks on
# one GPU with NCCL_HOSTID per rank): both ranks' dumps in the bundle, the
# rank that never entered all-reduce #7 named from them, the job's status
FH="$ROOT/fixtures/collect/h100"
check "fixture run-hang: both ranks' flight-recorder dumps in the bundle" sh -c "[ -s '$FH/run-hang/vm/fr/nccl_trace_rank_0' ] && [ -s '$FH/run-hang/vm/fr/nccl_trace_rank_1' ]"
check "fixture run-hang: diagnosed on stderr at the time: rank 1 behind, rank 0 failed first" grep -q '^Cause: Rank 1 is behind: it never scheduled all_reduce #7 of process group 0 (default_pg), in which rank(s) 0 wait (train_hang.py:27) \[COLLECTIVE_TIMEOUT\]; rank 0 failed first' "$FH/run-hang.stderr"
check "fixture run-hang: the job's status (torchrun exits 1 on rank 0's SIGABRT)" sh -c "grep -q '^run rc=1 ' '$FH/rc-hang.txt' && grep -q 'exited with status 1 after' '$FH/run-hang.stderr'"
"$BIN" analyze --format json "$FH/run-hang/vm" >fx.json 2>/dev/null
check "fixture run-hang: read today: the two dumps, rank 1 behind at all_reduce #7, rank 0 first to fail" py fx.json <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["bundles"][0]
kinds = {i["path"]: i["kind"] for i in b["inputs"]}
assert kinds.get("fr/nccl_trace_rank_0") == kinds.get("fr/nccl_trace_rank_1") == "flight_recorder", kinds
d = b["diagnoses"][0]
assert b["verdict"] == "diagnosed" and d["category"] == "COLLECTIVE_TIMEOUT", d["id"]
e = d["evidence"][0]
assert e["signature"] == "flight.ranks_behind" and e["path"].startswith("fr/nccl_trace_rank_"), e
c = e["captures"]
assert (c["rank"], c["op"], c["seq"], c["waiting"]) == ("1", "all_reduce", "7", "0") and c["where"] == "train_hang.py:27", c
assert [r["rank"] for r in b["ranks"] if r.get("failed_first")] == [0], b["ranks"]
assert b["flight_recorder"]["headline"] == "hang: rank 1 behind at all_reduce #7 in train_hang.py:27", b["flight_recorder"]
EOF
check "fixture: success is one line" [ "$(wc -l <"$F/run-ok.stderr")" -eq 1 ]
for pair in "run-ifname/vm SOCKET_NETWORK" "run-dup/vm DEVICE_ASSIGNMENT"; do
	set -- $pair
	"$BIN" analyze --format json "$F/$1" >fx.json 2>/dev/null
	check "fixture $1: $2 today" py fx.json "$2" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["bundles"][0]
assert b["verdict"] == "diagnosed" and b["diagnoses"][0]["category"] == sys.argv[2], b["diagnoses"][0]
EOF
done
"$BIN" analyze --format json "$F/run-ok/vm" >fx.json 2>/dev/null
check "fixture run-ok: healthy" grep -q '"verdict":[[:space:]]*"healthy"' fx.json
# the redacted archive from the GPU host: none of the originals, the facts still read
check "fixture: the redacted archive hides the GPU's identity and keeps its facts" py "$F/collect-dir" "$F/collect-redacted.tar.gz" "$BIN" <<'EOF'
import json, re, subprocess, sys, tarfile
raw = open(sys.argv[1] + "/sys/nvidia-smi-q.txt").read()
ids = re.findall(r"GPU-[0-9a-f]{8}-[0-9a-f-]{27}", raw) + re.findall(r"Serial Number\s+:\s+(\d{6,})", raw)
assert ids, "no identifiers in the raw listing"
t = tarfile.open(sys.argv[2])
text = "".join(t.extractfile(m).read().decode("utf-8", "replace") for m in t.getmembers() if m.isfile())
for i in ids:
    assert i not in text, i
out = subprocess.run([sys.argv[3], "analyze", "--format", "json", sys.argv[2]], capture_output=True, text=True).stdout
g = json.loads(out)["bundles"][0]["facts"]["gpus"][0]
assert g["bus_id"] and g["uuid"].startswith("GPU-00000000-") and g["memory_total_mib"] == 143771, g
EOF

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
