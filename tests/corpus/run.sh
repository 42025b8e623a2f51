#!/bin/sh
# Run nccl-triage over every corpus file and compare the top-ranked error
# diagnosis's category with expected.json.  Usage: tests/corpus/run.sh [BINARY]
# Prints one line per file and the accuracy; exit 1 below 85%.
dir=$(dirname "$0")
bin=${1:-./nccl-triage}
python3 - "$dir" "$bin" <<'PY'
import json, os, subprocess, sys
d, binary = sys.argv[1], sys.argv[2]
exp = json.load(open(os.path.join(d, "expected.json")))
ok = 0
for f, e in sorted(exp.items()):
    p = subprocess.run([binary, "analyze", "--format", "json", os.path.join(d, f)], capture_output=True, text=True)
    try:
        b = json.loads(p.stdout)["bundles"][0]
    except Exception:
        print("ERR  %-40s no JSON (%s)" % (f, p.stderr.strip()[:80])); continue
    errs = [x for x in b["diagnoses"] if x["severity"] == "error"]
    if e["category"] == "healthy":
        got = "healthy" if not errs else errs[0]["category"]
    else:
        got = errs[0]["category"] if errs else b["verdict"]
    good = got == e["category"]
    ok += good
    print("%s %-40s want %-18s got %-18s %s" % ("ok  " if good else "MISS", f, e["category"], got, errs[0]["id"] if errs else ""))
n = len(exp)
print("accuracy: %d/%d = %.1f%%" % (ok, n, 100.0 * ok / n))
sys.exit(0 if ok * 100 >= 85 * n else 1)
PY
