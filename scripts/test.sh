#!/usr/bin/env bash
# The test command: set up, check formatting, build and run every test in the release build and again under
# AddressSanitizer + UndefinedBehaviorSanitizer. .ci/run runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/check_format.sh
bash scripts/loc.sh
bash scripts/fuzz.sh 10  # libFuzzer targets of the file parsers (fuzz/), 10 s each

cmake --preset release
cmake --build --preset release
ctest --preset release

cmake --preset sanitize
cmake --build --preset sanitize
ctest --preset sanitize
