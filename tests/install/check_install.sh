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
for f in bin/spyre-sim bin/spyre-sim-plot include/spyre-sim/sim/run_bundle.h share/spyre-sim/models/arch/spyre.json \
  lib/cmake/spyre_sim/spyre_simConfig.cmake; do
  [ -e "$scratch/prefix/$f" ] || { echo "not installed: $f" >&2; exit 1; }
done
"$scratch/prefix/bin/spyre-sim" run "$scratch/prefix/share/spyre-sim/models/bundles/torch-spyre/spyre-cli/add" \
  --quiet --fill 1
cmake -S "$here/consumer" -B "$scratch/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
"$scratch/consumer/consumer"
# The Python module, where the build made one: importable with the prefix on the path.
if ls "$build"/python/spyre_sim/_core*.so >/dev/null 2>&1; then
  module_dir="$scratch/prefix/lib/python3/dist-packages"
  PYTHONPATH="$module_dir" /usr/bin/python3 -c "import spyre_sim; print('python module', spyre_sim.__file__)"
  PYTHONPATH="$module_dir" /usr/bin/python3 -c "import spyre_sim, sys; r = spyre_sim.run(sys.argv[1], fill=1.0); \
assert r['outputs']['arg2'].min() == 2.0" "$scratch/prefix/share/spyre-sim/models/bundles/torch-spyre/spyre-cli/add"
fi
