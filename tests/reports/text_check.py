#!/usr/bin/env python3
"""Text on a terminal and Markdown in a ticket (issue 17).

  text_check.py width N FILE...
      no line of FILE (a report rendered on a terminal of N columns; colour
      sequences and CR take no column) is wider than N.
  text_check.py summary REPORT.json TEXT
      the text starts with three lines: BUNDLE: VERDICT, "Cause: " with the
      top finding's title (and "rank R failed first" when a rank failed
      first), "Fix:" with its first fix step; for unknown_failure, the cause
      quotes the exception line among the unexplained ones (else the first).
  text_check.py whole REPORT.json TEXT
      in a pipe every quoted log line is whole: each evidence text shown is
      there in full (the JSON's text), not cut to a width.
  text_check.py md REPORT.json MD
      Markdown: every log line is inside a fenced block that no line of it
      can close (CommonMark fences); evidence is in <details> after the
      finding; explanations keep their `code` (no \\` escapes); no
      "@user" or "#123" of log text outside code would notify or link.
Prints the problems, then "N passed, N failed"."""
import json
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def visible(line):
    return len(ANSI.sub("", line).replace("\r", ""))


def check_width(n, files):
    probs = []
    longest = 0
    for f in files:
        for i, ln in enumerate(open(f, encoding="utf-8").read().split("\n"), 1):
            w = visible(ln)
            longest = max(longest, w)
            if w > n:
                probs.append("%s:%d: %d columns > %d: %r" % (f, i, w, n, ln[:60]))
    print("longest line: %d columns" % longest)
    return probs


def check_summary(report, text):
    probs = []
    b = json.load(open(report))["bundles"][0]
    lines = ANSI.sub("", open(text, encoding="utf-8").read()).replace("\r", "").split("\n")
    if not lines[0].startswith(b["name"] + ": " + b["verdict"]):
        probs.append("line 1 is not 'NAME: VERDICT': %r" % lines[0])
    top = next((d for d in b["diagnoses"] if d["severity"] != "info"), None)
    if not lines[1].startswith("Cause: "):
        probs.append("line 2 is not the cause: %r" % lines[1])
    if not lines[2].startswith("Fix:"):
        probs.append("line 3 is not the fix: %r" % lines[2])
    if top:
        if top["title"] not in lines[1]:
            probs.append("the cause line does not name the top finding %r: %r" % (top["title"], lines[1]))
        first = [r["rank"] for r in b.get("ranks", []) if r.get("failed_first") and "rank" in r]
        if first and ("rank %d failed first" % first[0]) not in lines[1]:
            probs.append("the cause line does not name the culprit rank %d" % first[0])
        if top["fix"] and lines[2].split(":", 1)[1].strip() != top["fix"][0]:
            probs.append("the fix line is not the first fix: %r" % lines[2])
    elif b["verdict"] == "unknown_failure":
        # the cause quotes the most telling unexplained line: a Python
        # exception's line when there is one, not the traceback's header
        un = b.get("unexplained", [])
        if not un:
            probs.append("unknown_failure without unexplained lines: vacuous")
        else:
            u = next((x for x in un if x["kind"] == "exception"), un[0])
            want = "%s:%d: %s" % (u["path"], u["line"], u["text"][:40])
            if want not in lines[1]:
                probs.append("the cause line does not quote %r: %r" % (want, lines[1]))
    return probs


def check_whole(report, text):
    probs = []
    T = open(text, encoding="utf-8").read()
    n = 0
    for b in json.load(open(report))["bundles"]:
        for d in b["diagnoses"]:
            if d["severity"] == "info":
                continue
            for e in d["evidence"][:3]:
                if e["kind"] == "line":
                    n += 1
                    if e["text"] not in T:
                        probs.append("evidence line not whole: %r" % e["text"][:80])
    if n == 0:
        probs.append("no evidence line: vacuous")
    return probs


def fences(lines):
    """(start, end) line indexes of fenced blocks, CommonMark rules for backtick fences."""
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r"^ {0,3}(`{3,})[^`]*$", lines[i])
        if m:
            n = len(m.group(1))
            j = i + 1
            while j < len(lines) and not re.match(r"^ {0,3}`{%d,}\s*$" % n, lines[j]):
                j += 1
            out.append((i, j))
            i = j + 1
        else:
            i += 1
    return out


def check_md(report, md):
    probs = []
    doc = json.load(open(report))
    M = open(md, encoding="utf-8").read()
    lines = M.split("\n")
    blocks = fences(lines)
    inside = set()
    for a, z in blocks:
        inside.update(range(a + 1, z))
    n = 0
    for b in doc["bundles"]:
        for d in b["diagnoses"]:
            if d["severity"] == "info":
                continue
            for e in d["evidence"][:5]:
                if e["kind"] != "line":
                    continue
                n += 1
                want = "%s:%d: %s" % (e["path"], e["line"], e["text"])
                hits = [i for i, ln in enumerate(lines) if ln.startswith(want)]
                if not hits:
                    probs.append("evidence line missing: %r" % want[:80])
                elif not all(i in inside for i in hits):
                    probs.append("evidence line outside a fenced block (a fence was closed early?): %r" % want[:80])
            if "`" in d["explanation"] and d["explanation"].split("`")[1] and ("\\`" + d["explanation"].split("`")[1]) in M:
                probs.append("%s: the explanation's own backticks are escaped" % d["id"])
        for u in b.get("unexplained", [])[:10] if b["verdict"] == "unknown_failure" else []:
            want = "%s:%d: %s" % (u["path"], u["line"], u["text"])
            hits = [i for i, ln in enumerate(lines) if ln.startswith(want)]
            if not hits or not all(i in inside for i in hits):
                probs.append("unexplained line not in a fenced block: %r" % want[:80])
    if n and "<details><summary>Evidence" not in M:
        probs.append("evidence not folded in <details>")
    # outside code blocks and code spans: no live mention or issue reference
    for i, ln in enumerate(lines):
        if i in inside or re.match(r"^ {0,3}`{3,}", ln):
            continue
        bare = re.sub(r"`[^`]*`", "", ln)
        for m in re.finditer(r"(?<![\w/])@[A-Za-z0-9][\w-]*|(?<![\w&/])#\d+\b", bare):
            probs.append("line %d: %r would notify or link: %r" % (i + 1, m.group(0), ln[:80]))
    if n == 0:
        probs.append("no evidence line: vacuous")
    return probs


def check_md_lead(report, md):
    # unknown_failure in Markdown: the lead, before the first heading, quotes
    # the telling line (as the text summary does) in a fenced block
    probs = []
    b = json.load(open(report))["bundles"][0]
    lines = open(md, encoding="utf-8").read().split("\n")
    un = b.get("unexplained", [])
    if b["verdict"] != "unknown_failure" or not un:
        return ["not an unknown_failure with unexplained lines: vacuous"]
    u = next((x for x in un if x["kind"] == "exception"), un[0])
    want = "%s:%d: %s" % (u["path"], u["line"], u["text"])
    head = next((i for i, ln in enumerate(lines) if i > 0 and ln.startswith("#")), len(lines))
    inside = set()
    for a, z in fences(lines[:head]):
        inside.update(range(a + 1, z))
    if not any(lines[i] == want for i in inside):
        probs.append("the lead does not quote the telling line %r in a fenced block" % want[:80])
    return probs


def main():
    kind = sys.argv[1]
    if kind == "width":
        probs = check_width(int(sys.argv[2]), sys.argv[3:])
    elif kind == "summary":
        probs = check_summary(sys.argv[2], sys.argv[3])
    elif kind == "whole":
        probs = check_whole(sys.argv[2], sys.argv[3])
    elif kind == "md":
        probs = check_md(sys.argv[2], sys.argv[3])
    elif kind == "mdlead":
        probs = check_md_lead(sys.argv[2], sys.argv[3])
    else:
        return 2
    for p in probs[:20]:
        print(p)
    print("%d passed, %d failed" % (0 if probs else 1, 1 if probs else 0))
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main())
