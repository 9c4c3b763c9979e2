#!/usr/bin/env bash
# `nanotrn forecast` as a user meets it, on a tiny synthetic target (about 15 s on 2 cores):
#  - refusals with a clear message that leave nothing behind: a host target that is not step limited, a ladder kind
#    that does not exist and --seeds 0 (at parse time), a target too small for a ladder a quarter of its size, a
#    device budget that ends before the first step on the --stack given (compiled: its compile time), --stack with
#    --device host, an --out that holds files, --resume of a folder that is not a forecast;
#  - --stack prices a device target on that stack: the target's D and its band are what `nanotrn predict` says for
#    the same recipe, device, budget and stack, and forecast.json names the stack;
#  - a small ladder runs at two seeds per rung (--seeds 2); --json carries val_bpb, interval (low <= val_bpb <= high),
#    tokens, params, the law and one line per ladder rung; forecast.json in the folder is what --json printed; every
#    ladder run is 4x below the target in N and D (what forecast_run.h promises) and the ladder's runs have the
#    target's schedule shape (scaled warm-up); each rung's val_bpb is the mean of its two seeds' runs, read here from
#    the trials' own result.json (seeds 42 and 43, two different losses), and seed_noise is their pooled deviation;
#  - --resume of the finished forecast runs no ladder run again and gives the same forecast;
#  - a forecast folder is never overwritten: a second forecast into it says how to resume.
# Usage: forecast_cli.sh NANOTRN SOURCE_DIR WORK_DIR
set -euo pipefail
nanotrn=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
export NANOTRN_HOME="$work/home"
py=/usr/bin/python3
fail() { echo "FAIL: $*"; exit 1; }
tiny=(--recipe "$src/recipes/cpu-tiny.json" --set data.train=synthetic:pattern --set model.vocab_size=256
      --set train.budget=0 --set train.steps=200 --set batch.seq_len=64 --set batch.rows=4 --set eval.tokens=2048
      --set eval.rows=4 --set model.head_dim=32 --set model.aspect_ratio=32)
run=(--device host --workers 1 --threads 1 --bootstrap 20)
source "$src/tests/forecast/refuses.sh"
refuses "host time budget" "must be step limited" "${tiny[@]}" --set train.budget=60 "${run[@]}" --out "$work/r"
refuses "unknown ladder" "--ladder" "${tiny[@]}" "${run[@]}" --ladder huge --out "$work/r"
refuses "target too small" "too small for a ladder" "${tiny[@]}" --set model.depth=1 --set model.aspect_ratio=16 \
  "${run[@]}" --out "$work/r"
refuses "no seed" "--seeds" "${tiny[@]}" "${run[@]}" --seeds 0 --out "$work/r"
trn2=(--device trn2 --workers 1 --threads 1 --bootstrap 20)
refuses "budget before the first step" "on trn2 (torchneuron-compiled) the budget, 0.5s, ends before" "${tiny[@]}" \
  "${trn2[@]}" --budget 0.5s --stack compiled --out "$work/r"
refuses "stack on the host" "--stack prices a device target" "${tiny[@]}" "${run[@]}" --stack eager --out "$work/r"
refuses "not a forecast folder" "not a forecast folder" --resume "$work"
mkdir -p "$work/full" && echo keep > "$work/full/mine.txt"
if "$nanotrn" forecast "${tiny[@]}" "${run[@]}" --out "$work/full" > "$work/refused.txt" 2>&1; then
  fail "wrote into a folder that holds files"
fi
grep -q "not an empty folder" "$work/refused.txt" || { cat "$work/refused.txt"; fail "no message for a full --out"; }
[ "$(ls "$work/full")" = mine.txt ] && [ "$(cat "$work/full/mine.txt")" = keep ] || fail "--out's files were touched"

"$nanotrn" forecast "${tiny[@]}" "${run[@]}" --seeds 2 --out "$work/f" --json > "$work/stdout.json" \
  2> "$work/err.txt" || { tail "$work/err.txt"; fail "forecast"; }
$py - "$work/stdout.json" "$work/f/forecast.json" "$work/f/ladder/trials" << 'EOF' || fail "forecast.json"
import json, math, sys
f, disk = (json.load(open(p)) for p in sys.argv[1:3])
assert f == disk, "forecast.json differs from what --json printed"
lo, hi = f["interval"]
assert lo <= f["val_bpb"] <= hi, (lo, f["val_bpb"], hi)
assert f["params"] > 0 and f["tokens"] == 200 * 4 * 64 and f["steps"] == 200, (f["params"], f["tokens"])
runs = f["ladder_runs"]
assert len(runs) == 12 and f["law"]["formula"], f["law"]
for r in runs:
    assert 4 * r["params"] <= f["params"] * (1 + 1e-12) and 4 * r["tokens"] <= f["tokens"], r
ladder = {g["id"]: g for g in f["ladder"]["runs"]}
for r in runs:
    g = ladder[r["id"]]
    # cpu-tiny warms the learning rate and Muon's momentum over fixed step counts: a ladder run gets the same
    # fraction of its own steps (at least 1).
    assert g["warmup_steps"] >= 1 and g["momentum_warmup_steps"] >= 1, g
    assert g["momentum_warmup_steps"] == max(1, int(g["steps"] * 100 / 200 + 0.5)), g
ex = f["extrapolation"]
assert ex["params"] >= 4 - 1e-9 and ex["tokens"] >= 4 - 1e-9, ex
variances = []
for r in runs:
    seeds = [json.load(open(f"{sys.argv[3]}/{r['id']}-s{k}/result.json")) for k in (0, 1)]
    assert [s["recipe"]["seed"] for s in seeds] == [42, 43], [s["recipe"]["seed"] for s in seeds]
    a, b = (s["val_bpb"] for s in seeds)
    assert r["seed_bpb"] == [a, b] and a != b, (r["id"], r["seed_bpb"], a, b)
    assert abs(r["val_bpb"] - (a + b) / 2) <= 1e-12, (r["id"], r["val_bpb"], a, b)
    variances.append((a - b) ** 2 / 2)
assert f["request"]["seeds"] == 2 and abs(f["seed_noise"] - math.sqrt(sum(variances) / len(variances))) <= 1e-12, f["seed_noise"]
print(f"forecast {f['val_bpb']:.4f} [{lo:.4f}, {hi:.4f}] from {len(runs)} ladder runs; law {f['law']['formula']}")
EOF
"$nanotrn" forecast --resume "$work/f" > "$work/again.txt" 2> "$work/again.err" \
  || { cat "$work/again.err"; fail "resume"; }
grep -q "0 trial(s) to run of 24" "$work/again.err" || { cat "$work/again.err"; fail "resume ran ladder runs again"; }
grep -q "ladder runs (each the mean of 2 seeds; the seed alone moves a run by" "$work/again.txt" \
  || { cat "$work/again.txt"; fail "the printed forecast does not say its rungs are means of 2 seeds"; }
$py -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); assert a["val_bpb"]==b["val_bpb"] and a["interval"]==b["interval"]' \
  "$work/stdout.json" "$work/f/forecast.json" || fail "the resumed forecast differs"
cp "$work/f/forecast.json" "$work/kept.json"

# --stack: the same walk as the predictor's (4 steps of the tiny recipe in 1 s on the eager stack's overheads).
"$nanotrn" forecast "${tiny[@]}" "${trn2[@]}" --budget 1s --stack eager --out "$work/s" --json > "$work/s.json" \
  2> "$work/s.err" || { tail "$work/s.err"; fail "forecast --stack"; }
"$nanotrn" predict "${tiny[@]}" --device trn2 --budget 1s --stack eager --json > "$work/p.json" || fail "predict"
$py - "$work/s.json" "$work/p.json" << 'EOF' || fail "forecast --stack is not the predictor's walk"
import json, sys
f, p = (json.load(open(x)) for x in sys.argv[1:])
assert f["stack"] == p["stack"]["name"] == "torchneuron-eager", (f["stack"], p["stack"])
assert (f["steps"], f["tokens"]) == (p["steps"], p["tokens"]) and f["steps"] > 0, (f["steps"], f["tokens"], p["steps"])
assert sorted(f["tokens_band"]) == sorted(p["tokens_band"]), (f["tokens_band"], p["tokens_band"])
print(f"--stack eager: {f['steps']} steps, {f['tokens']} tokens, band {f['tokens_band']}, as predict says")
EOF
if "$nanotrn" forecast "${tiny[@]}" "${run[@]}" --out "$work/f" > "$work/refused.txt" 2>&1; then
  fail "a second forecast into a forecast folder"
fi
grep -q "forecast --resume $work/f" "$work/refused.txt" || { cat "$work/refused.txt"; fail "no resume hint"; }
cmp -s "$work/kept.json" "$work/f/forecast.json" || fail "the refused forecast touched forecast.json"
echo "PASS forecast_cli"
