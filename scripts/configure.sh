#!/usr/bin/env bash
# Configures build/ (Release, Ninja: it keeps both cores busy across the
# libraries where Make's per-directory builds do not). Extra arguments go to
# cmake. A build/ configured with another generator is reconfigured from scratch.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f build/CMakeCache.txt ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' build/CMakeCache.txt; then
  rm -rf build/CMakeCache.txt build/CMakeFiles
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
