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
        want = sum(d.get("severity") == "error" for d in b.get("diagnoses", [])) + (b.get("verdict") == "unknown_failure")
        if len(fails) != want:
            probs.append("suite %s: %d failures, %d error diagnoses" % (s.get("name"), len(fails), want))
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


def check_github(path, report):
    probs = []
    n_diag, _, n_unknown = diag_counts(report)
    rx = re.compile(r"^::(error|warning|notice)( ((file|line|endLine|col|endColumn|title)=[^,:]*)(,(file|line|endLine|col|endColumn|title)=[^,:]*)*)?::.*$")
    lines = open(path, encoding="utf-8").read().splitlines()
    ann = 0
    for ln in lines:
        if not rx.match(ln):
            probs.append("bad command line: %r" % ln[:160])
        elif not ln.startswith("::notice title=nccl-triage::"):
            ann += 1
        m = re.search(r"(?:^|[ ,])line=([^,:]*)", ln.split("::")[1] if ln.count("::") >= 2 else "")
        if m and not m.group(1).isdigit():
            probs.append("line= not a number: %r" % ln[:120])
    if ann != n_diag + n_unknown:
        probs.append("%d annotations for %d diagnoses + %d unknown" % (ann, n_diag, n_unknown))
    return probs


def main():
    kind, path = sys.argv[1], sys.argv[2]
    report = json.load(open(sys.argv[-1]))
    if kind == "sarif":
        probs = check_sarif(path, sys.argv[3], report)
    elif kind == "junit":
        probs = check_junit(path, report)
    elif kind == "github":
        probs = check_github(path, report)
    else:
        print("unknown kind " + kind)
        return 2
    for p in probs[:20]:
        print("  %s: %s" % (path, p))
    print("%d passed, %d failed" % (0 if probs else 1, 1 if probs else 0))
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main())
