#!/usr/bin/env bash
# Refits the shipped software-stack profiles from their public runs (configs/stacks/runs/<name>.runs.json) with the
# release build's `nanotrn predict --calibrate`, and writes configs/stacks/<name>.json. Run it after a change to the
# model moves a fit (tests/predict/stack_profile_test.cpp fails until then), then rebuild (the profiles are embedded)
# and update docs/VALIDATION.md's tables. The composed profiles (torchneuron-compiled) follow through "from".
# Usage: bash scripts/refit_stacks.sh [build dir, default build/release]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build/release}/nanotrn"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for runs in configs/stacks/runs/*.runs.json; do
  name=$(basename "$runs" .runs.json)
  "$bin" predict --calibrate "$runs" --out "$tmp/$name.json" > "$tmp/$name.txt"
  cp "$tmp/$name.json" "configs/stacks/$name.json"
  echo "refit configs/stacks/$name.json"
  sed 's/^/  /' "$tmp/$name.txt"
done
