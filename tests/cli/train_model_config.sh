#!/usr/bin/env bash
# `nanotrn train --model-config`: a shipped Hugging Face config (Qwen3: norm gains, QK-norm gains, SwiGLU, GQA),
# scaled down with --set model.*, trains on the host with the recipe's batch and optimiser (the loss falls), says
# which config its model came from, and its checkpoint resumes without the flags (the model travels in it).
# Usage: train_model_config.sh NANOTRN RECIPE CONFIG OUT_DIR
set -u
nanotrn=$1 recipe=$2 config=$3 out=$4
rm -rf "$out"
small=(--set model.vocab_size=256 --set model.depth=2 --set model.model_dim=64 --set model.n_head=2
       --set model.n_kv_head=1 --set model.head_dim=32 --set model.mlp_hidden=128)
"$nanotrn" train --recipe "$recipe" --model-config "$config" "${small[@]}" --set data.train=synthetic:pattern \
  --set optim.embedding_lr=0.02 --set train.budget=0 --set train.steps=20 --set train.log_every=1 \
  --set eval.tokens=1024 --out "$out" > "$out.log" 2>&1 || { cat "$out.log"; echo "FAIL: train"; exit 1; }
grep '^model: ' "$out.log"
first=$(grep -m1 '^step 1 |' "$out.log" | sed 's/.*loss \([0-9.]*\).*/\1/')
last=$(grep '^step 20 |' "$out.log" | sed 's/.*loss \([0-9.]*\).*/\1/')
awk -v a="$first" -v b="$last" 'BEGIN { if (!(b < a - 1)) { print "FAIL: loss " a " -> " b; exit 1 } }' || exit 1
echo "loss fell from $first to $last"
rm -rf "$out-resumed"
"$nanotrn" train --resume "$out/checkpoint.safetensors" --set train.steps=22 --out "$out-resumed" --quiet 2>&1 |
  grep '^done: ' || { echo "FAIL: resume"; exit 1; }
