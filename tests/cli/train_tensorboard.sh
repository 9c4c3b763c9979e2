#!/usr/bin/env bash
# `nanotrn train --tensorboard`: the event file beside metrics.jsonl, read by an independent reader
# (tests/python/tfevents_reader.py), holds every numeric field of metrics.jsonl as a scalar at its step.
# Usage: train_tensorboard.sh NANOTRN RECIPE OUT_DIR SOURCE_DIR
set -u
nanotrn=$1 recipe=$2 out=$3 src=$4
rm -rf "$out"
"$nanotrn" train --recipe "$recipe" --set data.train=synthetic:pattern --set model.vocab_size=256 --set model.depth=2 \
  --set train.budget=0 --set train.steps=6 --set train.log_every=2 --set eval.tokens=1024 \
  --out "$out" --tensorboard --quiet > /dev/null || { echo "FAIL: train"; exit 1; }
files=("$out"/events.out.tfevents.*)
[ "${#files[@]}" -eq 1 ] && [ -f "${files[0]}" ] || { echo "FAIL: expected one event file, got ${files[*]}"; exit 1; }
/usr/bin/python3 "$src/tests/python/tfevents_reader.py" "${files[0]}" "$out/metrics.jsonl"
