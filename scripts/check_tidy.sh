#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy: the checks the tree is kept clean of) over
# every source file, two at a time, against build-tidy/compile_commands.json
# (a configuration without the unity build, so each file has its own entry).
# Slow (about ten seconds a file: SystemC and nlohmann headers), so it is a
# script to run before a change lands, not part of the test suite.
# Exit status: 0 clean, 1 findings.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build-tidy/compile_commands.json ] || cmake -S . -B build-tidy -DSPYRE_UNITY_BUILD=OFF >/dev/null
command -v clang-tidy >/dev/null || { echo "check_tidy: clang-tidy is not installed (apt-get install clang-tidy)" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
git ls-files '*.cpp' | grep -v '^models/' | xargs -P "$(nproc)" -n 1 clang-tidy -p build-tidy --quiet >"$log" 2>&1 || true
if grep -E '(warning|error):' "$log"; then
  echo "check_tidy: findings above" >&2
  exit 1
fi
echo "check_tidy: clean"
