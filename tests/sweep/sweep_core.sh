#!/usr/bin/env bash
# --core: 2 variants of a tiny recipe on the speedrun fixture's Brown shards and tokenizer, each trial scored on the
# shipped CORE bundle after it trains, on 2 local workers and again under `mpirun -np 2` (CORE then runs from each
# rank group's lead). Each trial's metrics.core is the CORE its core.json holds (what `nanotrn eval core` wrote), its
# result.json carries it (so `nanotrn score` ranks the trial folders with both parts), the leaderboard shows it, and
# the two sweeps agree field for field (tests/python/sweep_same_trials.py).
# Usage: sweep_core.sh NANOTRN SOURCE_DIR WORK_DIR SPEEDRUN_FIXTURE_DIR
set -euo pipefail
nanotrn=$1 src=$2 work=$3 fixture=$4
rm -rf "$work" && mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
py=/usr/bin/python3
fail() { echo "FAIL: $*"; exit 1; }
args=(--recipe "$src/recipes/cpu-tiny.json" --set "data.train=$fixture/data/tokens/train_*.bin"
      --set "data.val=$fixture/data/tokens/val_*.bin" --set "data.tokenizer=$fixture/tokenizer"
      --set model.vocab_size=300 --set model.depth=1 --set model.model_dim=64 --set model.head_dim=32
      --set batch.rows=2 --set batch.seq_len=256 --set eval.tokens=1024 --set eval.rows=2
      --set train.deterministic=true --grid optim.matrix_lr=0.02,0.04 --clock fixed:0.1 --budget 0.4s --threads 1
      --core --core-bundle "$src/eval_bundles/brown-core" --core-max-per-task 4 --quiet)
"$nanotrn" sweep "${args[@]}" --workers 2 --out "$work/workers" > "$work/workers.txt" || fail "the sweep on workers"
mpirun --bind-to none -np 2 "$nanotrn" sweep "${args[@]}" --out "$work/mpi" > "$work/mpi.txt" \
  || fail "the sweep under mpirun"
for s in workers mpi; do
  $py - "$work/$s" << 'EOF' || fail "$s: CORE of the trials"
import json, sys
d = sys.argv[1]
lines = [json.loads(l) for l in open(d + "/trials.jsonl")]
assert len(lines) == 2 and all(t["status"] == "done" for t in lines), lines
for t in lines:
    core = json.load(open(f"{d}/{t['run']}/core.json"))["core"]
    result = json.load(open(f"{d}/{t['run']}/result.json"))
    assert t["metrics"]["core"] == core == result["core"], (t["id"], t["metrics"].get("core"), core, result.get("core"))
print(f"{d}: both trials carry the CORE of their core.json")
EOF
done
"$nanotrn" score "$work/workers/trials/v01-s0" "$work/workers/trials/v02-s0" --json > "$work/score.json" \
  || fail "score of two scored trial folders"
$py -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"]; assert all(x["core"] is not None for x in r), r' \
  "$work/score.json" || fail "score lost CORE"
"$nanotrn" sweep report "$work/workers" --json > "$work/board.json"
$py -c 'import json,sys; b=json.load(open(sys.argv[1])); assert all("core" in v for v in b["rows"]), b' \
  "$work/board.json" || fail "the leaderboard lost CORE"
$py "$src/tests/python/sweep_same_trials.py" "$work/workers/trials.jsonl" "$work/mpi/trials.jsonl" \
  || fail "workers and mpirun differ"
echo "PASS sweep_core"
