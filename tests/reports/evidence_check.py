#!/usr/bin/env python3
"""Evidence is what it says it is (issue 15.2), in the JSON and every format.

  evidence_check.py json BUNDLE_DIR REPORT.json
      every evidence item has kind "line" or "derived"; a "line" item's text
      is the verbatim text of path:line in BUNDLE_DIR (sanitised: invalid
      UTF-8 as U+FFFD, controls as '?'); a cut one ends with "…", is a
      prefix of the line and keeps "length" = the line's bytes; a "derived"
      item has "from", a list of {path, line} that exist in BUNDLE_DIR; a
      "spans" offset pair is inside the text and the capture spans give the
      captured values exactly.
  evidence_check.py formats REPORT.json TEXT MD SARIF JUNIT GITHUB HTML
      derived items are shown as derived in each rendering and never as a
      log line (SARIF: no snippet; Markdown: not inside the fenced block);
      the SARIF result message is the diagnosis title; cut lines say so.
Prints the problems, then "N passed, N failed"."""
import json
import os
import re
import sys


def lines_of(path):
    with open(path, "rb") as f:
        return f.read().split(b"\n")


def sanitize(b):
    s = b.decode("utf-8", errors="replace")
    return "".join("?" if (ord(c) < 0x20 and c != "\t") or 0x7f <= ord(c) < 0xa0 else c for c in s)


def check_json(bundle, report):
    probs = []
    doc = json.load(open(report))
    n_line = n_derived = n_cut = n_spans = 0
    cache = {}
    for b in doc["bundles"]:
        for d in b["diagnoses"]:
            for e in d["evidence"]:
                kind = e.get("kind")
                where = "%s %s:%s" % (d["id"], e.get("path"), e.get("line"))
                if kind not in ("line", "derived"):
                    probs.append("%s: kind %r" % (where, kind))
                    continue
                if kind == "derived":
                    n_derived += 1
                    if not isinstance(e.get("from"), list):
                        probs.append("%s: derived without from[]" % where)
                        continue
                    for fr in e["from"]:
                        p = os.path.join(bundle, fr["path"])
                        if not os.path.isfile(p) or not 1 <= fr["line"] <= len(lines_of(p)):
                            probs.append("%s: from %r is no line of the bundle" % (where, fr))
                    if "spans" in e:
                        probs.append("%s: a derived sentence has match spans" % where)
                    continue
                n_line += 1
                p = os.path.join(bundle, e["path"])
                if not os.path.isfile(p):
                    probs.append("%s: no such file" % where)
                    continue
                if p not in cache:
                    cache[p] = lines_of(p)
                raw = cache[p][e["line"] - 1].rstrip(b"\r")
                full = sanitize(raw)
                text = e["text"]
                if e.get("cut"):
                    n_cut += 1
                    if not text.endswith("\u2026"):
                        probs.append("%s: cut text does not end with …" % where)
                    if not full.startswith(text[:-1]):
                        probs.append("%s: cut text is not a prefix of the line" % where)
                    if e.get("length") != len(raw):
                        probs.append("%s: length %r, the line has %d bytes" % (where, e.get("length"), len(raw)))
                elif text != full:
                    probs.append("%s: text is not the line:\n  %r\n  %r" % (where, text[:120], full[:120]))
                sp = e.get("spans")
                if sp:
                    n_spans += 1
                    tb = text.encode()
                    a, z = sp["match"]
                    if not 0 <= a < z <= len(tb):
                        probs.append("%s: match span %r outside the text" % (where, sp["match"]))
                    for name, (ca, cz) in sp.get("captures", {}).items():
                        got = tb[ca:cz].decode(errors="replace")
                        if got != e.get("captures", {}).get(name):
                            probs.append("%s: capture span %s gives %r, captured %r" % (where, name, got, e.get("captures", {}).get(name)))
                        if not (a <= ca and cz <= z):
                            probs.append("%s: capture %s outside the match" % (where, name))
    return probs, (n_line, n_derived, n_cut, n_spans)


def check_formats(report, text, md, sarif, junit, github, html):
    probs = []
    doc = json.load(open(report))
    T = open(text, encoding="utf-8").read()
    M = open(md, encoding="utf-8").read()
    S = json.load(open(sarif))
    J = open(junit, encoding="utf-8").read()
    G = open(github, encoding="utf-8").read()
    H = open(html, encoding="utf-8").read()
    derived = [e for b in doc["bundles"] for d in b["diagnoses"] for e in d["evidence"] if e["kind"] == "derived"]
    def cut_shown(n):  # cut lines among the first n evidence items of a diagnosis shown in full
        return [e for b in doc["bundles"] for d in b["diagnoses"] if d["severity"] != "info"
                for e in d["evidence"][:n] if e.get("cut")]
    if not derived:
        probs.append("no derived evidence in the report: the check would be vacuous")
    if derived:
        if "[derived from " not in T:
            probs.append("text: derived evidence not labelled")
        if "- *derived* from " not in M:
            probs.append("md: derived evidence not labelled")
        if "derived from " not in J:
            probs.append("junit: derived evidence not labelled")
        if 'class="ev derived"' not in H or "<b>derived</b>" not in H:
            probs.append("html: derived evidence not labelled")
    # Markdown: no derived sentence inside a fenced block
    infence = False
    for ln in M.split("\n"):
        if re.match(r"^`{3,}\s*$", ln):
            infence = not infence
        elif infence:
            for e in derived:
                if e["text"][:60] in ln:
                    probs.append("md: derived sentence inside a code block: %r" % ln[:80])
    # SARIF: derived text never a snippet; message = the title
    titles = {(b["name"], d["id"]): d["title"] for b in doc["bundles"] for d in b["diagnoses"]}
    for r in S["runs"][0]["results"]:
        if r["ruleId"] in ("nccl-triage.unknown_failure",):
            continue
        key = (r["properties"]["bundle"], r["ruleId"])
        if not r["message"]["text"].endswith(titles.get(key, "\0")):
            probs.append("sarif: message %r is not the diagnosis title %r" % (r["message"]["text"][:80], titles.get(key)))
        for loc in r.get("locations", []) + r.get("relatedLocations", []):
            snip = loc["physicalLocation"].get("region", {}).get("snippet", {}).get("text")
            if snip and any(snip == e["text"] for e in derived):
                probs.append("sarif: a derived sentence is a snippet")
    if derived and "derived from " not in json.dumps(S):
        probs.append("sarif: derived evidence not labelled in a location message")
    for name, body, n in (("text", T, 3), ("md", M, 5), ("junit", J, 10), ("html", H, 5),
                          ("sarif", json.dumps(S, ensure_ascii=False), 20)):
        for e in cut_shown(n):
            if "(cut from %d bytes)" % e["length"] not in body:
                probs.append("%s: a cut line does not say it is cut" % name)
    if derived and "Derived from " not in G and "Derived:" not in G:
        # only the first evidence of a diagnosis is in an annotation
        firsts = [d["evidence"][0] for b in doc["bundles"] for d in b["diagnoses"] if d["evidence"]]
        if any(e["kind"] == "derived" for e in firsts):
            probs.append("github: derived first evidence not labelled")
    return probs


def main():
    if sys.argv[1] == "json":
        probs, counts = check_json(sys.argv[2], sys.argv[3])
        print("line %d, derived %d, cut %d, with spans %d" % counts)
    else:
        probs = check_formats(*sys.argv[2:9])
    for p in probs:
        print(p)
    print("%d passed, %d failed" % (0 if probs else 1, 1 if probs else 0))
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main())
