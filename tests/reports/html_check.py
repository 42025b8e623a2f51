#!/usr/bin/env python3
"""Checks of the HTML report that need the page's structure (issue 17).

  html_check.py dup PAGE.html...
      within one diagnosis card, no log line (file and line number) is shown
      twice: as an evidence line and as context of another, or twice as
      context.
Prints the problems, then "N passed, N failed"."""
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


def main():
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
    sys.exit(main() if sys.argv[1] == "dup" else 2)
