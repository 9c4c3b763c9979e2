#!/usr/bin/env bash
# `nanotrn forecast --data SOURCES --core`: a forecast on the user's own corpus, prepared in the forecast's folder,
# with the ladder's own CORE (about 10 s on 2 cores):
#  - refusals with a clear message that leave nothing behind: a source nanotrn does not read (a binary file, named
#    with its byte offset), a JSONL source without the text field asked for, --data beside a --set that names the
#    data too, --field without --data, --core with a folder that is not a CORE bundle (before anything trains);
#  - a forecast on two sources (a plain text file, split into paragraphs, and a JSONL file whose text is in "body",
#    with --field body): OUT/data holds the corpus (both sources' documents, its corpus.json naming them and the
#    field), a tokenizer of model.vocab_size and the shards; every ladder run trained on those shards and that
#    tokenizer (read from the trials' own result.json); the target's epochs are D over the train tokens the shards'
#    manifest counts; the data root (NANOTRN_HOME) is never created;
#  - --core: every ladder run scored CORE on the shipped bundle (8 examples per task), each rung's core in
#    forecast.json is its trial's core.json, and the ladder's CORE line is scipy's (linregress: slope, intercept,
#    p-value), called above noise exactly when it falls with p < 0.05; the printed forecast and forecast.html give it;
#  - --resume rebuilds nothing (the corpus, tokenizer and shards reused, no ladder run again) and gives the same
#    forecast.
# Usage: forecast_data.sh NANOTRN SOURCE_DIR WORK_DIR
set -euo pipefail
nanotrn=$(realpath "$1") src=$2 work=$3
rm -rf "$work" && mkdir -p "$work/in"
export NANOTRN_HOME="$work/home"
py=/usr/bin/python3
fail() { echo "FAIL: $*"; exit 1; }
tiny=(--recipe "$src/recipes/cpu-tiny.json" --set model.vocab_size=512 --set train.budget=0 --set train.steps=200
      --set batch.seq_len=64 --set batch.rows=4 --set eval.tokens=2048 --set eval.rows=4 --set model.head_dim=32
      --set model.aspect_ratio=32)
run=(--device host --workers 1 --threads 1 --bootstrap 20)
# The sources: this project's validation notes as one text file, its architecture notes as JSONL lines {"id", "body"}.
cp "$src/docs/VALIDATION.md" "$work/in/validation.txt"
$py - "$src/docs/ARCHITECTURE.md" "$work/in/notes.jsonl" << 'EOF'
import json, sys
paragraphs = [p for p in open(sys.argv[1]).read().split("\n\n") if p.strip()]
with open(sys.argv[2], "w") as f:
    for i, p in enumerate(paragraphs):
        f.write(json.dumps({"id": f"arch-{i}", "body": p}) + "\n")
EOF
source "$src/tests/forecast/refuses.sh"
refuses "a binary source" "$nanotrn: byte .*not a source format" "${tiny[@]}" "${run[@]}" --data "$nanotrn" \
  --out "$work/r"
refuses "no such field" 'notes.jsonl:1: no "text" field' "${tiny[@]}" "${run[@]}" --data "$work/in/notes.jsonl" --out "$work/r"
refuses "--data and --set data" "both say where the data is" "${tiny[@]}" --set "data.val=x/val_*.bin" "${run[@]}" \
  --data "$work/in/validation.txt" --out "$work/r"
refuses "--field alone" "give --data too" "${tiny[@]}" "${run[@]}" --field body --out "$work/r"
refuses "--core without a bundle" "core.yaml" "${tiny[@]}" "${run[@]}" --data "$work/in/validation.txt" --core \
  --core-bundle "$work/in" --out "$work/r"

(cd "$work/in" && "$nanotrn" forecast "${tiny[@]}" "${run[@]}" --data validation.txt notes.jsonl --field body \
  --core --core-max-per-task 8 --out "$work/f" --json > "$work/stdout.json" 2> "$work/err.txt") \
  || { tail "$work/err.txt"; fail "forecast --data"; }
[ ! -e "$NANOTRN_HOME" ] || fail "the data root $NANOTRN_HOME was written: $(find "$NANOTRN_HOME" | head)"
$py - "$work" << 'EOF' || fail "the forecast did not train on --data"
import glob, json, os, sys
work = sys.argv[1]
f = json.load(open(f"{work}/stdout.json"))
data = f"{work}/f/data"
sources = [f"{work}/in/validation.txt", f"{work}/in/notes.jsonl"]
assert f["request"]["data"] == sources and f["request"]["field"] == "body", f["request"]
corpus = json.load(open(f"{data}/corpus/corpus.json"))
assert corpus["sources"] == sources and corpus["field"] == "body", corpus
ids = [json.loads(l)["id"] for split in ("train", "val") for l in open(f"{data}/corpus/{split}.jsonl")]
from_text = [i for i in ids if i.startswith("validation.txt#")]
from_jsonl = [i for i in ids if i.startswith("arch-")]
assert from_text and from_jsonl and len(from_text) + len(from_jsonl) == len(ids), ids[:5]
shards = json.load(open(f"{data}/tokens/shards.json"))
assert shards["vocab_size"] == 512, shards["vocab_size"]
assert f["train_tokens"] == shards["train"]["tokens"], (f["train_tokens"], shards["train"]["tokens"])
assert abs(f["epochs"] - f["tokens"] / shards["train"]["tokens"]) <= 1e-12, (f["epochs"], f["tokens"])
results = glob.glob(f"{work}/f/ladder/trials/*/result.json")
assert len(results) == len(f["ladder_runs"]) == 12, len(results)
for p in results:
    d = json.load(open(p))["recipe"]["data"]
    assert d["train"] == f"{data}/tokens/train_*.bin" and d["val"] == f"{data}/tokens/val_*.bin", (p, d)
    assert d["tokenizer"] == f"{data}/tokenizer" and d["corpus"] == f"{data}/corpus", (p, d)
from scipy import stats
runs = f["ladder_runs"]
for r in runs:
    core = json.load(open(f"{work}/f/ladder/trials/{r['id']}-s0/core.json"))["core"]
    assert r["core"] == core and r["seed_core"] == [core], (r["id"], r["core"], core)
line, c = stats.linregress([r["val_bpb"] for r in runs], [r["core"] for r in runs]), f["ladder_core"]
assert abs(c["slope"] - line.slope) <= 1e-9 and abs(c["intercept"] - line.intercept) <= 1e-9, (c, line)
assert abs(c["p"] - line.pvalue) <= 1e-9 and c["above_noise"] == (line.slope < 0 and line.pvalue < 0.05), (c, line)
assert c["interval"][0] <= c["core"] <= c["interval"][1] and c["runs"] == 12, c
print(f"--core: ladder CORE {min(r['core'] for r in runs):.3f} to {max(r['core'] for r in runs):.3f}, "
      f"slope {c['slope']:+.3f} per bpb (p = {c['p']:.2g}), as scipy's")
print(f"--data: {len(from_text)} + {len(from_jsonl)} documents, {shards['train']['tokens']} train tokens "
      f"({f['epochs']:.2f} epochs for D); forecast {f['val_bpb']:.4f} from 12 ladder runs on them")
EOF
"$nanotrn" forecast --resume "$work/f" > "$work/again.txt" 2> "$work/again.err" \
  || { cat "$work/again.err"; fail "resume"; }
for line in "corpus: reusing" "tokenizer: reusing" "tokens: reusing" "0 trial(s) to run of 12"; do
  grep -q "$line" "$work/again.err" || { cat "$work/again.err"; fail "resume: no '$line'"; }
done
grep -q -E "CORE on .*brown-core(: the ladder's does not fall detectably| .* from the ladder's own CORE)" \
  "$work/again.txt" || { cat "$work/again.txt"; fail "the printed forecast does not give the ladder's CORE line"; }
grep -q "<th>CORE from the ladder (.*brown-core)</th><td[^>]*>[^<]*a line in val_bpb over 12 ladder runs" \
  "$work/f/forecast.html" || fail "forecast.html does not give the ladder's CORE line"
$py -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); assert a["val_bpb"]==b["val_bpb"] and a["interval"]==b["interval"]' \
  "$work/stdout.json" "$work/f/forecast.json" || fail "the resumed forecast differs"
echo "PASS forecast_data"
