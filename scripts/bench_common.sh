# Sourced by the benchmark and calibration scripts: run from the repository
# root, with a built spyre-sim in $bin and a scratch directory $out removed on
# exit. (Not executable on its own.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=build/spyre-sim
[ -x "$bin" ] || { echo "build first: ./scripts/setup.sh" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
