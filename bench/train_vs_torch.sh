#!/usr/bin/env bash
# Training throughput, nanotrn against tuned PyTorch CPU on the same model shapes, threads and batch, measured in the
# same run (docs/PERFORMANCE.md, "Training step"). Both sides: Muon on the block matrices + AdamW on the rest,
# random tokens, warm-up steps untimed, tokens/s from the median step.
#
# Usage: bench/train_vs_torch.sh [PEER=../shared/bench/torch_gpt.py] [CONFIGS="a b c d"] [DTYPES="fp32 bf16"]
# Needs a release build (build/release/nanotrn) and /usr/bin/python3 with torch. Run on a quiet machine (`uptime`).
set -euo pipefail
cd "$(dirname "$0")/.."
PEER=${1:-../shared/bench/torch_gpt.py}
CONFIGS=${2:-"a b c d"}
DTYPES=${3:-"fp32 bf16"}
BIN=${NANOTRN_BIN:-build/release/nanotrn}
[ -x "$BIN" ] || { echo "build first: cmake --preset release && cmake --build --preset release" >&2; exit 1; }
[ -f "$PEER" ] || { echo "peer script not found: $PEER" >&2; exit 1; }

# PyTorch's fastest kernels for this CPU: its AVX-512 ones where the CPU has AVX-512 (not its default there), else
# its default (AVX2). nanotrn's "% of peak" is of the arithmetic peak it measures in the same run (hw/cpu_peak.h).
isa=$(grep -q -w avx512f /proc/cpuinfo && echo avx512 || echo avx2)
echo "CPU: $(grep -o -w -E 'avx512f|avx512_bf16|avx2|fma' /proc/cpuinfo | sort -u | tr '\n' ' ')(PyTorch: ATEN_CPU_CAPABILITY=$isa)"
echo "| config | dtype | nanotrn tok/s | nanotrn GFLOP/s (% of peak) | PyTorch tok/s | PyTorch GFLOP/s | ratio |"
echo "|---|---|---|---|---|---|---|"
for c in $CONFIGS; do
  case $c in
    a) L=a-d4-256; D=4; W=256; H=4; T=256; B=16; V=8192; S=10 ;;
    b) L=b-d6-384; D=6; W=384; H=6; T=512; B=8; V=8192; S=8 ;;
    c) L=c-d8-512; D=8; W=512; H=8; T=512; B=8; V=8192; S=6 ;;
    d) L=d-gpt2-124M; D=12; W=768; H=12; T=1024; B=4; V=50304; S=3 ;;
    *) echo "unknown config $c" >&2; exit 1 ;;
  esac
  for dt in $DTYPES; do
    ours=$(OMP_WAIT_POLICY=passive "$BIN" bench train --recipe recipes/cpu-small.json --steps $S --warmup 2 --json \
      --set model.depth=$D --set model.model_dim=$W --set model.head_dim=$((W / H)) --set model.value_embeds=none \
      --set batch.seq_len=$T --set batch.rows=$B --set model.vocab_size=$V --set train.precision=${dt/fp32/f32})
    env_t="OMP_WAIT_POLICY=passive ATEN_CPU_CAPABILITY=$isa"
    [ "$dt" = bf16 ] && env_t="ATEN_CPU_CAPABILITY=$isa"
    peer=$(env $env_t /usr/bin/python3 "$PEER" --depth $D --dim $W --heads $H --seq $T --batch $B --vocab $V \
      --dtype $dt --opt muon --threads 2 --steps $S --warmup 2 | tail -1)
    /usr/bin/python3 - "$L" "$dt" "$ours" "$peer" <<'PY'
import json, sys
label, dt, ours, peer = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
pt = next(peer[k] for k in ("tokens_per_s", "tokens_per_s_median", "tok_per_s") if k in peer)
g = pt * ours['flops_per_token'] * 1e-9  # the same FLOP count for both (6N + attention, docs/PERFORMANCE.md)
print(f"| {label} | {dt} | {ours['tokens_per_second']:.0f} | {ours['gflops']:.0f} ({ours['percent_of_peak']:.0f}%) "
      f"| {pt:.0f} | {g:.0f} ({100 * g / ours['peak_gflops']:.0f}%) | {ours['tokens_per_second'] / pt:.2f}x |")
PY
  done
done
