#!/usr/bin/env bash
# A 2 x 2 grid at 2 seeds on a tiny recipe, end to end: the trials run on 2 worker processes; trials.jsonl holds
# one line per trial; the leaderboard's means, standard deviations, differences and Welch p-values agree with scipy
# (tests/python/sweep_leaderboard_check.py); its page renders in headless Chromium with no console error, no network
# request and no blank plot; `sweep status` counts them; a finished sweep resumed does nothing; a second sweep in the
# same folder, or a new sweep into a folder that holds anything, is refused; `score` ranks trial folders (no CORE)
# and `plot` draws two of them on one chart, each curve equal to its metrics.jsonl.
# Usage: sweep_grid.sh NANOTRN SOURCE_DIR WORK_DIR
set -euo pipefail
nanotrn=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
py=/usr/bin/python3
fail() { echo "FAIL: $*"; exit 1; }
tiny=(--recipe "$src/recipes/cpu-tiny.json" --set data.train=synthetic:pattern --set model.vocab_size=256
      --set model.depth=2 --set model.model_dim=64 --set model.head_dim=32 --set batch.rows=4
      --set batch.seq_len=64 --set eval.tokens=2048 --set eval.rows=4 --set train.log_every=2
      --set optim.matrix_lr=0.04 --set train.deterministic=true)
"$nanotrn" sweep "${tiny[@]}" --grid model.depth=1,2 --grid optim.matrix_lr=0.02,0.04 --seeds 2 \
  --clock fixed:0.1 --budget 1.5s --workers 2 --threads 1 --out "$work/s" > "$work/out.txt" 2> "$work/err.txt" \
  || { cat "$work/err.txt"; fail "sweep exited non-zero"; }
tail -n 1 "$work/out.txt" | $py -c 'import json,sys; j=json.load(sys.stdin); assert j["done"] == 8 and j["left"] == 0, j' \
  || fail "the last stdout line is not the JSON summary of 8 done trials"
[ "$(wc -l < "$work/s/trials.jsonl")" = 8 ] || fail "trials.jsonl should hold 8 lines"
grep -q '"baseline": "v04"' "$work/s/sweep.json" || fail "the grid's (2, 0.04) variant is the recipe as given: the baseline"
"$nanotrn" sweep report "$work/s" --json > "$work/board.json"
$py "$src/tests/python/sweep_leaderboard_check.py" "$work/s/trials.jsonl" "$work/board.json" v04 || fail "leaderboard"
$py "$src/tests/report/chromium_render.py" --html "$work/s/leaderboard.html" --png "$work/board.png" \
  --expect-plots sweep_loss > "$work/render.json" || fail "leaderboard.html does not render cleanly"
echo "leaderboard.html renders: no console error, no network request, no blank plot"
# Any run folder scores (no CORE anywhere: val_bpb alone orders them) and plots, several at once.
"$nanotrn" score "$work/s/trials/v01-s0" "$work/s/trials/v04-s1" --json > "$work/score.json" || fail "score of run folders"
$py - "$work/score.json" "$work/s/trials/v01-s0/result.json" "$work/s/trials/v04-s1/result.json" << 'EOF' || fail "score"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
bpb = sorted(json.load(open(p))["val_bpb"] for p in sys.argv[2:])
assert [r["val_bpb"] for r in runs] == bpb and all(r["core"] is None and r["core_part"] == 0.5 for r in runs), runs
EOF
"$nanotrn" plot "$work/s/trials/v01-s0" "$work/s/trials/v04-s1/metrics.jsonl" -o "$work/two.svg" > "$work/plot.txt" \
  || fail "plot of two runs"
$py - "$work/two.svg" "$work/s/trials/v01-s0/metrics.jsonl" "$work/s/trials/v04-s1/metrics.jsonl" << 'EOF' || fail "plot"
import json, re, sys
svg = open(sys.argv[1]).read()
series = re.findall(r'data-series="([^"]*)" data-points="([^"]*)"', svg)
assert len(series) == 2, series
for (name, pts), metrics in zip(series, sys.argv[2:]):
    steps = [e for e in map(json.loads, open(metrics)) if e["event"] == "step"]
    got = [tuple(float(v) for v in p.split(",")) for p in pts.split()]
    want = [(float(e["step"]), e["loss"]) for e in steps]
    assert len(got) == len(want) and all(abs(g[1] - w[1]) <= 1e-6 * abs(w[1]) for g, w in zip(got, want)), (name, got, want)
print(f"plot: 2 curves, {sum(len(p.split()) for _, p in series)} points equal to the runs' metrics.jsonl")
EOF
"$nanotrn" sweep status "$work/s" --json | $py -c 'import json,sys; j=json.load(sys.stdin); assert j["done"] == 8, j' \
  || fail "status"
before=$(sha256sum "$work/s/trials.jsonl")
"$nanotrn" sweep --resume "$work/s" --quiet > /dev/null || fail "resuming a finished sweep"
[ "$(sha256sum "$work/s/trials.jsonl")" = "$before" ] || fail "resuming a finished sweep changed trials.jsonl"
"$nanotrn" sweep "${tiny[@]}" --grid model.depth=1 --out "$work/s" > /dev/null 2> "$work/again.txt" \
  && fail "a new sweep into a folder holding a sweep was not refused"
grep -q "continue it with: nanotrn sweep --resume" "$work/again.txt" || fail "the refusal does not say how to resume"
mkdir -p "$work/mine" && echo keep > "$work/mine/notes.txt"
"$nanotrn" sweep "${tiny[@]}" --grid model.depth=1 --out "$work/mine" > /dev/null 2> "$work/mine.txt" \
  && fail "a sweep into a non-empty folder was not refused"
[ "$(cat "$work/mine/notes.txt")" = keep ] || fail "the user's file was touched"
echo "PASS sweep_grid"
