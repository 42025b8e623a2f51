#!/usr/bin/env python3
"""Build patterns/coverage-sources/torch.tsv: every failure message of PyTorch c10d, the TCPStore
and torchrun, per release read, and what nccl-triage maps it to.

usage: scripts/torch_coverage.py OUT.tsv RELEASE=SRCROOT [RELEASE=SRCROOT ...]

SRCROOT is an unpacked PyTorch source tree (e.g. Debian's pytorch_2.6.0+dfsg.orig.tar.xz, or a
checkout of a release tag).  Messages are extracted by scripts/torch_strings.py; the mapping comes
from scripts/torch_coverage_map.tsv (first matching rule); the sample of a sig: row is taken from
that signature's own samples in patterns/ (the first that contains the message's fixed text).
Generated: edit the rules and rerun, do not edit the table by hand.
"""
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FILES_CPP = ["ProcessGroupNCCL.cpp", "ProcessGroupNCCL.hpp", "NCCLUtils.cpp", "NCCLUtils.hpp", "TCPStore.cpp",
             "TCPStoreBackend.cpp", "TCPStoreLibUvBackend.cpp", "socket.cpp", "Utils.hpp", "Utils.cpp", "TraceUtils.h",
             "ProcessGroupGloo.cpp", "ProcessGroupWrapper.cpp", "Backend.cpp", "ProcessGroup.cpp", "reducer.cpp"]
KEEP_LEVELS = re.compile(r"^(error|warning|fatal|warn|check(:\w+)?|throw:[\w?]+|raise:\w+|exception|msg)$")
GLOO_KEEP = re.compile(r"monitoredBarrier")
REDUCER_KEEP = re.compile(r"Expected to have finished reduction|DDP expects same model")


def sources(root):
    c10d = os.path.join(root, "torch/csrc/distributed/c10d")
    files = [os.path.join(c10d, f) for f in FILES_CPP if os.path.exists(os.path.join(c10d, f))]
    d = os.path.join(root, "torch/distributed")
    for f in ["distributed_c10d.py", "rendezvous.py", "run.py", "launch.py", "launcher/api.py"]:
        if os.path.exists(os.path.join(d, f)):
            files.append(os.path.join(d, f))
    for f in sorted(glob.glob(os.path.join(d, "elastic/**/*.py"), recursive=True)):
        if not re.search(r"timer|metrics|events|/data/|etcd_server", f):
            files.append(f)
    return files


def extract(root):
    out = subprocess.run([sys.executable, os.path.join(HERE, "torch_strings.py"), root] + sources(root),
                         check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        path, lineno, level, msg = line.split("\t", 3)
        if not KEEP_LEVELS.match(level):
            continue
        base = path.split("/")[-1]
        if base == "ProcessGroupGloo.cpp" and not GLOO_KEEP.search(msg):
            continue
        if base == "reducer.cpp" and not REDUCER_KEEP.search(msg):
            continue
        msg = re.sub(r"^(?:\\n|\\t|\s)+", "", msg).rstrip()
        msg = re.sub(r"(?:\{\})+$", "", msg).rstrip() or msg
        if len(msg.replace("{}", "").strip()) < 8:
            continue
        rel = path[path.index("torch/"):] if "torch/" in path else path
        key = (rel, msg)
        if key not in rows or rows[key] == "msg":
            rows[key] = level
    return rows


def load_rules():
    rules = []
    with open(os.path.join(HERE, "torch_coverage_map.tsv")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            c = line.split("\t")
            while len(c) < 5:
                c.append("")
            rules.append((re.compile(c[0]), re.compile("^(?:" + (".*" if c[1] == "." else c[1]) + ")$"), re.compile(c[2]), c[3], c[4]))
    return rules


def load_samples():
    s = {}
    for f in sorted(glob.glob(os.path.join(ROOT, "patterns", "*.json"))):
        for sig in json.load(open(f))["signatures"]:
            s[sig["id"]] = [x["line"] for x in sig["samples"]]
    return s


def sample_for(msg, lines):
    pieces = [p.strip() for p in msg.split("{}") if len(p.strip()) >= 4]
    for line in sorted(lines, key=len):  # the shortest: the least other text around the message
        pos = 0
        ok = True
        for p in pieces:
            i = line.find(p, pos)
            if i < 0:
                ok = False
                break
            pos = i + len(p)
        if ok:
            return line
    return ""


def main():
    out = sys.argv[1]
    rels = [a.split("=", 1) for a in sys.argv[2:]]
    per = {}
    for rel, root in rels:
        for key, level in extract(root).items():
            e = per.setdefault(key, {"level": level, "in": []})
            e["in"].append(rel)
            if e["level"] == "msg":
                e["level"] = level
    rules = load_rules()
    samples = load_samples()
    order = [r for r, _ in rels]
    rows = []
    for (path, msg), e in per.items():
        mapping, note = "not-yet", ""
        for fr, lr, mr, mp, nt in rules:
            if fr.search(path) and lr.match(e["level"]) and mr.search(msg):
                mapping, note = mp, nt
                break
        sample = ""
        if mapping.startswith("sig:"):
            sample = sample_for(msg, samples.get(mapping[4:], []))
            if not sample:
                print("warning: no sample of %s is an instance of: %s" % (mapping, msg), file=sys.stderr)
        ins = sorted(e["in"], key=order.index)
        rows.append((path, ins[0], ins[-1], e["level"], msg, mapping, note, sample))
    rows.sort(key=lambda r: (r[0], r[4]))
    with open(out, "w") as f:
        f.write("# PyTorch c10d / TCPStore / torchrun failure messages, extracted by scripts/torch_strings.py\n")
        f.write("# from the releases read (%s); mapping rules: scripts/torch_coverage_map.tsv.\n" % " ".join(order))
        f.write("# first_release/last_release: the first and last of the releases read that have the message\n")
        f.write("# (a message may exist in releases between and after them that were not read).\n")
        f.write("# Generated by scripts/torch_coverage.py: edit the rules and rerun, do not edit by hand.\n")
        f.write("# releases: %s\n" % " ".join(order))
        f.write("file\tfirst_release\tlast_release\tlevel\tformat\tmapping\tnote\tsample\n")
        for r in rows:
            f.write("\t".join(x.replace("\t", " ") for x in r) + "\n")
    kinds = {}
    for r in rows:
        k = r[5].split(":")[0]
        kinds[k] = kinds.get(k, 0) + 1
    print(out, len(rows), "messages", kinds)


main()
