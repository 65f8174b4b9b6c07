#!/usr/bin/env python3
"""Rescales a single-SDSC pointwise torch-spyre dump to a new shape and split.

Used to make models/bundles/synthetic/add_4096x4096 from the torch-spyre add
example (which has symbolic start addresses and no bundle.mlir, so the
simulator derives each core's address from the layout):

  scripts/scale_bundle.py models/bundles/torch-spyre/spyre-cli/add \
      models/bundles/synthetic/add_4096x4096 mb=4096:2 out=4096:16
"""
import json
import os
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    src, dst, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(os.path.join(src, "sdsc_0.json")) as f:
        doc = json.load(f)
    name = next(iter(doc))
    top = doc[name]
    dsc_name = next(iter(top["dscs_"][0]))
    dsc = top["dscs_"][0][dsc_name]
    slices = {}
    for spec in specs:
        dim, rest = spec.split("=")
        size, parts = (int(x) for x in rest.split(":"))
        slices[dim] = parts
        dsc["N_"][dim + "_"] = size
        for key in ("ss_", "el_"):
            dsc["dataStageParam_"]["0"][key][dim + "_"] = size // parts
    cores = 1
    for parts in slices.values():
        cores *= parts
    dims = list(slices)
    mapping = {}
    for core in range(cores):
        rest, slot = core, {}
        for dim in dims:  # first dim varies fastest, as torch-spyre numbers cores
            slot[dim] = rest % slices[dim]
            rest //= slices[dim]
        mapping[str(core)] = slot
    top["numCoresUsed_"] = dsc["numCoresUsed_"] = cores
    top["coreFoldProp_"]["factor_"] = cores
    top["numWkSlicesPerDim_"] = slices
    top["coreIdToWkSlice_"] = mapping
    dsc["coreIdsUsed_"] = list(range(cores))
    symbol = 1
    for node in dsc["scheduleTree_"]:
        node["startAddressCoreCorelet_"]["dim_prop_attr"][0]["factor_"] = cores
        node["startAddressCoreCorelet_"]["data_"] = {"[%d, 0, 0]" % c: str(-(symbol + c)) for c in range(cores)}
        symbol += cores
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(dst, "sdsc_0.json"), "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
