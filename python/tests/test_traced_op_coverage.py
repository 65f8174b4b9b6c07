"""scripts/traced_op_coverage.py on an op list in torch-spyre's traced-model format (its
tests/resource/models/*_spyre.yaml): each call run through the PyTorch front end alone and
named as compiled, refused (with spyre-sim's reason), a CPU fallback of torch-spyre's, or not
a tensor op."""
import csv
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("yaml")

import spyre_sim  # noqa: E402
from conftest import SOURCE  # noqa: E402

SCRIPT = SOURCE / "scripts" / "traced_op_coverage.py"

# Written for this test in the traced format: one call of each outcome.
CALLS = """\
model: tiny
cases:
  - name: torch.mul.1
    op: torch.mul
    inputs:
      - tensor: {shape: [1, 12, 64], stride: [768, 64, 1], storage_offset: 0, dtype: torch.float16, init: rand}
      - value: 0.5
  - name: torch.transpose.1
    op: torch.transpose
    inputs:
      - tensor: {shape: [1, 12, 8, 64], stride: [6144, 512, 64, 1], storage_offset: 0, dtype: torch.float16,
                 init: rand}
      - value: 1
      - value: 2
  - name: torch.add.1
    op: torch.add
    inputs:
      - tensor: {shape: [12], stride: [1], storage_offset: 0, dtype: torch.int64, init: randint, init_args: {high: 100}}
      - value: 3
  - name: torch.add.2
    op: torch.add
    inputs:
      - tensor: {shape: [12], stride: [1], storage_offset: 0, dtype: torch.uint8, init: randint, init_args: {high: 100}}
      - value: 3
  - name: torch.sin.1
    op: torch.sin
    inputs:
      - tensor: {shape: [1, 12, 64], stride: [768, 64, 1], storage_offset: 0, dtype: torch.float16, init: rand}
  - name: torch.sym_sum.1
    op: torch.sym_sum
    inputs:
      - value: [1, 2]
"""


def test_each_call_is_compiled_refused_or_set_aside(tmp_path):
    listing = tmp_path / "tiny_spyre.yaml"
    listing.write_text(CALLS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, str(SCRIPT), str(listing), "--csv", str(tmp_path / "calls.csv"), "--values"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = {r["case"]: r for r in csv.DictReader(open(tmp_path / "calls.csv"))}
    assert rows["torch.mul.1"]["status"] == "compiled"
    assert rows["torch.transpose.1"]["status"] == "compiled"  # a view: copied out
    assert rows["torch.add.1"]["status"] == "compiled"  # int64, kept as int32 as torch-spyre keeps it
    assert rows["torch.add.2"]["status"] == "refused"
    assert "dtype uint8 has no device format" in rows["torch.add.2"]["reason"]
    assert rows["torch.sin.1"]["status"] == "cpu-fallback"
    assert rows["torch.sym_sum.1"]["status"] == "no tensor op"
    assert "compiled: 3 of the 4 calls spyre-sim could take (75.0%), 50.0% of all calls" in done.stdout
    assert "torch.add: 'tensors_0': dtype uint8 has no device format" in done.stdout


def test_a_file_that_is_not_an_op_list_is_named(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just a list\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, str(SCRIPT), str(bad)], capture_output=True, text=True, env=env)
    assert done.returncode != 0
    assert done.stderr.strip().startswith(f"traced_op_coverage: {bad}: not an op list")
    assert spyre_sim  # the module the script imports is the one under test
