#!/usr/bin/python3
"""Plots the results of `spyre-sim sweep` (docs/sweep.md).

  plot_sweep.py RESULTS --x KEY --y METRIC [--hue KEY] -o fig.png          a line per hue value
  plot_sweep.py RESULTS --heatmap --x KEY --y KEY --value METRIC -o fig.png  a grid of one metric

RESULTS is the sweep's PREFIX, PREFIX.json or PREFIX.csv (the units come from
PREFIX.json). Only points that ran ("ok") are drawn. Every other axis of the
sweep must be fixed, by --run NAME and --where KEY=VALUE, so each mark is one
point; otherwise the plot says which axes are still free.
"""

import argparse
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files, no display
import matplotlib.pyplot as plt  # noqa: E402


class PlotError(Exception):
    pass


def results_path(results):
    for candidate in (results, results + ".json"):
        if candidate.endswith(".json") and os.path.isfile(candidate):
            return candidate
    if results.endswith(".csv") and os.path.isfile(results[:-4] + ".json"):
        return results[:-4] + ".json"
    raise PlotError(f"{results}: no sweep results here (give PREFIX, PREFIX.json or PREFIX.csv of `spyre-sim sweep`)")


def load(results):
    path = results_path(results)
    try:
        with open(path) as f:
            data = json.load(f)
        rows, axes, units = data["rows"], data["axes"], data.get("units", {})
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise PlotError(f"{path}: not the results of `spyre-sim sweep` ({e})")
    return path, rows, axes, units


def number(text):
    try:
        return float(text)
    except ValueError:
        return text


def value_of(row, key, path):
    if key == "run":
        return row["run"]
    if key in row["values"]:
        return number(row["values"][key])
    if key in row["metrics"]:
        return row["metrics"][key]
    raise PlotError(f"{path}: point {row['point']}: no column '{key}'")


def select(rows, axes, args, path):
    runs = sorted({r["run"] for r in rows})
    if args.run is not None and args.run not in runs:
        raise PlotError(f"{path}: --run: no run '{args.run}' (the runs: {', '.join(runs)})")
    where = {}
    for clause in args.where:
        key, sep, value = clause.partition("=")
        if not sep or key not in axes:
            raise PlotError(f"--where {clause}: give KEY=VALUE with KEY one of the sweep's axes ({', '.join(axes)})")
        where[key] = number(value)
    chosen = [
        r
        for r in rows
        if r["status"] == "ok"
        and (args.run is None or r["run"] == args.run)
        and all(number(r["values"][k]) == v for k, v in where.items())
    ]
    if not chosen:
        raise PlotError(f"{path}: no point that ran matches --run/--where")
    return chosen


def check_one_point_per_mark(rows, axes, used, path):
    """Each (used axes) combination must be one point: name the free axes otherwise."""
    seen = {}
    for r in rows:
        key = tuple(str(value_of(r, k, path)) for k in used)
        if key in seen:
            other = seen[key]
            free = [a for a in ["run"] + axes if a not in used and value_of(r, a, path) != value_of(other, a, path)]
            raise PlotError(
                f"{path}: points {other['point']} and {r['point']} fall on the same mark; "
                f"fix {', '.join(free)} with --run NAME or --where KEY=VALUE (or use one as --hue)"
            )
        seen[key] = r


def label(key, units):
    unit = units.get(key, "")
    return f"{key} ({unit})" if unit and unit != key else key


def human_bytes(value):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(value) >= size:
            return f"{value / size:g} {unit}"
    return f"{value:g} B"


def format_axis(axis, key, units):
    if "bytes" in units.get(key, ""):
        axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: human_bytes(v)))


def text(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def sort_key(v):
    return (0, v, "") if isinstance(v, float) else (1, math.inf, str(v))


def line_plot(rows, axes, units, args, path):
    used = [args.x] + ([args.hue] if args.hue else [])
    multiple_runs = args.run is None and len({r["run"] for r in rows}) > 1 and "run" not in used
    if multiple_runs:
        used.append("run")
    check_one_point_per_mark(rows, axes, used, path)
    lines = {}
    for r in rows:
        run = r["run"] if multiple_runs else ""
        hue = value_of(r, args.hue, path) if args.hue else ""
        lines.setdefault((run, hue), []).append((value_of(r, args.x, path), value_of(r, args.y, path)))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for run, hue in sorted(lines, key=lambda k: (k[0], sort_key(k[1]))):
        points = sorted(lines[(run, hue)], key=lambda p: sort_key(p[0]))
        hue_text = human_bytes(hue) if "bytes" in units.get(args.hue or "", "") and isinstance(hue, float) else text(hue)
        name = " ".join(x for x in (run, f"{args.hue}={hue_text}" if args.hue else "") if x)
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name or None)
    ax.set_xlabel(label(args.x, units))
    ax.set_ylabel(label(args.y, units))
    if args.logx:
        ax.set_xscale("log", base=2)
    if args.logy:
        ax.set_yscale("log")
    elif args.yzero:
        ax.set_ylim(bottom=0)
    xs = sorted({p[0] for points in lines.values() for p in points if isinstance(p[0], float)})
    if args.logx and 0 < len(xs) <= 12:  # a few swept values: ticks at them, not at powers of two
        ax.set_xticks(xs, [human_bytes(v) if "bytes" in units.get(args.x, "") else text(v) for v in xs])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    else:
        format_axis(ax.xaxis, args.x, units)
    format_axis(ax.yaxis, args.y, units)
    if multiple_runs or args.hue:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    return fig, ax


def heatmap(rows, axes, units, args, path):
    if args.run is None and len({r["run"] for r in rows}) > 1:
        raise PlotError(f"{path}: a heatmap shows one run: choose it with --run NAME")
    check_one_point_per_mark(rows, axes, [args.x, args.y], path)
    xs = sorted({value_of(r, args.x, path) for r in rows}, key=sort_key)
    ys = sorted({value_of(r, args.y, path) for r in rows}, key=sort_key)
    grid = [[math.nan] * len(xs) for _ in ys]
    for r in rows:
        grid[ys.index(value_of(r, args.y, path))][xs.index(value_of(r, args.x, path))] = value_of(r, args.value, path)
    fig, ax = plt.subplots(figsize=(7, 5))
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    bar = fig.colorbar(image, ax=ax)
    bar.set_label(label(args.value, units))
    def tick(v, key):
        return human_bytes(v) if "bytes" in units.get(key, "") and isinstance(v, float) else text(v)

    ax.set_xticks(range(len(xs)), [tick(v, args.x) for v in xs])
    ax.set_yticks(range(len(ys)), [tick(v, args.y) for v in ys])
    ax.set_xlabel(label(args.x, units))
    ax.set_ylabel(label(args.y, units))
    for j, row in enumerate(grid):
        for i, v in enumerate(row):
            if not math.isnan(v):
                ax.text(i, j, f"{v:.3g}", ha="center", va="center", color="white", fontsize="small")
    return fig, ax


def main(argv):
    parser = argparse.ArgumentParser(description="Plot the results of `spyre-sim sweep` (docs/sweep.md).")
    parser.add_argument("results", help="the sweep's PREFIX, PREFIX.json or PREFIX.csv")
    parser.add_argument("--x", required=True, help="the axis along x: a sweep axis (or a metric)")
    parser.add_argument("--y", required=True, help="line plot: the metric along y; heatmap: a second axis")
    parser.add_argument("--hue", help="line plot: a line per value of this axis")
    parser.add_argument("--heatmap", action="store_true", help="a grid of --value over --x and --y")
    parser.add_argument("--value", help="heatmap: the metric in each cell")
    parser.add_argument("--run", help="only this run of the spec")
    parser.add_argument("--where", action="append", default=[], metavar="KEY=VALUE", help="only points with this value")
    parser.add_argument("--logx", action="store_true", help="x on a log2 scale")
    parser.add_argument("--logy", action="store_true", help="y on a log scale")
    parser.add_argument("--yzero", action="store_true", help="y from zero (small differences stay small)")
    parser.add_argument("--title", help="the figure's title (default: the sweep's name and run)")
    parser.add_argument("-o", "--output", required=True, help="the figure: .png, .svg or .pdf")
    args = parser.parse_args(argv)
    try:
        if args.heatmap and not args.value:
            raise PlotError("--heatmap needs --value METRIC")
        if not args.output.endswith((".png", ".svg", ".pdf")):
            raise PlotError(f"{args.output}: -o: give a .png, .svg or .pdf file")
        path, rows, axes, units = load(args.results)
        rows = select(rows, axes, args, path)
        for key in [args.x, args.y, args.hue, args.value]:
            if key is not None:
                value_of(rows[0], key, path)
        fig, ax = (heatmap if args.heatmap else line_plot)(rows, axes, units, args, path)
        with open(path) as f:
            name = json.load(f).get("sweep", "")
        ax.set_title(args.title or " / ".join(x for x in (name, args.run) if x))
        fig.tight_layout()
        try:
            fig.savefig(args.output, dpi=120)
        except OSError as e:
            raise PlotError(f"{args.output}: cannot write the figure: {e.strerror}")
    except PlotError as e:
        print(f"plot_sweep: {e}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
