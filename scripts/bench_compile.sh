#!/usr/bin/env bash
# Benchmark: compile time of the bundled compiler and the simulated latency of
# what it compiles. The headline case is one Granite-3.3-8B decoder layer
# (hidden 4096, 32 heads, 8 KV heads, intermediate 12800) at sequence length
# 512 on 32 cores, with seed 001's rule (--work-division default: the compiler
# alone) and with the model's splits (compile's default: each batchmatmul's
# candidate splits timed on the card model), and on the seq-512 layer with
# every op's division by the model (model-all). Targets on a 2-core machine:
# under 2 s with the rule, under 5 s with either model division; the seq-2048
# layer under 10 s with the model's splits. Prints, per workload and work
# division, the first compile's time (cold: an empty split-time store, every
# candidate the search needs simulated) and the best of two more (warm: the
# times the first kept, as a later compile of the model finds them), the SDSC
# and bundle counts, and the timing-mode run's simulated latency, HBM traffic
# and wall time; exits non-zero if a target is missed (the seq-512 layer's
# targets on its cold compile, the seq-2048 layer's on its warm one).
source "$(dirname "$0")/bench_common.sh"

now() { date +%s.%N; }
json_number() { grep -m1 "\"$1\"" "$2" | tr -dc '0-9.'; }

printf '%-34s %-9s %10s %10s %6s %8s %14s %16s %10s\n' workload division compile_s warm_s sdscs bundles latency_us \
  hbm_bytes run_wall_s
status=0
while read -r name args; do
 for division in default model model-all; do
  # model-all (every op's division timed) on the seq-512 layer and the softmax only: at seq 2048 its
  # attention softmax ops alone are 268 MB tensors, each of their divisions a simulation of seconds.
  if [ "$division" = model-all ] && [ "$name" != granite-decoder-seq512 ] && [ "$name" != softmax-512x1024 ]; then
    continue
  fi
  cold=""
  best=""
  rm -rf "$out/split-times"
  for _ in 1 2 3; do
    start=$(now)
    # shellcheck disable=SC2086
    "$bin" compile $args --work-division "$division" -o "$out/prog" --quiet --decisions "$out/decisions.json" \
      --split-cache "$out/split-times" > /dev/null
    wall=$(echo "$(now) - $start" | bc -l)
    if [ -z "$cold" ]; then
      cold=$wall
    elif [ -z "$best" ] || (( $(echo "$wall < $best" | bc -l) )); then
      best=$wall
    fi
  done
  sdscs=$(grep -c '"sdsc":' "$out/decisions.json")
  bundles=$(grep -c '"dir":' "$out/prog/program.json")
  start=$(now)
  "$bin" run "$out/prog" --quiet --report "$out/report.json"
  run_wall=$(echo "$(now) - $start" | bc -l)
  printf '%-34s %-9s %10.3f %10.3f %6d %8d %14.1f %16d %10.2f\n' "$name" "$division" "$cold" "$best" "$sdscs" \
    "$bundles" "$(json_number latency_us "$out/report.json")" "$(json_number total_bytes "$out/report.json")" \
    "$run_wall"
  target=2.0
  [ "$division" != default ] && target=5.0
  if [ "$name" = granite-decoder-seq512 ] && (( $(echo "$cold >= $target" | bc -l) )); then
    echo "  target missed: the decoder layer took ${cold}s to compile with --work-division $division" \
      "(target < ${target} s)" >&2
    status=1
  fi
  if [ "$name" = granite-decoder-seq2048 ] && [ "$division" = model ] && (( $(echo "$best >= 10" | bc -l) )); then
    echo "  target missed: the seq-2048 layer took ${best}s to compile again with the model's splits (target < 10 s)" >&2
    status=1
  fi
 done
done <<'CASES'
granite-decoder-seq512 --workload decoder --seq 512
granite-decoder-seq2048 --workload decoder --seq 2048
granite-mlp-512 --workload mlp --shape 512x4096x12800
granite-attention-seq512 --workload attention --shape 1x32x512x128 --kv-heads 8
softmax-512x1024 --workload softmax --shape 512x1024
CASES
exit $status
