#!/usr/bin/env python3
"""Prove that --redact leaves no identifying token of the inputs in a report.

  redact_check.py tokens INPUT_DIR            list the tokens found in the inputs
  redact_check.py scan INPUT_DIR OUTPUT...    fail on any token found in an output
  redact_check.py same PLAIN.json REDACTED.json
      the diagnosis did not change: verdicts, diagnosis ids, categories,
      severities, roles, confidences, ranks and evidence lines are equal.

The tokens are found in the inputs independently of the C code: NCCL line
prefixes (host:pid:tid [dev]), torchrun's "host : NAME", IPv4 addresses other
than loopback, IPv6 addresses, GPU/MIG UUIDs, PCI bus ids, NCCL's short bus
ids ("busId 60", "CUDA device 60"), GPU serial numbers, /home/USER paths.
Ends with "N passed, N failed"."""
import ipaddress
import json
import os
import re
import sys

KEEP = {"localhost", "127.0.0.1", "0.0.0.0"}


def tokens(indir):
    found = {}
    rx = {
        "host": re.compile(r"(?:^|[\s\[\]])([A-Za-z][A-Za-z0-9._-]*):\d+:\d+ \["),
        "host2": re.compile(r"^\s*host\s*:\s*(\S+)\s*$"),
        "ipv4": re.compile(r"(?<![\d.])((?:\d{1,3}\.){3}\d{1,3})(?![\d.]*\d)"),
        "uuid": re.compile(r"((?:GPU|MIG)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"),
        "pci": re.compile(r"(?<![0-9A-Fa-f:])([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])"),
        "busid": re.compile(r"((?:busId|CUDA device) (?:0x)?[0-9a-f]+)\b"),
        "serial": re.compile(r"Serial Number\s*:\s*(\d{6,})"),
        "user": re.compile(r"/(?:home|Users)/([A-Za-z0-9._-]+)/"),
    }
    for dp, _, files in os.walk(indir):
        for fn in files:
            p = os.path.join(dp, fn)
            m = re.search(r"nccl\.([A-Za-z][A-Za-z0-9-]*)\.\d+\.log$", fn)
            if m:
                found.setdefault(m.group(1), "host (file name)")
            for line in open(p, encoding="utf-8", errors="replace"):
                for kind, r in rx.items():
                    for m in r.finditer(line):
                        t = m.group(1)
                        if t in KEEP or t.startswith("127."):
                            continue
                        if kind == "ipv4" and not all(int(x) <= 255 for x in t.split(".")):
                            continue
                        if kind == "ipv6" and (re.fullmatch(r"[\d:]+", t) and t.count(":") < 3):
                            continue  # times like 14:16:25
                        if kind == "ipv6" and not re.search(r"[a-f]", t) and "::" not in t:
                            continue
                        found.setdefault(t, kind)
                        if kind == "pci":  # the same address as parsers normalise it
                            dom, rest = t.split(":", 1)
                            found.setdefault(dom[-4:].lower() + ":" + rest.lower(), kind)
                # IPv6: runs of hex digits and colons that the ipaddress module
                # accepts (every suffix at a group boundary, so "eth0:fe80::1"
                # yields "fe80::1"), with "::" or eight groups
                for m in re.finditer(r"[0-9a-fA-F:]*:[0-9a-fA-F:]*", line):
                    run = m.group(0)
                    parts = run.split(":")
                    for i in range(len(parts)):
                        cand = ":".join(parts[i:]).rstrip(":") if not run.endswith("::") else ":".join(parts[i:])
                        if cand.count(":") < 2 or ("::" not in cand and cand.count(":") != 7):
                            continue
                        try:
                            a = ipaddress.IPv6Address(cand)
                        except ValueError:
                            continue
                        groups = [g for g in cand.split(":") if g]
                        if a.is_loopback or a.is_unspecified or len(groups) < 2 or sum(map(len, groups)) < 6:
                            continue  # C++ scopes such as c10::Error are not addresses
                        found.setdefault(cand, "ipv6")
    return found


def scan(indir, outputs):
    toks = tokens(indir)
    probs = []
    for out in outputs:
        text = open(out, encoding="utf-8", errors="replace").read()
        for t, kind in toks.items():
            if kind == "busid":
                # the value in any wording a report may use ("bus 60", "bus id 60")
                val = re.sub(r"^.* (?:0x)?", "", t)
                pat = r"(?i)\b(?:bus|bus id|busid|device)\s*:?\s*(?:0x)?" + re.escape(val) + r"\b"
            else:
                pat = r"(?<![A-Za-z0-9_])" + re.escape(t) + r"(?![A-Za-z0-9_])"
            m = re.search(pat, text)
            if m:
                ctx = text[max(0, m.start() - 40):m.end() + 40].replace("\n", " ")
                probs.append("%s: %s %r survives: ...%s..." % (os.path.basename(out), kind, t, ctx))
    return toks, probs


def same(plain, red):
    a, b = json.load(open(plain)), json.load(open(red))
    probs = []

    def key(doc):
        out = []
        for bu in doc["bundles"]:
            ds = []
            for d in bu.get("diagnoses", []):
                ds.append((d["id"], d["category"], d["severity"], d["role"], d.get("confidence"),
                           tuple(d.get("ranks", [])), d.get("evidence_total"),
                           tuple(e.get("line") for e in d.get("evidence", []))))
            out.append((bu["verdict"], tuple(ds), len(bu.get("unexplained", [])), len(bu.get("ranks", []))))
        return out
    ka, kb = key(a), key(b)
    if ka != kb:
        probs.append("diagnosis changed by --redact:\n  plain:    %s\n  redacted: %s" % (ka, kb))
    return probs


def main():
    mode = sys.argv[1]
    if mode == "tokens":
        for t, k in sorted(tokens(sys.argv[2]).items()):
            print("%-8s %s" % (k, t))
        return 0
    if mode == "shown":  # which input tokens a (plain) report shows
        toks, probs = scan(sys.argv[2], sys.argv[3:])
        for p in probs:
            print(p)
        return 0
    if mode == "scan":
        toks, probs = scan(sys.argv[2], sys.argv[3:])
        kinds = {}
        for k in toks.values():
            kinds[k] = kinds.get(k, 0) + 1
        print("  %d identifying tokens in the inputs: %s" % (len(toks), ", ".join("%d %s" % (v, k) for k, v in sorted(kinds.items()))))
        if len(toks) < 5:
            probs.append("too few tokens found in the inputs (%d): the test would prove nothing" % len(toks))
        n = len(sys.argv[3:])
        bad = {p.split(":")[0] for p in probs}
        for p in probs[:30]:
            print("  " + p)
        print("%d passed, %d failed" % (n - len(bad), len(bad)))
        return 1 if probs else 0
    if mode == "same":
        probs = same(sys.argv[2], sys.argv[3])
        for p in probs:
            print("  " + p)
        print("%d passed, %d failed" % (0 if probs else 1, 1 if probs else 0))
        return 1 if probs else 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
