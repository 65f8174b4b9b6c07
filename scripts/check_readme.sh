#!/usr/bin/env bash
# Runs every command of README.md's "Using it" block exactly as written, in
# order, in a scratch directory where build/ and models/ are this checkout's,
# then the README's Python example.
#   scripts/check_readme.sh [BUILD_DIR]   (default: build)
# Prints one line per command; exits 1 naming the first that fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ln -s "$build" "$scratch/build"
ln -s "$root/models" "$scratch/models"
ln -s "$root/scripts" "$scratch/scripts"
cd "$scratch"
count=0
while IFS= read -r command; do
  count=$((count + 1))
  if ! bash -c "$command" >"$scratch/output" 2>&1; then
    echo "README command $count failed: $command" >&2
    tail -3 "$scratch/output" >&2
    exit 1
  fi
  echo "ok  $command"
done < <(awk '/^## Using it/ { section = 1 } section && /^```/ { fence++; next } section && fence == 1' \
  "$root/README.md" | grep -E '^(build/spyre-sim|scripts/)' | sed 's/  *#.*$//')
[ "$count" -gt 0 ] || { echo "no commands found in README.md's 'Using it' block" >&2; exit 1; }
# The Python example, where the build made the module.
if ls "$build"/python/spyre_sim/_core*.so >/dev/null 2>&1; then
  awk '/^```python/ { inside = 1; next } inside && /^```/ { exit } inside' "$root/README.md" >"$scratch/example.py"
  [ -s "$scratch/example.py" ] || { echo "no python example in README.md" >&2; exit 1; }
  PYTHONPATH="$build/python" /usr/bin/python3 "$scratch/example.py" >"$scratch/output" 2>&1 ||
    { echo "README's Python example failed:" >&2; tail -3 "$scratch/output" >&2; exit 1; }
  echo "ok  README's Python example"
fi
echo "$count README commands ran as written"
