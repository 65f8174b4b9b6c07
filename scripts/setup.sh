#!/usr/bin/env bash
# Installs what spyre-sim needs (Debian packages), builds it (Release), and
# runs one example bundle so you see a report.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
# Softmax as torch-spyre emits it (6 SDSCs, intermediates in LX), all-ones input.
./build/spyre-sim run models/bundles/torch-spyre/spyre-cli/softmax --fill 1
