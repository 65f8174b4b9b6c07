"""compile, check and validate through the module: compiled programs against NumPy and the
fp32 host reference, hazards as a CI job would fail on them, measured splits."""
import shutil

import numpy as np
import pytest

import spyre_sim
from conftest import CLI_EXAMPLES, SOURCE


def load_dir(path):
    return {p.stem: np.load(p) for p in sorted(path.glob("*.npy"))}


@pytest.mark.parametrize("workload, cores", [("softmax", 4), ("layernorm", 32), ("rmsnorm", 8), ("matmul", 32)])
def test_compiled_workloads_match_their_reference(tmp_path, workload, cores):
    compiled = spyre_sim.compile(str(tmp_path / "out"), workload=workload, cores=cores, emit_io=str(tmp_path / "io"))
    assert "sdsc_0.json" in compiled["decisions"]
    inputs = load_dir(tmp_path / "io" / "inputs")
    result = spyre_sim.run(str(tmp_path / "out"), inputs=inputs, expect=str(tmp_path / "io" / "reference"))
    assert result["expect_passed"], result["report"]["expect"]
    assert result["report"]["hazards"] == []
    assert spyre_sim.check(str(tmp_path / "out")) == []
    for name, want in load_dir(tmp_path / "io" / "reference").items():
        np.testing.assert_allclose(result["outputs"][name], want, rtol=2**-7, atol=2**-5 * np.abs(want).max())


def test_compile_errors_raise(tmp_path):
    with pytest.raises(spyre_sim.SpyreError, match="unknown workload|no workload"):
        spyre_sim.compile(str(tmp_path / "out"), workload="nope")
    assert not (tmp_path / "out").exists()


def test_workloads_are_listed():
    workloads = spyre_sim.workloads()
    assert {"softmax", "layernorm", "matmul"} <= set(workloads)


def test_torch_spyre_examples_are_clean():
    for name in ("add", "softmax", "mm", "bmm"):
        assert spyre_sim.check(str(CLI_EXAMPLES / name)) == [], name


def test_check_finds_a_partial_overlap(tmp_path):
    """torch-spyre #3222: softmax's sub output moved onto its own input x."""
    bundle = tmp_path / "softmax"
    shutil.copytree(CLI_EXAMPLES / "softmax", bundle)
    for name in ("sdsc_2.json", "sdsc_3.json"):
        path = bundle / name
        path.chmod(0o644)
        path.write_text(path.read_text().replace('"34816"', '"4096"'))
    hazards = spyre_sim.check(str(bundle))
    assert [h["kind"] for h in hazards] == ["lx_partial_overlap", "lx_partial_overlap"]
    assert hazards[0]["file"] == "sdsc_2.json" and hazards[0]["cores"] == list(range(32))
    assert "over bytes [4096, 34816)" in hazards[0]["detail"]


def test_validate_ranks_measured_splits():
    report = spyre_sim.validate(
        str(SOURCE / "models" / "calibration" / "granite_matmul" / "splits.csv"),
        where=["phase=decode", "op=K/V proj", "lx_fraction=0.2"],
    )
    assert report["summary"]["rows"] == 20
    assert len(report["rows"]) == 20
    assert all(r["simulated_us"] > 0 for r in report["rows"])
    assert {r["between_runs"] for r in report["rows"]} == {"back-to-back"}  # no memset_us column
    with pytest.raises(spyre_sim.SpyreError, match="between_runs"):
        spyre_sim.validate(str(SOURCE / "models" / "calibration" / "granite_matmul" / "splits.csv"), between_runs="x")
    with pytest.raises(spyre_sim.SpyreError, match="where"):
        spyre_sim.validate(str(SOURCE / "models" / "calibration" / "granite_matmul" / "splits.csv"), where=["nope=1"])


def test_validate_runs_sources_and_calibrate_leaves_each_out(tmp_path):
    stages = SOURCE / "models" / "calibration" / "softmax_seed000" / "stages.csv"
    manifest = tmp_path / "sources.json"
    manifest.write_text('{"sources": [{"name": "seed", "tables": ["%s"]}, {"name": "again", "tables": ["%s"]}]}'
                        % (stages, stages))
    report = spyre_sim.validate(str(manifest))
    assert [s["source"] for s in report["sources"]] == ["seed", "again"]
    assert report["sources"][0]["summary"]["rows"] == 5
    fit = spyre_sim.calibrate([str(manifest)], ["launch.bundle_overhead_us=5:20"], str(tmp_path / "fit"),
                              rows_per_source=0)
    assert [f["fit"] for f in fit["fits"]] == ["all sources", "without seed", "without again"]
    assert fit["sources"][0]["left_out"]["rows"] == 5
    assert (tmp_path / "fit" / "arch.json").exists()
    with pytest.raises(spyre_sim.SpyreError, match="--param"):
        spyre_sim.calibrate([str(manifest)], ["nope.param"], str(tmp_path / "fit2"))


def test_sweep_runs_a_grid_and_resumes(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(
        '{"name": "bw", "runs": [{"name": "add", "bundle": "%s"}],'
        ' "axes": [{"key": "lpddr5.read_gbps", "values": [50, 100, 200]}]}' % (CLI_EXAMPLES / "add")
    )
    result = spyre_sim.sweep(str(spec), output=str(tmp_path / "r"), workers=2)
    assert (result["points"], result["ran"], result["failures"]) == (3, 3, [])
    latencies = [row["metrics"]["latency_us"] for row in result["rows"]]
    assert latencies[0] > latencies[1] > latencies[2]  # more bandwidth, less time
    assert [row["values"]["lpddr5.read_gbps"] for row in result["rows"]] == ["50", "100", "200"]
    assert (tmp_path / "r.csv").read_text().startswith("point,run,lpddr5.read_gbps,status,latency_us")
    again = spyre_sim.sweep(str(spec), output=str(tmp_path / "r"))
    assert (again["ran"], again["skipped"]) == (0, 3)
    with pytest.raises(spyre_sim.SpyreError, match=r"\$\.axes\[0\]\.key: unknown key"):
        spec.write_text('{"runs": [{"workload": "exp"}], "axes": [{"key": "nope", "values": [1]}]}')
        spyre_sim.sweep(str(spec), output=str(tmp_path / "bad"))


def test_compile_builds_an_llm_from_its_config(tmp_path):
    """model=CONFIG: the CLI's --model; layers, phase, seq, context as its options."""
    config = str(SOURCE / "models" / "llm" / "granite-3.3-8b.json")
    compiled = spyre_sim.compile(str(tmp_path / "decode"), model=config, layers=1, phase="decode", context=128,
                                 work_division="torch-spyre")
    assert "layers.0.keys" in compiled["decisions"] and "layers.1." not in compiled["decisions"]
    assert "torch-spyre: planner's" in compiled["decisions"]
    report = spyre_sim.run(str(tmp_path / "decode"))["report"]
    assert report["latency_us"] > 0 and report["invariants"]["violated"] == []
    with pytest.raises(spyre_sim.SpyreError, match="model builds the model itself"):
        spyre_sim.compile(str(tmp_path / "x"), model=config, workload="softmax")
    with pytest.raises(spyre_sim.SpyreError, match="--layers: the softmax workload does not take it"):
        spyre_sim.compile(str(tmp_path / "x"), workload="softmax", layers=2)


def test_sampled_run_of_a_model_takes_its_later_layers_timing(tmp_path):
    """sample_repeats=N: run --sample-repeats; the report says which kernels were sampled."""
    config = str(SOURCE / "models" / "llm" / "small.json")
    spyre_sim.compile(str(tmp_path / "p"), model=config, layers=4, phase="prefill", seq=64)
    full = spyre_sim.run(str(tmp_path / "p"))["report"]
    sampled = spyre_sim.run(str(tmp_path / "p"), sample_repeats=2)["report"]
    assert "sampling" not in full
    counts = sampled["sampling"]
    assert counts["repeats"] == 2 and counts["sampled_kernels"] > 0
    assert counts["simulated_kernels"] + counts["sampled_kernels"] == len(full["kernels"])
    taken = [k for k in sampled["kernels"] if "timing_of" in k]
    assert len(taken) == counts["sampled_kernels"]
    files = {k["file"] for k in sampled["kernels"] if "timing_of" not in k}
    assert all(k["timing_of"] in files for k in taken)
    assert abs(sampled["latency_us"] / full["latency_us"] - 1) < 0.02
    assert sampled["invariants"]["violated"] == []
    with pytest.raises(spyre_sim.SpyreError, match="sample_repeats: -1 is negative"):
        spyre_sim.run(str(tmp_path / "p"), sample_repeats=-1)


def test_run_binds_symbolic_dims(tmp_path):
    """dims={"s0": 24}: run --dim; a dim sized by s0 (at most 64 rows) computes 24 of them, and the
    inputs and outputs it sizes have 24 rows; without dims an input's rows bind s0."""
    import json
    spyre_sim.compile(str(tmp_path / "p"), workload="abs", shape=[64, 128], cores=1)
    sdsc = tmp_path / "p" / "sdsc_0.json"
    doc = json.loads(sdsc.read_text())
    top = next(iter(doc.values()))
    body = top["dscs_"][0]["abs"]
    body["dimToSymbolMapping_"] = {"mb": [-1]}
    for level in ("ss_", "el_"):
        body["dataStageParam_"]["0"][level]["symbolicDimInfo_"] = {"mb": {"maxSize_": 64, "granularity_": 8}}
    top["inputSymbolsAndTags_"] = {"-1": "s0"}
    sdsc.write_text(json.dumps(doc))
    x = -np.ones((24, 128), dtype=np.float32)
    result = spyre_sim.run(str(tmp_path / "p"), inputs={"x": x}, dims={"s0": 24})
    y = result["outputs"]["y"]
    assert y.shape == (24, 128) and (y == 1).all()
    assert result["report"]["kernels"][0]["symbolic_dims"][0]["bound"] == 24
    with pytest.raises(spyre_sim.SpyreError, match=r"inputs\['x'\]: shape \(64, 128\) does not match x's shape"):
        spyre_sim.run(str(tmp_path / "p"), inputs={"x": -np.ones((64, 128), dtype=np.float32)}, dims={"s0": 24})
    by_shape = spyre_sim.run(str(tmp_path / "p"), inputs={"x": -np.ones((40, 128), dtype=np.float32)})
    assert by_shape["outputs"]["y"].shape == (40, 128)
    assert by_shape["report"]["kernels"][0]["symbolic_dims"][0]["bound_by"] == "inputs['x']'s shape"
    with pytest.raises(spyre_sim.SpyreError, match="takes a multiple of 8 up to its maximum 64"):
        spyre_sim.run(str(tmp_path / "p"), dims={"s0": 20})


def test_compile_divides_an_llm_over_cards(tmp_path):
    """cards=N: each card's part of the model; run takes the whole inputs, sums over the cards between
    bundles and matches the whole model's reference."""
    config = str(SOURCE / "models" / "llm" / "small.json")
    spyre_sim.compile(str(tmp_path / "out"), model=config, cards=2, emit_io=str(tmp_path / "io"), seq=64)
    result = spyre_sim.run(str(tmp_path / "out"), inputs=load_dir(tmp_path / "io" / "inputs"),
                           expect=str(tmp_path / "io" / "reference"))
    assert result["expect_passed"], result["report"]["expect"]
    cards = result["report"]["cards"]
    assert cards["count"] == 2 and len(cards["collectives"]) == 4
    assert cards["link_sent_bytes"] == cards["link_received_bytes"] > 0
    with pytest.raises(spyre_sim.SpyreError, match="--cards: 3 cards do not divide the attention heads"):
        spyre_sim.compile(str(tmp_path / "x"), model=config, cards=3)
