#!/usr/bin/env bash
# Benchmark: the LX planners on the 11 "challenging" MiniMalloc instances
# (models/minimalloc/, Apache-2.0, see PROVENANCE.md). Each solver places
# every buffer; the table gives the packed height over the capacity (1.0000
# means it fits), whether it fits, and the solve time. Target: the strongest
# solver (`best`) fits all 11 at capacity, each within a few seconds (the
# published exact solver takes 0.5-4.5 s here). Exits non-zero if it does not.
# Usage: scripts/bench_minimalloc.sh [solver ...]   (default: all five)
source "$(dirname "$0")/bench_common.sh"
solvers=("$@")
[ ${#solvers[@]} -gt 0 ] || solvers=(greedy firstfit bestfit exact best)

field() { grep -m1 "\"$1\"" "$2" | sed 's/.*: *//; s/,$//'; }

printf '%-9s %-10s %8s %12s %11s %9s %11s\n' solver instance buffers height height/cap feasible solve_ms
status=0
for solver in "${solvers[@]}"; do
  for csv in models/minimalloc/*.csv; do
    name=$(basename "$csv" .csv)
    "$bin" plan "$csv" --solver "$solver" --quiet --report "$out/r.json" --time-limit 60 --timings
    printf '%-9s %-10s %8s %12s %11.4f %9s %11.1f\n' "$solver" "$name" "$(field buffers_total "$out/r.json")" \
      "$(field peak_bytes "$out/r.json")" "$(field peak_over_capacity "$out/r.json")" "$(field feasible "$out/r.json")" "$(field solve_ms "$out/r.json")"
    if [ "$solver" = best ] && [ "$(field feasible "$out/r.json")" != true ]; then
      echo "  target missed: best does not fit $name at capacity" >&2
      status=1
    fi
  done
done
exit $status
