#!/usr/bin/env bash
# Installs what spyre-sim needs (Debian packages), builds it (Release), and
# runs one example bundle so you see a report, then compiles and checks one.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/configure.sh
cmake --build build -j"$(nproc)"
# Softmax as torch-spyre emits it (6 SDSCs, intermediates in LX), all-ones input.
./build/spyre-sim run models/bundles/torch-spyre/spyre-cli/softmax --fill 1
# The same softmax through the bundled compiler, checked against the fp32 host reference.
example=$(mktemp -d)
trap 'rm -rf "$example"' EXIT
./build/spyre-sim compile models/workloads/softmax.json -o "$example/program" --cores 32 --emit-io "$example/io"
./build/spyre-sim run "$example/program" --inputs "$example/io/inputs" --expect "$example/io/reference"
