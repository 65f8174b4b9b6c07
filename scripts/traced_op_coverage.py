#!/usr/bin/env python3
"""How many of the op calls traced from real models compile: torch-spyre's own op lists
(tests/resource/models/*_spyre.yaml in a torch-spyre checkout: each call's torch op, its
tensor inputs' shapes, strides, dtypes and initialisers, its other arguments) run through
spyre-sim's PyTorch front end one call at a time, as a module of that call alone
(spyre_sim.compile: make_fx at the aten level, the graph ops, compile).

    PYTHONPATH=build/python /usr/bin/python3 scripts/traced_op_coverage.py \\
        TORCH_SPYRE/tests/resource/models/*_spyre.yaml [--csv calls.csv] [--values]

Each call ends as one of:
  compiled        the call's module compiled (with --values: and ran, its outputs compared
                  to the module on the CPU within DLFloat16 tolerance, else `wrong values`)
  refused         spyre-sim refused it (the reason is its error's first line)
  cpu-fallback    an op torch-spyre itself runs on the CPU (its supported-operations list)
  not on the CPU  the call does not run on PyTorch's CPU either (no reference to trace)
  no tensor op    neither a tensor in nor a tensor out (Python bookkeeping the trace kept)
Where this PyTorch lacks what a trace calls (Debian's 1.13 has no scaled_dot_product_attention
or rms_norm), the call runs as that op's math (attention: QK^T, scale, mask, softmax, PV).
The summary gives the share compiled of the calls spyre-sim could take (every call but the
last three kinds) and of all calls, per op, and the refusal reasons by count.
"""
import argparse
import ast
import collections
import math
import csv
import operator
import pathlib
import shutil
import sys
import tempfile
import time

# What torch-spyre's supported-operations list runs on the CPU (a fallback, not a Spyre kernel).
CPU_FALLBACK = {
    "torch.arange", "torch.sin", "torch.cos", "torch.tril", "torch.triu", "torch.isin", "torch.bitwise_xor",
    "torch.bitwise_or", "torch.argmax", "torch.argmin", "torch.cumsum", "torch.any", "torch.index_copy",
    "torch.normal_", "torch.uniform_", "torch.random_",
    "torch.or_",  # Python's | on tensors: bitwise_or
}
# Python's operators as traced (torch.getitem is tensor[...]).
OPERATORS = {
    "torch.getitem": operator.getitem, "torch.setitem": operator.setitem, "torch.or_": operator.or_,
    "torch.and_": operator.and_, "torch.floordiv": operator.floordiv, "torch.truediv": operator.truediv,
    "torch.sym_sum": sum,
}
# Tensor methods the traces name without `Tensor.`.
METHODS = {"torch.to", "torch.float", "torch.half", "torch.type_as", "torch.view_as", "torch.add_", "torch.clamp_",
           "torch.index_copy_", "torch.masked_fill_", "torch.masked_scatter", "torch.repeat", "torch.contiguous"}


def math_stand_ins(torch):
    """What the traces call that an older PyTorch (Debian's 1.13) lacks, as its math: the
    call is then traced as the aten ops of that math."""
    def scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                     enable_gqa=False):
        if k.shape[-3] != q.shape[-3]:  # grouped-query attention: each KV head serves q/kv query heads
            group = q.shape[-3] // k.shape[-3]
            k, v = (t.unsqueeze(-3).expand(*t.shape[:-2], group, *t.shape[-2:]).reshape(
                *t.shape[:-3], t.shape[-3] * group, *t.shape[-2:]) for t in (k, v))
        scores = q @ k.transpose(-2, -1) * (scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
        if is_causal:  # a constant of the trace (made outside torch: aten's tril has no graph op)
            rows, cols = q.shape[-2], k.shape[-2]
            above = [[c > r + cols - rows for c in range(cols)] for r in range(rows)]
            scores = scores.masked_fill(torch.tensor(above), torch.finfo(torch.float32).min)
        if attn_mask is not None:
            scores = scores.masked_fill(~attn_mask, torch.finfo(torch.float32).min) if attn_mask.dtype == torch.bool \
                else scores + attn_mask
        return torch.softmax(scores, -1) @ v

    def rms_norm(x, normalized_shape, weight=None, eps=None):
        dims = tuple(range(-len(normalized_shape), 0))
        y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + (eps if eps is not None else 1e-6))
        return y * weight if weight is not None else y

    return {"torch.nn.functional.scaled_dot_product_attention": scaled_dot_product_attention,
            "torch.rms_norm": rms_norm}


def resolve(torch, name):
    stand_ins = math_stand_ins(torch)
    if name in stand_ins and not hasattr(torch.nn.functional if "functional" in name else torch, name.split(".")[-1]):
        return stand_ins[name]
    if name in OPERATORS:
        return OPERATORS[name]
    if name in METHODS:
        return getattr(torch.Tensor, name.split(".", 1)[1])
    if name.startswith("torch.Tensor.") and not hasattr(torch.Tensor, name.split(".")[-1]):
        return OPERATORS.get("torch." + name.split(".")[-1])  # Tensor.truediv: the operator
    target = torch
    for part in name.split(".")[1:]:
        target = getattr(target, part)
    return target


def make_tensor(torch, spec, generator):
    dtype = getattr(torch, spec["dtype"].split(".", 1)[1])
    shape, stride = list(spec["shape"]), list(spec.get("stride") or [])
    if not stride:
        stride = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            stride[i] = stride[i + 1] * max(shape[i + 1], 1)
    offset = int(spec.get("storage_offset") or 0)
    span = offset + 1 + sum((s - 1) * st for s, st in zip(shape, stride) if s > 0)
    init = spec.get("init")
    if init == "randint":
        storage = torch.randint(0, int((spec.get("init_args") or {}).get("high", 2)), (span,), generator=generator)
    elif init in ("rand", "xavier"):
        storage = torch.rand(span, generator=generator)
        if init == "xavier":
            storage = (storage - 0.5) * 0.2
    else:
        storage = torch.zeros(span)
    if dtype == torch.bool:
        storage = storage != 0
    elif dtype.is_floating_point:
        # The CPU reference computes in fp32 (PyTorch's CPU lacks many fp16 kernels); the
        # front end declares fp32 tensors as the device's fp16.
        storage = storage.to(torch.float32)
    else:
        storage = storage.to(dtype)
    return torch.as_strided(storage, shape, stride, offset)


def parse_value(torch, item, generator, tensors):
    """An argument of the call; its tensors appended to `tensors` (the module's inputs)."""
    if "tensor" in item:
        tensors.append(make_tensor(torch, item["tensor"], generator))
        return ("tensor", len(tensors) - 1)
    if "tensor_list" in item:
        out = []
        for t in item["tensor_list"]:
            tensors.append(make_tensor(torch, t.get("tensor", t), generator))
            out.append(("tensor", len(tensors) - 1))
        return ("list", out)
    if "py" in item:
        return ("value", eval(item["py"], {"slice": slice, "Ellipsis": Ellipsis, "None": None}))  # noqa: S307
    return ("value", plain_value(torch, item.get("value")))


def plain_value(torch, value):
    """A traced non-tensor argument: dtypes by name (floating ones as float32: the CPU
    reference computes in fp32, the front end declares it the device's fp16), tuples
    written as text, a CUDA device as the CPU."""
    if isinstance(value, str):
        if value.startswith("torch."):
            value = getattr(torch, value.split(".", 1)[1], value)
            if isinstance(value, torch.dtype) and value.is_floating_point:
                value = torch.float32
            return value
        if value.startswith("cuda"):
            return "cpu"
        if value[:1] in "([":
            try:
                return ast.literal_eval(value)
            except (ValueError, SyntaxError):
                return value
    return value


def build(parsed, tensors):
    kind, value = parsed
    if kind == "tensor":
        return tensors[value]
    if kind == "list":
        return [build(p, tensors) for p in value]
    return value


def make_module(torch, function, args, kwargs):
    class Call(torch.nn.Module):
        def forward(self, *tensors):
            return function(*[build(a, tensors) for a in args], **{k: build(v, tensors) for k, v in kwargs.items()})

    return Call()


def has_tensor(torch, value):
    if isinstance(value, torch.Tensor):
        return True
    return isinstance(value, (list, tuple)) and any(has_tensor(torch, v) for v in value)


def run_case(torch, spyre_sim, case, workdir, check_values):
    op = case["op"]
    if op in CPU_FALLBACK or op.rstrip("_") in CPU_FALLBACK:
        return "cpu-fallback", "torch-spyre runs it on the CPU"
    generator = torch.Generator().manual_seed(0)
    tensors, args, kwargs = [], [], {}
    try:
        for item in case.get("inputs") or []:
            args.append(parse_value(torch, item, generator, tensors))
        for key, value in (case.get("kwmap") or {}).items():
            if key == "device":
                continue
            kwargs[key] = ("value", plain_value(torch, value))
        function = resolve(torch, op)
        module = make_module(torch, function, args, kwargs)
        with torch.no_grad():
            result = module(*[t.clone() for t in tensors])
    except Exception as e:  # noqa: BLE001 - any failure here is the CPU's, not spyre-sim's
        return "not on the CPU", first_line(e)
    if not tensors and not has_tensor(torch, result) or not has_tensor(torch, result):
        return "no tensor op", "no tensor result" if tensors else "no tensor in or out"
    try:
        compiled = spyre_sim.compile(module, [t.clone() for t in tensors], output=workdir, work_division="default")
        if check_values:
            errors, _ = compiled.compare(*[t.clone() for t in tensors])
            worst = max(errors.values()) if errors else 0.0
            if not worst <= 1e-2:
                return "wrong values", f"largest difference {worst:.3g} of the largest magnitude"
    except Exception as e:  # noqa: BLE001 - SpyreError and whatever else the front end raises
        return "refused", first_line(e)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return "compiled", ""


def first_line(error):
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:200]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lists", nargs="+", help="torch-spyre's *_spyre.yaml op lists")
    parser.add_argument("--csv", help="write one line per call here")
    parser.add_argument("--values", action="store_true", help="also run each compiled call and compare its values")
    parser.add_argument("--op", help="only calls of this op (e.g. torch.cat)")
    args = parser.parse_args(argv)
    try:
        import torch
        import yaml

        import spyre_sim
    except ImportError as e:
        sys.exit(f"traced_op_coverage: {e} (PYTHONPATH=build/python, Debian's python3-torch and python3-yaml)")
    rows = []
    fields = ["model", "case", "op", "dtypes", "status", "reason"]
    # One line per call as it ends (a long list keeps what it did if stopped).
    table = open(args.csv, "w", newline="") if args.csv else None
    writer = csv.DictWriter(table, fieldnames=fields) if table else None
    if writer:
        writer.writeheader()
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="spyre_traced_"))
    start = time.time()
    try:
        for path in args.lists:
            try:
                listing = yaml.safe_load(pathlib.Path(path).read_text())
                cases, model = listing["cases"], listing.get("model", pathlib.Path(path).stem)
            except (OSError, yaml.YAMLError, KeyError, TypeError) as e:
                sys.exit(f"traced_op_coverage: {path}: not an op list ({first_line(e)})")
            for case in cases:
                if args.op and case.get("op") != args.op:
                    continue
                status, reason = run_case(torch, spyre_sim, case, scratch / "call", args.values)
                dtypes = sorted({i["tensor"]["dtype"] for i in case.get("inputs") or []
                                 if isinstance(i, dict) and "tensor" in i})
                rows.append({"model": model, "case": case.get("name", ""), "op": case.get("op", ""),
                             "dtypes": " ".join(d.replace("torch.", "") for d in dtypes), "status": status,
                             "reason": reason})
                if writer:
                    writer.writerow(rows[-1])
                    table.flush()
            print(f"{model}: {len(rows)} calls so far, {time.time() - start:.0f} s", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if table:
            table.close()
    report(rows, time.time() - start)


def report(rows, seconds):
    statuses = collections.Counter(r["status"] for r in rows)
    takeable = [r for r in rows if r["status"] in ("compiled", "refused", "wrong values")]
    compiled = statuses["compiled"]
    print(f"{len(rows)} op calls in {seconds:.0f} s: " + ", ".join(f"{n} {s}" for s, n in statuses.most_common()))
    if rows:
        print(f"compiled: {compiled} of the {len(takeable)} calls spyre-sim could take "
              f"({100.0 * compiled / max(len(takeable), 1):.1f}%), {100.0 * compiled / len(rows):.1f}% of all calls")
    by_op = collections.defaultdict(collections.Counter)
    for r in takeable:
        by_op[r["op"]][r["status"]] += 1
    print("\nper op (calls spyre-sim could take): compiled / calls")
    for op, counts in sorted(by_op.items(), key=lambda kv: -sum(kv[1].values())):
        print(f"  {op:55s} {counts['compiled']:4d} / {sum(counts.values()):4d}")
    reasons = collections.Counter((r["op"], r["reason"]) for r in rows if r["status"] in ("refused", "wrong values"))
    if reasons:
        print("\nwhy not (calls, op: reason)")
        for (op, reason), n in reasons.most_common(30):
            print(f"  {n:4d}  {op}: {reason}")


if __name__ == "__main__":
    main()
