#!/usr/bin/env bash
# Installs the Debian packages spyre-sim builds with, if any are missing.
set -euo pipefail
packages="build-essential cmake ninja-build pkg-config bc libsystemc-dev nlohmann-json3-dev libcli11-dev libyaml-cpp-dev libgtest-dev libopenblas-dev python3-dev pybind11-dev python3-numpy python3-pytest python3-matplotlib python3-torch python3-yaml time"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "installing:$missing"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
