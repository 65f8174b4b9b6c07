#!/usr/bin/env python3
"""Writes the hand-written windowed kernels of models/bundles/hand-written/.

No public torch-spyre dump has a conv2d, depthwise conv or avgpool SDSC; these are
written in the form torch-spyre main's codegen gives them (read in its
codegen/superdsc.py and compute_ops.py, 2026-08): the windows in N_.paddingSizes_
(windowDim_, stride_, totalSize_), the activation's allocate node marked
padding_ "padded_fullspan_wunneeded", the dim labels of constants.py
(CONV_DIM_LABELS, CONV2D_DIM_LABELS, POOL_DIM_LABELS) and the shapes of its tests
(test_conv2d_direct_base 1x64x13x13_k3_s2, test_dwise_conv2d_cpu, test_avg_pool2d_base
k2s2). Run it again after changing it: `python3 scripts/hand_written_windowed_kernels.py`.
"""
import json
import os

STICK_ELEMS = 64
ARG_BYTES = 1 << 34  # each argument's region, as torch-spyre's bundles address them
DL16_QUARTER = 29 << 9  # 0.25 in DLFloat16: exponent 29 (bias 31), no fraction


def strides(order, extents, stick):
    """Bytes per unit of each dim, layoutDimOrder_ innermost first (a stick dim in sticks)."""
    out, stride = {}, 128
    for dim in order:
        out[dim] = stride
        stride *= -(-extents[dim] // STICK_ELEMS) if dim == stick else extents[dim]
    return out


def offset(order, extents, stick, coords):
    s = strides(order, extents, stick)
    total = 0
    for dim, c in coords.items():
        if dim == stick:
            total += (c // STICK_ELEMS) * s[dim] + (c % STICK_ELEMS) * 2
        elif dim in s:
            total += c * s[dim]
    return total


def affine(alpha):
    return {"Affine": {"alpha_": alpha, "beta_": 0}}


def kernel(op, unit, dims, slices, cores, primary, tensors, inputs, outputs, windows, per_core_windows=None,
           constants=None):
    """One SDSC. dims: (name, size) in N_ order; cores: core -> work slice; tensors:
    dicts with name, type, extents (whole tensor), windowed origin per core (input
    coordinate of each core's first element) and padding marks."""
    per_core = {d: n // slices.get(d, 1) for d, n in dims}
    stage = {"name_": "core", **{d + "_": n for d, n in per_core.items()}, "paddingSizes_": per_core_windows or {}}
    schedule, labeled = [], []
    for lds, t in enumerate(tensors):
        order, stick = primary[t["type"]]
        node = {
            "nodeType_": "allocate", "name_": f"allocate-Tensor{lds}_hbm", "prev_": "", "ldsIdx_": lds,
            "component_": "hbm", "layoutDimOrder_": order, "maxDimSizes_": [-1] * len(order),
            "startAddressCoreCorelet_": {
                "dim_prop_func": [{"Map": {}}, {"Const": {}}, {"Const": {}}],
                "dim_prop_attr": [{"factor_": len(cores), "label_": "core"}, {"factor_": 1, "label_": "corelet"},
                                  {"factor_": 1, "label_": "time"}],
                "data_": {f"[{core}, 0, 0]": str(lds * ARG_BYTES + offset(order, t["extents"], stick,
                                                                          t["origin"](core)))
                          for core in cores}},
            "coordinates_": {"coreIdToWkSlice_": {}},
        }
        if t.get("padding"):
            node["padding_"] = t["padding"]
        schedule.append(node)
        labeled.append({"ldsIdx_": lds, "dsName_": f"Tensor{lds}", "dsType_": t["type"], "scale_": t["scale"],
                        "wordLength": 2, "dataFormat_": "SEN169_FP16",
                        "memOrg_": {"hbm": {"isPresent": 1}, "lx": {"isPresent": 1}}})
    dsc = {
        "numCoresUsed_": len(cores), "numCoreletsUsed_": 1, "coreIdsUsed_": sorted(cores),
        "N_": {"name_": "n", **{d + "_": n for d, n in dims}, "paddingSizes_": windows},
        "coordinateMasking_": {}, "maskingConstId_": -1,
        "dataStageParam_": {"0": {"ss_": stage, "el_": dict(stage)}},
        "primaryDsInfo_": {name: {"layoutDimOrder_": order, "stickDimOrder_": [stick], "stickSize_": [STICK_ELEMS]}
                           for name, (order, stick) in primary.items()},
        "scheduleTree_": schedule, "labeledDs_": labeled, "constantInfo_": constants or {},
        "computeOp_": [{"exUnit": unit, "opFuncName": op,
                        "attributes_": {"dataFormat_": "SEN169_FP16", "fidelity_": "regular"}, "location": "Inner",
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
    primary = {"INPUT": (["in", "j", "i"], "in"), "KERNEL": (["in", "out", "kj", "ki"], "out"),
               "OUTPUT": (["out", "j", "i"], "out")}
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
    primary = {"OUTPUT": (["out", "i", "j"], "out"), "INPUT": (["out", "ki", "kj"], "out")}
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
    primary = {"OUTPUT": (["out", "mb", "j", "i"], "out")}
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


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "bundles", "hand-written")
    for name, build in (("conv2d_k3_s2", conv2d), ("depthwise_conv2d_k3", depthwise_conv2d),
                        ("avg_pool2d_k2", avg_pool2d)):
        os.makedirs(os.path.join(root, name), exist_ok=True)
        with open(os.path.join(root, name, "sdsc_0.json"), "w") as f:
            json.dump(build(), f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
