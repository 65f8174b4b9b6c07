#!/usr/bin/env bash
# Benchmark: a 32-core add of two 4096x4096 fp16 tensors (about 100 MB of
# LPDDR5 traffic). Target: under 1 s of wall time on a 2-core machine, in
# timing mode and in functional mode. Prints wall time and the simulated
# latency and bandwidth; exits non-zero if a target is missed.
#
# The bundle (models/bundles/synthetic/add_4096x4096) is the torch-spyre add
# dump rescaled by scripts/scale_bundle.py.
source "$(dirname "$0")/bench_common.sh"
bundle=models/bundles/synthetic/add_4096x4096

status=0
for mode in timing functional; do
  args=(run "$bundle" --quiet --report "$out/$mode.json")
  [ "$mode" = functional ] && args+=(--fill 1)
  start=$(date +%s.%N)
  "$bin" "${args[@]}"
  end=$(date +%s.%N)
  wall=$(echo "$end - $start" | bc -l)
  latency=$(grep -m1 '"latency_us"' "$out/$mode.json" | tr -dc '0-9.')
  bytes=$(grep -m1 '"total_bytes"' "$out/$mode.json" | tr -dc '0-9')
  gbps=$(echo "$bytes / ($latency * 1000)" | bc -l)
  printf '%-10s wall %.3f s   simulated latency %.1f us   %d bytes   %.1f GB/s (incl. launch overhead)\n' \
    "$mode" "$wall" "$latency" "$bytes" "$gbps"
  if (( $(echo "$wall >= 1.0" | bc -l) )); then
    echo "  target missed: $mode run took ${wall}s (target < 1 s)" >&2
    status=1
  fi
done
exit $status
