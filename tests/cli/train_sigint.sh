#!/usr/bin/env bash
# `nanotrn train` and SIGINT: the run stops after its step, saves a checkpoint, says so and exits 130; the checkpoint
# then resumes. Usage: train_sigint.sh NANOTRN RECIPE OUT_DIR
set -u
nanotrn=$1 recipe=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
args=(--recipe "$recipe" --set data.train=synthetic:pattern --set model.vocab_size=256 --set model.depth=2 --set train.budget=0
      --set eval.tokens=1024 --set train.log_every=1 --out "$out")
"$nanotrn" train "${args[@]}" --set train.steps=1000000 2>"$out/stderr.txt" >/dev/null &
pid=$!
# Wait for the first progress line (the handler is installed before the first step), then interrupt.
for _ in $(seq 1 600); do
  grep -q '^step 1 |' "$out/stderr.txt" 2>/dev/null && break
  sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
echo "interrupted run exited $rc"
grep 'SIGINT: stopped after step' "$out/stderr.txt"
[ -f "$out/checkpoint.safetensors" ] || { echo "no checkpoint"; exit 1; }
"$nanotrn" train "${args[@]}" --set train.steps=2 --quiet --resume "$out/checkpoint.safetensors" 2>&1 | tail -n 3
exit 0
