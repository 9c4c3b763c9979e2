#!/usr/bin/env bash
# A 16-trial sweep of tiny recipes (4 x 2 grid at 2 seeds) on W worker processes of 1 thread each, against the same
# 16 trials run one after another in a shell loop with W threads each (the same threads in total), from the very
# commands trials.jsonl records. Prints: both wall times, the ratio, the workers' idle slot-seconds, and the fraction
# of the physical limit (the sum of the trials' own process times divided by W: a sweep cannot end sooner).
# Usage: bench/sweep_bench.sh NANOTRN WORK_DIR WORKERS   (the last two optional: /tmp/nanotrn_sweep_bench, 2;
# docs/PERFORMANCE.md, "Sweep")
set -euo pipefail
nanotrn=$(readlink -f "$1")
work=${2:-/tmp/nanotrn_sweep_bench}
workers=${3:-2}
src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$work" && mkdir -p "$work"
tiny=(--recipe "$src/recipes/cpu-tiny.json" --set data.train=synthetic:pattern --set model.vocab_size=256
      --set model.depth=2 --set model.model_dim=128 --set model.head_dim=32 --set batch.rows=8
      --set batch.seq_len=128 --set eval.tokens=8192 --set eval.rows=8 --set train.log_every=20
      --set train.deterministic=true)
start=$(date +%s.%N)
"$nanotrn" sweep "${tiny[@]}" --grid optim.matrix_lr=0.01,0.02,0.03,0.04 --grid model.depth=1,2 --seeds 2 \
  --clock fixed:0.05 --budget 5s --workers "$workers" --threads 1 --quiet --out "$work/sweep" > "$work/sweep.txt"
sweep_wall=$(echo "$(date +%s.%N) - $start" | bc -l)
# The loop: each recorded command (run from the sweep folder, as its record says), with W threads, into new folders.
mkdir -p "$work/loop"
python3 - "$work/sweep/trials.jsonl" "$workers" "$work/loop" > "$work/loop.cmds" << 'EOF'
import json, shlex, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    cmd = [a.replace("train.threads=1", "train.threads=" + sys.argv[2]) for a in t["command"][1:]]
    cmd[cmd.index("--out") + 1] = sys.argv[3] + "/" + t["id"]
    print(shlex.join(cmd))
EOF
start=$(date +%s.%N)
(cd "$work/sweep" && while read -r line; do eval "OMP_NUM_THREADS=$workers \"$nanotrn\" $line" > /dev/null 2>&1; done \
  < "$work/loop.cmds")
loop_wall=$(echo "$(date +%s.%N) - $start" | bc -l)
python3 - "$work/sweep.txt" "$sweep_wall" "$loop_wall" "$workers" "$work/sweep" << 'EOF'
import json, os, sys, glob
summary = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
sweep_wall, loop_wall, w = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
assert summary["done"] == 16, summary
idle = summary["worker_idle_seconds"]
pool_wall = summary["wall_seconds"]
busy = w * pool_wall - idle                      # slot-seconds a trial process was running
limit = busy / w                                 # the trials' own time spread perfectly over the workers
print(f"16 trials: sweep {sweep_wall:.2f} s ({w} workers x 1 thread), shell loop {loop_wall:.2f} s "
      f"(1 at a time x {w} threads): loop / sweep = {loop_wall / sweep_wall:.2f}x")
print(f"workers: {pool_wall:.2f} s of pool time, idle {idle:.2f} slot-seconds of {w * pool_wall:.2f} "
      f"({100 * idle / (w * pool_wall):.1f} %); physical limit {limit:.2f} s = {100 * limit / sweep_wall:.1f} % of the "
      f"sweep's wall time")
EOF
