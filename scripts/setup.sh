#!/usr/bin/env bash
# Installs every system package nanotrn needs, from Debian's archive only, non-interactively. Idempotent: when all
# packages are already present it changes nothing and needs no network.
set -euo pipefail

packages=(
  build-essential g++ cmake ninja-build git clang-format  # toolchain and the format check
  libdnnl-dev                                            # oneDNN: the GEMM backend (docs/DEPENDENCIES.md)
  libopenblas-dev libblis-dev                            # GEMM peers, benchmarked against oneDNN (bench/)
  libgtest-dev libgmock-dev libbenchmark-dev             # tests and benchmarks
  nlohmann-json3-dev libcli11-dev                        # JSON, command line
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
