#!/usr/bin/env bash
# `nanotrn eval core` against the independent PyTorch scorer (tests/python/core_reference.py) on one checkpoint and
# bundle: identical token rows, spans and verdicts for every example, CORE to 1e-9 (tests/python/core_compare.py).
# Usage: core_matches_python.sh NANOTRN CKPT TOKENIZER BUNDLE SCRATCH SOURCE_DIR [extra eval core flags...]
set -euo pipefail
nanotrn=$1 ckpt=$2 tok=$3 bundle=$4 scratch=$5 src=$6
shift 6
rm -rf "$scratch"
mkdir -p "$scratch"
cp "$ckpt" "$scratch/checkpoint.safetensors"
"$nanotrn" eval core --ckpt "$scratch/checkpoint.safetensors" --tokenizer "$tok" --bundle "$bundle" \
  --records "$scratch/nanotrn.json" --quiet "$@"
py_flags=()
for a in "$@"; do py_flags+=("$a"); done
/usr/bin/python3 "$src/tests/python/core_reference.py" --ckpt "$scratch/checkpoint.safetensors" --tokenizer "$tok" \
  --bundle "$bundle" --quiet --out "$scratch/reference.json" "${py_flags[@]}"
/usr/bin/python3 "$src/tests/python/core_compare.py" "$scratch/nanotrn.json" "$scratch/reference.json"
