"""scripts/plot_sweep.py on a sweep's results: the figures a study shows, and one line
naming the problem when a plot cannot be drawn as asked."""
import subprocess
import sys

import pytest

import spyre_sim
from conftest import CLI_EXAMPLES, SOURCE

PLOT = SOURCE / "scripts" / "plot_sweep.py"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweep")
    spec = folder / "spec.json"
    spec.write_text(
        '{"name": "grid", "runs": [{"name": "add", "bundle": "%s"}, {"name": "exp", "bundle": "%s"}],'
        ' "axes": [{"key": "lx.size_bytes", "values": [1048576, 2097152]},'
        ' {"key": "lpddr5.read_gbps", "values": [75, 150, 300]}]}' % (CLI_EXAMPLES / "add", CLI_EXAMPLES / "exp")
    )
    spyre_sim.sweep(str(spec), output=str(folder / "r"), workers=2)
    return folder / "r"


def plot(*args):
    return subprocess.run([sys.executable, str(PLOT), *map(str, args)], capture_output=True, text=True)


@pytest.mark.parametrize(
    "args",
    [
        ["--x", "lpddr5.read_gbps", "--y", "latency_us", "--hue", "lx.size_bytes", "--run", "add"],
        ["--x", "lpddr5.read_gbps", "--y", "kernel_us", "--where", "lx.size_bytes=1048576", "--logx", "--yzero"],
        ["--heatmap", "--x", "lpddr5.read_gbps", "--y", "lx.size_bytes", "--value", "latency_us", "--run", "exp"],
    ],
)
def test_plots_are_written(results, tmp_path, args):
    figure = tmp_path / "fig.png"
    done = plot(results, *args, "-o", figure)
    assert done.returncode == 0, done.stderr
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--x", "lpddr5.read_gbps", "--y", "latency_us", "--run", "add"],
         "r.json: points 0 and 3 fall on the same mark; fix lx.size_bytes with --run NAME or --where KEY=VALUE"),
        (["--heatmap", "--x", "lpddr5.read_gbps", "--y", "lx.size_bytes", "--value", "latency_us"],
         "r.json: a heatmap shows one run: choose it with --run NAME"),
        (["--x", "lpddr5.read_gbps", "--y", "latency", "--run", "add"], "r.json: point 0: no column 'latency'"),
        (["--x", "clock_ghz", "--y", "latency_us", "--where", "clock_ghz=1"],
         "--where clock_ghz=1: give KEY=VALUE with KEY one of the sweep's axes (lx.size_bytes, lpddr5.read_gbps)"),
        (["--x", "lpddr5.read_gbps", "--y", "latency_us", "--run", "mul"], "r.json: --run: no run 'mul' (the runs: add, exp)"),
    ],
)
def test_plots_that_cannot_be_drawn_say_why(results, tmp_path, args, message):
    done = plot(results, *args, "-o", tmp_path / "fig.png")
    assert done.returncode == 1
    assert message in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "fig.png").exists()
