#!/usr/bin/env python3
"""torch_diff.py TORCH_OUTPUT OUR_JSON - the first verdict of PyTorch's own
flight-recorder analyzer (fr_trace's output, stored from the GPU machine in
fixtures/flight/torch/) and of nccl-triage (analyze --format json) on the
same dumps, normalised and compared.  Prints one line:

    agree: <class> <ranks>
    differ: torch <class> <ranks> / nccl-triage <class> <ranks>

A class is "behind" (torch: "Not all ranks joining collective", the missing
ranks; nccl-triage: the ranks behind at the stop, or a peer that never
posted its p2p side), "mismatch:TYPE" (torch: "Culprit rank R; Error type:
TYPE"; nccl-triage: the first mismatch of a group, its kind mapped to
torch's MatchState), "missing" (torch: "missed FR dumps from ranks";
nccl-triage: every dumped rank waits and ranks left no dump), "none" (no
finding), or "torch-failed" (the analyzer raised or ran past its time
limit: the last line says why).
"""
import json
import re
import sys

KIND = {"op": "COLLECTIVE_TYPE_MISMATCH", "sizes": "SIZE_OR_SYNTAX_MISMATCH", "numel": "SIZE_OR_SYNTAX_MISMATCH",
        "dtypes": "COLLECTIVE_DTYPE_MISMATCH", "state": "COLLECTIVE_STATE_MISMATCH",
        "membership": "MEMBERSHIP", "wrong_group": "MEMBERSHIP"}


def ranks(s):
    return sorted(int(x) for x in re.findall(r"\d+", s))


def torch_verdict(text):
    lines = text.splitlines()
    rc = next((l for l in reversed(lines) if l.startswith("rc=")), "rc=0")
    for i, l in enumerate(lines):
        if l.startswith("Not all ranks joining collective"):
            miss = next((m for m in lines[i:i + 8] if m.startswith("missing ranks:")), "")
            return ("behind", ranks(miss.split(":", 1)[1]) if miss else [])
        if "has errors" in l and l.startswith("Collective sequence number"):
            msg = next((m for m in lines[i:i + 14] if m.startswith("error msg:")), "")
            found = re.findall(r"Culprit rank (\d+); Error type: (\w+)", msg)
            types = sorted({t for _, t in found})
            return ("mismatch:" + ",".join(types), sorted({int(r) for r, _ in found}))
        if l.startswith("Input/output mismatch in the collective"):
            return ("mismatch:SIZE_OR_SYNTAX_MISMATCH", [])
        if "missed FR dumps from ranks" in l:
            return ("missing", ranks(l.split("ranks", 1)[1].split(")")[0]))
    if rc != "rc=0":
        why = "ran past its time limit" if rc in ("rc=124", "rc=137") else \
            next((l for l in reversed(lines) if l and not l.startswith("rc=") and not l.startswith(" ")), "?")
        return ("torch-failed", why)
    return ("none", [])


def our_verdict(doc):
    b = doc["bundles"][0]
    fr = b.get("flight_recorder")
    if not fr:
        return ("none", [])
    first = [m for m in fr.get("mismatches", []) if m.get("first_in_group") and m["kind"] != "state"]
    if first:
        m = first[0]
        return ("mismatch:" + KIND.get(m["kind"], m["kind"]), sorted(m["ranks"]))
    stops = fr.get("stops", [])
    for s in stops:
        if s["behind"]:
            return ("behind", sorted(s["behind"]))
    for s in stops:
        if s["without_dump"]:
            return ("missing", sorted(s["without_dump"]))
    return ("none", [])


def main():
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        t = torch_verdict(f.read())
    with open(sys.argv[2]) as f:
        o = our_verdict(json.load(f))
    if t == o:
        print("agree: %s %s" % (t[0], ",".join(map(str, t[1]))))
    else:
        tr = t[1] if isinstance(t[1], str) else ",".join(map(str, t[1]))
        print("differ: torch %s %s / nccl-triage %s %s" % (t[0], tr, o[0], ",".join(map(str, o[1]))))


if __name__ == "__main__":
    main()
