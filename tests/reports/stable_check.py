#!/usr/bin/env python3
"""CI names do not change from run to run (issue 17).

  stable_check.py A.json A.junit A.sarif B.json B.junit B.sarif
      A and B are two runs over different bundles analysed at the same path
      (as a CI job sees its log folder), with diagnoses in common whose
      titles, explanations or fix steps differ (run values): the JUnit test
      case names and the SARIF rule ids and rule texts (descriptions and
      help) of those diagnoses must be the same in both, and carry none of
      the run's values.  Fails when nothing differs (the
      check would be vacuous).
Prints the problems, then "N passed, N failed"."""
import json
import sys
import xml.etree.ElementTree as ET


def junit_names(path):
    names = {}
    for c in ET.parse(path).getroot().iter("testcase"):
        names[c.get("name").split(":")[0]] = (c.get("name"), c.get("classname"))
    return names


def sarif_rules(path):
    run = json.load(open(path))["runs"][0]
    return {r["id"]: (r["shortDescription"]["text"], r.get("fullDescription", {}).get("text"),
                      r.get("help", {}).get("text"))
            for r in run["tool"]["driver"]["rules"]}


def diags(path):
    return {d["id"]: d for b in json.load(open(path))["bundles"] for d in b["diagnoses"]}


def main():
    a_json, a_junit, a_sarif, b_json, b_junit, b_sarif = sys.argv[1:7]
    da, db = diags(a_json), diags(b_json)
    ja, jb = junit_names(a_junit), junit_names(b_junit)
    sa, sb = sarif_rules(a_sarif), sarif_rules(b_sarif)
    probs = []
    differing = [i for i in da if i in db and (da[i]["title"] != db[i]["title"] or da[i]["explanation"] != db[i]["explanation"]
                                               or da[i].get("fix") != db[i].get("fix"))]
    if not differing:
        probs.append("no common diagnosis with different titles: vacuous")
    junit_seen = 0
    for i in differing:
        if sa.get(i) != sb.get(i):
            probs.append("sarif rule %s differs: %r / %r" % (i, sa.get(i), sb.get(i)))
        for run_value in (da[i]["title"], db[i]["title"]):
            if sa.get(i) and run_value != da[i].get("fixed_title") and sa[i][0] == run_value:
                probs.append("sarif rule %s is titled with a run's values: %r" % (i, run_value))
        # the rule's help is the database's fix steps, not a run's: no step
        # that one run has and the other not (it holds a run's values)
        for step in sorted(set(da[i].get("fix", [])) ^ set(db[i].get("fix", []))):
            for rules in (sa, sb):
                if rules.get(i) and rules[i][2] and "- " + step in rules[i][2].split("\n"):
                    probs.append("sarif rule %s's help carries a run's fix step: %r" % (i, step))
        if i in ja and i in jb:
            junit_seen += 1
            if ja[i] != jb[i]:
                probs.append("junit test %s differs: %r / %r" % (i, ja[i], jb[i]))
            if ja[i][0] in ("%s: %s" % (i, da[i]["title"]), "%s: %s" % (i, db[i]["title"])) and da[i]["title"] != db[i]["title"]:
                probs.append("junit test %s is named with a run's values" % i)
    if differing and not junit_seen:
        probs.append("no differing diagnosis is a JUnit test of its own in both runs: vacuous for JUnit")
    print("%d diagnoses in common with run values that differ (%s), %d of them JUnit tests" %
          (len(differing), ", ".join(differing), junit_seen))
    for p in probs:
        print(p)
    print("%d passed, %d failed" % (0 if probs else 1, 1 if probs else 0))
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main())
