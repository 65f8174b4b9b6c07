#!/usr/bin/env bash
# Benchmark: `spyre-sim validate` on every row of the Granite matmul splits
# (models/calibration/granite_matmul/splits.csv: 263 measured device times,
# every core split of the 12 matmul shapes of a Granite-3.3-8B layer).
# Target: under 2 minutes on a 2-core machine. Prints the wall time and the
# fidelity summary (median |error|, rows within 25%, per-LX-fraction Spearman
# and the measured cost of the model's picks); exits non-zero if the target
# is missed. Extra arguments go to validate (e.g. --set KEY=VALUE).
source "$(dirname "$0")/bench_common.sh"

table=models/calibration/granite_matmul/splits.csv
start=$(date +%s.%N)
"$bin" validate "$table" --quiet --report "$out/validate.json" "$@" > "$out/table.txt"
wall=$(echo "$(date +%s.%N) - $start" | bc -l)
sed -n '/ rows: median/,$p' "$out/table.txt"
printf 'validate wall time: %.1f s (target < 120 s)\n' "$wall"
(( $(echo "$wall < 120" | bc -l) ))
