#!/usr/bin/env bash
# Workers and mpirun give the same trials: a 2 x 2 grid at 2 seeds under train.deterministic, once on 2 local worker
# processes and once under `mpirun -np 2` (two rank groups of one rank, each training its trials in-process); the two
# trials.jsonl hold the same lines, field for field, once the fields that measure this machine rather than the
# trial (wall-clock seconds, host throughput) are set aside (tests/python/sweep_same_trials.py names them).
# Usage: sweep_mpi.sh NANOTRN SOURCE_DIR WORK_DIR
set -euo pipefail
nanotrn=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "FAIL: $*"; exit 1; }
tiny=(--recipe "$src/recipes/cpu-tiny.json" --set data.train=synthetic:pattern --set model.vocab_size=256
      --set model.depth=2 --set model.model_dim=64 --set model.head_dim=32 --set batch.rows=4
      --set batch.seq_len=64 --set eval.tokens=2048 --set eval.rows=4 --set train.log_every=2
      --set train.deterministic=true)
grid=(--grid model.depth=1,2 --grid optim.matrix_lr=0.02,0.04 --seeds 2 --clock fixed:0.1 --budget 1.5s --threads 1
      --quiet)
"$nanotrn" sweep "${tiny[@]}" "${grid[@]}" --workers 2 --out "$work/workers" > "$work/workers.txt" \
  || fail "the sweep on workers"
mpirun --bind-to none -np 2 "$nanotrn" sweep "${tiny[@]}" "${grid[@]}" --out "$work/mpi" > "$work/mpi.txt" \
  || fail "the sweep under mpirun"
tail -n 1 "$work/mpi.txt" | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["done"] == 8, j' \
  || fail "the mpirun sweep's summary is not 8 done"
python3 "$src/tests/python/sweep_same_trials.py" "$work/workers/trials.jsonl" "$work/mpi/trials.jsonl" \
  || fail "workers and mpirun differ"
echo "PASS sweep_mpi"
