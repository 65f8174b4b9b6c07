"""PyTorch in: a torch.nn.Module traced at the aten level (make_fx), mapped to spyre-sim's
model graph (docs/graph-format.md: the registry's torch op names) and compiled.

    import spyre_sim, torch
    compiled = spyre_sim.compile(module, example_inputs, cores=32)
    result = compiled.run(*example_inputs)       # outputs by name, the run report
    compiled.compare(*example_inputs)            # against module(*inputs) on the CPU

Parameters and buffers become graph weights (the host uploads them, as torch-spyre's
runtime does), the forward's tensor arguments graph inputs. Floating-point tensors of
dtype float32 are declared `float_dtype` (float16 by default: the device computes in
DLFloat16; the module on the CPU stays the fp32 reference). An aten op with no graph
op is refused in one line naming each such op and where it is used.
"""
import inspect
import json
import operator
import os
import pathlib
import tempfile

import numpy as np

from ._core import SpyreError
from ._core import compile as _compile_graph
from ._core import run as _run

# aten packets that are the graph op of the same name with one tensor input.
_UNARY = {
    "abs", "neg", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sigmoid", "tanh", "relu", "silu", "floor", "ceil",
    "sign", "logical_not", "mish",
}
# aten packets that are a graph binary op (a tensor and a tensor or a scalar).
_BINARY = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "maximum": "maximum", "minimum": "minimum",
    "eq": "eq", "ne": "ne", "ge": "ge", "le": "le", "gt": "gt", "lt": "lt", "logical_and": "logical_and",
}
# In-place forms (x.add_(y), ...) of these run out of place; later readers of x read the result.
_IN_PLACE = set(_UNARY) | set(_BINARY) | {"clamp", "clamp_min", "clamp_max", "masked_fill", "pow", "floor_divide",
                                          "zero", "fill", "index_put"}
_REDUCTIONS = {"sum": "sum", "mean": "mean", "amax": "amax", "amin": "amin"}
_VIEWS = {"view", "_unsafe_view", "reshape", "_reshape_alias"}
_ALIASES = {"alias", "detach", "lift_fresh_copy", "lift_fresh", "contiguous"}
_MULTI_OUTPUT = {"split", "split_with_sizes", "chunk", "unbind", "native_layer_norm", "topk"}
# Graph ops that are views of their (first) input: the device computes nothing for them.
_GRAPH_VIEWS = {"reshape", "view", "transpose", "permute", "slice", "narrow", "select", "flatten", "unsqueeze",
                "squeeze", "t", "split", "chunk", "unbind", "view_as"}


def _torch():
    try:
        import torch
    except ImportError as error:  # pragma: no cover - the suite skips without it
        raise SpyreError("spyre_sim.compile(module, ...): needs PyTorch (Debian: python3-torch)") from error
    return torch


def _dtype_name(dtype, float_dtype, where):
    torch = _torch()
    # As torch-spyre keeps them on the card (its types_mapping.h): bool as 0 and 1 in DLFloat16,
    # int64 narrowed to int32 (IEEE_INT32; the compiler computes on integers in fp32).
    names = {torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float32: float_dtype, torch.bool: "float16",
             torch.int64: "int32", torch.int32: "int32"}
    if dtype not in names:
        raise SpyreError(f"{where}: dtype {str(dtype).replace('torch.', '')} has no device format (float16, "
                         "bfloat16, float32, int32, int64 and bool tensors only)")
    return names[dtype]


def _input_names(module, count):
    """The forward's argument names; *args as NAME_0, NAME_1, ..."""
    names = []
    for parameter in inspect.signature(module.forward).parameters.values():
        if parameter.kind == parameter.VAR_POSITIONAL:
            names += [f"{parameter.name}_{i}" for i in range(count - len(names))]
            break
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            names.append(parameter.name)
    return (names + [f"arg{i}" for i in range(len(names), count)])[:count]


def trace(module, example_inputs):
    """(GraphModule at the aten level, placeholder names, flat argument values).

    Parameters and buffers are arguments of the traced function (named as in
    module.state_dict()), so they are graph weights rather than constants."""
    torch = _torch()
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.fx.passes.shape_prop import ShapeProp
    from torch.nn.utils import stateless

    example_inputs = tuple(example_inputs)
    for i, value in enumerate(example_inputs):
        if not isinstance(value, torch.Tensor):
            raise SpyreError(f"spyre_sim.compile: example_inputs[{i}] is a {type(value).__name__}, not a tensor")
    state = dict(module.named_parameters())
    state.update(dict(module.named_buffers()))

    def forward(state_values, *inputs):
        return stateless.functional_call(module, state_values, inputs)

    with torch.no_grad():
        graph_module = make_fx(forward)(state, *example_inputs)
    flat = list(state.values()) + list(example_inputs)
    names = list(state.keys()) + _input_names(module, len(example_inputs))
    placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(flat):
        raise SpyreError(f"spyre_sim.compile: the trace has {len(placeholders)} arguments, expected {len(flat)}")
    with torch.no_grad():
        ShapeProp(graph_module).propagate(*flat)
    return graph_module, names, flat, len(state)


class _GraphBuilder:
    """Maps the traced aten graph to the JSON model graph, node by node."""

    def __init__(self, graph_module, float_dtype):
        self.graph_module = graph_module
        self.float_dtype = float_dtype
        self.tensors, self.ops = [], []
        self.value = {}  # fx node -> graph tensor name (tensors) or the Python value
        self.producer = {}  # graph tensor name -> the op dict writing it
        self.unsupported = []
        self.made_weights = {}  # weights the mapping makes (flip's reversed positions): name -> array

    # -- helpers ---------------------------------------------------------------------------
    @staticmethod
    def shape(node):
        meta = node.meta.get("tensor_meta")
        return list(meta.shape) if meta is not None and hasattr(meta, "shape") else None

    def arg(self, a):
        torch = _torch()
        if isinstance(a, torch.fx.Node):
            return self.value[a]
        if isinstance(a, (list, tuple)):
            return [self.arg(x) for x in a]
        return a

    def emit(self, op, inputs, output, attrs=None, outputs=None):
        entry = {"op": op, "inputs": inputs, "outputs": outputs or [output]}
        if attrs:
            entry["attrs"] = attrs
        self.ops.append(entry)
        for name in entry["outputs"]:
            self.producer[name] = entry
        return output

    def refuse(self, node, why=""):
        users = ", ".join(u.name for u in node.users) or "the output"
        self.unsupported.append(f"{node.target}{' (' + why + ')' if why else ''} at '{node.name}' used by {users}")
        return node.name

    # -- nodes -----------------------------------------------------------------------------
    def placeholder(self, node, name, value, role):
        if not node.users:
            return None
        # A 0-d tensor (a traced scalar) as one element: the same values, broadcast alike.
        self.tensors.append({"name": name, "shape": list(value.shape) or [1],
                             "dtype": _dtype_name(value.dtype, self.float_dtype, f"'{name}'"), "role": role})
        return name

    def call(self, node):
        packet = getattr(getattr(node.target, "overloadpacket", None), "__name__", None)
        if packet is None or not (packet.endswith("_") and packet[:-1] in _IN_PLACE):
            return self.call_packet(node, packet)
        # x.add_(y): the op out of place, and x's later readers read its result.
        target = node.args[0]
        fx = _torch().fx
        if isinstance(target, fx.Node) and target.op == "call_function" and isinstance(target.args[0], fx.Node):
            view = getattr(getattr(target.target, "overloadpacket", None), "__name__", None)
            if view in _VIEWS | _GRAPH_VIEWS and self.value.get(target) != self.value.get(target.args[0]):
                return self.refuse(node, f"in place on a view ({view}) of '{target.args[0].name}': its base would "
                                         "not see the update")
        if isinstance(target, fx.Node):
            stale = self.stale_views(node, target)
            if stale:
                return self.refuse(node, f"in place on '{target.name}' whose view '{stale}' is read after it: "
                                         "the view would keep the old values")
        result = self.call_packet(node, packet[:-1])
        if isinstance(target, fx.Node) and result is not None:
            # Every name for the same tensor (a whole-range slice, an alias) reads the result.
            before = self.value.get(target)
            for n, v in list(self.value.items()):
                if isinstance(v, str) and v == before:
                    self.value[n] = result
            self.value[target] = result
        return result

    def stale_views(self, node, target):
        """A view of `target` made before the in-place `node` (its own graph tensor, not the same
        name) and read after it: torch would show it the update, the graph would not. Returns
        its node name, or None."""
        order = {n: i for i, n in enumerate(self.graph_module.graph.nodes)}
        for view in target.users:
            if view is node or order[view] > order[node] or view not in self.value:
                continue
            packet = getattr(getattr(view.target, "overloadpacket", None), "__name__", None)
            if packet not in _VIEWS | _GRAPH_VIEWS or self.value[view] == self.value.get(target):
                continue
            if any(order[user] > order[node] for user in view.users):
                return view.name
        return None

    def call_packet(self, node, packet):
        target = node.target
        if target is operator.getitem:
            source, index = node.args
            pieces = self.value[source]
            if not node.users:
                return None
            if not isinstance(pieces, list) or pieces[index] is None:
                return self.refuse(node, f"item {index} of {source.target}")
            return pieces[index]
        if packet is None:
            return self.refuse(node)
        args = [self.arg(a) for a in node.args]
        kwargs = {k: self.arg(v) for k, v in node.kwargs.items()}
        out = node.name
        shape = self.shape(node)
        if packet in _UNARY:
            return self.emit(packet, [args[0]], out)
        if packet == "gelu":
            # Either form: torch-spyre lowers gelu to the backend's gelufwd whatever its
            # `approximate` (lowering.py lower_gelu drops it), so the tanh form runs as gelufwd.
            return self.emit("gelu", [args[0]], out)
        if packet in _BINARY:
            return self.binary(node, _BINARY[packet], args, kwargs)
        if packet == "floor_divide":
            return self.binary(node, "div", args, {"rounding_mode": "floor"})
        if packet == "rsub":  # other - alpha * x
            scaled = self.binary_scalar("mul", args[0], kwargs.get("alpha", args[2] if len(args) > 2 else 1),
                                        out + "_scaled")
            negated = self.emit("neg", [scaled], out + "_neg")
            return self.emit("add", [negated], out, {"scalar": float(args[1])})
        if packet == "pow":
            if not isinstance(args[1], (int, float)):
                return self.refuse(node, "a tensor exponent")
            return self.emit("pow", [args[0]], out, {"exponent": args[1]})
        if packet in _REDUCTIONS:
            return self.reduction(node, _REDUCTIONS[packet], args, kwargs)
        if packet in ("max", "min") and target.__name__.split(".")[-1] == "default":
            return self.emit(packet, [args[0]], out)  # of the whole tensor (with a dim torch returns indices too)
        if packet in ("max", "min") and target.__name__.split(".")[-1] == "dim":
            return self.extreme_along(node, packet, args, kwargs)
        if packet == "aminmax":  # (min, max): torch-spyre decomposes it into its amin and amax
            names = [f"{node.name}_0", f"{node.name}_1"]
            for name, op in zip(names, ("amin", "amax")):
                self.reduction(node, op, [args[0], kwargs.get("dim"), kwargs.get("keepdim", False)], {}, name)
            return names
        if packet == "prod":
            attrs = {"dim": args[1]} if len(args) > 1 else {}
            if len(args) > 2 and args[2]:
                attrs["keepdim"] = True
            return self.emit("prod", [args[0]], out, attrs)
        if packet == "linalg_vector_norm":
            return self.vector_norm(node, args, kwargs)
        if packet == "softplus":
            return self.emit("softplus", [args[0]], out, {"beta": float(args[1]) if len(args) > 1 else 1.0,
                                                          "threshold": float(args[2]) if len(args) > 2 else 20.0})
        if packet == "repeat":
            return self.emit("repeat", [args[0]], out, {"repeats": list(args[1])})
        if packet == "_softmax":
            return self.emit("softmax", [args[0]], out, {"dim": args[1]})
        if packet in ("mm", "bmm"):
            return self.emit(packet, args[:2], out)
        if packet == "addmm":
            beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
            return self.emit("addmm", args[:3], out, {"beta": beta, "alpha": alpha})
        if packet == "t":
            return self.emit("t", [args[0]], out)
        if packet == "transpose":
            return self.emit("transpose", [args[0]], out, {"dim0": args[1], "dim1": args[2]})
        if packet == "permute":
            return self.emit("permute", [args[0]], out, {"dims": list(args[1])})
        if packet in _VIEWS:
            return self.emit("reshape", [args[0]], out, {"shape": shape})
        if packet == "unsqueeze":
            return self.emit("unsqueeze", [args[0]], out, {"dim": args[1]})
        if packet == "squeeze":
            return self.emit("reshape", [args[0]], out, {"shape": shape})
        if packet == "slice":
            return self.slice(node, args)
        if packet == "select":
            return self.emit("select", [args[0]], out, {"dim": args[1], "index": args[2]})
        if packet == "expand":
            if shape == self.shape(node.args[0]):
                return args[0]  # expand to its own shape: the tensor itself
            return self.emit("expand", [args[0]], out, {"shape": shape})
        if packet == "clone":
            producer = self.producer.get(args[0])
            if producer is not None and producer["op"] == "expand" and len(node.args[0].users) == 1:
                return args[0]  # the expand is already materialized (a copy)
            return self.emit("clone", [args[0]], out)
        if packet in _ALIASES:
            return args[0]
        if packet == "_to_copy":
            dtype = kwargs.get("dtype")
            if dtype is None:
                return args[0]
            torch = _torch()
            source = node.args[0].meta["tensor_meta"].dtype if "tensor_meta" in node.args[0].meta else None
            if dtype == torch.bool and source != torch.bool:  # a number to bool: 1 where it is not 0
                return self.emit("ne", [args[0]], out, {"scalar": 0.0})
            return self.emit("to", [args[0]], out, {"dtype": _dtype_name(dtype, self.float_dtype, node.name)})
        if packet in ("bitwise_or", "logical_or", "bitwise_and") and self.all_bool(node):
            # bools are 0/1 on the card: or is their maximum, and their minimum
            return self.emit("maximum" if packet != "bitwise_and" else "minimum", args[:2], out)
        if packet == "embedding":  # aten's order: the table, then the indices
            return self.emit("embedding", [args[0], args[1]], out)
        if packet == "index_select":
            return self.emit("index_select", [args[0], args[2]], out, {"dim": args[1]})
        if packet == "index":  # x[idx]: one index tensor on dim 0, the rows it names
            indices = args[1]
            if len(indices) != 1 or not isinstance(indices[0], str):
                return self.refuse(node, "indexing other than by one index tensor on dim 0")
            return self.emit("embedding", [args[0], indices[0]], out)
        if packet == "index_put":  # x[idx] = v, y[:, idx] = v: torch-spyre's indirect scatter, one index tensor
            indices = list(args[1])
            at = [d for d, i in enumerate(indices) if i is not None]
            if len(at) != 1 or not isinstance(indices[at[0]], str):
                return self.refuse(node, "writing other than through one index tensor")
            if (args[3] if len(args) > 3 else kwargs.get("accumulate", False)):
                return self.refuse(node, "with accumulate: torch-spyre's scatter replaces rows")
            return self.emit("index_put", [args[0], indices[at[0]], args[2]], out, {"dim": at[0]})
        if packet in ("cat", "stack"):
            return self.emit(packet, list(args[0]), out, {"dim": args[1] if len(args) > 1 else kwargs.get("dim", 0)})
        if packet == "where":  # a Python number for either branch: a one-element constant, broadcast
            return self.emit("where", [args[0]] + [self.scalar_tensor(v, out, i) for i, v in enumerate(args[1:3])],
                             out)
        if packet == "scalar_tensor":  # torch.where's number branch, traced as a 0-d tensor
            return self.scalar_tensor(float(args[0]), out, 0)
        if packet == "masked_fill":  # x where not mask, value where mask
            value = self.scalar_tensor(args[2], out, 1)
            return self.emit("where", [args[1], value, args[0]], out)
        if packet in ("clamp", "clamp_min", "clamp_max", "hardtanh"):
            return self.clamp(node, packet, args, kwargs)
        if packet in ("full", "zeros", "ones", "full_like", "zeros_like", "ones_like", "new_full", "new_zeros",
                      "new_ones", "empty", "empty_like", "new_empty", "zero", "fill"):
            return self.fill(node, packet, args, shape)
        if packet == "bitwise_not":  # torch-spyre's decomposition: logical_not of a bool
            if not self.all_bool(node, 1):
                return self.refuse(node, "of integers: torch-spyre's bitwise_xor runs on the CPU")
            return self.emit("logical_not", [args[0]], out)
        if packet == "flip":
            return self.flip(node, args, shape)
        if packet == "unfold":
            return self.unfold(node, args, shape)
        if packet == "convolution":  # (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
            if args[6]:
                return self.refuse(node, "a transposed convolution")
            if len(self.shape(node.args[0])) != 4:
                return self.refuse(node, "a convolution that is not 2-D on [N, C, H, W]")
            inputs = [args[0], args[1]] + ([args[2]] if args[2] is not None else [])
            return self.emit("conv2d", inputs, out, {"stride": list(args[3]), "padding": list(args[4]),
                                                     "dilation": list(args[5]), "groups": args[8]})
        if packet == "avg_pool2d":
            given = dict(zip(["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                              "divisor_override"], args[1:]), **kwargs)
            attrs = {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in given.items() if v is not None}
            return self.emit("avg_pool2d", [args[0]], out, attrs)
        if packet == "constant_pad_nd":
            return self.emit("constant_pad_nd", [args[0]], out,
                             {"pad": list(args[1]), "value": float(args[2]) if len(args) > 2 else 0.0})
        if packet in _MULTI_OUTPUT:
            return self.multi_output(node, packet, args, kwargs)
        return self.refuse(node)

    @staticmethod
    def all_bool(node, count=2):
        torch = _torch()
        metas = [a.meta.get("tensor_meta") for a in node.args[:count] if isinstance(a, torch.fx.Node)]
        return len(metas) == count and all(m is not None and m.dtype == torch.bool for m in metas)

    def extreme_along(self, node, packet, args, kwargs):
        """torch.max / torch.min with a dim: (values, indices). The values are torch-spyre's
        amax / amin; its argmax / argmin half runs on the CPU, here on the card as the
        position topkindex ranks first (of -x for the minimum; ties: the first position,
        as torch returns it)."""
        x, dim = args[0], args[1]
        keepdim = bool(args[2]) if len(args) > 2 else bool(kwargs.get("keepdim", False))
        names = [f"{node.name}_0", f"{node.name}_1"]
        self.emit("amax" if packet == "max" else "amin", [x], names[0], {"dim": dim, "keepdim": keepdim})
        ranked = x if packet == "max" else self.emit("neg", [x], f"{node.name}_negated")
        first = [f"{node.name}_top", f"{node.name}_at"]
        self.emit("topk", [ranked], first[0], {"k": 1, "dim": dim}, outputs=first)
        if keepdim:
            return [names[0], first[1]]
        dropped = list(self.shape(node.args[0]))
        del dropped[dim % len(dropped)]
        self.emit("reshape", [first[1]], names[1], {"shape": dropped or [1]})
        return names

    def flip(self, node, args, shape):
        """torch-spyre's spyre_flip: each dim reversed by an index_select along it with
        descending positions (a gather; device coordinates only ascend); the last (stick) dim
        is refused, as torch-spyre refuses it."""
        x, rank = args[0], len(shape)
        dims = sorted({d % rank for d in args[1]})
        if rank - 1 in dims and shape[-1] > 1:
            return self.refuse(node, "the last (stick) dim: torch-spyre's flip cannot reverse it")
        for d in (d for d in dims if shape[d] > 1):
            name = f"{node.name}_reversed{d}"
            self.tensors.append({"name": name, "shape": [shape[d]], "dtype": "int32", "role": "weight"})
            self.made_weights[name] = np.arange(shape[d] - 1, -1, -1, dtype=np.float32)
            x = self.emit("index_select", [x, name], f"{node.name}_picked{d}", {"dim": d})
        return self.emit("clone", [x], node.name)

    def unfold(self, node, args, shape):
        """x.unfold(dim, size, step): its windows along dim, each a new last dim. torch-spyre
        reads them through a view; here each window is copied (narrow, stacked), then its
        elements moved last (a view)."""
        x, dim, size, step = args[0], args[1] % (len(shape) - 1), args[2], args[3]
        windows = [self.emit("narrow", [x], f"{node.name}_window{i}", {"dim": dim, "start": i * step,
                                                                          "length": size})
                   for i in range(shape[dim])]
        stacked = self.emit("stack", windows, f"{node.name}_stacked", {"dim": dim})
        order = [i for i in range(len(shape)) if i != dim + 1] + [dim + 1]
        return self.emit("permute", [stacked], node.name, {"dims": order})

    def scalar_tensor(self, value, out, index):
        """A tensor name as it is, a Python number as a one-element constant named after its use."""
        if not isinstance(value, (int, float, bool)):
            return value
        name = f"{out}_scalar{index}"
        self.tensors.append({"name": name, "shape": [1], "dtype": self.float_dtype, "role": "constant",
                             "value": float(value)})
        return name

    def binary_scalar(self, op, tensor, scalar, out):
        if scalar == 1 and op == "mul":
            return tensor
        return self.emit(op, [tensor], out, {"scalar": float(scalar)})

    def binary(self, node, op, args, kwargs, out=None):
        out = out or node.name
        a, b = args[0], args[1]
        rounding = kwargs.get("rounding_mode") if op == "div" else None
        if rounding not in (None, "floor"):
            return self.refuse(node, f"rounding_mode={rounding}")
        if rounding == "floor":  # the quotient, then floor
            quotient = self.binary(node, "div", args, {}, out + "_quotient")
            return self.emit("floor", [quotient], out)
        alpha = kwargs.get("alpha", 1)
        if isinstance(a, (int, float, bool)) and not isinstance(b, (int, float, bool)):
            # A number first (2 + x, 1 - x, 1 / x): the tensor first where the op allows it.
            if alpha != 1:
                b = self.binary_scalar("mul", b, alpha, out + "_alpha")
            mirrored = {"add": "add", "mul": "mul", "maximum": "maximum", "minimum": "minimum", "eq": "eq",
                        "ne": "ne", "lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}
            if op in mirrored:
                return self.emit(mirrored[op], [b], out, {"scalar": float(a)})
            if op == "sub":  # a - b = -b + a
                return self.emit("add", [self.emit("neg", [b], out + "_neg")], out, {"scalar": float(a)})
            if op == "div":  # a / b = a * (1 / b)
                if a == 1:
                    return self.emit("reciprocal", [b], out)
                return self.binary_scalar("mul", self.emit("reciprocal", [b], out + "_reciprocal"), a, out)
            return self.refuse(node, f"a number as the first operand of {op}")
        if alpha != 1:
            b = b * alpha if isinstance(b, (int, float)) else self.binary_scalar("mul", b, alpha, out + "_alpha")
        if isinstance(b, (int, float, bool)):
            return self.emit(op, [a], out, {"scalar": float(b)})
        return self.emit(op, [a, b], out)

    def reduction(self, node, op, args, kwargs, name=None):
        attrs = {}
        dims = args[1] if len(args) > 1 else kwargs.get("dim")
        if dims is not None and dims != []:
            attrs["dim"] = list(dims) if isinstance(dims, (list, tuple)) else dims
        keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        if keepdim:
            attrs["keepdim"] = True
        return self.emit(op, [args[0]], name or node.name, attrs)

    def vector_norm(self, node, args, kwargs):
        order = args[1] if len(args) > 1 else kwargs.get("ord", 2)
        names = {float("inf"): "inf", float("-inf"): "-inf"}
        attrs = {"ord": names.get(float(order), order)}
        dims = args[2] if len(args) > 2 else kwargs.get("dim")
        if dims is not None:
            attrs["dim"] = list(dims) if isinstance(dims, (list, tuple)) else dims
        if (args[3] if len(args) > 3 else kwargs.get("keepdim", False)):
            attrs["keepdim"] = True
        return self.emit("vector_norm", [args[0]], node.name, attrs)

    def slice(self, node, args):
        size = self.shape(node.args[0])
        dim = args[1] if len(args) > 1 else 0
        start = args[2] if len(args) > 2 and args[2] is not None else 0
        end = args[3] if len(args) > 3 and args[3] is not None else size[dim]
        step = args[4] if len(args) > 4 else 1
        if step != 1:
            return self.refuse(node, f"step {step}")
        start, end = (max(0, min(size[dim], v + size[dim] if v < 0 else v)) for v in (start, end))
        if start == 0 and end == size[dim]:
            return args[0]  # the whole dim: the tensor itself
        return self.emit("slice", [args[0]], node.name, {"dim": dim, "start": start, "end": end})

    def clamp(self, node, packet, args, kwargs):
        attrs = {}
        if packet in ("clamp", "hardtanh"):
            low = args[1] if len(args) > 1 else kwargs.get("min")
            high = args[2] if len(args) > 2 else kwargs.get("max")
        else:
            low, high = (args[1], None) if packet == "clamp_min" else (None, args[1])
        if low is not None:
            attrs["min"] = float(low)
        if high is not None:
            attrs["max"] = float(high)
        if any(not isinstance(v, (int, float)) for v in (low, high) if v is not None):
            return self.refuse(node, "tensor bounds")
        return self.emit("clamp", [args[0]], node.name, attrs)

    def fill(self, node, packet, args, shape):
        # empty's values are unspecified: a fill of zeros gives them.
        kind = packet.replace("new_", "").replace("_like", "")
        value = {"zeros": 0.0, "ones": 1.0, "empty": 0.0, "zero": 0.0}.get(kind)
        if packet == "fill":  # x.fill_(v)
            value = args[1]
        if value is None:  # full(size, v), full_like(x, v), new_full(x, size, v)
            value = args[{"full": 1, "full_like": 1, "new_full": 2}[packet]]
        dtype = _dtype_name(node.meta["tensor_meta"].dtype, self.float_dtype, node.name)
        return self.emit("full", [], node.name, {"size": shape, "fill_value": float(value), "dtype": dtype})

    def multi_output(self, node, packet, args, kwargs):
        metas = node.meta.get("tensor_meta")
        count = len(metas) if isinstance(metas, (list, tuple)) else 1
        used = {u.args[1] for u in node.users if u.target is operator.getitem and u.users}
        if packet == "native_layer_norm":
            if used - {0}:
                self.refuse(node, "its mean or rstd read")
                return [node.name] * count
            inputs = [args[0]] + [a for a in args[2:4] if a is not None]
            self.emit("layer_norm", inputs, node.name + "_0", {"eps": args[4]})
            return [node.name + "_0", None, None]
        names = [f"{node.name}_{i}" for i in range(count)]
        if packet == "topk":  # (values, indices): torch-spyre's topkvalue and topkindex
            given = dict(zip(["k", "dim", "largest", "sorted"], args[1:]), **kwargs)
            attrs = {"k": given["k"], "dim": given.get("dim", -1), "largest": bool(given.get("largest", True))}
            self.emit("topk", [args[0]], names[0], attrs, outputs=names)
            return names
        dim = args[2] if len(args) > 2 else kwargs.get("dim", 0)
        if packet == "unbind":
            dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
            attrs = {"dim": dim}
        elif packet == "chunk":
            attrs = {"chunks": args[1], "dim": dim}
        else:
            attrs = {"split_size": list(args[1]) if isinstance(args[1], (list, tuple)) else args[1], "dim": dim}
        self.emit("unbind" if packet == "unbind" else ("chunk" if packet == "chunk" else "split"), [args[0]], names[0],
                  attrs, outputs=names)
        return names

    def constant(self, node, name, value):
        """A tensor the trace holds (torch.tensor(...) in forward): a graph constant when every
        element is one value (the graph's constants are), else a weight the host uploads."""
        array = value.detach().float().numpy()
        entry = {"name": name, "shape": list(array.shape) or [1],
                 "dtype": _dtype_name(value.dtype, self.float_dtype, name)}
        if array.size > 0 and (array == array.reshape(-1)[0]).all():
            entry.update(role="constant", value=float(array.reshape(-1)[0]))
            self.tensors.append(entry)
            return name, None
        entry["role"] = "weight"
        self.tensors.append(entry)
        return name, array.reshape(entry["shape"])


def to_graph(module, example_inputs, name=None, float_dtype="float16"):
    """(graph dict, {weight name: array}, [input names], [output names]) for a module and inputs."""
    graph_module, names, flat, state_count = trace(module, example_inputs)
    builder = _GraphBuilder(graph_module, float_dtype)
    weights, inputs = {}, []
    placeholders = iter(zip(names, flat))
    outputs = []
    for node in graph_module.graph.nodes:
        if node.op == "placeholder":
            arg_name, value = next(placeholders)
            role = "weight" if names.index(arg_name) < state_count else "input"
            builder.value[node] = builder.placeholder(node, arg_name, value, role)
            if builder.value[node] is not None:
                if role == "weight":
                    weights[arg_name] = value.detach().float().numpy()
                else:
                    inputs.append(arg_name)
        elif node.op == "get_attr":
            tensor_name, array = builder.constant(node, node.target, getattr(graph_module, node.target))
            builder.value[node] = tensor_name
            if array is not None:
                weights[tensor_name] = array
        elif node.op == "call_function":
            builder.value[node] = builder.call(node)
        elif node.op == "output":
            results = node.args[0]
            outputs = list(results) if isinstance(results, (list, tuple)) else [results]
        else:
            builder.refuse(node, f"fx node kind {node.op}")
    if builder.unsupported:
        raise SpyreError("spyre_sim.compile: no graph op for " + "; ".join(builder.unsupported))
    weights.update(builder.made_weights)
    output_names = _declare_outputs(builder, outputs)
    graph = {"name": name or type(module).__name__, "tensors": builder.tensors, "ops": builder.ops}
    return graph, weights, inputs, output_names


def _view_of_input(builder, tensor):
    """Whether `tensor` is a graph input, weight or constant, or views of one (no op computes it)."""
    while tensor in builder.producer:
        op = builder.producer[tensor]
        if op["op"] not in _GRAPH_VIEWS:
            return False
        tensor = op["inputs"][0]
    return True


def _declare_outputs(builder, outputs):
    """Names the forward's results output, output_1, ...; a result that is a graph input,
    a weight, a view of one (a lone transpose, an index) or another result is copied, as
    torch returns its values (a graph output is written by its own op)."""
    names = ["output"] if len(outputs) == 1 else [f"output_{i}" for i in range(len(outputs))]
    declared = {t["name"] for t in builder.tensors}
    renamed = {}
    for result, name in zip(outputs, names):
        tensor = builder.value.get(result) if not isinstance(result, (int, float)) else None
        if tensor is None:
            raise SpyreError(f"spyre_sim.compile: the forward's result '{name}' is not a tensor")
        if tensor in declared or tensor in renamed or _view_of_input(builder, tensor):
            builder.emit("clone", [tensor], name)
        else:
            renamed[tensor] = name
        builder.tensors.append({"name": name, "role": "output"})
    for op in builder.ops:
        op["inputs"] = [renamed.get(x, x) for x in op["inputs"]]
        op["outputs"] = [renamed.get(x, x) for x in op["outputs"]]
    return names


class CompiledModule:
    """A module compiled for the simulated card: `run` executes it, `compare` checks it
    against the module on the CPU."""

    def __init__(self, module, directory, graph_path, program, weights, input_names, output_names, decisions):
        self.module, self.directory, self.graph_path, self.program = module, directory, graph_path, program
        self.weights, self.input_names, self.output_names = weights, input_names, output_names
        self.decisions = decisions

    def _inputs(self, inputs):
        torch = _torch()
        values = dict(self.weights)
        names = _input_names(self.module, len(inputs))
        for name, value in zip(names, inputs):
            if name in self.input_names:
                values[name] = value.detach().float().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)
        missing = [n for n in self.input_names if n not in values]
        if missing:
            raise SpyreError(f"CompiledModule.run: inputs {', '.join(missing)} not given")
        return values

    def run(self, *inputs, **run_kwargs):
        """Runs the compiled program on these inputs: {'outputs': {name: array}, 'report': ...}."""
        return _run(self.program, inputs=self._inputs(inputs), **run_kwargs)

    def reference(self, *inputs):
        """The module itself on the CPU: {output name: array}."""
        torch = _torch()
        with torch.no_grad():
            results = self.module(*inputs)
        # Nested results (torch.topk's (values, indices) among them) in the order the trace flattened them.
        results = torch.utils._pytree.tree_flatten(results)[0]
        return {name: r.detach().float().numpy() for name, r in zip(self.output_names, results)}

    def compare(self, *inputs, **run_kwargs):
        """Runs on the simulated card and on the CPU; per output the largest |difference|
        relative to the reference's largest magnitude, and the run result."""
        result = self.run(*inputs, **run_kwargs)
        errors = {}
        for name, want in self.reference(*inputs).items():
            got = np.asarray(result["outputs"][name]).reshape(want.shape)
            errors[name] = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))
        return errors, result


def compile_module(module, example_inputs, output=None, *, name=None, float_dtype="float16", **compile_kwargs):
    """Traces `module` on `example_inputs`, writes its graph (graph.json) and weights (weights/*.npy)
    in OUTPUT (a new temporary folder by default) and compiles it into OUTPUT/program with
    compile_kwargs as spyre_sim.compile takes them (cores, lx_planning, work_division, arch, ...)."""
    module = module.eval()
    graph, weights, input_names, output_names = to_graph(module, example_inputs, name, float_dtype)
    directory = pathlib.Path(output) if output is not None else pathlib.Path(tempfile.mkdtemp(prefix="spyre_sim_"))
    directory.mkdir(parents=True, exist_ok=True)
    graph_path = directory / "graph.json"
    graph_path.write_text(json.dumps(graph, indent=1) + "\n")
    (directory / "weights").mkdir(exist_ok=True)
    for weight_name, array in weights.items():
        np.save(directory / "weights" / f"{weight_name}.npy", array)
    program = directory / "program"
    compiled = _compile_graph(os.fspath(program), graph=os.fspath(graph_path), **compile_kwargs)
    return CompiledModule(module, directory, graph_path, os.fspath(program), weights, input_names, output_names,
                          compiled.get("decisions") if isinstance(compiled, dict) else None)


def _load_source(source):
    """(module, example_inputs) from FILE.py:FUNCTION (its return value) or a torch.save'd
    FILE.pt holding the pair (a tuple, or a dict with 'module' and 'example_inputs')."""
    torch = _torch()
    if ":" in source and source.rsplit(":", 1)[0].endswith(".py"):
        import importlib.util

        path, function = source.rsplit(":", 1)
        spec = importlib.util.spec_from_file_location(pathlib.Path(path).stem, path)
        if spec is None or not pathlib.Path(path).is_file():
            raise SpyreError(f"{path}: no such Python file")
        loaded = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loaded)
        if not hasattr(loaded, function):
            raise SpyreError(f"{path}: no function '{function}'")
        pair = getattr(loaded, function)()
    else:
        if not pathlib.Path(source).is_file():
            raise SpyreError(f"{source}: no such file (FILE.pt or FILE.py:FUNCTION)")
        pair = torch.load(source)
    if isinstance(pair, dict):
        pair = (pair.get("module"), pair.get("example_inputs"))
    if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], torch.nn.Module)):
        raise SpyreError(f"{source}: expected (module, example_inputs)")
    inputs = pair[1] if isinstance(pair[1], (list, tuple)) else (pair[1],)
    return pair[0], tuple(inputs)


def add_compile_arguments(parser):
    parser.add_argument("--cores", type=int, default=0, help="cores (default: the work division's choice)")
    parser.add_argument("--lx-planning", action="store_true", help="plan LX residency (docs/compiler.md)")
    parser.add_argument("--work-division", default="model", help="model or default (seed 001's rule)")
    parser.add_argument("--float-dtype", default="float16", choices=["float16", "bfloat16", "float32"],
                        help="device dtype of the module's float32 tensors (default float16: DLFloat16)")
    parser.add_argument("--arch", default="", help="arch config JSON (default: the built-in card)")
    parser.add_argument("--compare", action="store_true",
                        help="run on the simulated card and on the CPU; print each output's largest difference")


def compile_and_report(module, inputs, args, name=None):
    """What both command lines do after loading a module: compile, then optionally compare."""
    compiled = compile_module(module, inputs, args.output, name=name, float_dtype=args.float_dtype,
                              cores=args.cores, lx_planning=args.lx_planning, work_division=args.work_division,
                              arch=args.arch)
    graph = json.loads(compiled.graph_path.read_text())
    print(f"{compiled.graph_path}: {len(graph['ops'])} ops; program {compiled.program}")
    if args.compare:
        errors, result = compiled.compare(*inputs, arch=args.arch)
        print(f"simulated latency {result['report']['latency_us']:.1f} us")
        for output, error in errors.items():
            print(f"{output}: max |device - cpu| / max |cpu| = {error:.2e}")
    return compiled


def run_command(action):
    """What both command lines return: action()'s SpyreError as one 'error:' line and status 1."""
    import sys

    try:
        action()
    except SpyreError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(
        prog="python3 -m spyre_sim.fx_import",
        description="Trace a PyTorch module at the aten level, map it to a spyre-sim graph and compile it")
    parser.add_argument("source", help="FILE.py:FUNCTION returning (module, example_inputs), or a torch.save'd FILE.pt "
                        "of that pair")
    parser.add_argument("output", help="folder for graph.json, weights/ and the compiled program/")
    add_compile_arguments(parser)
    args = parser.parse_args(argv)
    return run_command(lambda: compile_and_report(*_load_source(args.source), args))


if __name__ == "__main__":
    raise SystemExit(main())
