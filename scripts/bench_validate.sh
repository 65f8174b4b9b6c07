#!/usr/bin/env bash
# Benchmark: `spyre-sim validate` on every measured row of every built-in
# source (models/calibration/sources.json: the Granite and GPT-OSS matmul
# splits, the add/bcast sweep and its later families, seed 000's softmax
# stages, the SwiGLU kernels). Target: under 2 minutes on a 2-core machine.
# Prints the wall time and a summary line per source (median |error|, rows
# within 20%, median Spearman of each shape's rows, the measured cost of the
# model's picks over the device-best); exits non-zero if the target is
# missed. Extra arguments go to validate (e.g. --set KEY=VALUE).
source "$(dirname "$0")/bench_common.sh"

start=$(date +%s.%N)
"$bin" validate models/calibration --quiet --report "$out/validate.json" "$@" > "$out/table.txt"
wall=$(echo "$(date +%s.%N) - $start" | bc -l)
sed -n '/^source  /,$p' "$out/table.txt"
printf 'validate wall time: %.1f s (target < 120 s)\n' "$wall"
(( $(echo "$wall < 120" | bc -l) ))
