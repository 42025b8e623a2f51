#!/usr/bin/env python3
"""Add topology and memory facts, built from REAL capture files, to an analyze
JSON document whose bundles lack them (the system-report parsers may not have
landed when these tests run).  Every value comes from the files named on the
command line: an `nvidia-smi topo -m` matrix, an `nvidia-smi --query-gpu
... --format=csv -lms 250` memory trace, and the bundle's own PyTorch OOM
evidence line.  Facts that the analyzer already produced are left alone.
Each added object carries "fixture_note" saying where it came from.

usage: facts_from_captures.py DOC.json [--topo topo-m.txt] [--memtrace memtrace.csv] > OUT.json
"""
import json
import re
import sys
from datetime import datetime

NOTE = "constructed by tests/reports/facts_from_captures.py from %s"


def topo_facts(path):
    rows = []
    header = None
    for raw in open(path, encoding="utf-8", errors="replace"):
        line = re.sub(r"\x1b\[[0-9;]*m", "", raw.rstrip("\n"))
        cells = [c for c in re.split(r"[\t ]+", line.strip()) if c]
        if not cells:
            if header and rows:
                break
            continue
        if cells[0] == "GPU0" and header is None:
            header = [c for c in cells if re.fullmatch(r"GPU\d+|NIC\d+", c)]
            continue
        if header and re.fullmatch(r"GPU\d+", cells[0]):
            rows.append((cells[0], cells[1:1 + len(header)]))
    matrix, links = {}, []
    for name, vals in rows:
        a = int(name[3:])
        matrix[name] = {}
        for col, v in zip(header, vals):
            matrix[name][col] = v
            if col.startswith("GPU"):
                b = int(col[3:])
                if b > a:
                    links.append({"a": a, "b": b, "type": v})
    return {"matrix": matrix, "links": links, "gpu_count": len(rows), "fixture_note": NOTE % path}


def parse_mib(num, unit):
    v = float(num)
    return v * 1024 if unit.startswith("G") else v


def memory_facts(path, bundle):
    series = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 4 or parts[0] == "timestamp":
            continue
        try:
            ts = datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f")
            gpu = int(parts[1])
            used = float(parts[2].split()[0])
            total = float(parts[3].split()[0])
        except ValueError:
            continue
        s = series.setdefault(gpu, {"gpu": gpu, "path": "memtrace.csv", "samples": [], "_t0": ts,
                                    "start": parts[0]})
        t = round((ts - s["_t0"]).total_seconds(), 3)
        s["samples"].append({"t": t, "used_mib": used, "total_mib": total})
    out = []
    for gpu in sorted(series):
        s = series[gpu]
        del s["_t0"]
        peak = max(s["samples"], key=lambda x: x["used_mib"])
        s["peak_mib"] = peak["used_mib"]
        s["peak_t"] = peak["t"]
        s["total_mib"] = max(x["total_mib"] for x in s["samples"])
        s["headroom_mib"] = s["total_mib"] - s["peak_mib"]
        s["sample_count"] = len(s["samples"])
        out.append(s)
    mem = {"series": out, "fixture_note": NOTE % path}
    # the OOM arithmetic from the bundle's own torch.OutOfMemoryError line
    rx = re.compile(r"Tried to allocate ([\d.]+) (GiB|MiB)\. GPU (\d+) has a total capacity of ([\d.]+) (GiB|MiB) "
                    r"of which ([\d.]+) (GiB|MiB) is free\. Including non-PyTorch memory, this process has "
                    r"([\d.]+) (GiB|MiB) memory in use\. Of the allocated memory ([\d.]+) (GiB|MiB) is allocated "
                    r"by PyTorch, and ([\d.]+) (GiB|MiB) is reserved by PyTorch but unallocated")
    # the lines of the run log next to the trace (the real file), else the evidence
    lines = []
    import os
    log = os.path.join(os.path.dirname(path), "run.log")
    if os.path.exists(log):
        for i, text in enumerate(open(log, encoding="utf-8", errors="replace")):
            lines.append({"path": "run.log", "line": i + 1, "text": text.rstrip("\n")})
    for d in bundle.get("diagnoses", []):
        lines.extend(d.get("evidence", []))
    for d in [{"evidence": lines}]:
        for e in d.get("evidence", []):
            m = rx.search(e.get("text", ""))
            if m:
                r = re.match(r"\[rank(\d+)\]", e["text"])
                if r and "rank" not in e:
                    e = dict(e, rank=int(r.group(1)))
                g = m.groups()
                ev = {"tried_mib": parse_mib(g[0], g[1]), "gpu": int(g[2]),
                      "capacity_mib": parse_mib(g[3], g[4]), "free_mib": parse_mib(g[5], g[6]),
                      "process_in_use_mib": parse_mib(g[7], g[8]), "allocated_mib": parse_mib(g[9], g[10]),
                      "reserved_unallocated_mib": parse_mib(g[11], g[12]), "text": e["text"],
                      "source": {"path": e["path"], "line": e["line"]}}
                if "rank" in e:
                    ev["rank"] = e["rank"]
                ev["held_elsewhere_mib"] = round(ev["capacity_mib"] - ev["free_mib"] - ev["process_in_use_mib"], 2)
                mem["oom_events"] = [ev]
                break
        if "oom_events" in mem:
            break
    return mem


def gpu_facts(path):
    """facts.gpus from `nvidia-smi -q`: index, product name, UUID, serial, bus id."""
    gpus, cur = [], None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^GPU ([0-9A-Fa-f:.]+)\s*$", line)
        if m:
            cur = {"index": len(gpus), "bus_id": m.group(1)}
            gpus.append(cur)
            continue
        if cur is None or ":" not in line:
            continue
        k, _, v = line.partition(":")
        k, v = k.strip(), v.strip()
        if k == "Product Name":
            cur.setdefault("name", v)
        elif k == "GPU UUID":
            cur["uuid"] = v
        elif k == "Serial Number":
            cur["serial"] = v
    for g in gpus:
        g["fixture_note"] = NOTE % path
    return gpus


def main():
    args = sys.argv[1:]
    doc = json.load(open(args[0]))
    topo = mem = None
    if "--topo" in args:
        topo = args[args.index("--topo") + 1]
    if "--memtrace" in args:
        mem = args[args.index("--memtrace") + 1]
    gq = args[args.index("--gpus") + 1] if "--gpus" in args else None
    for b in doc.get("bundles", []):
        facts = b.setdefault("facts", {})
        if gq and "gpus" not in facts:
            facts["gpus"] = gpu_facts(gq)
        if topo and "topology" not in facts:
            facts["topology"] = topo_facts(topo)
        if mem and "memory" not in facts:
            facts["memory"] = memory_facts(mem, b)
    json.dump(doc, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
