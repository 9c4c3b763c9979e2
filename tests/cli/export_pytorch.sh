#!/usr/bin/env bash
# `nanotrn export --pytorch`: the exported folder loads in Debian's PyTorch through load_for_eval and reproduces
# nanotrn's fp32 logits (model.py, a second implementation of the forward written from the recipe-spec, against
# nanotrn's C++ forward on the same tokens), independently of the rows batched with it and of later tokens; its
# weights are the checkpoint's, byte for byte; a folder that is not empty is refused and left as it was; --hf is
# refused with its reason. Two checkpoints: the Brown run of the CLI tests (held-out validation tokens) and a
# synthetic-pattern run trained here until its logits are large.
# Usage: export_pytorch.sh NANOTRN CKPT TOKENIZER RECIPE SCRATCH SOURCE_DIR
set -u
nanotrn=$1 ckpt=$2 tok=$3 recipe=$4 scratch=$5 src=$6
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$scratch"
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)

same_weights() {  # CKPT EXPORT_DIR: every model.<name> tensor of the checkpoint equals <name> in the export
  /usr/bin/python3 - "$1" "$2/model.safetensors" "$src/tests/python" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
import safetensors_raw
ckpt, _ = safetensors_raw.read(sys.argv[1])
exp, meta = safetensors_raw.read(sys.argv[2])
model = {k[len("model."):]: v for k, v in ckpt.items() if k.startswith("model.")}
assert set(model) == set(exp), (sorted(set(model) ^ set(exp)))
assert all(model[k] == exp[k] for k in model), [k for k in model if model[k] != exp[k]]
assert not any(k.startswith(("optim.", "ema.")) for k in exp)
print(f"weights: {len(exp)} tensors equal to the checkpoint's, no optimiser state")
PY
}

check_export() {  # CKPT EXPORT_DIR [export flags...]
  local c=$1 dir=$2
  shift 2
  "$nanotrn" export --ckpt "$c" --pytorch "$dir" "$@" > "$scratch/export.txt" 2>&1 || { cat "$scratch/export.txt"; fail "export"; }
  /usr/bin/python3 "$dir/model.py" "$dir" | tee "$scratch/check.txt"
  grep -q '^PASS$' "$scratch/check.txt" || fail "model.py's check of $dir"
  same_weights "$c" "$dir" || fail "the exported weights are not the checkpoint's"
  # load_for_eval from another folder, given the weights file rather than the folder
  (cd "$scratch" && /usr/bin/python3 -c "
import importlib.util, sys, torch
spec = importlib.util.spec_from_file_location('m', '$dir/model.py'); m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
model = m.load_for_eval('$dir/model.safetensors', 'cpu')
assert not model.training
ids = torch.randint(0, model.c['vocab_size'], (3, 9))
with torch.no_grad(): z = model(ids)
assert z.shape == (3, 9, model.c['vocab_size']) and z.dtype == torch.float32
print('load_for_eval: eval mode, logits', tuple(z.shape))
") || fail "load_for_eval from the weights file"
}

check_export "$ckpt" "$scratch/brown" --tokenizer "$tok"
[ -f "$scratch/brown/tokenizer/tokenizer.tiktoken" ] || fail "no tokenizer in the export"

"$nanotrn" train --recipe "$recipe" --set data.train=synthetic:pattern --set model.vocab_size=256 --set model.depth=2 \
  --set train.budget=0 --set train.steps=40 --set eval.tokens=1024 --out "$scratch/run" --quiet > /dev/null 2>&1 \
  || fail "training the pattern model"
check_export "$scratch/run/checkpoint.safetensors" "$scratch/pattern"
max=$(sed -n 's/.*max |logit| \([0-9.]*\)/\1/p' "$scratch/check.txt")
/usr/bin/python3 -c "import sys; sys.exit(0 if float('$max') > 5 else 1)" || fail "the pattern model's logits stay small ($max)"

# A folder that is not empty is refused, and nothing in it changes.
sum_before=$(cat "$scratch/pattern"/* | md5sum)
"$nanotrn" export --ckpt "$ckpt" --pytorch "$scratch/pattern" > "$scratch/again.txt" 2>&1 && fail "export into a full folder succeeded"
grep -q "is not empty; name a new (or empty) folder" "$scratch/again.txt" || { cat "$scratch/again.txt"; fail "no refusal message"; }
[ "$(cat "$scratch/pattern"/* | md5sum)" = "$sum_before" ] || fail "the refused export changed the folder"
"$nanotrn" export --ckpt "$ckpt" --hf "$scratch/hf" > "$scratch/hf.txt" 2>&1 && fail "--hf succeeded"
grep -q "maps onto no Hugging Face transformers class" "$scratch/hf.txt" || fail "no --hf reason"
[ ! -e "$scratch/hf" ] || fail "--hf wrote something"
echo "PASS: export --pytorch reproduces nanotrn's logits in PyTorch"
