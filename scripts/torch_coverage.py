#!/usr/bin/env python3
"""Build patterns/coverage/torch.tsv: every failure message of PyTorch c10d, the TCPStore, gloo's
monitored barrier and torchrun/elastic, per release read, and what nccl-triage maps it to.

usage: scripts/torch_coverage.py OUT.tsv RELEASE=SOURCE [RELEASE=SOURCE ...]
       scripts/torch_coverage.py --check TABLE.tsv   (re-map a committed table: exit 1 when stale)

SOURCE is one of
  DIR                      an unpacked PyTorch source tree (Debian's pytorch_X+dfsg.orig.tar.xz)
  git:GIT_DIR@REF          a release tag of a git repository holding PyTorch's history (any fork
                           with the tags: git archive of torch/distributed, torch/lib/c10d,
                           torch/csrc/distributed)
  wheel:PYROOT:STRINGS     an installed release: PYROOT holds its torch/distributed/*.py (the
                           Python messages are extracted as from a tree); STRINGS is a file of the
                           printable strings of its libtorch_*.so (one a line): a C++ message of
                           the other releases read is present in it when every literal piece of
                           the message is a substring of one of its strings.
Releases are given oldest first.  Messages are extracted by scripts/torch_strings.py; the mapping
comes from scripts/torch_coverage_map.tsv (first matching rule); the sample of a sig: row is taken
from that signature's own samples in patterns/ (the shortest that contains the message's fixed
text).  torch/lib/c10d/ (releases before 1.9) is written as torch/csrc/distributed/c10d/.
Generated: edit the rules and rerun, do not edit the table by hand.  --check re-applies the rules
and the samples to the committed rows (tests/coverage runs it), so a table left stale after a rule
or a signature changed fails the tests even where the sources are not at hand.
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
GLOO_KEEP = re.compile(r"monitoredBarrier|connectFullMesh|loopback|GLOO_SOCKET_IFNAME|GLOO_DEVICE_TRANSPORT")
REDUCER_KEEP = re.compile(r"Expected to have finished reduction|DDP expects same model")


def sources(root):
    files = []
    for sub in ("torch/csrc/distributed/c10d", "torch/lib/c10d"):
        c10d = os.path.join(root, sub)
        files += [os.path.join(c10d, f) for f in FILES_CPP if os.path.exists(os.path.join(c10d, f))]
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
        msg = re.sub(r"(?:\{\}|,)+$", "", msg).rstrip() or msg
        if len(msg.replace("{}", "").strip()) < 8:
            continue
        rel = path[path.index("torch/"):] if "torch/" in path else path
        rel = rel.replace("torch/lib/c10d/", "torch/csrc/distributed/c10d/")
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
    """signature id -> its sample lines; "cat:" + id -> the category of the first diagnosis it feeds"""
    s = {}
    for f in sorted(glob.glob(os.path.join(ROOT, "patterns", "*.json"))):
        d = json.load(open(f))
        for sig in d["signatures"]:
            s[sig["id"]] = [x["line"] if isinstance(x, dict) else x for x in sig["samples"]]
        for g in d.get("diagnoses", []):
            for i in g.get("when", {}).get("any", []) + g.get("when", {}).get("all", []):
                s.setdefault("cat:" + i, g["category"])
    return s


def no_sample(mapping, note, samples):
    """a sig: row none of whose samples is an instance of this wording: the signature's category,
    derived, and the note says so (check-db proves every sig: row on a sample)"""
    cat = samples.get("cat:" + mapping[4:], "OTHER")
    return "derived:" + cat, ((note + "; ") if note else "") + "%s covers other wordings; none of its samples is this one" % mapping[4:]


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


def git_tree(spec, tmp):
    """git:GIT_DIR@REF -> a directory holding the files torch_strings reads"""
    gitdir, ref = spec[4:].rsplit("@", 1)
    d = os.path.join(tmp, ref)
    os.makedirs(d, exist_ok=True)
    paths = [p for p in ("torch/distributed", "torch/lib/c10d", "torch/csrc/distributed")
             if subprocess.run(["git", "-C", gitdir, "cat-file", "-e", "refs/tags/%s:%s" % (ref, p)],
                               capture_output=True).returncode == 0]
    tar = subprocess.run(["git", "-C", gitdir, "archive", "refs/tags/" + ref] + paths, check=True,
                         capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", d], input=tar, check=True)
    return d


def pieces(msg):
    return [p for p in msg.split("{}") if len(p.strip()) >= 4]


def in_strings(msg, blob):
    """every literal piece of msg is in one string of the binary (blob: the strings, one a line)"""
    return all(p in blob for p in pieces(msg))


def map_row(rules, samples, path, level, msg):
    mapping, note = "not-yet", ""
    for fr, lr, mr, mp, nt in rules:
        if fr.search(path) and lr.match(level) and mr.search(msg):
            mapping, note = mp, nt
            break
    sample = ""
    if mapping.startswith("sig:"):
        sample = sample_for(msg, samples.get(mapping[4:], []))
        if not sample:
            mapping, note = no_sample(mapping, note, samples)
    return mapping, note, sample


HEADER = """# PyTorch c10d / TCPStore / torchrun failure messages, extracted by scripts/torch_strings.py
# from the releases read (%s); mapping rules: scripts/torch_coverage_map.tsv.
# Sources: 1.x tags from a git repository with PyTorch's history, Debian's source packages, and the
# installed wheel of the newest release (its Python files; its C++ messages as strings of its
# libraries, filtered to c10d-like words: a C++ message of an older release is marked present in it
# when all its pieces are there; a C++ row whose last release is older may still be in it).
# first_release/last_release: the first and last of the releases read that have the message
# (a message may exist in releases between and after them that were not read).
# Generated by scripts/torch_coverage.py: edit the rules and rerun, do not edit by hand.
# style: braces
# releases: %s
file\tfirst_release\tlast_release\tlevel\tformat\tmapping\tnote\tsample
"""


def check(table):
    rules = load_rules()
    samples = load_samples()
    bad = 0
    for n, line in enumerate(open(table), 1):
        if line.startswith("#") or line.startswith("file\t") or not line.strip():
            continue
        c = line.rstrip("\n").split("\t")
        want = map_row(rules, samples, c[0], c[3], c[4])
        want = tuple(x.replace("\t", " ") for x in want)
        if tuple(c[5:8]) != want:
            print("%s:%d: stale: %s -> %s (rerun scripts/torch_coverage.py)" % (table, n, c[5:8], list(want)))
            bad += 1
    print("%s: %s" % (table, "stale rows: %d" % bad if bad else "up to date with the rules and samples"))
    return 1 if bad else 0


def main():
    if sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    import tempfile
    out = sys.argv[1]
    rels = [a.split("=", 1) for a in sys.argv[2:]]
    per = {}
    wheels = []
    with tempfile.TemporaryDirectory() as tmp:
        for rel, src in rels:
            blob = None
            if src.startswith("git:"):
                src = git_tree(src, tmp)
            elif src.startswith("wheel:"):
                src, strings = src[6:].split(":", 1)
                blob = open(strings, encoding="utf-8", errors="replace").read()
                wheels.append((rel, blob))
            for key, level in extract(src).items():
                if blob is not None and not key[0].endswith(".py"):
                    continue
                e = per.setdefault(key, {"level": level, "in": []})
                e["in"].append(rel)
                if e["level"] == "msg":
                    e["level"] = level
    # C++ messages in the binaries of wheel releases
    for rel, blob in wheels:
        for key, e in per.items():
            if not key[0].endswith(".py") and rel not in e["in"] and in_strings(key[1], blob):
                e["in"].append(rel)
    rules = load_rules()
    samples = load_samples()
    order = [r for r, _ in rels]
    rows = []
    for (path, msg), e in per.items():
        mapping, note, sample = map_row(rules, samples, path, e["level"], msg)
        ins = sorted(e["in"], key=order.index)
        rows.append((path, ins[0], ins[-1], e["level"], msg, mapping, note, sample))
    rows.sort(key=lambda r: (r[0], r[4]))
    with open(out, "w") as f:
        f.write(HEADER % (" ".join(order), " ".join(order)))
        for r in rows:
            f.write("\t".join(x.replace("\t", " ") for x in r) + "\n")
    kinds = {}
    for r in rows:
        k = r[5].split(":")[0]
        kinds[k] = kinds.get(k, 0) + 1
    print(out, len(rows), "messages", kinds)


main()
