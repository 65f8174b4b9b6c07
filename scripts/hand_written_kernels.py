#!/usr/bin/env python3
"""Writes the hand-written windowed and FP8 kernels of models/bundles/hand-written/.

No public torch-spyre dump has a conv2d, depthwise conv, avgpool or FP8 weight SDSC;
these are written in the form torch-spyre main's codegen gives them (read in its
codegen/superdsc.py and compute_ops.py, 2026-08):
- windows: N_.paddingSizes_ (windowDim_, stride_, totalSize_), the activation's
  allocate node marked padding_ "padded_fullspan_wunneeded", the dim labels of
  constants.py (CONV_DIM_LABELS, CONV2D_DIM_LABELS, POOL_DIM_LABELS) and the shapes of
  its tests (test_conv2d_direct_base 1x64x13x13_k3_s2, test_dwise_conv2d_cpu,
  test_avg_pool2d_base k2s2);
- FP8 weights: qfp8wt's output and batchmatmulfp8's KERNEL in QFP8WT sticks, the last
  two dims of the layout as the stick (stickDimOrder_ [in, out], stickSize_ [2, 64]:
  two rows of 64 one-byte elements), the contraction never split over cores
  (work_division.py's qfp8wt_matmul_k_pinned), at test_fp8_scaled_mm's 4x128x1024.
Run it again after changing it: `python3 scripts/hand_written_kernels.py`.
"""
import json
import os

STICK_BYTES = 128
FP16, FP8 = ("SEN169_FP16", 2), ("SEN143_FP8", 1)  # dataFormat_, bytes an element
ARG_BYTES = 1 << 34  # each argument's region, as torch-spyre's bundles address them
DL16_QUARTER = 29 << 9  # 0.25 in DLFloat16: exponent 29 (bias 31), no fraction


def stick_units(sticks, elem_bytes):
    """Per stick dim (stickDimOrder_: [dim] or [row dim, dim]): its elements in one stick
    and their byte step. A two-dim stick is two rows of the last dim (QFP8WT's [2, 64])."""
    row = STICK_BYTES // elem_bytes // len(sticks)
    units = {sticks[-1]: (row, elem_bytes)}
    if len(sticks) == 2:
        units[sticks[0]] = (2, row * elem_bytes)
    return units


def offset(order, extents, sticks, elem_bytes, coords):
    """Byte offset of coords, layoutDimOrder_ innermost first, each dim counted in
    its units (sticks or a stick's row pairs for stick dims, elements otherwise)."""
    units = stick_units(sticks, elem_bytes)
    stride, total = STICK_BYTES, 0
    for dim in order:
        per, step = units.get(dim, (1, 0))
        c = coords.get(dim, 0)
        total += (c // per) * stride + (c % per) * step
        stride *= -(-extents[dim] // per)
    return total


def affine(alpha):
    return {"Affine": {"alpha_": alpha, "beta_": 0}}


def kernel(op, unit, dims, slices, cores, primary, tensors, inputs, outputs, windows=None, per_core_windows=None,
           constants=None, op_format="SEN169_FP16"):
    """One SDSC. dims: (name, size) in N_ order; cores: core -> work slice; primary:
    type -> (layoutDimOrder_, stickDimOrder_); tensors: dicts with type, scale,
    extents (whole tensor), origin per core (for a windowed input the input coordinate
    of each core's first element), optional format, padding marks and argument (the
    kernel argument whose region holds it; its ldsIdx_ unless given)."""
    windows = windows or {}
    per_core = {d: n // slices.get(d, 1) for d, n in dims}
    stage = {"name_": "core", **{d + "_": n for d, n in per_core.items()}, "paddingSizes_": per_core_windows or {}}
    schedule, labeled = [], []
    formats = {t["type"]: t.get("format", FP16)[1] for t in tensors}
    for lds, t in enumerate(tensors):
        order, sticks = primary[t["type"]]
        fmt, elem_bytes = t.get("format", FP16)
        node = {
            "nodeType_": "allocate", "name_": f"allocate-Tensor{lds}_hbm", "prev_": "", "ldsIdx_": lds,
            "component_": "hbm", "layoutDimOrder_": order, "maxDimSizes_": [-1] * len(order),
            "startAddressCoreCorelet_": {
                "dim_prop_func": [{"Map": {}}, {"Const": {}}, {"Const": {}}],
                "dim_prop_attr": [{"factor_": len(cores), "label_": "core"}, {"factor_": 1, "label_": "corelet"},
                                  {"factor_": 1, "label_": "time"}],
                "data_": {f"[{core}, 0, 0]": str(t.get("arg", lds) * ARG_BYTES +
                                                 offset(order, t["extents"], sticks, elem_bytes, t["origin"](core)))
                          for core in cores}},
            "coordinates_": {"coreIdToWkSlice_": {}},
        }
        if t.get("padding"):
            node["padding_"] = t["padding"]
        schedule.append(node)
        labeled.append({"ldsIdx_": lds, "dsName_": f"Tensor{lds}", "dsType_": t["type"], "scale_": t["scale"],
                        "wordLength": elem_bytes, "dataFormat_": fmt,
                        "memOrg_": {"hbm": {"isPresent": 1}, "lx": {"isPresent": 1}}})
    dsc = {
        "numCoresUsed_": len(cores), "numCoreletsUsed_": 1, "coreIdsUsed_": sorted(cores),
        "N_": {"name_": "n", **{d + "_": n for d, n in dims}, "paddingSizes_": windows},
        "coordinateMasking_": {}, "maskingConstId_": -1,
        "dataStageParam_": {"0": {"ss_": stage, "el_": dict(stage)}},
        "primaryDsInfo_": {name: {"layoutDimOrder_": order, "stickDimOrder_": sticks,
                                  "stickSize_": [stick_units(sticks, formats[name])[d][0] for d in sticks]}
                           for name, (order, sticks) in primary.items()},
        "scheduleTree_": schedule, "labeledDs_": labeled, "constantInfo_": constants or {},
        "computeOp_": [{"exUnit": unit, "opFuncName": op,
                        "attributes_": {"dataFormat_": op_format, "fidelity_": "regular"}, "location": "Inner",
                        "inputLabeledDs": [f"Tensor{i}-idx{i}" for i in inputs],
                        "outputLabeledDs": [f"Tensor{i}-idx{i}" for i in outputs]}],
    }
    return {f"0_{op}": {
        "coreFoldProp_": {"factor_": len(cores), "label_": "core"},
        "coreletFoldProp_": {"factor_": 1, "label_": "corelet"},
        "numCoresUsed_": len(cores), "coreIdToDsc_": {str(c): 0 for c in cores},
        "numWkSlicesPerDim_": {d: slices.get(d, 1) for d, _ in dims},
        "coreIdToWkSlice_": {str(c): {d: s.get(d, 0) for d, _ in dims} for c, s in cores.items()},
        "coreIdToDscSchedule": {str(c): [[-1, 0, 0, 0]] for c in cores},
        "dscs_": [{op: dsc}]}}


def window(window_dim, stride, total, unneeded=None):
    w = {"padFront_": 0, "padBack_": 0, "totalSize_": total, "stride_": stride, "dilation_": 1,
         "windowDim_": window_dim}
    if unneeded is not None:
        w = {"padFront_": 0, "padBack_": 0, "unneededPad_": unneeded, "unneededPadFront_": 0,
             "unneededPadBack_": unneeded, "totalSize_": total, "stride_": stride, "dilation_": 1,
             "windowDim_": window_dim}
    return w


def conv2d():
    """aten.convolution, x [1, 64, 13, 13] (NHWC), w [128, 64, 3, 3], stride 2: out [1, 128, 6, 6];
    C_out over 2 cores (i and j are not split at stride 2)."""
    dims = [("i", 6), ("j", 6), ("out", 128), ("in", 64), ("ki", 3), ("kj", 3)]
    slices = {"out": 2}
    cores = {0: {"out": 0}, 1: {"out": 1}}
    primary = {"INPUT": (["in", "j", "i"], ["in"]), "KERNEL": (["in", "out", "kj", "ki"], ["out"]),
               "OUTPUT": (["out", "j", "i"], ["out"])}
    padding = {"i": "padded_fullspan_wunneeded", "j": "padded_fullspan_wunneeded"}
    tensors = [
        {"type": "INPUT", "scale": [1, 1, 1], "extents": {"in": 64, "j": 13, "i": 13}, "origin": lambda c: {},
         "padding": padding},
        {"type": "KERNEL", "scale": [1, 1, 1, 1], "extents": {"in": 64, "out": 128, "kj": 3, "ki": 3},
         "origin": lambda c: {"out": 64 * c}},
        {"type": "OUTPUT", "scale": [1, 1, 1], "extents": {"out": 128, "j": 6, "i": 6},
         "origin": lambda c: {"out": 64 * c}},
    ]
    windows = {"i": window("ki", 2, 13), "j": window("kj", 2, 13)}
    return kernel("conv2d", "pt", dims, slices, cores, primary, tensors, [0, 1], [2], windows, windows)


def depthwise_conv2d():
    """spyre.conv2d with groups = channels: x [1, 64, 30, 30], w [64, 1, 3, 3], stride 1:
    out [1, 64, 28, 28]; the output rows over 2 cores, each reading its 14 rows' 16 input rows."""
    dims = [("out", 64), ("i", 28), ("j", 28), ("ki", 3), ("kj", 3)]
    slices = {"i": 2}
    cores = {0: {"i": 0}, 1: {"i": 1}}
    primary = {"OUTPUT": (["out", "i", "j"], ["out"]), "INPUT": (["out", "ki", "kj"], ["out"])}
    padding = {"i": "padded_fullspan_wunneeded", "j": "padded_fullspan_wunneeded"}
    tensors = [
        {"type": "OUTPUT", "scale": [1, 1, 1], "extents": {"out": 64, "i": 30, "j": 30},
         "origin": lambda c: {"i": 14 * c}, "padding": padding},
        {"type": "INPUT", "scale": [1, 1, 1], "extents": {"out": 64, "ki": 3, "kj": 3}, "origin": lambda c: {}},
        {"type": "OUTPUT", "scale": [1, 1, 1], "extents": {"out": 64, "i": 28, "j": 28},
         "origin": lambda c: {"i": 14 * c}},
    ]
    windows = {"i": window("ki", 1, 30, unneeded=0), "j": window("kj", 1, 30, unneeded=0)}
    per_core = {"i": window("ki", 1, 16, unneeded=0), "j": window("kj", 1, 30, unneeded=0)}
    return kernel("depthwiseconv2dnative", "sfp", dims, slices, cores, primary, tensors, [0, 1, 2], [2], windows,
                  per_core)


def avg_pool2d():
    """F.avg_pool2d(x, 2) on x [2, 64, 8, 8] (NHWC): out [2, 64, 4, 4], the batch over 2 cores."""
    dims = [("mb", 2), ("i", 4), ("j", 4), ("out", 64), ("ki", 2), ("kj", 2)]
    slices = {"mb": 2}
    cores = {0: {"mb": 0}, 1: {"mb": 1}}
    primary = {"OUTPUT": (["out", "mb", "j", "i"], ["out"])}
    padding = {"i": "padded_fullspan_wunneeded", "j": "padded_fullspan_wunneeded"}
    tensors = [
        {"type": "OUTPUT", "scale": [1, 1, 1, 1], "extents": {"out": 64, "mb": 2, "j": 8, "i": 8},
         "origin": lambda c: {"mb": c}, "padding": padding},
        {"type": "OUTPUT", "scale": [1, 1, 1, 1], "extents": {"out": 64, "mb": 2, "j": 4, "i": 4},
         "origin": lambda c: {"mb": c}},
    ]
    windows = {"i": window("ki", 2, 8), "j": window("kj", 2, 8)}
    nmap = {"0": {"dataFormat_": "SEN169_FP16", "name_": "nmap", "data_": {
        "dim_prop_func": [{"Const": {}}, {"Const": {}}, {"Map": {}}],
        "dim_prop_attr": [{"factor_": 2, "label_": "core"}, {"factor_": 1, "label_": "corelet"},
                          {"factor_": 1, "label_": "time"}],
        "data_": {"[0, 0, 0]": [str(DL16_QUARTER)]}}}}
    return kernel("avgpoolfwd", "sfp", dims, slices, cores, primary, tensors, [0, 1], [1], windows, windows, nmap)


def qfp8wt_weight(args=(0, 1)):
    """spyre.qfp8wt on a weight w [128, 1024] (fp16 in, FP8 out in QFP8WT sticks: each
    stick rows 2r and 2r + 1 of 64 columns); its 128 rows over 4 cores, 16 row pairs each."""
    dims = [("mb", 128), ("out", 1024)]
    slices = {"mb": 4}
    cores = {c: {"mb": c} for c in range(4)}
    primary = {"KERNEL": (["mb", "out"], ["out"]), "OUTPUT": (["mb", "out"], ["mb", "out"])}
    tensors = [
        {"type": "KERNEL", "scale": [1, 1], "extents": {"mb": 128, "out": 1024}, "origin": lambda c: {"mb": 32 * c},
         "arg": args[0]},
        {"type": "OUTPUT", "scale": [1, 1], "extents": {"mb": 128, "out": 1024}, "origin": lambda c: {"mb": 32 * c},
         "format": FP8, "arg": args[1]},
    ]
    return kernel("qfp8wt", "sfp", dims, slices, cores, primary, tensors, [0], [1], op_format="SEN143_FP8")


def fp8_matmul_qfp8wt(args=(0, 1, 2)):
    """spyre.scaled_mm's batchmatmulfp8: a [4, 128] (FP8, one-dim sticks of 128) times
    w [128, 1024] (FP8 in QFP8WT sticks) into fp16 [4, 1024]; the output columns over 4
    cores (256 each), the contraction whole on every core."""
    dims = [("mb", 4), ("out", 1024), ("in", 128)]
    slices = {"out": 4}
    cores = {c: {"out": c} for c in range(4)}
    primary = {"INPUT": (["mb", "in"], ["in"]), "KERNEL": (["in", "out"], ["in", "out"]),
               "OUTPUT": (["mb", "out"], ["out"])}
    tensors = [
        {"type": "INPUT", "scale": [1, 1], "extents": {"mb": 4, "in": 128}, "origin": lambda c: {}, "format": FP8,
         "arg": args[0]},
        {"type": "KERNEL", "scale": [1, 1], "extents": {"in": 128, "out": 1024}, "origin": lambda c: {"out": 256 * c},
         "format": FP8, "arg": args[1]},
        {"type": "OUTPUT", "scale": [1, 1], "extents": {"mb": 4, "out": 1024}, "origin": lambda c: {"out": 256 * c},
         "arg": args[2]},
    ]
    return kernel("batchmatmulfp8", "pt", dims, slices, cores, primary, tensors, [0, 1], [2])


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "bundles", "hand-written")
    bundles = {
        "conv2d_k3_s2": [conv2d()], "depthwise_conv2d_k3": [depthwise_conv2d()], "avg_pool2d_k2": [avg_pool2d()],
        "qfp8wt_weight": [qfp8wt_weight()], "fp8_matmul_qfp8wt": [fp8_matmul_qfp8wt()],
        # The two together as scaled_mm's device part: the weight quantized (w16 in
        # argument 0, its FP8 sticks in 1), then a (argument 2) times it into 3.
        "fp8_scaled_mm_qfp8wt": [qfp8wt_weight((0, 1)), fp8_matmul_qfp8wt((2, 1, 3))],
    }
    for name, sdscs in bundles.items():
        os.makedirs(os.path.join(root, name), exist_ok=True)
        for i, sdsc in enumerate(sdscs):
            with open(os.path.join(root, name, f"sdsc_{i}.json"), "w") as f:
                json.dump(sdsc, f, indent=1)
                f.write("\n")


if __name__ == "__main__":
    main()
