#!/bin/sh
# docs/calibration.md is what `make calibration` writes from the learn set
# (tests/accuracy/score --calibration-md over tests/learn/expected*.tsv), and
# each of its buckets of 5 diagnoses or more is right at least as often as its
# lower bound says (>= 0.9: 90%, >= 0.7: 70%, ...): the words the reports
# print beside a confidence ("likely", "possible") follow the numbers.
BIN=${1:-./nccl-triage}
pass=0; fail=0
command -v python3 >/dev/null 2>&1 || { echo "calibration: python3 is needed"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
# shellcheck disable=SC2046
tests/accuracy/score --bin "$BIN" --calibration-md $(ls tests/learn/expected*.tsv) >"$tmp"
if diff -u docs/calibration.md "$tmp"; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: docs/calibration.md is out of date: run make calibration"
fi
# shellcheck disable=SC2046
if tests/accuracy/score --bin "$BIN" --check-calibration $(ls tests/learn/expected*.tsv); then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: a confidence bucket is right less often than its bound (above)"
fi
# the check must be able to fail: a set whose only row is labelled wrongly
# on purpose (a real capture, OOM, labelled healthy) 5 times over
bad=$(mktemp -d); trap 'rm -f "$tmp"; rm -rf "$bad"' EXIT
mkdir -p "$bad/tests/learn"
for i in 1 2 3 4 5; do
	printf '%s\thealthy\t-\tmust\n' "$(pwd)/fixtures/demo/ticket-oom.tar.gz" >>"$bad/tests/learn/expected.tsv"
done
if tests/accuracy/score --bin "$BIN" --check-calibration "$bad/tests/learn/expected.tsv" >/dev/null; then
	fail=$((fail + 1)); echo "FAIL: --check-calibration passed a set that is wrong every time"
else pass=$((pass + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
