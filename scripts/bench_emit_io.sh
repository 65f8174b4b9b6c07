#!/usr/bin/env bash
# Benchmark: the host reference of `compile --emit-io` at the SwiGLU MLP's
# default shape (128x4096x12800: three 52M-element weights). Compiled with
# seed 001's division, so the time is the reference's (random inputs and
# weights written as .npy, the fp32 reference and the device-storage estimate
# computed from them); targets: under 3 s and 300 MB (max RSS) on a 2-core
# machine. Also prints the same with the model's work division (the CLI's
# default), whose split search adds its own seconds. Exits non-zero if a
# target is missed.
source "$(dirname "$0")/bench_common.sh"

measure() {  # prints "seconds max_rss_kb"
  rm -rf "$out/prog" "$out/io"
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$bin" compile --workload mlp -o "$out/prog" --emit-io "$out/io" \
    --quiet "$@" > /dev/null
  cat "$out/time.txt"
}
read -r wall rss < <(measure --work-division default)
printf 'emit-io, mlp 128x4096x12800, default division: %.2f s, %.0f MB (targets < 3 s, < 300 MB)\n' "$wall" \
  "$(echo "$rss / 1024" | bc -l)"
read -r wall_model rss_model < <(measure)
printf 'the same with the model division (the split search included): %.2f s, %.0f MB\n' "$wall_model" \
  "$(echo "$rss_model / 1024" | bc -l)"
(( $(echo "$wall < 3 && $rss < 300 * 1024" | bc -l) ))
