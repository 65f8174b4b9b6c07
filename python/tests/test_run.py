"""spyre_sim.run on torch-spyre's example kernels, checked against NumPy as a torch-spyre CI job would."""
import numpy as np
import pytest

import spyre_sim
from conftest import CLI_EXAMPLES, dlfloat16


def assert_close(got, want, rtol, atol):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize(
    "example, inputs, reference, rtol, atol",
    [
        ("add", ("arg0", "arg1"), lambda a, b: a + b, 2**-8, 2**-8),
        ("mul", ("arg0", "arg1"), lambda a, b: a * b, 2**-8, 2**-10),
        ("relu", ("arg0",), lambda a: np.maximum(a, 0), 0, 0),
        ("exp", ("arg0",), np.exp, 2**-7, 1e-3),
    ],
)
def test_elementwise_examples_match_numpy(rng, example, inputs, reference, rtol, atol):
    arrays = {name: dlfloat16(rng.uniform(-2, 2, size=(512, 1024))) for name in inputs}
    result = spyre_sim.run(str(CLI_EXAMPLES / example), inputs=arrays)
    assert result["report"]["hazards"] == []
    (output,) = result["outputs"].values()
    assert output.shape == (512, 1024) and output.dtype == np.float32
    assert_close(output, reference(*(arrays[n].astype(np.float64) for n in inputs)), rtol, atol)


def test_softmax_example_matches_numpy(rng):
    x = dlfloat16(rng.uniform(-4, 4, size=(512, 1024)))
    result = spyre_sim.run(str(CLI_EXAMPLES / "softmax"), inputs={"arg0": x})
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert_close(result["outputs"]["arg1"], e / e.sum(axis=1, keepdims=True), 1e-2, 1e-5)
    report = result["report"]
    assert report["latency_us"] > 0
    assert len(report["kernels"]) == 6


def test_mm_example_matches_numpy(rng):
    a = dlfloat16(rng.uniform(-1, 1, size=(512, 1024)))
    b = dlfloat16(rng.uniform(-1, 1, size=(1024, 256)))
    result = spyre_sim.run(str(CLI_EXAMPLES / "mm"), inputs={"arg0": a, "arg1": b})
    assert_close(result["outputs"]["arg2"], a.astype(np.float64) @ b, 1e-2, 0.05)


def test_report_is_the_json_report():
    report = spyre_sim.run(str(CLI_EXAMPLES / "add"))["report"]  # timing only: no values
    for key in ("latency_us", "cycles", "hbm", "lx", "kernels", "engines", "hazards"):
        assert key in report, key
    assert report["hbm"]["read_bytes"] == 2 * 512 * 1024 * 2


def test_between_runs_writes_the_output_back_within_the_run():
    back = spyre_sim.run(str(CLI_EXAMPLES / "add"), warmup=1)["report"]
    displaced = spyre_sim.run(str(CLI_EXAMPLES / "add"), warmup=1, between_runs="device-work")["report"]
    assert (back["between_runs"], displaced["between_runs"]) == ("back-to-back", "device-work")
    assert displaced["latency_us"] > back["latency_us"]
    with pytest.raises(spyre_sim.SpyreError, match="between_runs"):
        spyre_sim.run(str(CLI_EXAMPLES / "add"), between_runs="sometimes")


def test_fill_and_outputs_without_inputs():
    result = spyre_sim.run(str(CLI_EXAMPLES / "add"), fill=1.0)
    assert np.all(result["outputs"]["arg2"] == 2.0)


def test_bad_input_raises_with_the_one_line_message(rng):
    with pytest.raises(spyre_sim.SpyreError, match="no such directory"):
        spyre_sim.run("/no/such/bundle")
    with pytest.raises(spyre_sim.SpyreError, match=r"inputs\['arg0'\]: shape \(3, 4\) does not match"):
        spyre_sim.run(str(CLI_EXAMPLES / "add"), inputs={"arg0": np.zeros((3, 4)), "arg1": np.zeros((512, 1024))})
    with pytest.raises(spyre_sim.SpyreError, match="missing input"):
        spyre_sim.run(str(CLI_EXAMPLES / "add"), inputs={"arg0": np.zeros((512, 1024))})
    with pytest.raises(spyre_sim.SpyreError, match="no such input"):
        spyre_sim.run(str(CLI_EXAMPLES / "relu"), inputs={"x": np.zeros((512, 1024))})
    with pytest.raises(spyre_sim.SpyreError, match="cores"):
        spyre_sim.run(str(CLI_EXAMPLES / "add"), set=["cores=4"])


def test_kernel_cache_runs_each_kernel():
    """torch-spyre's inductor-spyre cache: every kernel, in the wrapper's order, then the total."""
    result = spyre_sim.run(str(CLI_EXAMPLES.parent / "swiglu" / "small_bmm"), fill=0.5)
    names = [k["name"] for k in result["kernels"]]
    assert len(names) >= 2
    assert all(k["report"]["hazards"] == [] for k in result["kernels"])
    assert all(k["outputs"] for k in result["kernels"])
    total = sum(k["report"]["latency_us"] for k in result["kernels"])
    assert result["report"]["total"]["latency_us"] == pytest.approx(total, rel=1e-3)
