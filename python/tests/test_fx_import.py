"""PyTorch in: modules traced at the aten level, compiled, run on the simulated card and
checked against the same module on the CPU (Debian's python3-torch, the independent reference)."""
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import spyre_sim  # noqa: E402
from spyre_sim import llm  # noqa: E402

# The device computes in DLFloat16 (9 fraction bits: a rounding is within 2^-10 of the
# value); over a whole small model the errors add to a few of those.
DLFLOAT16_TOLERANCE = 2**-8

SMALL = {"hidden_size": 256, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 512,
         "num_hidden_layers": 2, "vocab_size": 512}


@pytest.fixture(scope="module")
def small_model():
    torch.manual_seed(0)
    return llm.DecoderLM(llm.load_config(SMALL)).eval()


@pytest.mark.parametrize("phase, seq, context, cores", [("prefill", 64, 0, 32), ("decode", 1, 64, 8)])
def test_small_llm_matches_its_cpu_logits(tmp_path, small_model, phase, seq, context, cores):
    inputs = llm.example_inputs(small_model, seq, context=context, seed=1)
    compiled = spyre_sim.compile(small_model, inputs, str(tmp_path), cores=cores)
    errors, result = compiled.compare(*inputs)
    assert list(errors) == ["output"]
    assert errors["output"] <= DLFLOAT16_TOLERANCE, (phase, errors)
    logits = result["outputs"]["output"]
    assert np.asarray(logits).shape == (1, seq, SMALL["vocab_size"])
    # The device really computed them: not the reference passed through.
    assert errors["output"] > 0
    assert result["report"]["hazards"] == []
    graph = json.loads((tmp_path / "graph.json").read_text())
    names = {t["name"]: t for t in graph["tensors"]}
    assert names["layers.1.self_attn.q_proj.weight"]["role"] == "weight"
    assert names["layers.1.self_attn.q_proj.weight"]["shape"] == [256, 256]
    assert names["ids"]["role"] == "input" and names["ids"]["dtype"] == "int32"
    assert names["output"]["role"] == "output"
    assert names["embed_tokens.weight"]["role"] == "weight"  # the lookup runs on the card
    assert any(op["op"] == "embedding" for op in graph["ops"])
    past = [n for n in names if n.startswith("past_")]
    assert len(past) == (4 if phase == "decode" else 0)
    assert sum(op["op"] == "cat" for op in graph["ops"]) == (4 if phase == "decode" else 0)


def test_rope_rotation_is_rotate_half():
    x = torch.randn(2, 3, 64)
    half = llm.rotate_half(x)
    assert torch.equal(llm.rotate_half(x, llm.rotation_matrix(64)), half)
    assert torch.equal(half[..., :32], -x[..., 32:])


class Block(torch.nn.Module):
    """Ops a traced module brings beyond the LLM: layer_norm (a tuple op), gelu, split, clamp, sum."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(128)
        self.proj = torch.nn.Linear(128, 256)

    def forward(self, x):
        a, b = self.proj(self.norm(x)).split(128, dim=-1)
        y = torch.nn.functional.gelu(a) * torch.sigmoid(b) - 0.5
        return y.clamp(-1.0, 1.0), y.sum(dim=-1, keepdim=True)


def test_a_block_with_tuple_ops_matches_the_cpu(tmp_path):
    torch.manual_seed(2)
    block = Block()
    x = torch.randn(64, 128)
    compiled = spyre_sim.compile(block, (x,), str(tmp_path), cores=4)
    errors, _ = compiled.compare(x)
    assert set(errors) == {"output_0", "output_1"}
    assert max(errors.values()) <= DLFLOAT16_TOLERANCE, errors
    ops = {op["op"] for op in json.loads((tmp_path / "graph.json").read_text())["ops"]}
    assert {"layer_norm", "addmm", "split", "gelu", "sigmoid", "clamp", "sum"} <= ops


class Unsupported(torch.nn.Module):
    def forward(self, x):
        return torch.sort(x).values + 1


def test_an_aten_op_without_a_graph_op_is_named_with_its_use(tmp_path):
    with pytest.raises(spyre_sim.SpyreError, match=r"no graph op for aten\.sort\.default at 'sort' used by"):
        spyre_sim.compile(Unsupported(), (torch.randn(8, 64),), str(tmp_path))
    assert not (tmp_path / "program").exists()


class Positions(torch.nn.Module):
    """Position arithmetic as Hugging Face models trace it: int64 ids shifted in place,
    compared, divided with floor, cast to float."""

    def forward(self, ids, x):
        ids.add_(3)
        keep = ids <= 500
        return x * ids.float() * keep, ids // 7, ids * 2


def test_integer_tensors_compute_as_torch_spyre_keeps_them(tmp_path):
    ids = torch.randint(0, 1000, (2, 64))
    x = torch.rand(2, 64)
    compiled = spyre_sim.compile(Positions(), (ids.clone(), x), str(tmp_path))
    graph = json.loads((tmp_path / "graph.json").read_text())
    assert {t["name"]: t["dtype"] for t in graph["tensors"] if "dtype" in t}["ids"] == "int32"
    errors, result = compiled.compare(ids.clone(), x)
    assert errors["output_1"] == 0 and errors["output_2"] == 0, errors  # integers exact
    assert errors["output_0"] < 2 ** -8, errors
    ops = [k["op"] for k in result["report"]["kernels"]]
    assert "int32tofp32" in ops and "fp32toint32" in ops


class Lookups(torch.nn.Module):
    """Gathers as Hugging Face models trace them: an embedding of token ids, x[idx] and
    index_select (torch-spyre's indirect access)."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(100, 128)

    def forward(self, ids, x, rows):
        return self.embed(ids) * 2, x[rows], torch.index_select(x, 0, rows), x[:, 0][rows]


def test_gathers_run_as_indirect_access(tmp_path):
    ids, x, rows = torch.randint(0, 100, (1, 41)), torch.randn(16, 64), torch.tensor([3, 0, 15, 3, 7])
    compiled = spyre_sim.compile(Lookups(), (ids, x, rows), str(tmp_path))
    errors, result = compiled.compare(ids, x, rows)
    assert max(errors.values()) < 2 ** -9, errors  # rows copied: only the tables' DLFloat16 rounding
    gathers = [k for k in result["report"]["kernels"] if k["op"] == "identity" and k["cores"] == 1]
    assert len(gathers) >= 4  # the last from a rank-1 table, gathered as [16, 1]
    sdscs = [p.read_text() for p in (tmp_path / "program").rglob("sdsc_*.json")]
    assert sum('"indirectAccessIndexLabeledDs"' in text for text in sdscs) == len(gathers)


class NumberFirst(torch.nn.Module):
    def forward(self, x):
        return torch.add(2, x), torch.mul(0.5, x), 1 - x, 3 / x, 0.25 < x


def test_a_number_as_the_first_operand(tmp_path):
    x = torch.rand(4, 64) + 0.5
    errors, _ = spyre_sim.compile(NumberFirst(), (x,), str(tmp_path)).compare(x)
    assert max(errors.values()) < 2 ** -8, errors


class BoolLogic(torch.nn.Module):
    def forward(self, a, b):
        return (a > 0) | (b > 0), (a > 0) & (b > 0)


def test_bool_or_and_are_the_maximum_and_minimum_of_0_and_1(tmp_path):
    a, b = torch.randn(4, 64), torch.randn(4, 64)
    errors, result = spyre_sim.compile(BoolLogic(), (a, b), str(tmp_path)).compare(a, b)
    assert errors == {"output_0": 0.0, "output_1": 0.0}
    assert {"maximum", "minimum"} <= {k["op"] for k in result["report"]["kernels"]}


class TanhGelu(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.gelu(x, approximate="tanh")


def test_tanh_gelu_runs_as_torch_spyres_gelufwd(tmp_path):
    x = torch.randn(8, 128) * 3
    compiled = spyre_sim.compile(TanhGelu(), (x,), str(tmp_path))
    errors, result = compiled.compare(x)
    assert [k["op"] for k in result["report"]["kernels"]] == ["gelufwd"]
    assert errors["output"] < 2 ** -8, errors  # the erf form against the tanh form, in DLFloat16


def test_a_dtype_without_a_device_format_is_refused_in_one_line(tmp_path):
    with pytest.raises(spyre_sim.SpyreError, match="dtype uint8 has no device format"):
        spyre_sim.compile(Positions(), (torch.tensor([[1, 2]], dtype=torch.uint8), torch.rand(1, 2)), str(tmp_path))


def test_a_graph_path_still_compiles_a_graph(tmp_path):
    with pytest.raises(spyre_sim.SpyreError, match="unknown workload|no workload"):
        spyre_sim.compile(str(tmp_path / "out"), workload="nope")


def _cli(*args):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, env=dict(os.environ),
                          timeout=600)


def test_the_llm_command_line_compiles_a_config_and_compares(tmp_path):
    from conftest import SOURCE

    done = _cli("spyre_sim.llm", str(SOURCE / "models" / "llm" / "small.json"), str(tmp_path), "--phase", "decode",
                "--context", "32", "--cores", "8", "--compare")
    assert done.returncode == 0, done.stderr
    error = float(done.stdout.split("output: max |device - cpu| / max |cpu| = ")[1].split()[0])
    assert 0 < error <= DLFLOAT16_TOLERANCE
    assert "simulated latency" in done.stdout and (tmp_path / "program" / "program.json").is_file()


def test_the_import_command_line_names_a_bad_source(tmp_path):
    source = tmp_path / "make.py"
    source.write_text("import torch\ndef make():\n    return torch.nn.Linear(64, 64), (torch.randn(4, 64),)\n")
    done = _cli("spyre_sim.fx_import", f"{source}:missing", str(tmp_path / "out"))
    assert done.returncode == 1 and done.stderr.strip() == f"error: {source}: no function 'missing'"
    done = _cli("spyre_sim.fx_import", f"{source}:make", str(tmp_path / "out"), "--compare", "--cores", "2")
    assert done.returncode == 0, done.stderr
    assert "output: max |device - cpu|" in done.stdout


class Reductions(torch.nn.Module):
    """Reductions and shape ops a traced module brings, each against the CPU."""

    def forward(self, x):
        y = torch.nn.functional.softplus(x, beta=2.0) + torch.nn.functional.relu6(x)
        norms = torch.linalg.vector_norm(x, dim=-1, keepdim=True) + x.abs().amax(dim=-1, keepdim=True)
        return (y / norms).repeat(2, 1), x.max() - x.min(), x.mean(dim=0)


def test_reductions_and_repeats_match_the_cpu(tmp_path):
    torch.manual_seed(3)
    x = torch.randn(64, 128)
    compiled = spyre_sim.compile(Reductions(), (x,), str(tmp_path), cores=4)
    errors, result = compiled.compare(x)
    assert max(errors.values()) <= DLFLOAT16_TOLERANCE, errors
    assert np.asarray(result["outputs"]["output_0"]).shape == (128, 128)
    ops = {op["op"] for op in json.loads((tmp_path / "graph.json").read_text())["ops"]}
    assert {"softplus", "clamp", "vector_norm", "amax", "repeat", "max", "min", "mean"} <= ops


def test_the_clis_model_builder_matches_the_pytorch_module(tmp_path, small_model):
    """`spyre-sim compile --model small.json` (the C++ graph builder) with the PyTorch module's
    weights gives the module's CPU logits: one model, written twice, agreeing."""
    import pathlib
    import subprocess

    from conftest import SOURCE

    binary = pathlib.Path(spyre_sim.__file__).resolve().parents[2] / "spyre-sim"
    done = subprocess.run([str(binary), "compile", "--model", str(SOURCE / "models" / "llm" / "small.json"), "--seq",
                           "64", "--cores", "8", "--quiet", "-o", str(tmp_path / "program")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    ids, cos, sin, mask = llm.example_inputs(small_model, 64, seed=4)
    inputs = {"ids": ids, "rope.cos": cos, "rope.sin": sin, "mask": mask}
    for name, value in small_model.state_dict().items():
        name = name.replace("self_attn.", "").replace("mlp.", "")
        if "rope_rotation" not in name:
            inputs[name] = value
    result = spyre_sim.run(str(tmp_path / "program"), inputs={k: v.float().numpy() for k, v in inputs.items()})
    with torch.no_grad():
        want = small_model(ids, cos, sin, mask).numpy()
    got = np.asarray(result["outputs"]["logits"]).reshape(want.shape)
    error = np.abs(got - want).max() / np.abs(want).max()
    assert 0 < error <= DLFLOAT16_TOLERANCE


def test_time_by_family_splits_a_models_device_time(tmp_path):
    """scripts/time_by_family.py: every kernel in one family and one layer, the totals the report's."""
    import pathlib
    import subprocess
    import sys

    from conftest import SOURCE

    binary = pathlib.Path(spyre_sim.__file__).resolve().parents[2] / "spyre-sim"
    compiled = subprocess.run([str(binary), "compile", "--workload", "granite", "--layers", "2", "--vocab", "512",
                               "--seq", "64", "--work-division", "default", "-o", str(tmp_path / "program")],
                              capture_output=True, text=True, timeout=600, check=True)
    (tmp_path / "compile.txt").write_text(compiled.stdout)
    subprocess.run([str(binary), "run", str(tmp_path / "program"), "--report", str(tmp_path / "report.json")],
                   capture_output=True, timeout=600, check=True)
    report = json.loads((tmp_path / "report.json").read_text())
    script = str(SOURCE / "scripts" / "time_by_family.py")
    rows = {}
    for by in ("family", "layer"):
        subprocess.run([sys.executable, script, str(tmp_path / "compile.txt"), str(tmp_path / "report.json"), "--by",
                        by, "--csv", str(tmp_path / f"{by}.csv")], capture_output=True, timeout=60, check=True)
        lines = (tmp_path / f"{by}.csv").read_text().splitlines()
        rows[by] = {line.split(",")[0]: [float(v) for v in line.split(",")[1:]] for line in lines[1:]}
        assert sum(r[0] for r in rows[by].values()) == len(report["kernels"])
        kernel_ms = sum(k["end_us"] - k["start_us"] for k in report["kernels"]) / 1000
        assert sum(r[1] for r in rows[by].values()) == pytest.approx(kernel_ms, rel=1e-3)
        for r in rows[by].values():
            assert sum(r[4:]) == pytest.approx(100, abs=0.5)  # the bound shares of its time
    assert {"swiglu_mlp m", "linear q", "scaled_dot_product_attention attn", "linear lm_head"} <= set(rows["family"])
    assert set(rows["layer"]) == {"0", "1", "-"}
    # Identical layers take the same time (layer 0 also restickifies RoPE's tables once).
    assert rows["layer"]["0"][1] == pytest.approx(rows["layer"]["1"][1], rel=0.1)
    bad = subprocess.run([sys.executable, script, str(tmp_path / "report.json"), str(tmp_path / "report.json")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "no Ops table" in bad.stderr


class MaskedScores(torch.nn.Module):
    """Attention-style masking: masked_fill with a number, where with a number branch."""

    def forward(self, scores, keep):
        masked = scores.masked_fill(keep < 0.5, -1e4)
        bias = torch.tensor([0.5, -0.25] * 64)  # a tensor the forward makes: uploaded as a weight
        return torch.softmax(masked, dim=-1) + bias, torch.where(scores > 0, scores, 0.0) * torch.tensor([2.0])


def test_masked_fill_and_where_with_numbers_match_the_cpu(tmp_path):
    torch.manual_seed(5)
    scores, keep = torch.randn(64, 128), (torch.rand(64, 128) > 0.3).float()
    compiled = spyre_sim.compile(MaskedScores(), (scores, keep), str(tmp_path), cores=4)
    errors, _ = compiled.compare(scores, keep)
    assert max(errors.values()) <= DLFLOAT16_TOLERANCE, errors
    graph = json.loads((tmp_path / "graph.json").read_text())
    assert sum(op["op"] == "where" for op in graph["ops"]) == 2
    assert sorted(t["value"] for t in graph["tensors"] if t.get("role") == "constant") == [-1e4, 0.0, 2.0]
    assert [t["shape"] for t in graph["tensors"] if t["name"].startswith("_tensor_constant")] == [[128], [1]]


def test_a_result_that_only_views_an_input_is_copied_out(tmp_path):
    # A lone transpose or index computes nothing on the device; torch still returns its
    # values, so the program copies them into the output (as traced model op lists call them).
    x = torch.rand(1, 8, 64, 128)
    for i, forward in enumerate([lambda x: x.transpose(1, 2), lambda x: x[:, 2:5], lambda x: x.unsqueeze(0)]):
        module = type("View", (torch.nn.Module,), {"forward": lambda self, x, f=forward: f(x)})()
        compiled = spyre_sim.compile(module, (x,), str(tmp_path / str(i)))
        errors, _ = compiled.compare(x)
        assert errors["output"] <= 2**-10, (i, errors)
        ops = [op["op"] for op in json.loads((tmp_path / str(i) / "graph.json").read_text())["ops"]]
        assert ops[-1] == "clone", ops


def test_bool_tensors_are_dlfloat16_zeros_and_ones(tmp_path):
    # torch-spyre keeps bool on the card as SEN169_FP16 0 and 1 (its types_mapping.h).
    class Masked(torch.nn.Module):
        def forward(self, x, mask):
            return torch.where(mask, x, torch.zeros_like(x)) + mask.to(torch.float32) + (x > 0.75).float()

    # Values DLFloat16 holds exactly, none on a comparison's boundary.
    x, mask = (torch.randint(0, 64, (64, 128)) + 0.5) / 64, torch.rand(64, 128) > 0.5
    compiled = spyre_sim.compile(Masked(), (x, mask), str(tmp_path / "where"))
    errors, _ = compiled.compare(x, mask)
    assert errors["output"] <= 2**-9, errors
    graph = json.loads((tmp_path / "where" / "graph.json").read_text())
    assert {t["name"]: t.get("dtype") for t in graph["tensors"]}["mask"] == "float16"

    class ToBool(torch.nn.Module):
        def forward(self, x):
            return (x * 4).floor().to(torch.bool)  # 0 exactly below 0.25, 1 above

    compiled = spyre_sim.compile(ToBool(), (x,), str(tmp_path / "to"))
    errors, _ = compiled.compare(x)
    assert errors["output"] == 0, errors


def test_a_zero_dim_input_is_one_element(tmp_path):
    class Scaled(torch.nn.Module):
        def forward(self, x, s):
            return x * s

    x, s = torch.rand(8, 64), torch.tensor(0.25)
    errors, _ = spyre_sim.compile(Scaled(), (x, s), str(tmp_path)).compare(x, s)
    assert errors["output"] <= 2**-9, errors
    graph = json.loads((tmp_path / "graph.json").read_text())
    assert {t["name"]: t.get("shape") for t in graph["tensors"]}["s"] == [1]


class TopK(torch.nn.Module):
    def forward(self, rows, cols, cube, line):
        return (torch.topk(rows, 4, dim=-1), torch.topk(cols, 8, dim=0), torch.topk(cube, 3, dim=1),
                torch.topk(line, 5))


def test_topk_runs_as_torch_spyres_topkvalue_and_topkindex(tmp_path):
    # Each searched line a shuffle of whole numbers: exact in DLFloat16 and distinct, so the
    # card ranks what the CPU ranks.
    torch.manual_seed(5)
    def distinct(shape, dim):
        return torch.argsort(torch.rand(shape), dim=dim).float() - 20
    inputs = (distinct((16, 100), 1), distinct((40, 24), 0), distinct((4, 50, 3), 1), distinct((70,), 0))
    compiled = spyre_sim.compile(TopK(), inputs, str(tmp_path))
    errors, result = compiled.compare(*inputs)
    assert max(errors.values()) == 0, errors  # values and positions exact
    kernels = [(k["op"], k["cores"]) for k in result["report"]["kernels"] if k["op"].startswith("topk")]
    # k over the fewest cores leaving each at most 4 results (k = 4: 1, k = 8: 2, k = 5: 5), then
    # the other dims as the rule divides them (the 16 and 24 kept elements are one stick each).
    assert kernels == [(op, cores) for cores in (1, 2, 4, 5) for op in ("topkvalue", "topkindex")], kernels
    assert "topk: k over the fewest cores" in compiled.decisions


def test_topk_beyond_what_torch_spyre_compiles_is_refused_in_one_line(tmp_path):
    class Smallest(torch.nn.Module):
        def forward(self, x):
            return torch.topk(x, 2, largest=False)[0]

    class Unsplittable(torch.nn.Module):
        def forward(self, x):
            return torch.topk(x, 35)[0]

    with pytest.raises(spyre_sim.SpyreError, match="largest=False is not supported"):
        spyre_sim.compile(Smallest(), (torch.randn(8, 64),), str(tmp_path / "a"))
    with pytest.raises(spyre_sim.SpyreError, match=r"topk\(k=35\): no divisor of k up to 32 cores"):
        spyre_sim.compile(Unsplittable(), (torch.randn(8, 64),), str(tmp_path / "b"))


class RowUpdate(torch.nn.Module):
    """x[idx] = v as a KV-cache update writes it (aten.index_put_), then a read of the result."""

    def forward(self, cache, slot, rows, line, at, value):
        cache[slot] = rows
        line[at] = value
        return cache * 2.0, line + 1.0


def test_index_put_runs_as_torch_spyres_indirect_scatter(tmp_path):
    torch.manual_seed(3)
    cache, rows = torch.randn(48, 128), torch.randn(6, 128)
    line, value = torch.randn(40), torch.randn(3)
    slot, at = torch.tensor([45, 2, 17, 30, 9, 0]), torch.tensor([39, 4, 11])  # distinct rows, any order
    inputs = (cache, slot, rows, line, at, value)
    want = RowUpdate()(*(t.clone() for t in inputs))
    compiled = spyre_sim.compile(RowUpdate(), tuple(t.clone() for t in inputs), str(tmp_path))
    errors, result = compiled.compare(*(t.clone() for t in inputs))
    assert max(errors.values()) <= DLFLOAT16_TOLERANCE, errors
    outputs = [np.asarray(result["outputs"][name]) for name in sorted(result["outputs"])]
    # The written rows are the new ones: not the old cache passed through.
    assert any(np.allclose(o, want[0].numpy(), atol=0.05) for o in outputs)
    assert not any(np.allclose(o, cache.numpy() * 2.0, atol=0.05) for o in outputs if o.shape == cache.shape)
    kernels = [(k["op"], k["cores"]) for k in result["report"]["kernels"] if k["op"] == "identity"]
    assert (("identity", 1) in kernels), kernels  # the scatter: one core, as torch-spyre pins indirect access
    graph = json.loads((tmp_path / "graph.json").read_text())
    assert sum(op["op"] == "index_put" for op in graph["ops"]) == 2


def test_index_put_along_dim_1_scatters_every_batch_slice(tmp_path):
    class Batched(torch.nn.Module):
        def forward(self, y, idx, src):
            y[:, idx] = src  # aten.index_put_(y, [None, idx], src)
            return y + 0.0

    torch.manual_seed(4)
    y, src, idx = torch.randn(4, 16, 128), torch.randn(4, 6, 128), torch.tensor([15, 3, 8, 0, 11, 6])
    compiled = spyre_sim.compile(Batched(), (y.clone(), idx, src), str(tmp_path))
    errors, result = compiled.compare(y.clone(), idx, src)
    assert max(errors.values()) <= DLFLOAT16_TOLERANCE, errors
    graph = json.loads((tmp_path / "graph.json").read_text())
    assert [op.get("attrs", {}).get("dim") for op in graph["ops"] if op["op"] == "index_put"] == [1]

    class LastDim(torch.nn.Module):
        def forward(self, y, idx, src):
            y[:, :, idx] = src
            return y + 0.0

    with pytest.raises(spyre_sim.SpyreError, match="index_put along the last dim"):
        spyre_sim.compile(LastDim(), (torch.randn(2, 4, 128), torch.tensor([1, 2]), torch.randn(2, 4, 2)),
                          str(tmp_path / "last"))


def test_index_put_beyond_one_row_index_is_refused_in_one_line(tmp_path):
    class Accumulate(torch.nn.Module):
        def forward(self, x, idx, v):
            return torch.index_put(x, (idx,), v, accumulate=True)

    class PartOfIt(torch.nn.Module):  # was compiled as if x were left alone
        def forward(self, x):
            x[:, 64:128].mul_(2.0)
            return x + 0.0

    with pytest.raises(spyre_sim.SpyreError, match="with accumulate"):
        spyre_sim.compile(Accumulate(), (torch.randn(8, 64), torch.tensor([1, 2]), torch.randn(2, 64)),
                          str(tmp_path))
    class ViewReadAfter(torch.nn.Module):  # the view would have kept x's old values
        def forward(self, x):
            v = x.view(4, 512)
            x.mul_(2.0)
            return v + 0.0

    with pytest.raises(spyre_sim.SpyreError, match=r"in place on a view \(slice\).*its base would not see the update"):
        spyre_sim.compile(PartOfIt(), (torch.randn(8, 256),), str(tmp_path / "part"))
    with pytest.raises(spyre_sim.SpyreError, match="whose view 'view' is read after it"):
        spyre_sim.compile(ViewReadAfter(), (torch.randn(8, 256),), str(tmp_path / "view"))


class Rearrangements(torch.nn.Module):
    """torch-spyre's list: flip (index_select gathers), constant_pad_nd (fills and the input
    copied into one output), unfold, bitwise_not of a bool, empty_like, fill_."""

    def forward(self, x, cube):
        padded = torch.nn.functional.pad(x, (0, 3, 2, -1), value=1.5)  # 3 columns after, 2 rows before, 1 cropped
        windows = cube.unfold(1, 4, 2)  # overlapping windows of 4 rows, 2 apart
        blank = torch.empty_like(x).fill_(0.25)
        return torch.flip(cube, [0, 1]), padded, windows * 1.0, torch.bitwise_not(x > 0).float(), blank + x


def test_flip_pad_unfold_and_fills_match_the_cpu(tmp_path):
    torch.manual_seed(7)
    x, cube = torch.randn(8, 64), torch.randn(3, 10, 64)
    compiled = spyre_sim.compile(Rearrangements(), (x, cube), str(tmp_path))
    errors, result = compiled.compare(x, cube)
    assert max(errors.values()) < 2 ** -9, errors  # copies and fills: only DLFloat16 rounding
    assert np.asarray(result["outputs"]["output_1"]).shape == (9, 67)
    assert np.asarray(result["outputs"]["output_2"]).shape == (3, 4, 64, 4)
    # Each reversed dim is a gather on one core, as torch-spyre runs indirect access.
    sdscs = [p.read_text() for p in (tmp_path / "program").rglob("sdsc_*.json")]
    assert sum('"indirectAccessIndexLabeledDs"' in text for text in sdscs) == 2


# torch-spyre's test_flip_cpu param sets (tests/inductor/test_inductor_ops.py, bdc905f): name,
# dims, shape; its two expected failures (stick-dim reversals) are refused here.
TORCH_SPYRE_FLIPS = [("2d_dim_0", [0], (67, 256)), ("2d_dim_neg2", [-2], (67, 256)),
                     ("2d_dim_0_aligned", [0], (64, 256)), ("3d_dim_0", [0], (3, 5, 256)),
                     ("3d_dim_1", [1], (3, 5, 256)), ("3d_dim_0_1", [0, 1], (3, 5, 256)),
                     ("4d_dim_0_2", [0, 2], (2, 3, 5, 256)), ("2d_size1_dim_0", [0], (1, 256)),
                     ("2d_no_dims", [], (67, 256))]


@pytest.mark.parametrize("name, dims, shape", TORCH_SPYRE_FLIPS, ids=[c[0] for c in TORCH_SPYRE_FLIPS])
def test_torch_spyre_flip_cases(tmp_path, name, dims, shape):
    class Flip(torch.nn.Module):
        def forward(self, x):
            return torch.flip(x, dims)

    torch.manual_seed(11)
    x = torch.randn(*shape)
    compiled = spyre_sim.compile(Flip(), (x,), str(tmp_path))
    errors, _ = compiled.compare(x)
    assert max(errors.values()) < 2 ** -9, (name, errors)  # rows copied: only DLFloat16 rounding
    # As spyre_flip: one gather along each reversed dim longer than 1, no moves between them.
    graph = json.loads((tmp_path / "graph.json").read_text())
    reversed_dims = sorted(d % len(shape) for d in dims if shape[d] > 1)
    assert [op["attrs"]["dim"] for op in graph["ops"] if op["op"] == "index_select"] == reversed_dims, name
    assert not any(op["op"] == "permute" for op in graph["ops"]), name


def test_what_the_card_cannot_rearrange_is_refused_in_one_line(tmp_path):
    class FlipLast(torch.nn.Module):
        def forward(self, x):
            return torch.flip(x, [-1])

    class PadInsideAStick(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.pad(x, (3, 0))

    with pytest.raises(spyre_sim.SpyreError, match=r"aten\.flip\.default \(the last \(stick\) dim"):
        spyre_sim.compile(FlipLast(), (torch.randn(8, 64),), str(tmp_path / "a"))
    # torch-spyre's expected failures: 2d_dim_1_stick and 1d_stick.
    with pytest.raises(spyre_sim.SpyreError, match=r"the last \(stick\) dim"):
        spyre_sim.compile(FlipLast(), (torch.randn(67, 256),), str(tmp_path / "c"))
    with pytest.raises(spyre_sim.SpyreError, match=r"the last \(stick\) dim"):
        spyre_sim.compile(FlipLast(), (torch.randn(256),), str(tmp_path / "d"))
    with pytest.raises(spyre_sim.SpyreError, match="must fill whole sticks"):
        spyre_sim.compile(PadInsideAStick(), (torch.randn(8, 64),), str(tmp_path / "b"))


def test_inputs_in_torch_spyres_default_layout_are_restickified_on_the_device(tmp_path):
    class TransposedAdd(torch.nn.Module):
        def forward(self, a, x, w):
            return a.t() + x, x @ w.t()

    a, x, w = torch.randn(256, 128), torch.randn(128, 256), torch.randn(64, 256)
    for layouts, copies in (("consumers", 0), ("default", 2)):  # a.t() and w.t(), as torch-spyre restickifies them
        compiled = spyre_sim.compile(TransposedAdd(), (a, x, w), str(tmp_path / layouts), input_layouts=layouts)
        errors, result = compiled.compare(a, x, w)
        assert max(errors.values()) < 2 ** -7, errors
        assert sum(k["op"] == "ReStickifyOpHBM" for k in result["report"]["kernels"]) == copies, layouts


def test_max_and_min_along_a_dim_give_values_and_positions(tmp_path):
    class Extremes(torch.nn.Module):
        def forward(self, x, y):
            high, low = torch.max(x, dim=1), torch.min(y, dim=0, keepdim=True)
            return high.values, high.indices, low[0], low[1]

    torch.manual_seed(1)
    x = torch.argsort(torch.rand(16, 100), dim=1).float()  # distinct along the dim: one position each
    y = torch.argsort(torch.rand(40, 64), dim=0).float()
    compiled = spyre_sim.compile(Extremes(), (x, y), str(tmp_path))
    errors, result = compiled.compare(x, y)
    assert max(errors.values()) == 0, errors
    ops = [k["op"] for k in result["report"]["kernels"]]
    assert ops.count("topkindex") == 2 and "max" in ops and "min" not in ops  # amin over rows: minnonstick


def test_matmuls_over_a_contraction_inside_a_stick_match_the_cpu(tmp_path):
    """torch-spyre's test_padding.py shapes: K = 67 (and 4) padded on y to whole sticks."""
    class Products(torch.nn.Module):
        def forward(self, x2, w2, x3, w3, x4, w4, sq, xt, yt):
            return (x2 @ w2, torch.bmm(x3, w3), x3 @ w2, x4 @ w4, sq @ sq,
                    torch.matmul(xt.transpose(-1, -2), yt))

    torch.manual_seed(11)
    r = torch.randn
    inputs = (r(55, 67), r(67, 128), r(2, 55, 67), r(2, 67, 128), r(2, 3, 55, 67), r(2, 3, 67, 128), r(67, 67),
              r(2, 4, 4, 256) * 0.1, r(2, 4, 4, 128) * 0.1)
    compiled = spyre_sim.compile(Products(), inputs, str(tmp_path))
    errors, result = compiled.compare(*inputs)
    assert max(errors.values()) < 2 ** -7, errors
    fills = [k for k in result["report"]["kernels"] if k["op"] == "identity"]
    assert len(fills) >= 12  # a copy and a fill of y for each of the 6 products


# torch-spyre's windowed-op tests (tests/inductor/test_inductor_ops.py, bdc905f):
# test_conv2d_direct_base's param sets (N x C x H x W, kernel, stride; C_out 64 unless named),
# then conv2d beyond its direct lowering (padding, dilation, few input channels: its
# im2col path), test_dwise_conv2d_cpu's kind (groups = channels) and test_avg_pool2d_base.
F = torch.nn.functional
WINDOWED_CASES = [
    ("conv_1x64x8x8_k2", lambda x, w: F.conv2d(x, w), ((1, 64, 8, 8), (64, 64, 2, 2))),
    ("conv_1x64x8x8_k3", lambda x, w: F.conv2d(x, w), ((1, 64, 8, 8), (64, 64, 3, 3))),
    ("conv_2x64x8x8_k3", lambda x, w: F.conv2d(x, w), ((2, 64, 8, 8), (64, 64, 3, 3))),
    ("conv_2x64x8x8_k3_bias", lambda x, w, b: F.conv2d(x, w, b), ((2, 64, 8, 8), (64, 64, 3, 3), (64,))),
    ("conv_1x64x8x8_k3_cout32", lambda x, w: F.conv2d(x, w), ((1, 64, 8, 8), (32, 64, 3, 3))),
    ("conv_1x64x8x8_k1x3", lambda x, w: F.conv2d(x, w), ((1, 64, 8, 8), (64, 64, 1, 3))),
    ("conv_1x64x8x8_k3x1", lambda x, w: F.conv2d(x, w), ((1, 64, 8, 8), (64, 64, 3, 1))),
    ("conv_1x64x13x13_k3_s2", lambda x, w: F.conv2d(x, w, stride=2), ((1, 64, 13, 13), (64, 64, 3, 3))),
    ("conv_1x64x17x17_k3_s2", lambda x, w: F.conv2d(x, w, stride=2), ((1, 64, 17, 17), (64, 64, 3, 3))),
    ("conv_1x64x8x9_k3_s2", lambda x, w: F.conv2d(x, w, stride=2), ((1, 64, 8, 9), (64, 64, 3, 3))),
    ("conv_pad1_bias", lambda x, w, b: F.conv2d(x, w, b, padding=1), ((2, 64, 8, 8), (64, 64, 3, 3), (64,))),
    ("conv_dilation2", lambda x, w: F.conv2d(x, w, dilation=2), ((1, 64, 12, 12), (64, 64, 3, 3))),
    ("conv_cin3", lambda x, w: F.conv2d(x, w), ((1, 3, 16, 16), (64, 3, 3, 3))),
    ("dwise_1x64x30x30_k3", lambda x, w: F.conv2d(x, w, groups=64), ((1, 64, 30, 30), (64, 1, 3, 3))),
    ("dwise_8x64_k3_s2_pad1", lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=64),
     ((8, 64, 16, 16), (64, 1, 3, 3))),
    ("dwise_1x3x64x64_k1x3", lambda x, w: F.conv2d(x, w, groups=3), ((1, 3, 64, 64), (3, 1, 1, 3))),
    ("pool_1x3x8x8_k2s2", lambda x: F.avg_pool2d(x, 2, 2), ((1, 3, 8, 8),)),
    ("pool_1x3x24x24_k4s4", lambda x: F.avg_pool2d(x, 4, 4), ((1, 3, 24, 24),)),
    ("pool_2x3x8x8_k2s2", lambda x: F.avg_pool2d(x, 2, 2), ((2, 3, 8, 8),)),
    ("pool_k3s2_overlapping", lambda x: F.avg_pool2d(x, 3, 2), ((1, 64, 9, 9),)),
    ("pool_pad1", lambda x: F.avg_pool2d(x, 2, padding=1), ((1, 64, 8, 8),)),
    ("pool_divisor3", lambda x: F.avg_pool2d(x, 2, divisor_override=3), ((1, 64, 8, 8),)),
]


class _Call(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


@pytest.mark.parametrize("name, fn, shapes", WINDOWED_CASES, ids=[c[0] for c in WINDOWED_CASES])
def test_conv2d_and_avg_pool2d_match_the_cpu(tmp_path, name, fn, shapes):
    torch.manual_seed(5)
    inputs = tuple(torch.randn(*s) * (0.2 if i == 1 else 1.0) for i, s in enumerate(shapes))
    compiled = spyre_sim.compile(_Call(fn), inputs, str(tmp_path))
    errors, result = compiled.compare(*inputs)
    assert errors["output"] <= DLFLOAT16_TOLERANCE, (name, errors)
    ops = {k["op"] for k in result["report"]["kernels"]}
    want = "conv2d" if name.startswith("conv") else "depthwiseconv2dnative" if name.startswith("dwise") else "avgpoolfwd"
    assert want in ops, (name, ops)


def test_windowed_ops_torch_spyre_does_not_run_are_refused(tmp_path):
    x = torch.randn(1, 64, 8, 8)
    with pytest.raises(spyre_sim.SpyreError, match="a transposed convolution"):
        spyre_sim.compile(_Call(lambda x, w: F.conv_transpose2d(x, w)), (x, torch.randn(64, 64, 3, 3)),
                          str(tmp_path / "t"))
    with pytest.raises(spyre_sim.SpyreError, match=r"conv2d with groups 2 and weight \(64, 32, 3, 3\)"):
        spyre_sim.compile(_Call(lambda x, w: F.conv2d(x, w, groups=2)), (x, torch.randn(64, 32, 3, 3)),
                          str(tmp_path / "g"))
    with pytest.raises(spyre_sim.SpyreError, match=r"count_include_pad false"):
        spyre_sim.compile(_Call(lambda x: F.avg_pool2d(x, 2, padding=1, count_include_pad=False)), (x,),
                          str(tmp_path / "p"))


def test_aminmax_is_amin_and_amax(tmp_path):
    x = torch.randn(64, 128)
    compiled = spyre_sim.compile(_Call(lambda x: torch.aminmax(x, dim=-1)), (x,), str(tmp_path))
    errors, result = compiled.compare(x)
    assert max(errors.values()) <= 2 ** -9, errors  # a min and a max: only DLFloat16 rounding
    assert {"min", "max"} <= {k["op"] for k in result["report"]["kernels"]}
