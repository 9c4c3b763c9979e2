#!/usr/bin/env bash
# Data-parallel training under mpirun, end to end (ctest runs one MODE per test; docs/DISTRIBUTED.md).
# Usage: dp.sh NANOTRN SOURCE_DIR WORK_DIR MODE
#   deterministic     2 ranks and 1 rank, train.deterministic: bit-identical checkpoints, equal val_bpb (17 digits)
#   nondeterministic  2 ranks and 1 rank, overlapped buckets: the loss after 20 steps agrees to 1e-6 relative
#   rows              one micro-batch per step, split by rows over 2 ranks: the loss after 20 steps agrees with
#                     1 rank's to 1e-5 relative
#   resume_2_to_1     10 steps on 2 ranks, resumed on 1 to step 20 = 20 uninterrupted steps, bit for bit
#   resume_1_to_2     10 steps on 1 rank, resumed on 2 to step 20 = 20 uninterrupted steps, bit for bit
#   tcp               the deterministic equivalence over the TCP transport (--mca btl self,tcp: the multi-node path)
#   kill              kill -9 of rank 1 during training: the job ends within 30 s, non-zero, naming the rank; the
#                     last checkpoint is intact and resumes
#   kill_in_write     kill -9 of rank 0 while it writes a checkpoint: the previous checkpoint is intact and resumes,
#                     and the resumed run removes the dead writer's temporary
#   mpirun_killed     kill -9 of mpirun itself during training: its ranks are gone within 0.5 s (they die with their
#                     parent, base/parent_death.h; before, they trained on for 1.1-3 s), the last checkpoint resumes
#   hang              rank 1 stopped (SIGSTOP): rank 0 ends the job after --comm-timeout, naming itself and the step
#   mismatch          ranks started with different recipes refuse to start, naming the field
#   clock             --clock trn2 with a 0.3 s budget on 2 ranks and on 1: the same step count, the same charged
#                     time and the same weights (rank 0's charge reaches every rank, so all stop together)
#   bench             bench train under mpirun: one data-parallel timing with each rank's compute / exposed
#                     communication / waiting split, which adds up to the rank's step time
set -u
nanotrn=$1 src=$2 work=$3 mode=$4
rm -rf "$work"
mkdir -p "$work"
# Open MPI refuses root without these; the single-copy mechanism needs ptrace rights a container may not grant.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
# Marks this test's processes (mpirun hands its environment to the ranks it starts), so rank_pid finds this job's
# ranks and never another test's leftovers, and the exit trap stops whatever of this job is still running.
export NANOTRN_DP_TEST="$work"
mpi=(mpirun --bind-to none)
base=(--recipe "$src/recipes/cpu-tiny.json" --set data.train=synthetic:pattern --set model.vocab_size=256
      --set train.budget=0 --set eval.tokens=2048 --set eval.rows=4 --set batch.rows=4 --set batch.seq_len=64
      --set model.depth=2 --set 'batch.phases=[{"from":0,"accum":2,"lr_scale":1}]' --set train.threads=1
      --set train.log_every=1 --quiet)
clock=(--clock fixed:0.1)
det=(--set train.deterministic=true)

fail() {
  echo "FAIL: $*"
  exit 1
}
ours() {  # the pids of this test's nanotrn processes (NANOTRN_DP_TEST in their environment)
  for p in $(pgrep -f "$nanotrn train" || true); do
    tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "NANOTRN_DP_TEST=$work" && echo "$p"
  done
}
cleanup() {
  for p in $(ours); do kill -9 "$p" 2>/dev/null; done
}
trap cleanup EXIT
run1() { "$nanotrn" train "${base[@]}" "${clock[@]}" "$@"; }
run2() { "${mpi[@]}" -np 2 "$nanotrn" train "${base[@]}" "${clock[@]}" "$@"; }
kept_checkpoint_resumes() {  # after a killed 2-rank run in $work/run: its checkpoint is there and resumes on 1 rank
  [ -f "$work/run/checkpoint.safetensors" ] || fail "no checkpoint left"
  run1 "${det[@]}" --set train.steps=100000 --set model.depth=4 --out "$work/run" --stop-after 8 \
    --resume "$work/run/checkpoint.safetensors" > "$work/resume.txt" 2>&1 || {
    cat "$work/resume.txt"
    fail "the kept checkpoint does not resume"
  }
  echo "the kept checkpoint resumes: $(grep -c '"event":"step"' "$work/run/metrics.jsonl") step rows in metrics"
}
compare() { python3 "$src/tests/dist/compare_checkpoints.py" "$@" || fail "checkpoints differ: $*"; }
bpb() { python3 -c "import json,sys; print(repr(json.load(open(sys.argv[1]))['val_bpb']))" "$1"; }
loss() { python3 -c "import json,sys; print(repr(json.load(open(sys.argv[1]))['last_loss']))" "$1"; }
rank_pid() {  # the pid of rank $1 of this test's job
  for p in $(ours); do
    if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
      echo "$p"
      return
    fi
  done
}
wait_for() {  # file pattern seconds: waits until grep finds the pattern
  for _ in $(seq 1 $(($3 * 20))); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

case "$mode" in
  deterministic | tcp)
    # The loopback interface, named explicitly (Open MPI's TCP transport skips it by default): present on every
    # machine, so the test does not depend on the machine having a network.
    [ "$mode" = tcp ] && mpi+=(--mca btl self,tcp --mca btl_tcp_if_include lo)
    run1 "${det[@]}" --set train.steps=20 --out "$work/one" --json > "$work/one.json" || fail "1 rank"
    run2 "${det[@]}" --set train.steps=20 --out "$work/two" --json > "$work/two.json" || fail "2 ranks"
    compare "$work/one/checkpoint.safetensors" "$work/two/checkpoint.safetensors"
    a=$(bpb "$work/one.json") b=$(bpb "$work/two.json")
    [ "$a" = "$b" ] || fail "val_bpb differs: $a on 1 rank, $b on 2"
    echo "val_bpb equal on 1 and 2 ranks: $a"
    grep -q '"world_size": 2' "$work/two.json" || fail "no world size in the summary"
    ;;
  nondeterministic)
    # Four micro-batches: 2 ranks sum (g0 + g1) + (g2 + g3), 1 rank ((g0 + g1) + g2) + g3.
    base+=(--set 'batch.phases=[{"from":0,"accum":4,"lr_scale":1}]')
    run1 --set train.steps=20 --out "$work/one" --json > "$work/one.json" || fail "1 rank"
    run2 --set train.steps=20 --out "$work/two" --json > "$work/two.json" || fail "2 ranks"
    a=$(loss "$work/one.json") b=$(loss "$work/two.json")
    python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); r=abs(a-b)/abs(a); print('loss after 20 steps: %r on 1 rank, %r on 2 (relative difference %.2e)'%(a,b,r)); sys.exit(0 if r<=1e-6 else 1)" "$a" "$b" || fail "losses disagree"
    compare --rel 1e-2 "$work/one/checkpoint.safetensors" "$work/two/checkpoint.safetensors"
    ;;
  rows)
    # One micro-batch of 4 rows per step: 2 ranks cannot split it by micro-batches, so each trains 2 of its rows
    # (with the BOS targets masked, each rank's loss weighted by its share of the scored targets); 1 rank trains all 4.
    base+=(--set 'batch.phases=[{"from":0,"accum":1,"lr_scale":1}]' --set data.mask_bos_targets=true)
    run1 --set train.steps=20 --out "$work/one" --json > "$work/one.json" || fail "1 rank"
    run2 --set train.steps=20 --out "$work/two" --json > "$work/two.json" || fail "2 ranks"
    a=$(loss "$work/one.json") b=$(loss "$work/two.json")
    python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); r=abs(a-b)/abs(a); print('rows split: loss after 20 steps: %r on 1 rank, %r on 2 (relative difference %.2e)'%(a,b,r)); sys.exit(0 if r<=1e-5 else 1)" "$a" "$b" || fail "losses disagree"
    compare --rel 1e-2 "$work/one/checkpoint.safetensors" "$work/two/checkpoint.safetensors"
    # 3 rows and 1 micro-batch: 2 ranks can split neither; the run refuses before a step, saying why.
    neither=$(run2 --set batch.rows=3 --set train.steps=1 --out "$work/neither" 2>&1)
    echo "$neither" | grep -q "it divides neither" || fail "3 rows x 1 micro-batch on 2 ranks: $neither"
    ;;
  resume_2_to_1 | resume_1_to_2)
    first=run2 second=run1
    [ "$mode" = resume_1_to_2 ] && first=run1 second=run2
    run1 "${det[@]}" --set train.steps=20 --out "$work/straight" > /dev/null || fail "uninterrupted run"
    $first "${det[@]}" --set train.steps=20 --stop-after 10 --out "$work/split" > /dev/null || fail "first half"
    $second "${det[@]}" --set train.steps=20 --out "$work/split" --resume "$work/split/checkpoint.safetensors" \
      > /dev/null || fail "second half"
    compare "$work/straight/checkpoint.safetensors" "$work/split/checkpoint.safetensors"
    ;;
  kill | kill_in_write)
    victim=1 every=2
    [ "$mode" = kill_in_write ] && victim=0 every=1
    run2 "${det[@]}" --set train.steps=100000 --set train.checkpoint_every=$every --out "$work/run" \
      --set model.depth=4 > "$work/out.txt" 2> "$work/err.txt" &
    job=$!
    wait_for "$work/run/metrics.jsonl" '"step":6' 120 || fail "the run did not reach step 6"
    pid=$(rank_pid $victim)
    [ -n "$pid" ] || fail "rank $victim not found"
    if [ "$mode" = kill_in_write ]; then
      # Catch rank 0 inside a checkpoint write (its temporary exists): polled without a pause for up to 60 s (a write
      # every step; on a fast machine each lasts well under a millisecond). The temporary can be renamed between the
      # look and the kill, so the rank is first frozen (SIGSTOP) and the temporary looked for again: still there, the
      # rank dies inside the write; gone, the rank goes on (SIGCONT) and the poll continues.
      deadline=$((SECONDS + 60)) caught=0
      while [ $SECONDS -lt $deadline ]; do
        compgen -G "$work/run/*.nanotrn-tmp.*" > /dev/null || continue
        kill -STOP "$pid"
        if compgen -G "$work/run/*.nanotrn-tmp.*" > /dev/null; then
          caught=1
          break
        fi
        kill -CONT "$pid"
      done
      [ $caught = 1 ] || fail "never saw a checkpoint being written"
    fi
    start=$(date +%s.%N)
    kill -9 "$pid"
    wait "$job"
    rc=$?
    took=$(python3 -c "import sys,time; print('%.1f'%(time.time()-float(sys.argv[1])))" "$start")
    echo "killed rank $victim; the job exited $rc after $took s"
    [ "$rc" != 0 ] || fail "the job exited 0 after a rank was killed"
    python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 30 else 1)" "$took" || fail "took $took s to exit"
    grep -E "rank $victim|process rank $victim" "$work/err.txt" | head -n 3
    grep -q -E "rank $victim" "$work/err.txt" || fail "no message names rank $victim"
    kept_checkpoint_resumes
    if [ "$mode" = kill_in_write ]; then
      ls "$work/run/"*.nanotrn-tmp.* > /dev/null 2>&1 && fail "the dead writer's temporary is still there"
      echo "the dead writer's temporary was removed"
    fi
    ;;
  mpirun_killed)
    run2 "${det[@]}" --set train.steps=100000 --set train.checkpoint_every=2 --out "$work/run" --set model.depth=4 \
      > "$work/out.txt" 2> "$work/err.txt" &
    job=$!
    wait_for "$work/run/metrics.jsonl" '"step":6' 120 || fail "the run did not reach step 6"
    r0=$(rank_pid 0)
    [ -n "$r0" ] || fail "rank 0 not found"
    launcher=$(sed 's/.*) //' "/proc/$r0/stat" | cut -d' ' -f2)  # rank 0's parent (field 4 of stat): the mpirun
    echo "mpirun is pid $launcher ($(cat "/proc/$launcher/comm")); ranks: $(ours | tr '\n' ' ')"
    start=$EPOCHREALTIME
    kill -9 "$launcher"
    # Polled in-shell (no process per look): gone within 0.5 s with die_with_parent; 1.1-3 s without it.
    while [ -n "$(ours)" ] && [ "$(( ${EPOCHREALTIME/./} - ${start/./} ))" -lt 20000000 ]; do sleep 0.02; done
    took=$(python3 -c "import sys; print('%.2f' % ((int(sys.argv[1]) - int(sys.argv[2])) / 1e6))" "${EPOCHREALTIME/./}" \
      "${start/./}")
    wait "$job" 2> /dev/null
    echo "killed mpirun; its ranks were gone after $took s"
    python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 0.5 else 1)" "$took" || fail "ranks outlived mpirun by $took s"
    kept_checkpoint_resumes
    ;;
  hang)
    run2 "${det[@]}" --set train.steps=100000 --comm-timeout 5 --out "$work/run" > "$work/out.txt" \
      2> "$work/err.txt" &
    job=$!
    wait_for "$work/run/metrics.jsonl" '"step":3' 120 || fail "the run did not reach step 3"
    pid=$(rank_pid 1)
    [ -n "$pid" ] || fail "rank 1 not found"
    start=$(date +%s.%N)
    kill -STOP "$pid"
    wait "$job"
    rc=$?
    kill -9 "$pid" 2> /dev/null
    took=$(python3 -c "import sys,time; print('%.1f'%(time.time()-float(sys.argv[1])))" "$start")
    echo "stopped rank 1; the job exited $rc after $took s"
    grep 'waited' "$work/err.txt" | head -n 2
    [ "$rc" != 0 ] || fail "the job exited 0"
    python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 30 else 1)" "$took" || fail "took $took s to exit"
    grep -q -E "rank 0 of 2 waited [0-9]+ s in .* during step [0-9]+" "$work/err.txt" || fail "no timeout message"
    ;;
  mismatch)
    "${mpi[@]}" -np 1 "$nanotrn" train "${base[@]}" --set train.steps=2 --out "$work/run" : \
      -np 1 "$nanotrn" train "${base[@]}" --set train.steps=2 --set optim.matrix_lr=0.03 --out "$work/run" \
      > "$work/out.txt" 2> "$work/err.txt"
    rc=$?
    grep 'another recipe' "$work/err.txt" | head -n 2
    [ "$rc" != 0 ] || fail "mismatched ranks exited 0"
    grep -q "optim.matrix_lr: 0.03 on rank 1, 0.04 on rank 0" "$work/err.txt" || fail "the field is not named"
    [ -f "$work/run/checkpoint.safetensors" ] && fail "a refused job wrote a checkpoint"
    ;;
  clock)
    clock=(--clock trn2)
    run1 "${det[@]}" --set train.budget=0.3s --out "$work/one" --json > "$work/one.json" || fail "1 rank"
    run2 "${det[@]}" --set train.budget=0.3s --out "$work/two" --json > "$work/two.json" || fail "2 ranks"
    python3 - "$work/one.json" "$work/two.json" <<'EOF' || fail "the runs stopped differently"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["stop_reason"] == b["stop_reason"] == "budget", (a["stop_reason"], b["stop_reason"])
assert a["steps"] == b["steps"] and a["charged_seconds"] == b["charged_seconds"], (a["steps"], b["steps"])
print("trn2 clock: %d steps, %.6f s charged on 1 rank and on 2" % (a["steps"], a["charged_seconds"]))
EOF
    compare "$work/one/checkpoint.safetensors" "$work/two/checkpoint.safetensors"
    ;;
  bench)
    "${mpi[@]}" -np 2 "$nanotrn" bench train --recipe "$src/recipes/cpu-tiny.json" --set model.vocab_size=256 \
      --set model.depth=2 --set batch.rows=4 --set batch.seq_len=64 --set train.threads=1 \
      --set 'batch.phases=[{"from":0,"accum":2,"lr_scale":1}]' --steps 3 --warmup 1 --json > "$work/bench.json" ||
      fail "bench train under mpirun"
    python3 - "$work/bench.json" <<'EOF' || fail "bench train's JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["world_size"] == 2 and len(d["ranks"]) == 2, d
for r in d["ranks"]:
    parts = r["compute_ms"] + r["exposed_communication_ms"] + r["waiting_ms"]
    # each rank's split adds up to about one step (the mean of the measured steps against their median and maximum)
    assert 0.5 * d["ms_per_step_min"] <= parts <= 1.01 * d["ms_per_step_max"], (parts, d)
    assert 0 <= r["exposed_share"] <= 1, r
print("bench train on 2 ranks: %.1f ms/step, exposed communication %.1f%% / %.1f%% of each rank's step" % (
    d["ms_per_step_median"], 100 * d["ranks"][0]["exposed_share"], 100 * d["ranks"][1]["exposed_share"]))
EOF
    ;;
  *)
    fail "unknown mode $mode"
    ;;
esac
echo "PASS $mode"
