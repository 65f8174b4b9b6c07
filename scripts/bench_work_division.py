#!/usr/bin/python3
"""Benchmark: the splits `compile` picks for the 12 Granite-3.3-8B matmul shapes of
models/calibration/granite_matmul/splits.csv, by seed 001's rule (--work-division
default) and by the model (compile's default, no --work-division), looked up among the
measured device times at LX 0.2 (the backend's default). Prints each pick with its measured time, and the totals against
the device-best (issue 12's target: within 5%); a pick never measured counts as a miss.
Also times compiling the Granite decoder layer (seq 512) both ways.
  scripts/bench_work_division.py [BUILD_DIR]"""
import csv
import json
import pathlib
import subprocess
import sys
import tempfile
import time

root = pathlib.Path(__file__).resolve().parents[1]
spyre_sim = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else root / "build") / "spyre-sim"
table = root / "models/calibration/granite_matmul/splits.csv"

shapes = {}
for row in csv.DictReader(open(table)):
    if float(row["lx_fraction"]) != 0.2:
        continue
    key = (row["phase"], row["op"], int(row["B"]), int(row["M"]), int(row["N"]), int(row["K"]))
    split = "_".join(row["split_" + d] for d in "bmnk")
    shapes.setdefault(key, {})[split] = float(row["measured_us"])


# The model is compile's default: its picks are what `compile` gives without the flag.
FLAGS = {"default": ["--work-division", "default"], "model": []}


def pick(shape, division, scratch):
    phase, op, b, m, n, k = shape
    workload, dims = ("bmm", f"{b}x{m}x{k}x{n}") if b > 1 else ("matmul", f"{m}x{k}x{n}")
    decisions = scratch / "d.json"
    subprocess.run([spyre_sim, "compile", "--workload", workload, "--shape", dims, "--cores", "32", *FLAGS[division],
                    "-o", scratch / "out", "--decisions", decisions, "--quiet"], check=True, stdout=subprocess.DEVNULL)
    op = next(o for o in json.load(open(decisions))["ops"] if o["op"] == "batchmatmul")
    s = op["splits"]
    return "_".join(str(s.get(d, 1)) for d in ("x", "mb", "out", "in"))


with tempfile.TemporaryDirectory() as tmp:
    scratch = pathlib.Path(tmp)
    totals = {"default": 0.0, "model": 0.0}
    best_of_measured = {"default": 0.0, "model": 0.0}  # device-best of the shapes whose pick was measured
    misses = {"default": 0, "model": 0}
    best_total = 0.0
    print(f"{'shape':40} {'best':>17} {'default rule':>22} {'model (no flag)':>22}")
    for shape, measured in shapes.items():
        best = min(measured, key=measured.get)
        best_total += measured[best]
        line = f"{' '.join(map(str, shape)):40} {best:>9} {measured[best]:7.1f}"
        for division in ("default", "model"):
            split = pick(shape, division, scratch)
            us = measured.get(split)
            if us is None:
                misses[division] += 1
                line += f" {split:>9}  never measured"
            else:
                totals[division] += us
                best_of_measured[division] += measured[best]
                line += f" {split:>9} {us:7.1f} {100 * (us / measured[best] - 1):+5.0f}%"
        print(line)
    print(f"device-best total {best_total:.1f} us")
    for division in ("default", "model"):
        print(f"{division:>7}: {misses[division]} of {len(shapes)} picks never measured (misses); the other "
              f"{len(shapes) - misses[division]}: {totals[division]:.1f} us measured vs their device-best "
              f"{best_of_measured[division]:.1f} us ({100 * (totals[division] / best_of_measured[division] - 1):+.1f}%)")
    for division in ("default", "model"):
        start = time.time()
        subprocess.run([spyre_sim, "compile", "--workload", "decoder", "--seq", "512", *FLAGS[division], "-o",
                        scratch / "decoder", "--quiet"], check=True, stdout=subprocess.DEVNULL)
        print(f"decoder layer (seq 512) compile, --work-division {division}: {time.time() - start:.1f} s")
