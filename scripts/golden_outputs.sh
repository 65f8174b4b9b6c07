#!/usr/bin/env bash
# Writes what the program computes for every built-in workload and every example
# bundle into OUT: the compiled bundles, the host references, the simulated
# output values and the run reports. A refactoring that must not change
# behaviour runs this before and after and diffs the two folders:
#   scripts/golden_outputs.sh /tmp/before   (old build)
#   scripts/golden_outputs.sh /tmp/after    (new build)
#   diff -r /tmp/before /tmp/after
# Shapes are small so the whole set runs in a few minutes on 2 cores.
# Usage: scripts/golden_outputs.sh OUT [SPYRE_SIM]
set -euo pipefail
out=${1:?usage: golden_outputs.sh OUT [SPYRE_SIM]}
cd "$(dirname "$0")/.."
sim=${2:-build/spyre-sim}
[ -x "$sim" ] || { echo "golden_outputs.sh: $sim is not built" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out"

# workload -> its compile options (a small shape for each).
declare -A shapes=(
  [sum]="--shape 64x256 --dim 0" [mean]="--shape 64x256 --dim 1" [amax]="--shape 64x256" [amin]="--shape 64x256"
  [prod]="--shape 64x256"
  [softmax]="--shape 64x256" [layernorm]="--shape 64x256" [rmsnorm]="--shape 64x256"
  [matmul]="--shape 128x256x128" [bmm]="--shape 2x64x128x64" [linear]="--shape 64x256x128"
  [mlp]="--shape 64x256x512" [attention]="--shape 1x4x128x64 --kv-heads 2"
  [decoder]="--seq 64 --hidden 256 --heads 4 --kv-heads 2 --intermediate 512"
  [granite]="--layers 2 --seq 64 --hidden 512 --heads 4 --kv-heads 2 --intermediate 512 --vocab 512"
)
unary=$("$sim" compile --list-workloads | sed -n 's/.*; ops: //p' | tr -d ',')
for w in $unary add sub mul div maximum minimum; do shapes[$w]="--shape 64x256"; done

for w in $(printf '%s\n' "${!shapes[@]}" | sort); do
  for planning in "" "--lx-planning"; do
    dir="$out/workload-$w${planning:+-lx}"
    # shellcheck disable=SC2086
    "$sim" compile --workload "$w" ${shapes[$w]} $planning --work-division default -o "$dir/bundle" \
      --emit-io "$dir/io" >"$dir.compile.txt" 2>&1 || echo "exit $?" >>"$dir.compile.txt"
    "$sim" run "$dir/bundle" --inputs "$dir/io/inputs" --outputs "$dir/outputs" --report "$dir/report.json" \
      --quiet >"$dir.run.txt" 2>&1 || echo "exit $?" >>"$dir.run.txt"
  done
done

for bundle in ../shared/examples/torch-spyre/spyre-cli/*/ ../shared/examples/seed-abs/; do
  [ -d "$bundle" ] || continue
  name=$(basename "$bundle")
  dir="$out/example-$name"
  mkdir -p "$dir"
  "$sim" run "$bundle" --fill 1 --outputs "$dir/outputs" --report "$dir/report.json" --quiet >"$dir.run.txt" 2>&1 ||
    echo "exit $?" >>"$dir.run.txt"
done
"$sim" study softmax-lx --shape 128x256 --report "$out/study-softmax-lx.json" >"$out/study-softmax-lx.txt" 2>&1
"$sim" study splits --shape 256x512x256 --csv "$out/study-splits.csv" -j 2 >"$out/study-splits.txt" 2>&1
"$sim" validate models/calibration/softmax_seed000/stages.csv ../shared/examples/torch-spyre/swiglu/MEASURED.csv \
  --csv "$out/validate.csv" -j 2 >"$out/validate.txt" 2>&1

# Paths name OUT, so two folders diff on content alone.
find "$out" \( -name "*.txt" -o -name "*.json" \) -exec sed -i "s|$out|OUT|g" {} +
echo "golden_outputs.sh: wrote $(find "$out" -type f | wc -l) files to $out"
