#!/usr/bin/env bash
# Checks that dependencies point down the layers of docs/architecture.md:
#   runtime <- compiler
#   runtime <- sim/schedule <- sim/hw <- sim/report
#   runtime <- sim/functional, sim/checks
#   sim/* <- sim (simulate, run)  ;  sim, compiler <- studies  ;  all <- cli
# Two views of the same rule: every #include of a project header, and every
# target_link_libraries of a project library. Inside compiler/ (one library
# in folders) the folders keep their own rules:
#   compiler/ir <- compiler/lx, compiler/codegen, compiler/reference
#   compiler/ir, lx, split <- compiler/passes ; compiler/ir, passes, codegen <- compiler/split
#   everything <- compiler (the driver: compiler.h, compile_job.h, compile_options.h)
# Prints each violation; exit 1 if any.
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
# Counts a violation, printing MESSAGE, unless ITEM is in the space-padded ALLOWED list.
check_allowed() { # ALLOWED ITEM MESSAGE
  case "$1" in
    *" $2 "*) ;;
    *)
      echo "$3"
      violations=$((violations + 1))
      ;;
  esac
}
layers="runtime compiler sim/schedule sim/hw sim/functional sim/checks sim/report sim studies cli"
for layer in $layers; do
  ok=" $layer $(allowed "$layer") "
  # Includes.
  # compiler/ is one layer in folders; sim/'s folders are layers of their own.
  if [ "$layer" = compiler ]; then
    files=$(find compiler -name '*.h' -o -name '*.cpp' | sort)
  else
    files=$(ls "$layer"/*.h "$layer"/*.cpp 2>/dev/null || true)
  fi
  for f in $files; do
    [ -e "$f" ] || continue
    while IFS= read -r inc; do
      target=${inc%/*}
      case "$target" in compiler/*) target=compiler ;; esac
      check_allowed "$ok" "$target" "$f: includes \"$inc\": $layer may not depend on $target"
    done < <(sed -n 's/^#include "\(\(runtime\|compiler\|sim\|studies\|cli\)\/[^"]*\)".*/\1/p' "$f")
  done
  # Libraries linked.
  allowed_libs=" "
  for l in $ok; do allowed_libs="$allowed_libs$(library_of "$l") "; done
  for lib in $(sed -n 's/.*target_link_libraries([^ ]* \(PUBLIC\|PRIVATE\|INTERFACE\) \(.*\))/\2/p' "$layer/CMakeLists.txt" | tr ' ' '\n' | grep '^spyre_' || true); do
    check_allowed "$allowed_libs spyre_systemc " "$lib" "$layer/CMakeLists.txt: links $lib: $layer may not depend on it"
  done
done
# The folders inside compiler/: folder -> the folders it may include (its own
# and the driver's top-level headers always).
compiler_allowed() {
  case "$1" in
    ir) echo "" ;;
    lx | codegen | reference) echo "ir" ;;
    passes) echo "ir lx split" ;;
    split) echo "ir passes codegen" ;;
    *) echo "?" ;;
  esac
}
for f in $(find compiler -mindepth 2 -name '*.h' -o -mindepth 2 -name '*.cpp' | sort); do
  folder=${f#compiler/}
  folder=${folder%%/*}
  ok=" $folder $(compiler_allowed "$folder") "
  while IFS= read -r target; do
    check_allowed "$ok" "$target" "$f: includes compiler/$target/: compiler/$folder may not depend on it"
  done < <(sed -n 's/^#include "compiler\/\([a-z_]*\)\/[^"]*".*/\1/p' "$f")
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
