#!/usr/bin/env bash
# Calibration check: the card model beside measured Spyre kernel times, with
# the built-in arch. Streaming kernels: `spyre-sim validate` on the
# torch-spyre cost-model sweep (models/calibration/add_bcast_sweep/records.csv:
# 247 runnable rows of add, add chains, broadcast adds and amax on 1-32 cores;
# per-op median error); softmax rows: seed 000 (via `spyre-sim study
# softmax-lx`). Extra arguments go to validate and the study (e.g. --set
# lpddr5.latency_ns=300) for what-if fits. docs/calibration.md explains the
# points and what they say; scripts/bench_validate.sh runs the matmul splits.
source "$(dirname "$0")/bench_common.sh"

"$bin" validate models/calibration/add_bcast_sweep/records.csv --quiet --csv "$out/sweep.csv" "$@" |
  sed -n '/^per op:/,$p'
echo
"$bin" study softmax-lx "$@"
