#!/bin/sh
# tests/reports/run.sh BINARY - the report formats end to end, on the real
# captures in fixtures/captures/:
#   html     self-contained page: no script, no external reference, CSP, log
#            text escaped (a hostile file name and the real "<0>" of NCCL lines)
#   facts    topology grid, memory chart and OOM arithmetic from real files
#            (tests/reports/facts_from_captures.py, when the parsers have not
#            produced them), and the batch page
#   junit    xmllint against Jenkins' junit-10.xsd + GitLab/Jenkins shape
#   sarif    the OASIS SARIF 2.1.0 schema (python3 jsonschema)
#   github   workflow-command syntax, one annotation per diagnosis
#   evidence kind line/derived, verbatim lines, visible cuts, match spans
#            (evidence_check.py), and how each format shows them
#   redact   every format with --redact: no host, address, user, UUID, bus id
#            or serial of the inputs survives; the diagnosis is unchanged
#   browser  headless Chromium loads each page: not blank, no console error,
#            no network request; screenshots land in $NT_BUILD/report-shots/
#            (skipped with a message when chromium is not installed:
#            tests/reports/deps.sh installs it)
# Ends with "N passed, N failed[, N skipped]".
unset RUNNER_TEMP # the github format counts a job's annotations there (cli/formats.c)
BIN=${1:-./nccl-triage}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
B=${NT_BUILD:-build}
HERE=tests/reports
CAP=fixtures/captures/h200-2gpu
SC=$CAP/scenarios
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	if "$@" >"$T/out" 2>&1; then ok; else bad "$d"; sed 's/^/    /' "$T/out" | tail -n 20; fi
}
# sub-checks that print their own "N passed, N failed"
sub() {
	d=$1; shift
	"$@" >"$T/sub" 2>&1
	rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$T/sub" | tail -n 1)
	p=$(echo "$line" | sed 's/ passed.*//'); f=$(echo "$line" | sed 's/.*passed, //; s/ failed.*//')
	[ -n "$p" ] || { p=0; f=1; }
	[ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p)); fail=$((fail + f))
	if [ "$f" -ne 0 ]; then echo "FAIL: $d"; grep -v '^[0-9]* passed' "$T/sub" | sed 's/^/    /' | tail -n 30; fi
}

PY=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import jsonschema' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || PY=python3

# the database: the built-in one when it is there, else the core's test db
if [ -d patterns ] && "$BIN" check-db >/dev/null 2>&1; then DB=""; else DB="--no-builtin -p tests/db-min"; fi

# the render driver, built against this build's library (sanitizers too)
CCX=${CC:-cc}
XF=
case "$B" in *asan*) CCX=clang; XF="-fsanitize=address,undefined -fno-omit-frame-pointer" ;; esac
if ! $CCX -std=c11 -D_GNU_SOURCE $XF -Ianalyzer $(pkg-config --cflags libpcre2-8 libcjson zlib) -o "$T/render" \
	$HERE/render.c "$B/libnccltriage.a" $(pkg-config --libs libpcre2-8 libcjson zlib) \
	$(pkg-config --exists libisal 2>/dev/null && pkg-config --libs libisal) -lpthread -ldl -lm 2>"$T/cc"; then
	bad "cannot build tests/reports/render.c"; cat "$T/cc"
	echo "$pass passed, $fail failed"; exit 1
fi
R="$T/render"

mkdir -p "$T/o"
an() { # an FORMAT OUT OPERANDS... ; exit 0 or 1 is fine
	f=$1; o=$2; shift 2
	# shellcheck disable=SC2086
	"$BIN" analyze -q $DB --format "$f" -o "$o" "$@"
	[ $? -le 1 ]
}

# ---- every format over every scenario ----
SCEN="duplicate_gpu bad_socket_ifname oom_unshard collective_timeout ok ok_p2p_ib_disabled debug_file_ok"
MORE=""
for m in rdzv_bad_master_addr sigkill_coll_plain shm_small cuda_illegal_address nproc_gt_visible; do
	[ -d fixtures/captures/h200-2gpu-more/$m ] && MORE="$MORE fixtures/captures/h200-2gpu-more/$m"
done
ALL=""
for s in $SCEN; do ALL="$ALL $SC/$s"; done
ALL="$ALL $MORE"
for s in $SCEN; do
	for f in json html junit sarif github text md; do
		check "analyze --format $f $s" an $f "$T/o/$s.$f" "$SC/$s"
	done
done
# shellcheck disable=SC2086
check "analyze --format json (all bundles)" an json "$T/o/all.json" $ALL
for f in html junit sarif github; do
	# shellcheck disable=SC2086
	check "analyze --format $f (all bundles)" an $f "$T/o/all.$f" $ALL
done
check "unknown format is refused" sh -c "! \"$BIN\" analyze -q $DB --format pdf $SC/ok 2>/dev/null"

# ---- HTML: self-contained, escaped ----
for h in "$T"/o/*.html; do
	n=$(basename "$h")
	check "$n: doctype, charset, CSP" sh -c "grep -q '^<!DOCTYPE html>' '$h' && grep -q '<meta charset=\"utf-8\">' '$h' && grep -q \"default-src 'none'\" '$h'"
	check "$n: no script, no external resource" sh -c "! grep -Eiq '<script|<link|<iframe|<img|<object|<embed|@import|url\\(|src=\"(https?:)?//' '$h'"
	check "$n: verdict shown first" sh -c "grep -q 'class=\"hero' '$h'"
done
# a real NCCL line with '<' and '>' ("eth0:192.0.2.2<0>") as evidence of a diagnosis
check "html: evidence fixture with a real '<0>' line" sh -c "$PY - '$T/o/duplicate_gpu.json' '$SC/oom_unshard/run.log' '$T/lt.json' <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
for n, line in enumerate(open(sys.argv[2]), 1):
    if 'Bootstrap: Using eth0:' in line and '<0>' in line:
        break
doc['bundles'][0]['diagnoses'][0]['evidence'].append({'path': 'run.log', 'line': n, 'text': line.rstrip(), 'signature': 'fixture'})
json.dump(doc, open(sys.argv[3], 'w'))
PYEOF
'$R' html '$T/lt.json' > '$T/o/lt.html'"
check "html: '<' of log text is escaped (NCCL's <0>)" sh -c "grep -q 'eth0:192.0.2.2&lt;0&gt;' '$T/o/lt.html' && ! grep -q '192.0.2.2<0>' '$T/o/lt.html'"
check "html: rank timeline drawn (svg) with a lane per rank" sh -c "grep -q 'aria-label=\"rank timeline\"' '$T/o/duplicate_gpu.html' && [ \$(grep -o '>rank [0-9]*</text>' '$T/o/duplicate_gpu.html' | wc -l) -ge 2 ]"
check "html: diagnosis evidence with file:line" sh -c "grep -q 'run.log:42' '$T/o/duplicate_gpu.html'"
check "html: healthy verdict says so" sh -c "grep -q 'No problem found' '$T/o/ok.html'"
# a hostile file name: markup in a document path must stay text
mkdir -p "$T/hostile"
cp "$SC/duplicate_gpu/run.log" "$T/hostile/run<img src=x onerror=alert(1)>.log"
check "hostile file name analysed" an html "$T/o/hostile.html" "$T/hostile"
check "hostile file name escaped" sh -c "! grep -q '<img src=x' '$T/o/hostile.html' && grep -q 'run&lt;img src=x onerror=alert(1)&gt;.log' '$T/o/hostile.html'"

# the verify proposal of the fallback next steps: "" and null both mean "unset it" (issue 15)
for v in null '""'; do
	echo '{"schema_version":1,"bundles":[{"name":"t","verdict":"diagnosed","diagnoses":[{"id":"socket.no_interface","category":"SOCKET_NETWORK","severity":"error","role":"root","title":"x","fix":["ip -br addr"],"verify":{"env":{"NCCL_SOCKET_IFNAME":'"$v"',"NCCL_SHM_DISABLE":"1"}}}]}]}' > "$T/ve.json"
	check "html: verify proposals with $v are --unset" sh -c "'$R' html '$T/ve.json' > '$T/o/ve.html' && [ \$(grep -o '<code>nccl-triage verify --unset NCCL_SOCKET_IFNAME --env NCCL_SHM_DISABLE=1</code>' '$T/o/ve.html' | wc -l) -eq 2 ] && ! grep -q 'NCCL_SOCKET_IFNAME=' '$T/o/ve.html'"
done

# ---- facts sections from real files ----
check "facts fixture (oom_unshard + topo-m.txt + memtrace.csv)" sh -c "$PY $HERE/facts_from_captures.py '$T/o/oom_unshard.json' --topo $CAP/sys/topo-m.txt --memtrace $SC/oom_unshard/memtrace.csv > '$T/oom-facts.json'"
check "render html from facts" sh -c "'$R' html '$T/oom-facts.json' > '$T/o/oom-facts.html'"
check "html: topology grid with NV18 and a P2P group outline" sh -c "grep -q 'GPU topology' '$T/o/oom-facts.html' && grep -q 'class=\"l-NV\"[^>]*>NV18' '$T/o/oom-facts.html' && grep -q 'border-top:3px' '$T/o/oom-facts.html'"
check "html: memory chart with capacity line and failure mark" sh -c "grep -q 'aria-label=\"GPU memory over time\"' '$T/o/oom-facts.html' && grep -q 'capacity 140.40 GiB' '$T/o/oom-facts.html' && grep -Eq '>(failure|failed: memory released)</text>' '$T/o/oom-facts.html'"
if grep -q '"oom_events"' "$T/oom-facts.json"; then
	check "html: OOM arithmetic (4.00 GiB asked, 545 MiB free)" sh -c "grep -q 'out-of-memory arithmetic' '$T/o/oom-facts.html' && grep -q '<b>4.00 GiB</b>' '$T/o/oom-facts.html' && grep -q '<b>545 MiB</b>' '$T/o/oom-facts.html'"
fi
# a many-GPU matrix without direct links, when the topology fixtures are there
for m in fixtures/sys/public/topo-m-5gpu-spaces-sys-phb-node.txt; do
	[ -f "$m" ] || continue
	check "facts fixture ($m)" sh -c "$PY $HERE/facts_from_captures.py '$T/o/duplicate_gpu.json' --topo $m > '$T/topo5.json' && '$R' html '$T/topo5.json' > '$T/o/topo5.html'"
	check "html: 5-GPU grid with SYS/PHB/NODE cells" sh -c "grep -q '>SYS</td>' '$T/o/topo5.html' && grep -q '>NODE</td>' '$T/o/topo5.html' && grep -q '>PHB</td>' '$T/o/topo5.html'"
done
# batch page: from `batch --format json` (summary + bundles) when the command is there
if "$BIN" batch --help >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	"$BIN" batch -q $DB --format json -o "$T/batch.json" $SC 2>/dev/null
	check "batch html (from batch --format json)" sh -c "$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump(d[\"summary\"], open(sys.argv[2], \"w\"))' '$T/batch.json' '$T/summary.json' && '$R' batch '$T/summary.json' '$T/batch.json' > '$T/o/batch.html'"
	check "batch html: top fingerprints" sh -c "grep -q 'Top fingerprints' '$T/o/batch.html'"
else
	check "batch html" sh -c "$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump({\"bundles\": len(d[\"bundles\"])}, open(sys.argv[2], \"w\"))' '$T/o/all.json' '$T/summary.json' && '$R' batch '$T/summary.json' '$T/o/all.json' > '$T/o/batch.html'"
fi
check "batch html: categories chart and bundle table" sh -c "grep -q 'aria-label=\"failure categories\"' '$T/o/batch.html' && [ \$(grep -c '<tr><td class=\"mono\">' '$T/o/batch.html') -ge 7 ]"

# ---- CI formats against their consumers ----
for s in $SCEN all; do
	# junit-10.xsd has no testcase "file" attribute (GitLab reads it; Jenkins ignores it): checked without it
	check "junit $s: junit-10.xsd (but for testcase file=)" sh -c "grep -q ' file=\"' '$T/o/$s.junit' || [ $s = ok ] || [ $s = debug_file_ok ] || [ $s = ok_p2p_ib_disabled ]; sed 's/ file=\"[^\"]*\"//' '$T/o/$s.junit' | xmllint --noout --schema tests/schemas/junit-10.xsd -"
	sub "junit $s: GitLab/Jenkins shape" $PY $HERE/ci_check.py junit "$T/o/$s.junit" "$T/o/$( [ $s = all ] && echo all || echo $s).json"
	sub "sarif $s: SARIF 2.1.0 schema" $PY $HERE/ci_check.py sarif "$T/o/$s.sarif" tests/schemas/sarif-schema-2.1.0.json "$T/o/$s.json"
	sub "github $s: workflow commands" $PY $HERE/ci_check.py github "$T/o/$s.github" "$T/o/$s.json"
done
check "github: file and line of the first evidence" sh -c "grep -q '^::error file=$SC/duplicate_gpu/run.log,line=42,' '$T/o/duplicate_gpu.github'"
check "sarif: region.startLine of the evidence" sh -c "grep -q '\"startLine\":[[:space:]]*42' '$T/o/duplicate_gpu.sarif'"

# ---- CI: stable names, one failure counts once, exit status, caps, batch (issue 17) ----
# two runs over different bundles at the same path (a CI job's log folder), same diagnoses, other values
for x in A:env_algo_simple B:env_proto_ring; do
	k=${x%%:*}; s=${x#*:}
	rm -rf "$T/job"; mkdir -p "$T/job"; cp -r "fixtures/captures/h200-2gpu-more/$s/." "$T/job/logs"
	for f in json junit sarif; do
		check "stable names: run $k ($s) --format $f" sh -c "cd '$T/job' && '$BIN' analyze -q $DB --format $f -o '$T/o/st$k.$f' logs; [ \$? -le 1 ]"
	done
done
sub "stable names: JUnit test names and SARIF rules the same in two runs, without run values" \
	$PY $HERE/stable_check.py "$T/o/stA.json" "$T/o/stA.junit" "$T/o/stA.sarif" "$T/o/stB.json" "$T/o/stB.junit" "$T/o/stB.sarif"
# --fail-on: the exit status for CI
ec() { "$BIN" analyze -q $DB "$@" >/dev/null 2>&1; echo $?; }
check "--fail-on never: exit 0 on a diagnosed bundle" sh -c "[ \$('$BIN' analyze -q $DB --fail-on never '$SC/oom_unshard' >/dev/null 2>&1; echo \$?) -eq 0 ]"
check "--fail-on error: exit 1 on an error finding" sh -c "[ \$('$BIN' analyze -q $DB --fail-on error '$SC/oom_unshard' >/dev/null 2>&1; echo \$?) -eq 1 ]"
check "default: exit 1 on a diagnosed bundle, 0 on a healthy one" sh -c "[ $(ec "$SC/oom_unshard") -eq 1 ] && [ $(ec "$SC/ok") -eq 0 ]"
check "--fail-on warning: 0 on a bundle with info findings only" sh -c "[ $(ec --fail-on warning "$SC/ok") -eq 0 ]"
check "--fail-on bogus: usage error (2)" sh -c "[ $(ec --fail-on bogus "$SC/ok") -eq 2 ]"
# a bundle whose only findings are warnings: --fail-on error passes it, --fail-on warning fails it
W=fixtures/captures/h200-2gpu-more/ok_warn
if [ -d "$W" ] && "$BIN" analyze -q $DB --format json "$W" 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin)["bundles"][0]["diagnoses"]; s={x["severity"] for x in d}; sys.exit(0 if "warning" in s and "error" not in s else 1)'; then
	check "--fail-on error 0 / warning 1 on a bundle with warnings only" sh -c "[ $(ec --fail-on error "$W") -eq 0 ] && [ $(ec --fail-on warning "$W") -eq 1 ]"
fi
# --quiet-info: no information-level finding in the CI formats
for f in junit sarif github; do
	check "--quiet-info --format $f: no info finding" sh -c "'$BIN' analyze -q $DB --quiet-info --format $f '$SC/ok' > '$T/qi.$f'; [ \$? -le 1 ] && ! grep -q 'No InfiniBand/RoCE device usable' '$T/qi.$f' && grep -q 'No InfiniBand/RoCE device usable' '$T/o/ok.$f'"
done
check "--quiet-info leaves text alone" sh -c "'$BIN' analyze -q $DB --quiet-info '$SC/ok' | grep -q 'ib.not_available'"
# batch: every format of analyze, from the one table
for f in md junit sarif github; do
	check "batch --format $f" sh -c "'$BIN' batch -q $DB --format $f -o '$T/o/batch.$f' $ALL; [ \$? -le 1 ] && [ -s '$T/o/batch.$f' ]"
	check "batch --help offers $f" sh -c "'$BIN' batch --help | grep -q '$f'"
done
"$BIN" batch -q $DB --format json -o "$T/o/batchall.json" $ALL 2>/dev/null
sub "batch sarif: SARIF 2.1.0 schema" $PY $HERE/ci_check.py sarif "$T/o/batch.sarif" tests/schemas/sarif-schema-2.1.0.json "$T/o/batchall.json"
sub "batch junit: GitLab/Jenkins shape" $PY $HERE/ci_check.py junit "$T/o/batch.junit" "$T/o/batchall.json"
# GitHub: at most 10 annotations of each kind per step, the rest in one notice
"$BIN" batch -q $DB --format github -o "$T/o/many.github" $SC fixtures/captures/h200-2gpu-more 2>/dev/null
"$BIN" batch -q $DB --format json -o "$T/o/many.json" $SC fixtures/captures/h200-2gpu-more 2>/dev/null
sub "github: caps of 10 per kind and a summary notice (many bundles)" $PY $HERE/ci_check.py github "$T/o/many.github" "$T/o/many.json"
check "github: the summary notice is there" grep -q '^::notice title=nccl-triage%3A more findings::' "$T/o/many.github"
# and 50 per job: three steps of one job share them through $RUNNER_TEMP
mkdir -p "$T/rt"
for i in 1 2 3; do
	RUNNER_TEMP="$T/rt" "$BIN" batch -q $DB --format github -o "$T/o/step$i.github" $SC fixtures/captures/h200-2gpu-more 2>/dev/null
	cp "$T/rt/nccl-triage-annotations" "$T/o/count$i" 2>/dev/null
done
check "github: the job's count after each step (30, 50, 50)" sh -c "[ \"\$(cat '$T/o/count1' '$T/o/count2' '$T/o/count3' | tr '\\n' ' ')\" = '30 50 50 ' ]"
sub "github: step 1 of a job, 50 left" $PY $HERE/ci_check.py github "$T/o/step1.github" 50 "$T/o/many.json"
sub "github: step 2 of a job, 20 left" $PY $HERE/ci_check.py github "$T/o/step2.github" 20 "$T/o/many.json"
sub "github: step 3 of a job, none left: a plain line" $PY $HERE/ci_check.py github "$T/o/step3.github" 0 "$T/o/many.json"
check "github: no annotation once the job has shown 50" sh -c "! grep -q '^::' '$T/o/step3.github'"
check "github: step 1 of a job is the lone run's report" cmp -s "$T/o/step1.github" "$T/o/many.github"
echo 7x > "$T/rt/nccl-triage-annotations"
RUNNER_TEMP="$T/rt" "$BIN" analyze -q $DB --format github "$SC/oom_unshard" > "$T/o/badcount.github" 2> "$T/o/badcount.err"
check "github: a count file that is no count is named, and no annotation written" sh -c "grep -q 'nccl-triage-annotations: not a count of annotations' '$T/o/badcount.err' && ! grep -q '^::' '$T/o/badcount.github' && grep -q '^nccl-triage: .* not annotated' '$T/o/badcount.github'"
check "github: GITHUB_STEP_SUMMARY gets the Markdown report, appended" sh -c "echo previous > '$T/sum.md'; GITHUB_STEP_SUMMARY='$T/sum.md' '$BIN' analyze -q $DB --format github '$SC/oom_unshard' > /dev/null; [ \$(head -1 '$T/sum.md') = previous ] && grep -q '^## nccl-triage: ' '$T/sum.md' && grep -q 'Most likely root cause' '$T/sum.md'"
check "github: no GITHUB_STEP_SUMMARY, no file written" sh -c "cd '$T' && env -u GITHUB_STEP_SUMMARY '$BIN' analyze -q $DB --format github '$OLDPWD/$SC/oom_unshard' > /dev/null; [ ! -e '$T/GITHUB_STEP_SUMMARY' ]"
# references are public sources, never this repository's paths
for f in json html md text junit sarif github; do
	check "no repository note (nccl-reference.md) as a reference ($f, all bundles)" sh -c "! grep -q 'nccl-reference.md' '$T/o/all.$f'"
done
check "html: no fixture path among the references" sh -c "! grep -q 'References: [^<]*fixtures/' '$T/o/all.html'"
check "json: references are URLs or source names, no repository path" sh -c "$PY -c 'import json,sys
d=json.load(open(sys.argv[1]))
bad=[r for b in d[\"bundles\"] for x in b[\"diagnoses\"] for r in x.get(\"references\",[]) if r.startswith((\"fixtures/\",\"tests/\",\"nccl-reference.md\"))]
sys.exit(1 if bad else 0)' '$T/o/all.json'"
# fix steps that apply to the case: a torchrun job gets no vLLM advice; a bare OOM line (no launcher known) keeps it
check "fix: torchrun job (launchers: torchrun) has no vLLM step" sh -c "grep -q '\"torchrun\"' '$T/o/oom_unshard.json' && $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(any(\"For vLLM\" in f for b in d[\"bundles\"] for x in b[\"diagnoses\"] for f in x[\"fix\"]))' '$T/o/oom_unshard.json' && ! grep -q 'For vLLM' '$T/o/oom_unshard.md'"
grep -m1 'torch.OutOfMemoryError' "$SC/oom_unshard/run.log" | sed 's/^\[rank0\]: //' > "$T/bare-oom.log"
check "fix: no launcher known keeps the vLLM step" sh -c "'$BIN' analyze -q $DB --format json '$T/bare-oom.log' | $PY -c 'import json,sys; d=json.load(sys.stdin); sys.exit(not any(f.startswith(\"For vLLM lower --gpu-memory-utilization\") for b in d[\"bundles\"] for x in b[\"diagnoses\"] for f in x[\"fix\"]))'"
# the same evidence is not shown twice in one diagnosis
check "text: a derived sentence that is the explanation is not repeated" sh -c "grep -q '(the sentence above)' '$T/o/oom_unshard.text' && [ \$(grep -c 'GPU 0 reached 142611 of 143771 MiB' '$T/o/oom_unshard.text') -eq 1 ]"
sub "html: no line shown twice in one diagnosis" $PY $HERE/html_check.py dup "$T/o/collective_timeout.html" "$T/o/duplicate_gpu.html" "$T/o/all.html"

# ---- terminal and Markdown (issue 17) ----
# a terminal of 100 and 60 columns (script(1) gives the report a pty; its size comes from COLUMNS)
if command -v script >/dev/null 2>&1; then
	for w in 100 60; do
		for s in $SCEN; do
			COLUMNS=$w script -qec "'$BIN' analyze -q $DB --color always '$SC/$s'" /dev/null > "$T/tty$w-$s.txt" 2>&1 </dev/null
		done
		sub "text on a $w-column terminal: no line wider (colour included)" $PY $HERE/text_check.py width $w "$T"/tty$w-*.txt
	done
	check "text on a terminal: a long log line is cut with …" grep -q '…' "$T/tty100-oom_unshard.txt"
	check "text on a terminal: prose wraps with a hanging indent" sh -c "grep -q '^        offload, or more GPUs per model replica' '$T/tty100-oom_unshard.txt'"
else
	echo "SKIP: terminal width test: script(1) is not installed"
	skip=$((skip + 1))
fi
# in a pipe: whole lines (grep-able), COLUMNS or not
COLUMNS=100 "$BIN" analyze -q $DB "$SC/oom_unshard" > "$T/pipe.txt" 2>/dev/null
sub "text in a pipe: quoted log lines whole" $PY $HERE/text_check.py whole "$T/o/oom_unshard.json" "$T/pipe.txt"
for s in oom_unshard collective_timeout ok bad_socket_ifname; do
	sub "text $s: the three-line summary (verdict, cause with the culprit rank, the fix)" $PY $HERE/text_check.py summary "$T/o/$s.json" "$T/o/$s.text"
done
# unknown_failure: the cause quotes the telling line (a real paste whose
# NCCL error no signature explains; which line is the telling one among
# several: test_report's test_telling_unexplained)
UF=tests/learn/socket-pytorch-23363-docker-isolation.log
"$BIN" analyze -q --format json "$UF" > "$T/uf.json" 2>/dev/null
"$BIN" analyze -q "$UF" > "$T/uf.text" 2>/dev/null
if grep -q '"verdict":[[:space:]]*"unknown_failure"' "$T/uf.json"; then
	sub "text, unknown_failure: the cause quotes the exception line" $PY $HERE/text_check.py summary "$T/uf.json" "$T/uf.text"
	"$BIN" analyze -q --format md "$UF" > "$T/uf.md" 2>/dev/null
	sub "md, unknown_failure: the lead quotes the exception line, fenced" $PY $HERE/text_check.py mdlead "$T/uf.json" "$T/uf.md"
else bad "$UF is no longer unknown_failure: pick another real paste whose failure no signature explains"; fi
# Markdown: real reports, and log text made to break it (backticks, mentions, issue numbers)
for s in oom_unshard collective_timeout duplicate_gpu bad_socket_ifname; do
	sub "md $s: fences, <details>, own backticks kept, no mention or issue link" $PY $HERE/text_check.py md "$T/o/$s.json" "$T/o/$s.md"
done
$PY - "$T/o/collective_timeout.json" "$T/hostile-md.json" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
b = doc["bundles"][0]
d = next(x for x in b["diagnoses"] if any(e["kind"] == "line" for e in x["evidence"]))
e = next(e for e in d["evidence"] if e["kind"] == "line")
e["text"] = e["text"] + " ```` then ``` @octocat see #123 `x`"
d["evidence"].insert(0, {"kind": "derived", "path": "run.log", "line": 1, "from": [{"path": "run.log", "line": 1}],
                      "text": "quoted: \"@octocat fixed #4711 in `main`\"", "signature": "fixture"})
b["warnings"] = ["run.log: cut by @admin, see #99"]
if b.get("ranks"):
    b["ranks"][0]["first_error"] = "ping @octocat about #123"  # the rank table quotes it
json.dump(doc, open(sys.argv[2], "w"))
PYEOF
check "md: render the hostile fixture" sh -c "'$R' md '$T/hostile-md.json' > '$T/o/hostile.md'"
sub "md: backticks in log text cannot close the fence; mentions and #N neutralised" $PY $HERE/text_check.py md "$T/hostile-md.json" "$T/o/hostile.md"
check "md: the hostile line is in a fence of 5 backticks" grep -q '^`````$' "$T/o/hostile.md"

# ---- HTML (issue 17, 15.3) ----
for s in collective_timeout duplicate_gpu oom_unshard; do
	sub "html $s: highlights at PCRE2's capture offsets" $PY $HERE/html_check.py marks "$T/o/$s.html" "$T/o/$s.json"
done
for h in duplicate_gpu.html all.html; do
	sub "html $h: an anchor and a link on every diagnosis and evidence line, ids unique" $PY $HERE/html_check.py anchors "$T/o/$h"
done
$PY - "$T/o/collective_timeout.json" "$T/lanes.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["bundles"][0]
rs = []
for i in range(3):
    r = json.loads(json.dumps(b["ranks"][0]))
    r.update(rank=i, pid=4000 + i, host="gpu-cluster-east-rack07-node-%04d.example.com" % (i + 1))
    r.pop("failed_first", None)
    r.pop("first_error", None)
    rs.append(r)
rs[0]["failed_first"] = True
rs[0]["first_error"] = "NCCL WARN Cuda failure 'out of memory'"
rs[2]["exit"] = {"code": 0}
rs[2]["milestones"]["aborted"] = False
b["ranks"] = rs
json.dump(d, open(sys.argv[2], "w"))
PYEOF
check "html: render the timeline fixture (hosts differing after 20 characters, a clean exit)" sh -c "'$R' html '$T/lanes.json' > '$T/o/lanes.html'"
sub "html: timeline lanes labelled by rank and a distinct short host:pid" $PY $HERE/html_check.py lanes "$T/o/lanes.html"
check "html: a rank that exited with status 0 is drawn clean" grep -q '>exited cleanly (status 0)</text>' "$T/o/lanes.html"
# flight recorder (issue 28): per-rank lanes of the last collectives, the stop marked
check "html: flight-recorder lanes of synthetic/behind" sh -c "'$BIN' analyze --format html fixtures/flight/synthetic/behind > '$T/o/flight.html'; grep -q 'fr-stop' '$T/o/flight.html'"
sub "html: memory chart ticks are round" $PY $HERE/html_check.py ticks "$T/o/oom-facts.html"
check "html: dark scheme and narrow-screen rules in the page" sh -c "grep -q 'prefers-color-scheme:dark' '$T/o/ok.html' && grep -q 'max-width:600px' '$T/o/ok.html'"

# ---- evidence is what it says (issue 15.2) ----
for s in $ALL; do
	n=$(basename "$s")
	[ -f "$T/o/$n.json" ] || an json "$T/o/$n.json" "$s"
	sub "evidence $n: line items verbatim, derived items with from[], cuts marked, spans on the captures" \
		$PY $HERE/evidence_check.py json "$s" "$T/o/$n.json"
done
# a WARN that a wrapper's line quotes (XLA's "Last NCCL warning(error) log
# entry (may be unrelated) '...'") is matched as a line of its own: its
# evidence still quotes the whole line that path:line names (real pastes)
for f in bug-lwm-42-jax-xla-busid-nic oom-accelerate-2545-xla-pjrt-nccl; do
	mkdir -p "$T/quoted-$f" && cp "tests/learn/$f.log" "$T/quoted-$f/"
	"$BIN" analyze -q --format json -o "$T/o/quoted-$f.json" "$T/quoted-$f" # the built-in database: its XLA and WARN signatures
	sub "evidence of a quoted WARN ($f): the whole line, the match a span of it" \
		$PY $HERE/evidence_check.py json "$T/quoted-$f" "$T/o/quoted-$f.json"
done
for s in oom_unshard collective_timeout; do
	sub "evidence $s: every format shows derived sentences as derived, SARIF message = title" \
		$PY $HERE/evidence_check.py formats "$T/o/$s.json" "$T/o/$s.text" "$T/o/$s.md" "$T/o/$s.sarif" \
		"$T/o/$s.junit" "$T/o/$s.github" "$T/o/$s.html"
done

# ---- redaction ----
RB="$T/redact-bundle"
mkdir -p "$RB/ranks" "$RB/sys"
cp "$SC/duplicate_gpu/run.log" "$RB/duplicate_gpu.log"
cp "$SC/oom_unshard/run.log" "$RB/oom.log"
cp "$SC"/debug_file_ok/ranks/* "$RB/ranks/"
cp "$CAP/sys/nvidia-smi-L.txt" "$CAP/sys/nvidia-smi-q.txt" "$CAP/sys/topo-m.txt" "$CAP/sys/nvidia-smi.txt" "$RB/sys/"
# real logs with their host, address and script path substituted (formats unchanged):
# a cluster node name, a private IPv4, an IPv6 link-local address with its zone, a home directory
sed -e 's/^vm:/dgx-a100-042:/; s/\] vm:/] dgx-a100-042:/; s/192\.0\.2\.2/10.23.41.7/g; s#/srv/job/#/home/jsmith/llm/#g' \
	"$SC/bad_socket_ifname/run.log" > "$RB/node042.log"
sed -e 's/^vm:/gpu-07:/; s/\] vm:/] gpu-07:/; s/eth0:192\.0\.2\.2</eth0:fe80::a00:27ff:fe4e:66a1%eth0</g; s#/srv/job/#/home/jsmith/llm/#g' \
	"$SC/collective_timeout/run.log" > "$RB/node07.log"
for f in json html junit sarif github text md; do
	check "analyze --redact --format $f" an $f "$T/o/red.$f" --redact "$RB"
done
check "analyze --format json (not redacted)" an json "$T/o/plain.json" "$RB"
sub "redact: no original token in any format" $PY $HERE/redact_check.py scan "$RB" "$T"/o/red.*
sub "redact: diagnosis unchanged" $PY $HERE/redact_check.py same "$T/o/plain.json" "$T/o/red.json"
check "redact: the plain report does show the tokens (the scan is not vacuous)" sh -c "! $PY $HERE/redact_check.py scan '$RB' '$T/o/plain.json' >/dev/null"
check "redact: stable pseudonyms (host-1, same in json and html)" sh -c "grep -q 'host-1' '$T/o/red.json' && grep -q 'host-1' '$T/o/red.html'"
check "redact: neutral bundle and document names (bundle-1, doc-K.log)" sh -c "grep -q '\"name\":[[:space:]]*\"bundle-1\"' '$T/o/red.json' && grep -q '\"path\":[[:space:]]*\"doc-[0-9]*\.log\"' '$T/o/red.json' && ! grep -q 'ranks/nccl\.' '$T/o/red.json' && ! grep -q 'redact-bundle' '$T/o/red.json'"
check "analyze --redact --keep-names --format json" an json "$T/o/red-keep.json" --redact --keep-names "$RB"
check "redact --keep-names: names kept, learned hosts replaced inside them" grep -q 'ranks/nccl.host-[0-9]*.301[45].log' "$T/o/red-keep.json"
# the issue's example (issue 25): a bundle and a document named after hosts nothing else names
mkdir -p "$T/names/gpu-node-99-ticket"
sed -e 's/^vm:/trainhost44:/; s/\] vm:/] trainhost44:/' "$SC/duplicate_gpu/run.log" > "$T/names/gpu-node-99-ticket/trainhost44-rank0.log"
for f in json html junit sarif github text md; do
	check "redact names: --format $f" sh -c "'$BIN' analyze -q $DB --redact --format $f -o '$T/o/names.$f' '$T/names/gpu-node-99-ticket'; [ \$? -le 1 ] && ! grep -q 'gpu-node-99\|trainhost44' '$T/o/names.$f' && grep -q 'bundle-1\|doc-1\.log' '$T/o/names.$f'"
done
check "redact names: --keep-names keeps them" sh -c "'$BIN' analyze -q $DB --redact --keep-names --format json '$T/names/gpu-node-99-ticket' | grep -q 'gpu-node-99-ticket'"
check "redact: the report says it is redacted" sh -c "grep -q '\"redacted\":[[:space:]]*true' '$T/o/red.json' && grep -q 'replaced by pseudonyms' '$T/o/red.html'"
# facts too: GPU UUIDs, serials and bus ids from the real nvidia-smi -q, through redact_json
check "redact (facts): fixture with gpus from nvidia-smi -q" sh -c "$PY $HERE/facts_from_captures.py '$T/o/plain.json' --gpus $CAP/sys/nvidia-smi-q.txt --topo $CAP/sys/topo-m.txt > '$T/pf.json' && '$R' redact '$T/pf.json' > '$T/o/rf.json'"
for f in html junit sarif github; do
	check "redact (facts): render $f" sh -c "'$R' $f '$T/o/rf.json' > '$T/o/rf.$f'"
done
sub "redact (facts): no UUID, serial or bus id survives" $PY $HERE/redact_check.py scan "$RB" "$T"/o/rf.*
check "redact (facts): the unredacted facts do hold them" sh -c "grep -q 'GPU-0cbaf63b-5102-0ac0-54f4-22b3052a0958' '$T/pf.json' && grep -Eq '(0000)?0000:00:06.0' '$T/pf.json'"
check "redact (facts): bus id of gpus[0] = NCCL's busId 60 of rank 0" sh -c "$PY -c 'import json,sys; d=json.load(open(sys.argv[1]))[\"bundles\"][0]; g=d[\"facts\"][\"gpus\"][0][\"bus_id\"]; assert g.startswith(\"busid-\"), g; assert any(r.get(\"bus_id\")==g for r in d[\"ranks\"]), (g, [r.get(\"bus_id\") for r in d[\"ranks\"]])' '$T/o/rf.json'"
# the scanner on single strings (formats from NCCL and PyTorch output)
"$R" redact-string \
	"vm:1425:1425 [0] NCCL INFO Bootstrap: Using eth0:192.0.2.2<0>" \
	"vm:1425:1425 [0] NCCL INFO RAS client listening socket at 127.0.0.1<28028>" \
	"[rank0]:[E1130 14:19:17.712615150 ProcessGroupNCCL.cpp:689] [Rank 0] c10d::ProcessGroupNCCL" \
	"NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:fe80::a00:27ff:fe4e:66a1%eth0<0>" \
	"ncclCommInitRankConfig comm 0x166a4a50 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0x601dba4392a88ba6 - Init START" \
	"GPU 0: NVIDIA H200 (UUID: GPU-0cbaf63b-5102-0ac0-54f4-22b3052a0958)" \
	"Bus Id : 00000000:00:06.0" \
	"File \"/home/jsmith/llm/train.py\", line 37, in <module>" \
	"nvidia-cublas-cu12==12.4.5.8" \
	"[W socket.cpp:663] [c10d] The client socket has failed to connect to [node-17.cluster.local]:29500" > "$T/rs" 2>&1
exp() { sed -n "${1}p" "$T/rs" | grep -qF -- "$2"; }
check "redact-string: host and IPv4" exp 1 "host-1:1425:1425 [0] NCCL INFO Bootstrap: Using eth0:ip-1<0>"
check "redact-string: loopback kept" exp 2 "127.0.0.1<28028>"
check "redact-string: times and c10d:: untouched" exp 3 "[rank0]:[E1130 14:19:17.712615150 ProcessGroupNCCL.cpp:689] [Rank 0] c10d::ProcessGroupNCCL"
check "redact-string: IPv6 with zone" exp 4 "OOB eth0:ip6-1<0>"
check "redact-string: NCCL short bus id = the PCI bus id" sh -c "b=\$(sed -n 5p '$T/rs' | grep -o 'busid-[0-9]*'); [ -n \"\$b\" ] && sed -n 7p '$T/rs' | grep -q \"Bus Id : \$b\$\""
check "redact-string: GPU UUID" exp 6 "(UUID: gpu-uuid-1)"
check "redact-string: user in a path" exp 8 "/home/user-1/llm/train.py"
check "redact-string: a version is not an address" exp 9 "nvidia-cublas-cu12==12.4.5.8"
check "redact-string: FQDN in [host]:port" exp 10 "connect to [host-2]:29500"
# an address inside a line (issue 25): after "==" behind a blank, where the pip rule kept it
printf 'RuntimeError: Connection refused by host; MASTER_ADDR==10.20.30.40\n' > "$T/addr-in-line.log"
for f in json html; do
	check "redact: analyze --redact --format $f, an address inside a line" an $f "$T/o/addr.$f" --redact "$T/addr-in-line.log"
	check "redact: the address after '==' inside a line is replaced ($f)" sh -c "! grep -q '10\\.20\\.30\\.40' '$T/o/addr.$f' && grep -q 'MASTER_ADDR==ip-1' '$T/o/addr.$f'"
done

# ---- browser ----
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
	echo "SKIP: browser test: chromium is not installed (sh tests/reports/deps.sh installs it)"
	skip=$((skip + 1))
else
	SHOTS="$B/report-shots"
	rm -rf "$SHOTS"
	mkdir -p "$SHOTS"
	cp "$T"/o/duplicate_gpu.html "$T"/o/ok.html "$T"/o/oom-facts.html "$T"/o/hostile.html "$T"/o/batch.html "$T"/o/all.html "$SHOTS/"
	cp "$T/o/red.html" "$SHOTS/redacted.html"
	[ -f "$T/o/topo5.html" ] && cp "$T/o/topo5.html" "$SHOTS/"
	cp "$T/o/lanes.html" "$T/o/flight.html" "$SHOTS/"
	pages="$SHOTS/duplicate_gpu.html:Failure,Rank timeline,What the logs show
$SHOTS/ok.html:Healthy
$SHOTS/oom-facts.html:GPU topology,GPU memory,out-of-memory arithmetic
$SHOTS/hostile.html:run<img src=x onerror=alert(1)>.log
$SHOTS/batch.html:Failure categories,Bundles
$SHOTS/all.html:Rank timeline
$SHOTS/redacted.html:host-1
$SHOTS/lanes.html:Rank timeline
$SHOTS/flight.html:Flight recorder,hang: rank 2 behind"
	[ -f "$SHOTS/topo5.html" ] && pages="$pages
$SHOTS/topo5.html:GPU topology"
	echo "$pages" > "$T/pages"
	# shellcheck disable=SC2046
	(IFS='
'; sub "browser: pages render offline, clean console; at 390 px and 1400 px, light and dark: no horizontal scroll, the timeline shown fits, chart text >= 11 px, contrast >= 4.5:1" timeout 1500 $PY $HERE/browser_check.py "$CHROME" "$SHOTS" $(cat "$T/pages"); echo "$pass $fail" > "$T/pf")
	read -r pass fail < "$T/pf"
	# the checker must catch what it is there to catch
	cat > "$T/bad.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>control</title></head>
<body><p>This control page must fail the browser check: it loads an image from the network and logs an error.</p>
<p>padding text so that the blank-page rule does not decide it ........................................................................................................................................................................</p>
<img src="http://192.0.2.1/x.png"><script>console.error("control")</script></body></html>
EOF
	check "browser: a page with a network request and a console error is caught" sh -c "! timeout 600 $PY $HERE/browser_check.py '$CHROME' '$T/shots-bad' '$T/bad.html' >/dev/null 2>&1"
	# a timeline drawn only as the wide SVG (before issue 25) scrolls inside its box at 390 px
	cat > "$T/bad-tl.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>control</title><style>body{margin:0 auto;max-width:1100px;padding:10px;overflow-wrap:anywhere}.scroll{overflow-x:auto;max-width:100%}svg.chart{max-width:none;display:block}</style></head>
<body><h2>Rank timeline</h2><p>This control page must fail the browser check at 390 px: its rank timeline is only the wide drawing.</p>
<p>padding text so that the blank-page rule does not decide it ........................................................................................................................................................................</p>
<div class="scroll"><svg role="img" aria-label="rank timeline" width="1050" height="60" viewBox="0 0 1050 60" class="chart" xmlns="http://www.w3.org/2000/svg"><text x="6" y="30" font-size="12">rank 0</text><text x="900" y="30" font-size="12">first failure</text></svg></div></body></html>
EOF
	check "browser: a rank timeline that scrolls sideways at 390 px is caught" sh -c "timeout 600 $PY $HERE/browser_check.py '$CHROME' '$T/shots-bad' '$T/bad-tl.html' 2>&1 | grep -q 'light 390px: the rank timeline is not readable without sideways scrolling'"
	echo "screenshots and PDFs: $SHOTS/"
fi

if [ $skip -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
