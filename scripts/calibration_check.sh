#!/usr/bin/env bash
# Calibration check: the card model beside measured Spyre kernel times.
# Sweep points: ../shared/calibration/add_bcast_sweep_records.csv (torch-spyre
# cost-model sweep, 2026-08: kernel_us_median, fp16, LX planning on); softmax
# rows: seed 000 (via `spyre-sim study softmax-lx`). Prints model, measured and
# the error per point; extra arguments go to compile/run/study (e.g.
# --set lpddr5.latency_ns=300) for what-if fits. docs/calibration.md explains
# the points and what they say.
source "$(dirname "$0")/bench_common.sh"

graph() {  # name a_shape b_shape(or -) op attrs
  local b=""
  [ "$3" != - ] && b=", {\"name\": \"b\", \"shape\": $3, \"dtype\": \"float16\", \"role\": \"input\"}"
  local inputs='["a"]'
  [ "$3" != - ] && inputs='["a", "b"]'
  cat > "$out/$1.json" <<JSON
{"name": "$1", "tensors": [{"name": "a", "shape": $2, "dtype": "float16", "role": "input"}$b, {"name": "y", "role": "output"}],
 "ops": [{"op": "$4", "inputs": $inputs, "outputs": ["y"], "attrs": $5}]}
JSON
}
printf '%-6s %-12s %6s %12s %12s %8s\n' op shape cores model_us measured_us error
# op  rows x cols  cores  measured kernel_us_median
while read -r op rows cols cores measured; do
  case $op in
    add) graph "$op" "[$rows, $cols]" "[$rows, $cols]" add '{}' ;;
    bcast) graph "$op" "[$rows, $cols]" "[1, $cols]" add '{}' ;;
    amax) graph "$op" "[$rows, $cols]" - amax '{"dim": -1, "keepdim": true}' ;;
  esac
  "$bin" compile "$out/$op.json" --cores "$cores" -o "$out/p" --quiet "$@" > /dev/null
  "$bin" run "$out/p" --quiet --warmup 1 --report "$out/r.json" "$@"  # the sweep timed repetitions
  # Kernel time (the sweep measured device kernel time, not the launch).
  model=$(grep -E '"(start|end)_us"' "$out/r.json" | tr -dc '0-9.\n' | paste -sd' ' | awk '{print $2 - $1}')
  printf '%-6s %-12s %6s %12.1f %12.1f %+7.0f%%\n' "$op" "${rows}x${cols}" "$cores" "$model" "$measured" "$(echo "100 * ($model - $measured) / $measured" | bc -l)"
done <<'POINTS'
add 4096 4096 1 1498.853
add 4096 4096 2 1018.37
add 4096 4096 32 875.927
bcast 2048 8192 1 659.97
bcast 2048 8192 4 621.241
bcast 2048 8192 32 568.87
amax 4096 2048 1 971.189
amax 4096 2048 4 268.275
amax 4096 2048 32 132.726
bcast 512 512 32 8.803
bcast 64 2048 32 9.722
bcast 64 16384 32 33.026
bcast 2048 1024 32 64.135
bcast 2048 4096 32 278.988
POINTS
echo
"$bin" study softmax-lx "$@"
