#!/usr/bin/env bash
# `nanotrn train` and a run folder under attack: (1) SIGTERM after the last step, during the final evaluation, is not
# swallowed: the run finishes, saves its results and exits 143 saying so; (2) a second train into the same --out while
# the first runs is refused, naming the holder, and leaves the first run's metrics alone; (3) a FIFO as metrics.jsonl
# is refused at once instead of blocking the run. Usage: train_late_signal.sh NANOTRN RECIPE OUT_DIR EVAL_TOKENS
# (EVAL_TOKENS: the final evaluation's size, enough for it to outlast the second train's start in this build).
set -u
nanotrn=$1 recipe=$2 out=$3 eval_tokens=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"
mkdir -p "$out"
args=(--recipe "$recipe" --set data.train=synthetic:pattern --set model.vocab_size=256 --set model.depth=2
      --set train.budget=0 --set train.log_every=1)

# (1) and (2): a run whose final evaluation takes seconds.
"$nanotrn" train "${args[@]}" --set train.steps=2 --set eval.tokens="$eval_tokens" --out "$out/run" \
  2>"$out/stderr.txt" >"$out/stdout.txt" &
pid=$!
for _ in $(seq 1 600); do
  grep -q '^step 2 |' "$out/stderr.txt" 2>/dev/null && break
  sleep 0.1
done
grep -q '^step 2 |' "$out/stderr.txt" || fail "the run never logged step 2"
"$nanotrn" train "${args[@]}" --set train.steps=2 --out "$out/run" --overwrite > "$out/second.txt" 2>&1
rc2=$?
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc2" -ne 0 ] || fail "a second train into the same --out succeeded"
grep -q "is in use by nanotrn train (pid $pid" "$out/second.txt" || { cat "$out/second.txt"; fail "no lock message"; }
[ "$rc" -eq 143 ] || { cat "$out/stderr.txt"; fail "the run exited $rc after SIGTERM during its final evaluation"; }
grep -q 'SIGTERM received during the final evaluation; the run finished and its results are saved' "$out/stderr.txt" \
  || fail "no message for the late SIGTERM"
grep -q '^val_bpb ' "$out/stdout.txt" || fail "the finished run's val_bpb was not shown"
[ -f "$out/run/result.json" ] || fail "no result.json"
[ "$(grep -c '"event":"start"' "$out/run/metrics.jsonl")" -eq 1 ] || fail "metrics.jsonl holds another run's lines"

# (3): a FIFO in metrics.jsonl's place.
mkdir -p "$out/fifo"
mkfifo "$out/fifo/metrics.jsonl"
timeout 60 "$nanotrn" train "${args[@]}" --set train.steps=2 --out "$out/fifo" > "$out/fifo.txt" 2>&1
rc3=$?
[ "$rc3" -eq 1 ] || { cat "$out/fifo.txt"; fail "a FIFO as metrics.jsonl gave exit $rc3"; }
grep -q "metrics.jsonl': it is not a regular file" "$out/fifo.txt" || { cat "$out/fifo.txt"; fail "no FIFO message"; }
echo "PASS: late SIGTERM exits 143 with results saved; second writer refused; FIFO refused"
