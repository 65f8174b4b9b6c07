#!/usr/bin/env bash
# Benchmark: a 200-point sweep of small kernels (models/sweeps/small_kernels_200.json:
# the torch-spyre add bundle and a compiled exp, over clock x LPDDR5 read
# bandwidth) with one worker and with two. Target: two workers >= 1.8x the
# speed of one on a 2-core machine. Also measures what this machine allows:
# the same one-worker sweep twice at once, as two independent processes (no
# pool can beat that), so a miss can be told apart from a busy or throttled
# host. Exits non-zero when the target is missed.
source "$(dirname "$0")/bench_common.sh"

spec=models/sweeps/small_kernels_200.json
seconds() { local start=$(date +%s.%N); "$@"; echo "$(date +%s.%N) - $start" | bc -l; }
sweep() { "$bin" sweep "$spec" --output "$out/$1" "${@:2}" >/dev/null 2>&1; }

one=$(seconds sweep one -j 1)
two=$(seconds sweep two -j 2)
pair=$(seconds bash -c "'$bin' sweep '$spec' --output '$out/a' -j 1 >/dev/null 2>&1 &
                        '$bin' sweep '$spec' --output '$out/b' -j 1 >/dev/null 2>&1; wait")
cmp "$out/one.csv" "$out/two.csv"  # the same rows whatever the workers
speedup=$(echo "$one / $two" | bc -l)
ceiling=$(echo "2 * $one / $pair" | bc -l)
printf '200 points: 1 worker %.2f s (%.1f ms/point), 2 workers %.2f s: speedup %.2fx (target >= 1.8x)\n' \
  "$one" "$(echo "$one * 5" | bc -l)" "$two" "$speedup"
printf 'this machine now: two independent 1-worker sweeps at once run at %.2fx the throughput of one\n' "$ceiling"
(( $(echo "$speedup >= 1.8" | bc -l) ))
