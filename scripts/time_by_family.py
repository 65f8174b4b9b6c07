#!/usr/bin/env python3
"""Device time of a compiled model per op family or per layer: joins the Ops table
`spyre-sim compile` prints (each SDSC's bundle, file and the graph op it comes from)
with the kernels of `spyre-sim run --report` (each SDSC's window and what bounds it).

    spyre-sim compile --workload granite -o out/granite > out/granite.compile.txt
    spyre-sim run out/granite --report out/granite.report.json
    scripts/time_by_family.py out/granite.compile.txt out/granite.report.json [--by layer] [--csv FILE]

A family is the graph op's kind and its output's name without layer and block numbers
("linear q", "add q.bhsd.rope", "scaled_dot_product_attention attn"; copies the
compiler inserted: "inserted for narrow"); a layer is the number after "layers." in
the op's name ("-" for ops outside the layers). Prints per row the kernels, device
time (sum of kernel windows, ms), its share, the bytes its cores read and wrote in
device memory (each core's reads counted, also those the memory-side cache served)
and what bounds its time: the slowest core's shares of each kernel window (LPDDR5,
DMA, PT, SFU, ring, barrier, idle) weighted by the window."""
import argparse
import collections
import csv
import json
import re
import sys

BOUNDS = ["lpddr5", "dma", "pt", "sfu", "ring", "barrier", "idle"]


def family(source):
    """"linear 'layers.3.q'" -> "linear q"; "inserted for narrow 'layers.0.q.bhsd.x1'" -> "inserted for narrow"."""
    match = re.match(r"(.*?)\s*'([^']*)'", source)
    if not match:
        return source.strip()
    kind, name = match.groups()
    if kind.startswith("inserted"):
        return kind
    # Layer numbers and block numbers (lm_head.0, .1, ...) dropped.
    name = ".".join(part for part in name.split(".") if not part.isdigit() and part != "layers")
    return f"{kind} {name}"


def layer(source):
    match = re.search(r"'layers\.(\d+)\.", source)
    return int(match.group(1)) if match else "-"


def read_ops_table(path):
    ops = {}
    with open(path) as f:
        header = None
        for line in f:
            if line.lstrip().startswith("bundle") and " from" in line:
                header = line
                continue
            if header is None:
                continue
            if not line.strip():
                header = None
                continue
            fields = line.split()
            if len(fields) < 3 or not fields[0].isdigit():
                continue
            ops[(f"bundle_{fields[0]}", fields[1])] = line[header.index(" from") + 1:].strip()
    if not ops:
        raise SystemExit(f"error: {path}: no Ops table (the output of spyre-sim compile)")
    return ops


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("compile_output", help="what spyre-sim compile printed (its Ops table)")
    parser.add_argument("report", help="spyre-sim run --report JSON of the same program")
    parser.add_argument("--by", choices=["family", "layer"], default="family")
    parser.add_argument("--csv", help="also write the rows here")
    args = parser.parse_args(argv[1:])
    try:
        ops = read_ops_table(args.compile_output)
        with open(args.report) as f:
            report = json.load(f)
    except (OSError, json.JSONDecodeError) as error:
        raise SystemExit(f"error: {error}") from None
    group = family if args.by == "family" else layer
    rows = collections.defaultdict(lambda: {"kernels": 0, "us": 0.0, "bytes": 0, "bound_us": collections.Counter()})
    for kernel in report["kernels"]:
        bundle, file = kernel["file"].split("/", 1)
        source = ops.get((bundle, file))
        if source is None:
            raise SystemExit(f"error: {args.report}: kernel {kernel['file']} is not in {args.compile_output}'s Ops table")
        row = rows[group(source)]
        us = kernel["end_us"] - kernel["start_us"]
        row["kernels"] += 1
        row["us"] += us
        row["bytes"] += kernel["hbm_read_bytes"] + kernel["hbm_write_bytes"]
        for bound, pct in kernel.get("bound", {}).get("shares_pct", {}).items():
            row["bound_us"][bound] += us * pct / 100
    total = sum(r["us"] for r in rows.values())
    order = sorted(rows, key=lambda k: -rows[k]["us"]) if args.by == "family" else sorted(
        rows, key=lambda k: (isinstance(k, str), k if isinstance(k, int) else 0))
    header = [args.by, "kernels", "ms", "share_pct", "core_gb"] + [f"{b}_pct" for b in BOUNDS]
    table = []
    for key in order:
        row = rows[key]
        shares = [100 * row["bound_us"][b] / row["us"] if row["us"] else 0 for b in BOUNDS]
        table.append([key, row["kernels"], row["us"] / 1000, 100 * row["us"] / total, row["bytes"] / 1e9] + shares)
    width = max(len(str(r[0])) for r in table + [header])
    print(f"{args.by:{width}} {'kernels':>7} {'ms':>9} {'share':>6} {'core GB':>7}  " +
          " ".join(f"{b:>7}" for b in BOUNDS))
    for r in table:
        print(f"{str(r[0]):{width}} {r[1]:7d} {r[2]:9.2f} {r[3]:5.1f}% {r[4]:7.2f}  " +
              " ".join(f"{s:6.1f}%" for s in r[5:]))
    print(f"{'all':{width}} {sum(r[1] for r in table):7d} {total / 1000:9.2f}        "
          f"(latency {report['latency_us'] / 1000:.2f} ms with launches)")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(header)
            writer.writerows([[r[0]] + [round(v, 4) if isinstance(v, float) else v for v in r[1:]] for r in table])


if __name__ == "__main__":
    main(sys.argv)
