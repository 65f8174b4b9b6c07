#!/usr/bin/env python3
"""Fidelity study: simulated vs measured device time of torch-spyre's Granite
matmul kernels over every core split (../shared/calibration/granite_matmul).

Each row of splits.csv runs its own SDSC where the row names one (kernels/),
else `spyre-sim compile --workload matmul|bmm --shape ... --split ...` with the
row's split; kernel time = the report's kernel end - start, at
--set lx.backend_reserved_fraction=<the row's lx_fraction>.

Prints one line per row, then per shape the Spearman rank correlation of
simulated vs measured time over its splits (lx 0.2 rows), and the summary the
fidelity issue names: median |error|, rows within 20%, and the measured cost of
the split the model ranks fastest per shape over the device-best split.

Usage: scripts/fidelity_granite_matmul.py [--data DIR] [--sim BIN] [--csv OUT]
       [--set KEY=VALUE ...]  (extra arch overrides, for what-if fits)
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0  # ties share their mean rank
        i = j + 1
    return out


def spearman(a, b):
    if len(a) < 3:
        return float("nan")
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va > 0 and vb > 0 else float("nan")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("fidelity: " + " ".join(cmd) + " failed:\n" + (p.stderr or p.stdout).strip())
    return p


def kernel_dir(row, data, work, sim):
    if row["kernel"]:  # "kernels/<name>" (or just the name)
        named = os.path.join(data, row["kernel"])
        return named if os.path.isdir(named) else os.path.join(data, "kernels", row["kernel"])
    b, m, n, k = (int(row[x]) for x in ("B", "M", "N", "K"))
    splits = {"x": int(row["split_b"]), "mb": int(row["split_m"]), "out": int(row["split_n"]), "in": int(row["split_k"])}
    split = ",".join(f"{d}:{s}" for d, s in splits.items() if s > 1)
    out = os.path.join(work, "prog")
    if b > 1:
        cmd = [sim, "compile", "--workload", "bmm", "--shape", f"{b}x{m}x{k}x{n}"]
    else:
        cmd = [sim, "compile", "--workload", "matmul", "--shape", f"{m}x{k}x{n}"]
        split = ",".join(p for p in split.split(",") if not p.startswith("x:"))
    if split:
        cmd += ["--split", "c=" + split]
    run(cmd + ["--cores", "32", "-o", out])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "calibration", "granite_matmul"))
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "spyre-sim"))
    ap.add_argument("--csv", help="write one row per split: measured, simulated, error")
    ap.add_argument("--set", action="append", default=[], help="extra arch override KEY=VALUE")
    args = ap.parse_args()
    table = os.path.join(args.data, "splits.csv")
    if not os.path.exists(table):
        sys.exit(f"fidelity: {table}: no such file (give --data DIR)")
    with open(table) as f:
        rows = list(csv.DictReader(f))

    results = []
    with tempfile.TemporaryDirectory() as work:
        for row in rows:
            bundle = kernel_dir(row, args.data, work, args.sim)
            report = os.path.join(work, "r.json")
            sets = [f"lx.backend_reserved_fraction={row['lx_fraction']}"] + args.set
            cmd = [args.sim, "run", bundle, "--quiet", "--report", report]
            for s in sets:
                cmd += ["--set", s]
            run(cmd)
            with open(report) as f:
                kernels = json.load(f)["kernels"]
            sim_us = sum(k["end_us"] - k["start_us"] for k in kernels)
            meas = float(row["measured_us"])
            shape = f"{row['phase']} {row['op']} {row['B']}x{row['M']}x{row['N']}x{row['K']}"
            split = f"{row['split_b']}_{row['split_m']}_{row['split_n']}_{row['split_k']}"
            results.append({"shape": shape, "split": split, "lx": row["lx_fraction"], "sdsc": bool(row["kernel"]),
                            "measured_us": meas, "simulated_us": sim_us, "error": sim_us / meas - 1})
            r = results[-1]
            print(f"{shape:34s} {split:10s} lx {r['lx']:4s} {'sdsc' if r['sdsc'] else '    '} "
                  f"measured {meas:9.1f} us  simulated {sim_us:9.1f} us  {100 * r['error']:+7.1f}%", flush=True)

    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(results[0].keys()))
            w.writeheader()
            w.writerows(results)

    errors = [abs(r["error"]) for r in results]
    print(f"\nrows {len(results)}: median |error| {100 * statistics.median(errors):.1f}%, "
          f"within 20%: {sum(e <= 0.2 for e in errors)}")
    print("\nper shape (lx 0.2 rows): splits, Spearman(simulated, measured), measured us of the model's pick vs best")
    picked_total = best_total = 0.0
    rhos = []
    for shape in dict.fromkeys(r["shape"] for r in results):
        group = [r for r in results if r["shape"] == shape and r["lx"] == "0.2"]
        if not group:
            continue
        rho = spearman([r["simulated_us"] for r in group], [r["measured_us"] for r in group])
        rhos.append(rho)
        pick = min(group, key=lambda r: r["simulated_us"])
        best = min(group, key=lambda r: r["measured_us"])
        picked_total += pick["measured_us"]
        best_total += best["measured_us"]
        print(f"  {shape:34s} {len(group):3d}  rho {rho:+.2f}  pick {pick['split']:10s} {pick['measured_us']:9.1f}"
              f"  best {best['split']:10s} {best['measured_us']:9.1f}")
    finite = [x for x in rhos if x == x]
    print(f"\nmedian Spearman {statistics.median(finite):+.2f}; the model's picks cost "
          f"{100 * (picked_total / best_total - 1):+.1f}% measured time over the device-best splits")


if __name__ == "__main__":
    main()
