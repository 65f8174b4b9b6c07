#!/usr/bin/env python3
"""Device time of a compiled model per op family: joins the Ops table `spyre-sim compile`
prints (each SDSC's bundle, file and the graph op it comes from) with the kernels of
`spyre-sim run --report` (each SDSC's window and what bounds it).

    spyre-sim compile --workload granite -o out/granite > out/granite.compile.txt
    spyre-sim run out/granite --report out/granite.report.json
    scripts/time_by_family.py out/granite.compile.txt out/granite.report.json

A family is the graph op's kind and its output's name without layer and block numbers
("linear q", "add q.bhsd.rope", "scaled_dot_product_attention attn"; copies the
compiler inserted: "inserted for narrow").
Prints, per family, the kernels, device time (sum of kernel windows, ms), its share,
the bytes its cores read and wrote in device memory (each core's reads counted, also
those the memory-side cache served) and what bounds most of its time."""
import collections
import json
import re
import sys


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


def read_ops_table(path):
    ops = {}
    with open(path) as f:
        header = None
        for line in f:
            if line.lstrip().startswith("bundle") and " from" in line:
                header = line
                continue
            if header is None or not line.strip():
                if header is not None and not line.strip():
                    header = None
                continue
            fields = line.split()
            if len(fields) < 3 or not fields[0].isdigit():
                continue
            ops[(f"bundle_{fields[0]}", fields[1])] = line[header.index(" from") + 1:].strip()
    if not ops:
        raise SystemExit(f"{path}: no Ops table (the output of spyre-sim compile)")
    return ops


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    try:
        ops = read_ops_table(argv[1])
        with open(argv[2]) as f:
            report = json.load(f)
    except (OSError, json.JSONDecodeError) as error:
        raise SystemExit(f"error: {error}") from None
    families = collections.defaultdict(lambda: {"kernels": 0, "us": 0.0, "bytes": 0, "bound": collections.Counter()})
    for kernel in report["kernels"]:
        bundle, file = kernel["file"].split("/", 1)
        source = ops.get((bundle, file))
        if source is None:
            raise SystemExit(f"{argv[2]}: kernel {kernel['file']} is not in {argv[1]}'s Ops table")
        entry = families[family(source)]
        us = kernel["end_us"] - kernel["start_us"]
        entry["kernels"] += 1
        entry["us"] += us
        entry["bytes"] += kernel["hbm_read_bytes"] + kernel["hbm_write_bytes"]
        entry["bound"][kernel.get("bound", {}).get("by", "-")] += us
    total = sum(e["us"] for e in families.values())
    print(f"{'family':48} {'kernels':>7} {'ms':>9} {'share':>6} {'core GB':>7}  bound by")
    for name, entry in sorted(families.items(), key=lambda item: -item[1]["us"]):
        bound = entry["bound"].most_common(1)[0][0]
        print(f"{name:48} {entry['kernels']:7d} {entry['us'] / 1000:9.2f} {100 * entry['us'] / total:5.1f}% "
              f"{entry['bytes'] / 1e9:7.2f}  {bound}")
    print(f"{'kernels':48} {sum(e['kernels'] for e in families.values()):7d} {total / 1000:9.2f}        "
          f"(latency {report['latency_us'] / 1000:.2f} ms with launches)")


if __name__ == "__main__":
    main(sys.argv)
