#!/usr/bin/env python3
"""Check CI outputs the way their consumers read them.

  ci_check.py sarif FILE.sarif SCHEMA.json JSON_REPORT
      SARIF 2.1.0 schema (Draft 4, the OASIS errata01 file) + one result per
      diagnosis (plus one per unknown_failure bundle), every location a
      relative URI reference with a line >= 1, ruleIndex pointing at its rule.
  ci_check.py junit FILE.xml JSON_REPORT
      the shape GitLab's JUnit parser and Jenkins' junit plugin read:
      <testsuites> of <testsuite name tests failures errors>, <testcase name
      classname> with a <failure message type> for each error diagnosis; the
      counts agree with the JSON report.  (xmllint checks the XSD separately.)
  ci_check.py github FILE.txt JSON_REPORT
      workflow command syntax: '::error|warning|notice [k=v,...]::message', no
      raw newline inside a command, one per diagnosis.
Prints the problems, then "N passed, N failed" (one check per file)."""
import json
import re
import sys
import xml.etree.ElementTree as ET


def diag_counts(report):
    n_diag = n_err = n_unknown = 0
    for b in report["bundles"]:
        for d in b.get("diagnoses", []):
            n_diag += 1
            n_err += d.get("severity") == "error"
        n_unknown += b.get("verdict") == "unknown_failure"
    return n_diag, n_err, n_unknown


def check_sarif(path, schema_path, report):
    import jsonschema
    probs = []
    doc = json.load(open(path))
    schema = json.load(open(schema_path))
    v = jsonschema.Draft4Validator(schema)
    for e in v.iter_errors(doc):
        probs.append("schema: %s at %s" % (e.message[:200], "/".join(map(str, e.absolute_path))))
    n_diag, _, n_unknown = diag_counts(report)
    run = doc["runs"][0]
    res = run.get("results", [])
    if len(res) != n_diag + n_unknown:
        probs.append("results: %d, expected %d" % (len(res), n_diag + n_unknown))
    rules = run["tool"]["driver"].get("rules", [])
    uri_ok = re.compile(r"^[A-Za-z0-9\-._~/%]+$")
    for r in res:
        if rules[r["ruleIndex"]]["id"] != r["ruleId"]:
            probs.append("ruleIndex %d is not %s" % (r["ruleIndex"], r["ruleId"]))
        for loc in r.get("locations", []) + r.get("relatedLocations", []):
            pl = loc["physicalLocation"]
            uri = pl["artifactLocation"]["uri"]
            if not uri_ok.match(uri):
                probs.append("uri not a clean URI reference: %r" % uri)
            reg = pl.get("region")
            if reg is not None and reg.get("startLine", 0) < 1:
                probs.append("startLine < 1")
    return probs


def check_junit(path, report):
    probs = []
    root = ET.parse(path).getroot()
    if root.tag != "testsuites":
        return ["root is <%s>, not <testsuites>" % root.tag]
    suites = root.findall("testsuite")
    if len(suites) != len(report["bundles"]):
        probs.append("%d suites for %d bundles" % (len(suites), len(report["bundles"])))
    tot_fail = 0
    for s, b in zip(suites, report["bundles"]):
        for a in ("name", "tests", "failures", "errors"):
            if a not in s.attrib:
                probs.append("testsuite without %s" % a)
        cases = s.findall("testcase")
        fails = [c for c in cases if c.find("failure") is not None]
        if int(s.get("tests", -1)) != len(cases):
            probs.append("suite %s: tests=%s but %d cases" % (s.get("name"), s.get("tests"), len(cases)))
        if int(s.get("failures", -1)) != len(fails):
            probs.append("suite %s: failures=%s but %d failed cases" % (s.get("name"), s.get("failures"), len(fails)))
        # one failure counts once: echoes and context fold into the finding they
        # echo or support (when it is in the bundle); a test fails when its
        # finding or one folded into it is an error
        diags = b.get("diagnoses", [])
        ids = {d["id"]: d for d in diags}

        def root_of(d, seen=()):
            to = d.get("echo_of") or d.get("supports")
            if to in ids and to not in seen:
                return root_of(ids[to], seen + (d["id"],))
            return d
        roots = [d for d in diags if root_of(d) is d]
        want_tests = len(roots) + (b.get("verdict") == "unknown_failure")
        want = sum(any(x.get("severity") == "error" for x in diags if root_of(x) is r) for r in roots) + \
            (b.get("verdict") == "unknown_failure")
        if len(fails) != want:
            probs.append("suite %s: %d failures, %d failing root findings" % (s.get("name"), len(fails), want))
        if len(cases) != max(want_tests, 1):
            probs.append("suite %s: %d cases, %d root findings" % (s.get("name"), len(cases), want_tests))
        names = [c.get("name") for c in cases]
        if len(set(names)) != len(names):
            probs.append("suite %s: two test cases of one name" % s.get("name"))
        for c in cases:
            if c.get("name", "").split(":")[0] in ids and not c.get("file"):
                probs.append("testcase %s without a file attribute" % c.get("name"))
            d = ids.get(c.get("name", "").split(":")[0])
            if d and c.get("name") != "%s: %s" % (d["id"], d.get("fixed_title")):
                probs.append("testcase name %r is not 'ID: fixed_title'" % c.get("name"))
        for c in cases:
            if not c.get("name") or not c.get("classname"):
                probs.append("testcase without name/classname")
            f = c.find("failure")
            if f is not None and (not f.get("message") or not (f.text or "").strip()):
                probs.append("failure without message or text in %s" % c.get("name"))
        tot_fail += len(fails)
    if int(root.get("failures", -1)) != tot_fail:
        probs.append("testsuites failures=%s, counted %d" % (root.get("failures"), tot_fail))
    return probs


def check_github(path, report, job_left=50):
    """Syntax, and GitHub's caps: 10 annotations of each kind per step and
    50 per job (job_left: what the job had left before this step).  One
    annotation per diagnosis (and unknown failure, and bundle without
    findings) up to the caps, the rest counted in one summary notice, or in
    a plain line when the job has no annotation left."""
    probs = []
    rx = re.compile(r"^::(error|warning|notice)( ((file|line|endLine|col|endColumn|title)=[^,:]*)(,(file|line|endLine|col|endColumn|title)=[^,:]*)*)?::.*$")
    lines = open(path, encoding="utf-8").read().splitlines()
    want = {"error": 0, "warning": 0, "notice": 0}
    for b in report["bundles"]:
        n = 0
        for d in b.get("diagnoses", []):
            want[{"error": "error", "warning": "warning"}.get(d.get("severity"), "notice")] += 1
            n += 1
        if b.get("verdict") == "unknown_failure":
            want["error"] += 1
            n += 1
        if not n:
            want["notice"] += 1
    got = {"error": 0, "warning": 0, "notice": 0}
    summary = None
    plain = None
    for ln in lines:
        if ln.startswith("nccl-triage: ") and " not annotated " in ln and plain is None:
            plain = ln
            continue
        if not rx.match(ln):
            probs.append("bad command line: %r" % ln[:160])
            continue
        m = re.search(r"(?:^|[ ,])line=([^,:]*)", ln.split("::")[1] if ln.count("::") >= 2 else "")
        if m and not m.group(1).isdigit():
            probs.append("line= not a number: %r" % ln[:120])
        if ln.startswith("::notice title=nccl-triage%3A more findings::"):
            summary = ln
            continue
        got[ln[2:].split(" ")[0].split(":")[0]] += 1
    over = any(v > 10 for v in want.values()) or sum(want.values()) > job_left
    caps = {k: (9 if (over and k == "notice") else 10) for k in got}
    room = job_left - 1 if over and job_left else job_left
    under_kind = sum(min(want[k], caps[k]) for k in got)
    for k in got:
        if got[k] > 10:
            probs.append("more than 10 %s annotations" % k)
        if job_left >= 30 and got[k] != min(want[k], caps[k]):
            probs.append("%d %s annotations, expected %d (of %d)" % (got[k], k, min(want[k], caps[k]), want[k]))
    if sum(got.values()) != min(under_kind, room):
        probs.append("%d annotations, expected %d (the job had %d left)" % (sum(got.values()), min(under_kind, room), job_left))
    if sum(got.values()) + (1 if summary else 0) > job_left:
        probs.append("%d annotations where the job had %d left" % (sum(got.values()) + (1 if summary else 0), job_left))
    rest = sum(want.values()) - sum(got.values())
    if over and job_left:
        if not summary or ("::%d more findings" % rest) not in summary or plain:
            probs.append("no summary notice of the %d findings past the caps: %r" % (rest, summary))
        if job_left < 50 and summary and "earlier steps of this job" not in summary:
            probs.append("the notice does not say the job's earlier steps used annotations: %r" % summary)
    elif over:
        if summary or not plain or not plain.startswith("nccl-triage: %d finding" % rest):
            probs.append("no plain line of the %d findings when the job has no annotation left: %r" % (rest, plain))
    elif summary or plain:
        probs.append("a summary notice without overflow")
    return probs


def main():
    kind, path = sys.argv[1], sys.argv[2]
    report = json.load(open(sys.argv[-1]))
    if kind == "sarif":
        probs = check_sarif(path, sys.argv[3], report)
    elif kind == "junit":
        probs = check_junit(path, report)
    elif kind == "github":
        probs = check_github(path, report, int(sys.argv[3]) if len(sys.argv) > 4 else 50)
    else:
        print("unknown kind " + kind)
        return 2
    for p in probs[:20]:
        print("  %s: %s" % (path, p))
    print("%d passed, %d failed" % (0 if probs else 1, 1 if probs else 0))
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main())
