#!/usr/bin/env python3
"""Checks of the HTML report that need the page's structure (issue 17).

  html_check.py marks PAGE.html REPORT.json   highlights at PCRE2's capture offsets (15.3)
  html_check.py anchors PAGE.html   an anchor (and a link) on every diagnosis and evidence line
  html_check.py lanes PAGE.html     distinct short host:pid lane labels; clean exits drawn clean
  html_check.py ticks PAGE.html     round y ticks on the memory chart
  html_check.py dup PAGE.html...
      within one diagnosis card, no log line (file and line number) is shown
      twice: as an evidence line and as context of another, or twice as
      context.
Prints the problems, then "N passed, N failed"."""
import json
import re
import sys
from html.parser import HTMLParser


class Cards(HTMLParser):
    """Collects, per diagnosis card, the (path, line) of every shown log line."""

    def __init__(self):
        super().__init__()
        self.cards = []       # [(card id, [(path, line)])]
        self.stack = []       # open divs: the card index a div opens, or None
        self.in_loc = False
        self.loc = ""
        self.path = None
        self.in_ln = False

    def card(self):
        for c in reversed(self.stack):
            if c is not None:
                return c
        return None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "div":
            if "card" in cls:
                self.cards.append((a.get("id"), []))
                self.stack.append(len(self.cards) - 1)
            else:
                self.stack.append(None)
            if "loc" in cls:
                self.in_loc, self.loc = True, ""
        if tag == "span" and "ln" in cls:
            self.in_ln = True

    def handle_endtag(self, tag):
        if tag == "div" and self.stack:
            if self.in_loc:
                self.in_loc = False
                m = re.match(r"\s*([^:·]+?)(?::\d+)?\s*(·|$)", self.loc)
                self.path = m.group(1) if m and not self.loc.startswith("derived") else None
            self.stack.pop()
        if tag == "span":
            self.in_ln = False

    def handle_data(self, data):
        if self.in_loc:
            self.loc += data
        elif self.in_ln and self.path and self.card() is not None:
            self.cards[self.card()][1].append((self.path, data.strip()))


def check_marks(page, report):
    """Every <mark> of an evidence line is where PCRE2 captured the value
    (spans.captures of the JSON), not the value's first occurrence."""
    probs = []
    H = open(page, encoding="utf-8").read()
    import html as H5
    doc = json.load(open(report))
    n = 0
    for b in doc["bundles"]:
        for d in b["diagnoses"]:
            for e in d["evidence"][:8]:
                caps = e.get("spans", {}).get("captures", {})
                if not caps:
                    continue
                t = e["text"].encode()
                want = sorted(tuple(v) for v in caps.values())
                # the marked text of this line as HTML shows it
                esc_line = None
                for m in re.finditer(r'<span class="hit">(.*?)</span>\n?(?=<span class="ctx">|</pre>)', H, re.S):
                    plain = H5.unescape(re.sub(r"<[^>]+>", "", re.sub(r'<span class="ln">\d+</span>', "", m.group(1))))
                    if plain == e["text"]:
                        esc_line = m.group(1)
                        break
                if esc_line is None:
                    continue
                n += 1
                body = re.sub(r'<span class="ln">\d+</span>', "", esc_line)
                pos, got, out = 0, [], ""
                for part in re.split(r"(<mark>|</mark>|<[^>]+>)", body):
                    if part == "<mark>":
                        start = len(out.encode())
                    elif part == "</mark>":
                        got.append((start, len(out.encode())))
                    elif part.startswith("<"):
                        continue
                    else:
                        out += H5.unescape(part)
                for g in got:
                    if list(g) not in [list(w) for w in want]:
                        probs.append("%s: %s:%s marks %r at %r, captures at %r" % (page, e["path"], e["line"], t[g[0]:g[1]], g, want))
    if n == 0:
        probs.append("no evidence line with capture spans found in %s: vacuous" % page)
    print("%d evidence lines with captures checked" % n)
    return probs


def check_anchors(page):
    """An anchor on every diagnosis and every evidence line, each linked."""
    probs = []
    H = open(page, encoding="utf-8").read()
    cards = re.findall(r'<div class="card [^"]*" id="([^"]+)"', H)
    evs = re.findall(r'<div class="ev[^"]*" id="([^"]+)"', H)
    nev = len(re.findall(r'<div class="ev[ "]', H))
    if not cards:
        probs.append("no diagnosis card")
    ids = re.findall(r' id="([^"]+)"', H)
    if len(ids) != len(set(ids)):
        probs.append("duplicate ids: %r" % sorted({i for i in ids if ids.count(i) > 1})[:5])
    for i in cards + evs:
        if 'href="#%s"' % i not in H:
            probs.append("no link to #%s" % i)
    if len(evs) != nev:
        probs.append("%d of %d evidence blocks have an id" % (len(evs), nev))
    print("%d cards, %d evidence blocks" % (len(cards), nev))
    return probs


def check_lanes(page):
    """Timeline lanes: a distinct host:pid label per lane (host names that
    differ only after 20 characters too), no failure mark on a clean exit."""
    probs = []
    H = open(page, encoding="utf-8").read()
    svg = re.search(r'<svg role="img" aria-label="rank timeline".*?</svg>', H, re.S)
    if not svg:
        return ["no timeline"]
    labels = re.findall(r'<g><title>([^<]*)</title><text[^>]*>([^<]*)</text></g>', svg.group(0))
    shown = [l for _, l in labels]
    if len(shown) < 2:
        probs.append("fewer than 2 lane labels with their full host:pid (title): %r" % shown)
    if len(set(shown)) != len(shown):
        probs.append("lanes look the same: %r" % shown)
    for full, l in labels:
        if len(l) > 20:
            probs.append("label too long for its column: %r" % l)
    if "exited cleanly" in H and re.search(r'exited cleanly[^<]*</text>', svg.group(0)) is None:
        probs.append("clean exit not drawn as clean")
    print("lanes: %r" % shown)
    return probs


def check_ticks(page):
    """Memory chart: y ticks are round GiB values, evenly spaced."""
    probs = []
    H = open(page, encoding="utf-8").read()
    for svg in re.findall(r'<svg role="img" aria-label="GPU memory over time".*?</svg>', H, re.S):
        ys = [float(v) for v in re.findall(r'text-anchor="end" fill="#5b6673">([\d.]+) GiB<', svg)]
        if len(ys) < 3:
            probs.append("fewer than 3 y ticks: %r" % ys)
            continue
        step = ys[1] - ys[0]
        ok = any(abs(step - m * 10 ** k) < 1e-9 for m in (1, 2, 2.5, 5) for k in range(-2, 5))
        if not ok or any(abs((ys[i + 1] - ys[i]) - step) > 1e-9 for i in range(len(ys) - 1)):
            probs.append("y ticks not round: %r" % ys)
        print("y ticks: %r" % ys)
    return probs


def main():
    if sys.argv[1] != "dup":
        probs = {"marks": lambda: check_marks(sys.argv[2], sys.argv[3]), "anchors": lambda: check_anchors(sys.argv[2]),
                 "lanes": lambda: check_lanes(sys.argv[2]), "ticks": lambda: check_ticks(sys.argv[2])}[sys.argv[1]]()
        for x in probs[:20]:
            print(x)
        print("%d passed, %d failed" % (0 if probs else 1, 1 if probs else 0))
        return 1 if probs else 0
    probs = []
    n = 0
    for page in sys.argv[2:]:
        p = Cards()
        p.feed(open(page, encoding="utf-8").read())
        for cid, lines in p.cards:
            n += len(lines)
            seen = set()
            for x in lines:
                if x in seen:
                    probs.append("%s: card %s shows %s:%s twice" % (page, cid, x[0], x[1]))
                seen.add(x)
    if n == 0:
        probs.append("no numbered line found in any card: vacuous")
    print("%d numbered lines in cards" % n)
    for x in probs[:20]:
        print(x)
    print("%d passed, %d failed" % (0 if probs else 1, 1 if probs else 0))
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main())
