#!/usr/bin/env bash
# The test command: set up, check formatting, build and run every test twice: in the release build (-march=native:
# the machine's own ISA, AVX-512 where it has it) and in the AddressSanitizer + UndefinedBehaviorSanitizer build,
# which is compiled for x86-64-v3 (AVX2 + FMA, no AVX-512) and runs with oneDNN capped at AVX2
# (ONEDNN_MAX_CPU_ISA, CMakePresets.json): so the AVX2 kernels and the emulated bf16 path are tested, under the
# sanitizers, on any machine. Both builds also run the attention kernels compiled for baseline x86-64
# (nanotrn_portable_tests). .ci/run runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's start, with the seconds since this script began (CI's log shows where the time goes).
phase() { echo "== test.sh: $1 (at ${SECONDS} s)"; }

phase setup
bash scripts/setup.sh
phase format
bash scripts/check_format.sh
bash scripts/loc.sh
phase fuzz
bash scripts/fuzz.sh 5  # libFuzzer targets of the file parsers (fuzz/), 5 s each (a longer campaign: fuzz.sh 600)

phase "release build"
cmake --preset release
cmake --build --preset release
phase "release tests"
ctest --preset release

phase "sanitize build"
cmake --preset sanitize
cmake --build --preset sanitize
phase "sanitize tests"
ctest --preset sanitize
phase done
