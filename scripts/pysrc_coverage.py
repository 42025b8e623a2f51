#!/usr/bin/env python3
"""Build the coverage tables of the stacks around NCCL from their git histories:
patterns/coverage/{gloo,deepspeed,horovod,accelerate,lightning,megatron}.tsv.

usage: scripts/pysrc_coverage.py [FAMILY ...]            (all families when none is named)
       scripts/pysrc_coverage.py --check [FAMILY ...]    (re-map the committed tables: exit 1 when stale)

Each family reads a few release tags of its repository (FAMILIES below: the mirror, the tags, the
files), extracts the failure/warning messages with scripts/torch_strings.py's extractors (Python
raise / logger.error|warning|exception / warnings.warn; C++ LOG(ERROR|WARNING), throws and the
family's own macros: GLOO_ENFORCE, GLOO_THROW_IO_EXCEPTION, Horovod's Status::...Error), keeps the
messages about distributed work (KEEP below: NCCL, ranks, launch, store, timeouts, GPU memory),
and maps each with the first matching rule of scripts/pysrc_coverage_map.tsv (family, file-regex,
level-regex, message-regex, mapping, note).  A sig: row's sample is the shortest of that
signature's samples in patterns/ that contains the message's fixed text.
The mirrors are bare git directories: MIRROR (default /work/.mirror) / owner+name / repo, as the
session's fetch tool leaves them; git tags are read with git archive, nothing is built.
--check re-applies the rules and the samples to the committed rows without the mirrors (the
coverage tests run it), so a table left stale after a rule or a signature changed fails.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import torch_strings as ts  # noqa: E402

MIRROR = os.environ.get("MIRROR", "/work/.mirror")

# family: (mirror folder, [(release name, tag)], file regex, keep-message regex or None)
DIST = (r"NCCL|nccl|[Rr]ank|process group|ProcessGroup|distributed|[Tt]imeout|timed out|hostfile|ssh|pdsh|"
        r"mpirun|MPI|launcher|world_size|WORLD_SIZE|MASTER_|master_|port|exit|[Kk]illed|signal|[Mm]emory|CUDA|GPU|"
        r"[Nn]ode|backend|[Bb]arrier|all_reduce|allreduce|collective|torchrun|elastic|init_process_group|"
        r"peer|P2P|Infiniband|InfiniBand|socket|[Ss]tore|deadlock|hang|OOM|Gloo|gloo|device")
FAMILIES = {
    "gloo": ("facebookincubator+gloo",
             [("2018.1.4", "cb002e4"), ("2020.1.9", "26f56a0"), ("2022.1.5", "bc982c7"), ("2024.1.10", "53292d1"),
              ("2025.5.16", "HEAD")],
             r"^gloo/(?:transport/(?:tcp|uv|ibverbs)/[^/]+|rendezvous/[^/]+|context|common/linux)\.(?:cc|h)$", None),
    "deepspeed": ("deepspeedai+DeepSpeed",
                  [("0.3.16", "v0.3.16"), ("0.6.7", "v0.6.7"), ("0.9.5", "v0.9.5"), ("0.12.6", "v0.12.6"),
                   ("0.14.5", "v0.14.5"), ("0.16.9", "v0.16.9"), ("0.19.5", "v0.19.5")],
                  r"^deepspeed/(?:launcher/[^/]+|comm/[^/]+|elasticity/[^/]+|runtime/utils|utils/(?:groups|dist|comms_logging)"
                  r"|runtime/zero/stage3|runtime/zero/partition_parameters|runtime/engine|accelerator/cuda_accelerator)\.py$", DIST),
    "horovod": ("horovod+horovod",
                [("0.16.4", "v0.16.4"), ("0.19.5", "v0.19.5"), ("0.22.1", "v0.22.1"), ("0.25.0", "v0.25.0"),
                 ("0.28.1", "v0.28.1")],
                r"^horovod/(?:common/(?:operations|controller|stall_inspector|nccl_operations|gloo/[^/]+|mpi/[^/]+|"
                r"ops/nccl_operations|ops/cuda_operations|basics|exceptions|elastic|process_sets)|runner/(?:launch|gloo_run|mpi_run|"
                r"driver/[^/]+|common/util/[^/]+|elastic/[^/]+|util/[^/]+)|torch/(?:mpi_ops|__init__|optimizer|elastic/[^/]+)"
                r"|common/common)\.(?:py|cc|h)$", DIST),
    "accelerate": ("huggingface+accelerate",
                   [("0.6.2", "v0.6.2"), ("0.12.0", "v0.12.0"), ("0.20.3", "v0.20.3"), ("0.27.2", "v0.27.2"),
                    ("0.34.2", "v0.34.2"), ("1.3.0", "v1.3.0"), ("1.14.0", "v1.14.0")],
                   r"^src/accelerate/(?:state|accelerator|launchers|utils/(?:launch|environment|other|operations|"
                   r"memory|imports|dataclasses)|commands/(?:launch|config/cluster))\.py$", DIST),
    "lightning": ("Lightning-AI+pytorch-lightning",
                  [("1.0.8", "1.0.8"), ("1.4.9", "1.4.9"), ("1.6.5", "1.6.5"), ("1.9.5", "1.9.5"), ("2.0.9", "2.0.9"),
                   ("2.2.5", "2.2.5"), ("2.5.5", "2.5.5")],
                  r"(?:^|/)(?:pytorch_lightning|lightning/pytorch|lightning/fabric|lightning_fabric)/(?:strategies/(?:ddp|"
                  r"ddp_spawn|fsdp|deepspeed|launchers/[^/]+|parallel)|plugins/(?:training_type/ddp|training_type/ddp_spawn|"
                  r"environments/[^/]+)|utilities/(?:distributed|seed|memory)|trainer/connectors/accelerator_connector|"
                  r"accelerators/cuda|accelerators/gpu|connector)\.py$", DIST),
    "megatron": ("NVIDIA+Megatron-LM",
                 [("23.04", "23.04"), ("0.5.0", "core_v0.5.0"), ("0.9.0", "core_v0.9.0"), ("0.12.0", "core_v0.12.0"),
                  ("0.15.0", "core_v0.15.0")],
                 r"^megatron/(?:core/parallel_state|core/distributed/[^/]+|training/initialize|initialize|training/utils|"
                 r"core/utils|training/training|training|core/rerun_state_machine|training/checkpointing|"
                 r"core/num_microbatches_calculator|core/process_groups_config)\.py$", DIST),
}
# a family's own C++ macros (the C++ extractor's tokens are added to these)
CPP_EXTRA = {
    "gloo": re.compile(r'\b(GLOO_ENFORCE\w*\s*\(|GLOO_THROW_IO_EXCEPTION\s*\(|GLOO_THROW_INVALID_OPERATION_EXCEPTION\s*\(|'
                       r'GLOO_THROW\s*\(|GLOO_ERROR\s*\(|GLOO_WARN\s*\(|GLOO_ERROR_MSG\s*\()'),
    "horovod": re.compile(r'\b(LOG\((?:ERROR|WARNING|FATAL)[^)]*\)|Status::(?:UnknownError|PreconditionError|Aborted|'
                          r'InvalidArgument|InProgress)\s*\(|throw std::\w+\s*\()'),
}


def cpp_rows(family, src, rel):
    rows = []
    toks = [ts.CPP_RE] + ([CPP_EXTRA[family]] if family in CPP_EXTRA else [])
    seen = set()
    for tok_re in toks:
        for m in tok_re.finditer(src):
            if m.start() in seen:
                continue
            seen.add(m.start())
            tok = m.group(1)
            if tok.startswith("return") or tok.startswith("interpret"):
                continue
            stmt = ts.cpp_statement(src, m.start())[:3000]
            if tok.startswith("GLOO_ENFORCE"):
                # GLOO_ENFORCE(cond, "text", ...): the condition is no message
                i = stmt.find(",")
                stmt = stmt[i:] if i >= 0 else ""
            t = ts.cpp_template(stmt)
            if not t:
                continue
            t = re.sub(r'%[-\d.]*[sdiuzl]+', '{}', t)
            if len(t.replace("{}", "").strip()) < 8:
                continue
            if tok.startswith("GLOO_ENFORCE"):
                lv = "enforce"
            elif tok.startswith("GLOO_THROW_IO") or tok.startswith("GLOO_ERROR_MSG"):
                lv = "throw:IoException"
            elif tok.startswith("GLOO_THROW"):
                lv = "throw"
            elif tok.startswith("GLOO_WARN"):
                lv = "warning"
            elif tok.startswith("GLOO_ERROR"):
                lv = "error"
            elif tok.startswith("Status::"):
                lv = "status:" + tok[8:].split("(")[0].strip()
            elif tok.startswith("LOG("):
                lv = tok[4:].split(")")[0].split(",")[0].strip().lower()
            elif tok.startswith("throw std::"):
                lv = "throw:" + tok[11:].split("(")[0].strip()
            else:
                lv = ts.level_of(tok, stmt[len(tok) - 1:] if tok.endswith("(") else stmt)
            if lv == "msg" and len(t.replace("{}", "").strip()) < 20:
                continue
            rows.append((rel, lv, t))
    return rows


KEEP_LEVELS = re.compile(r"^(error|warning|fatal|warn|exception|critical|check(:\w+)?|throw(:[\w?]+)?|raise:\w+|"
                         r"enforce|status:\w+)$")


def clean(msg):
    # a URL in a message (Lightning cites its issues) is written {}: the tables cite no thread
    msg = re.sub(r"https?://\S+", "{}", msg)
    msg = msg.replace("\t", " ").replace("\n", "\\n")
    msg = re.sub(r"^(?:\\n|\\t|\s)+", "", msg).rstrip()
    msg = re.sub(r"(?:\{\}|[,:;]|\s)+$", "", msg).rstrip() or msg
    return msg


def extract_tag(family, gitdir, tag, file_re, keep):
    ref = tag if tag == "HEAD" else tag
    names = subprocess.run(["git", "-C", gitdir, "ls-tree", "-r", "--name-only", ref], check=True, capture_output=True,
                           text=True).stdout.split("\n")
    names = [n for n in names if re.search(file_re, n)]
    rows = {}
    for n in names:
        src = subprocess.run(["git", "-C", gitdir, "show", "%s:%s" % (ref, n)], capture_output=True).stdout.decode(
            "utf-8", "replace")
        if n.endswith(".py"):
            with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
                f.write(src)
            got = [(n, r[2], r[3]) for r in ts.do_py(f.name, n)]
            os.unlink(f.name)
        else:
            got = cpp_rows(family, src, n)
        for rel, lv, t in got:
            if not KEEP_LEVELS.match(lv):
                continue
            t = clean(t)
            if len(t.replace("{}", "").strip()) < 8:
                continue
            if keep and not re.search(keep, t):
                continue
            key = (rel, t)
            if key not in rows:
                rows[key] = lv
    return rows


def load_rules():
    rules = []
    with open(os.path.join(HERE, "pysrc_coverage_map.tsv")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            c = line.split("\t")
            while len(c) < 6:
                c.append("")
            rules.append((c[0], re.compile(c[1]), re.compile("^(?:" + (".*" if c[2] == "." else c[2]) + ")$"),
                          re.compile(c[3]), c[4], c[5]))
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
    for line in sorted(lines, key=len):
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


def map_row(rules, samples, family, path, level, msg):
    for fam, fr, lr, mr, mp, nt in rules:
        if fam in (family, "*") and fr.search(path) and lr.match(level) and mr.search(msg):
            sample = sample_for(msg, samples.get(mp[4:], [])) if mp.startswith("sig:") else ""
            if mp.startswith("sig:") and not sample:
                mp, nt = no_sample(mp, nt, samples)
            return mp, nt, sample
    return "not-yet", "", ""


HEADER = """# {family} failure messages, extracted by scripts/pysrc_coverage.py from {repo} (git tags: {tags});
# mapping rules: scripts/pysrc_coverage_map.tsv.  Only messages about distributed work are kept
# (NCCL, ranks, launch, stores, timeouts, GPU memory: the KEEP filter of the script).
# first_release/last_release: the first and last of the releases read that have the message
# (a message may exist in releases between and after them that were not read).
# Generated: edit the rules and rerun, do not edit by hand.
# style: braces
# releases: {rels}
file\tfirst_release\tlast_release\tlevel\tformat\tmapping\tnote\tsample
"""


def build(family, rules, samples):
    mirror, rels, file_re, keep = FAMILIES[family]
    gitdir = os.path.join(MIRROR, mirror, "repo")
    per = {}
    for rel, tag in rels:
        for key, lv in extract_tag(family, gitdir, tag, file_re, keep).items():
            e = per.setdefault(key, {"level": lv, "in": []})
            e["in"].append(rel)
    order = [r for r, _ in rels]
    rows = []
    for (path, msg), e in per.items():
        mp, nt, sample = map_row(rules, samples, family, path, e["level"], msg)
        ins = sorted(e["in"], key=order.index)
        rows.append((path, ins[0], ins[-1], e["level"], msg, mp, nt, sample))
    rows.sort(key=lambda r: (r[0], r[4]))
    out = os.path.join(ROOT, "patterns", "coverage", family + ".tsv")
    with open(out, "w") as f:
        f.write(HEADER.format(family=family, repo=mirror.replace("+", "/"),
                              tags=" ".join(t for _, t in rels), rels=" ".join(order)))
        for r in rows:
            f.write("\t".join(x.replace("\t", " ") for x in r) + "\n")
    kinds = {}
    for r in rows:
        k = r[5].split(":")[0]
        kinds[k] = kinds.get(k, 0) + 1
    print(out, len(rows), "messages", kinds)


def check(family, rules, samples):
    table = os.path.join(ROOT, "patterns", "coverage", family + ".tsv")
    bad = 0
    for n, line in enumerate(open(table), 1):
        if line.startswith("#") or line.startswith("file\t") or not line.strip():
            continue
        c = line.rstrip("\n").split("\t")
        want = map_row(rules, samples, family, c[0], c[3], c[4])
        want = tuple(x.replace("\t", " ") for x in want)
        if tuple(c[5:8]) != want:
            print("%s:%d: stale: %s -> %s (rerun scripts/pysrc_coverage.py %s)" % (table, n, c[5:8], list(want), family))
            bad += 1
    print("%s: %s" % (table, "stale rows: %d" % bad if bad else "up to date with the rules and samples"))
    return bad


def main():
    args = sys.argv[1:]
    do_check = args[:1] == ["--check"]
    fams = [a for a in args if a != "--check"] or sorted(FAMILIES)
    rules = load_rules()
    samples = load_samples()
    bad = 0
    for fam in fams:
        if fam not in FAMILIES:
            sys.exit("unknown family %s (one of %s)" % (fam, ", ".join(sorted(FAMILIES))))
        if do_check:
            bad += check(fam, rules, samples)
        else:
            build(fam, rules, samples)
    sys.exit(1 if bad else 0)


main()
