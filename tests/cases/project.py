#!/usr/bin/env python3
"""project.py - the part of an `analyze --format json` document that a
tests/cases case compares: each input's path (relative, as given), detected
kind and line count, the bundle's warnings, and bundles[0].facts.  Keys are
sorted so that the expected file does not move when the tool builds its
objects in another order; arrays keep their order (it is the document's).
A string holding the absolute case folder (argv[1]) is cut to the part
after it, so that no expected file names this machine's paths."""
import json
import sys


def scrub(v, prefix):
    if isinstance(v, str):
        return v.replace(prefix, "") if prefix else v
    if isinstance(v, list):
        return [scrub(x, prefix) for x in v]
    if isinstance(v, dict):
        return {k: scrub(x, prefix) for k, x in v.items()}
    return v


def main():
    prefix = sys.argv[1].rstrip("/") + "/" if len(sys.argv) > 1 else ""
    try:
        doc = json.load(sys.stdin)
        b = doc["bundles"][0]
    except (ValueError, KeyError, IndexError, TypeError) as e:
        sys.stderr.write("project.py: not an analyze document: %s\n" % e)
        return 1
    out = {
        "inputs": [{"path": i.get("path"), "kind": i.get("kind"), "lines": i.get("lines")}
                   for i in b.get("inputs", [])],
        "facts": b.get("facts", {}),
    }
    if b.get("warnings"):
        out["warnings"] = b["warnings"]
    json.dump(scrub(out, prefix), sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
