#!/usr/bin/env bash
# Checks that dependencies point down the layers of docs/architecture.md:
#   runtime <- compiler
#   runtime <- sim/schedule <- sim/hw <- sim/report
#   runtime <- sim/functional, sim/checks
#   sim/* <- sim (simulate, run)  ;  sim, compiler <- studies  ;  all <- cli
# Two views of the same rule: every #include of a project header, and every
# target_link_libraries of a project library. Prints each violation; exit 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."

# Layer -> the layers its code may include (its own is always allowed).
allowed() {
  case "$1" in
    runtime) echo "" ;;
    compiler) echo "runtime" ;;
    sim/schedule) echo "runtime" ;;
    sim/hw) echo "runtime sim/schedule" ;;
    sim/functional | sim/checks) echo "runtime" ;;
    sim/report) echo "runtime sim/schedule sim/hw" ;;
    sim) echo "runtime sim/schedule sim/hw sim/functional sim/checks sim/report" ;;
    studies) echo "runtime compiler sim sim/schedule sim/hw sim/functional sim/checks sim/report" ;;
    cli) echo "runtime compiler sim sim/schedule sim/hw sim/functional sim/checks sim/report studies" ;;
    *) echo "?" ;;
  esac
}

# Layer -> its library.
library_of() {
  case "$1" in
    runtime) echo spyre_runtime ;;
    compiler) echo spyre_compiler ;;
    sim) echo spyre_sim ;;
    sim/*) echo "spyre_sim_${1#sim/}" ;;
    studies) echo spyre_studies ;;
    cli) echo spyre-sim ;;
  esac
}

violations=0
layers="runtime compiler sim/schedule sim/hw sim/functional sim/checks sim/report sim studies cli"
for layer in $layers; do
  ok=" $layer $(allowed "$layer") "
  # Includes.
  for f in "$layer"/*.h "$layer"/*.cpp; do
    [ -e "$f" ] || continue
    while IFS= read -r inc; do
      target=${inc%/*}
      case "$ok" in
        *" $target "*) ;;
        *)
          echo "$f: includes \"$inc\": $layer may not depend on $target"
          violations=$((violations + 1))
          ;;
      esac
    done < <(sed -n 's/^#include "\(\(runtime\|compiler\|sim\|studies\|cli\)\/[^"]*\)".*/\1/p' "$f")
  done
  # Libraries linked.
  allowed_libs=" "
  for l in $ok; do allowed_libs="$allowed_libs$(library_of "$l") "; done
  for lib in $(sed -n 's/.*target_link_libraries([^ ]* \(PUBLIC\|PRIVATE\|INTERFACE\) \(.*\))/\2/p' "$layer/CMakeLists.txt" | tr ' ' '\n' | grep '^spyre_' || true); do
    case "$allowed_libs spyre_systemc " in
      *" $lib "*) ;;
      *)
        echo "$layer/CMakeLists.txt: links $lib: $layer may not depend on it"
        violations=$((violations + 1))
        ;;
    esac
  done
done
# Only the card's hardware may use SystemC.
for f in $(grep -rl '#include <systemc\|#include <tlm' --include='*.h' --include='*.cpp' runtime compiler sim studies cli | grep -v '^sim/hw/' || true); do
  case "$f" in
    sim/simulator.cpp) ;;  # starts the SystemC kernel
    *)
      echo "$f: uses SystemC outside sim/hw"
      violations=$((violations + 1))
      ;;
  esac
done
if [ "$violations" -gt 0 ]; then
  echo "check_layers: $violations violation(s)"
  exit 1
fi
echo "check_layers: dependencies point down the layers"
