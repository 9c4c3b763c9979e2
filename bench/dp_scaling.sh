#!/usr/bin/env bash
# Data-parallel throughput on this machine (docs/PERFORMANCE.md, Data parallel): 2 ranks x 1 thread against the peer
# of the same machine, 1 rank x 2 threads, on the same recipe and global batch, measured in the same run; then the
# all-reduce sweep (bench/allreduce_bench) over shared memory and TCP.
# Usage: bash bench/dp_scaling.sh [BUILD_DIR, default build/release] [STEPS, default 6]
# Per configuration: median host ms/step over the steps after the first two (warm-up), host tokens/s, and from
# rank 0's metrics the per-rank split of the step into compute, exposed communication and waiting.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
steps=${2:-6}
nanotrn=$build/nanotrn
out=$build/dp_scaling
rm -rf "$out"
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMP_WAIT_POLICY=passive
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores," \
  "ISA: $(grep -o -w -E 'avx512f|avx512_bf16|avx2' /proc/cpuinfo | sort -u | xargs)"

summarise() {  # name metrics.jsonl
  python3 - "$1" "$2" <<'EOF'
import json, statistics, sys
name, path = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(path) if '"event":"step"' in l]
timed = [r for r in rows if r["step"] > 2] or rows
ms = statistics.median(r["host_ms_per_step"] for r in timed)
tokens = timed[0]["tokens"] // timed[0]["step"]
line = "%-34s %9.0f ms/step %8.0f tok/s" % (name, ms, tokens / ms * 1e3)
if "ranks" in timed[-1]:
    parts = []
    for i in range(len(timed[-1]["ranks"])):  # means over the timed steps
        mean = {k: statistics.mean(r["ranks"][i][k] for r in timed)
                for k in ("compute_ms", "exposed_communication_ms", "waiting_ms")}
        total = sum(mean.values())
        parts.append("rank %d: compute %.0f, exposed comm %.0f (%.1f%%), waiting %.0f ms" % (
            i, mean["compute_ms"], mean["exposed_communication_ms"], 100 * mean["exposed_communication_ms"] / total,
            mean["waiting_ms"]))
    line += " | " + "; ".join(parts)
print(line)
EOF
}

measure() {  # label recipe overrides...
  local label=$1 recipe=$2
  shift 2
  local args=(--recipe "$recipe" --set data.train=synthetic:pattern --set train.budget=0 --set train.steps="$steps"
              --set train.log_every=1 --set eval.tokens=1 --quiet --overwrite "$@")
  "$nanotrn" train "${args[@]}" --set train.threads=2 --out "$out/$label-1x2" > /dev/null
  summarise "$label: 1 rank x 2 threads" "$out/$label-1x2/metrics.jsonl"
  mpirun -np 2 --bind-to none "$nanotrn" train "${args[@]}" --set train.threads=1 --out "$out/$label-2x1" > /dev/null
  summarise "$label: 2 ranks x 1 thread" "$out/$label-2x1/metrics.jsonl"
}

measure config-b-fp32 cpu-small --set 'batch.phases=[{"from":0,"accum":2,"lr_scale":1}]' \
  --set model.value_embeds=none
measure autoresearch-d8-reduced autoresearch-d8 --set batch.rows=2 \
  --set 'batch.phases=[{"from":0,"accum":2,"lr_scale":1}]' --set model.vocab_size=8192

echo
mpirun -np 2 --bind-to none "$build/bench/allreduce_bench"
echo
mpirun -np 2 --bind-to none --mca btl self,tcp "$build/bench/allreduce_bench"
