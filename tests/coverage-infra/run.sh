#!/bin/sh
# tests/coverage-infra/run.sh BIN - the coverage tables of the software around
# NCCL (patterns/coverage/*.tsv written by scripts/infra_coverage.py).
# 1. Staleness: `scripts/infra_coverage.py --check` re-maps every row of a
#    generated table from scripts/infra_coverage_map.tsv (a rule changed and the
#    table not regenerated fails), regenerates the table when the component's
#    mirror is on this machine (/work/.mirror/OWNER+REPO, or NT_MIRRORS), and
#    checks that every row of a hand-kept table cites its source.
# 2. The check can fail: a table whose mapping was edited by hand, a hand-kept
#    row without a citation, a missing table.
# check-db (tests/coverage) proves the samples and signatures of the same rows.
BIN=${1:-./nccl-triage}
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
command -v python3 >/dev/null 2>&1 || { echo "no python3: not checked"; echo "0 passed, 0 failed"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if python3 scripts/infra_coverage.py --check >"$T/out" 2>&1; then ok; else bad "infra_coverage.py --check"; cat "$T/out"; fi
grep '^ok' "$T/out"
# a table edited by hand (a derived row turned into benign) is stale
mkdir "$T/cov"
cp patterns/coverage/*.tsv "$T/cov/"
awk -F'\t' 'BEGIN { OFS = "\t" } !done && $6 ~ /^derived:/ { $6 = "benign:edited"; done = 1 } { print }' \
	patterns/coverage/aws-ofi-nccl.tsv >"$T/cov/aws-ofi-nccl.tsv"
NT_COVERAGE_DIR="$T/cov" NT_MIRRORS="$T/none" python3 scripts/infra_coverage.py --check aws-ofi-nccl >"$T/o2" 2>&1 &&
	bad "a hand-edited mapping was not flagged" || { grep -q 'the rules give derived' "$T/o2" && ok || bad "stale row not named: $(head -2 "$T/o2")"; }
# a hand-kept row without a citation
printf 'somewhere\t1.0\t2.0\terror\tsomething failed\tnot-yet\t\t\n' >>"$T/cov/kernel.tsv"
NT_COVERAGE_DIR="$T/cov" python3 scripts/infra_coverage.py --check kernel >"$T/o3" 2>&1 &&
	bad "a row without a citation was not flagged" || { grep -q 'cites no source' "$T/o3" && ok || bad "uncited row not named: $(head -2 "$T/o3")"; }
# a missing table
rm "$T/cov/sharp.tsv"
NT_COVERAGE_DIR="$T/cov" NT_MIRRORS="$T/none" python3 scripts/infra_coverage.py --check sharp >"$T/o4" 2>&1 &&
	bad "a missing table was not flagged" || ok
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
