"""Shared paths: the source tree (SPYRE_SOURCE_DIR, set by ctest) and its models."""
import os
import pathlib

import pytest

SOURCE = pathlib.Path(os.environ.get("SPYRE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BUNDLES = SOURCE / "models" / "bundles"
CLI_EXAMPLES = BUNDLES / "torch-spyre" / "spyre-cli"


def dlfloat16(x):
    """Rounds to DLFloat16's 9 fraction bits (what the device keeps), by way of fp32 bits."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x1FFF) + ((bits >> np.uint32(14)) & np.uint32(1))) & np.uint32(0xFFFFC000)
    return rounded.view(np.float32)


import numpy as np  # noqa: E402  (dlfloat16 above uses it at call time)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
