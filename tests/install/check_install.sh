#!/usr/bin/env bash
# Installs BUILD_DIR into a scratch prefix and builds and runs a consumer
# project against it (tests/install/consumer): find_package(spyre_sim), the
# installed headers, libraries, models and the spyre-sim binary.
#   tests/install/check_install.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: check_install.sh BUILD_DIR}" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
for f in bin/spyre-sim include/spyre-sim/sim/run_bundle.h share/spyre-sim/models/arch/spyre.json \
  lib/cmake/spyre_sim/spyre_simConfig.cmake; do
  [ -e "$scratch/prefix/$f" ] || { echo "not installed: $f" >&2; exit 1; }
done
"$scratch/prefix/bin/spyre-sim" run "$scratch/prefix/share/spyre-sim/models/bundles/torch-spyre/spyre-cli/add" \
  --quiet --fill 1
cmake -S "$here/consumer" -B "$scratch/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
"$scratch/consumer/consumer"
