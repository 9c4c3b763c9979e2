#!/bin/bash
# Runs the GEMM library comparison of docs/PERFORMANCE.md and writes Google Benchmark JSON to OUT_DIR.
# Usage: bench/run_gemm_sweep.sh BUILD_DIR OUT_DIR [REPS=5] [extra Google Benchmark flags, e.g. --benchmark_filter=...]
# Each repetition records others_cpu; bench/gemm_table.py drops repetitions where other processes used the CPUs.
# Not here: building (cmake --build BUILD_DIR), or choosing the library (see docs/PERFORMANCE.md).
set -eu
BUILD=${1:?build dir}; OUT=${2:?output dir}; REPS=${3:-5}; shift $(( $# < 3 ? $# : 3 ))
mkdir -p "$OUT"
FLAGS=(--benchmark_repetitions="$REPS" --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true
       --benchmark_out_format=json "$@")
echo "start $(date -Is) $(uptime)" >> "$OUT/load.txt"
for lib in openblas blis onednn; do
  exe="$BUILD/bench/gemm_bench_$lib"; [ -x "$exe" ] || exe="$BUILD/gemm_bench_$lib"
  [ -x "$exe" ] || { echo "skip $lib: no $exe"; continue; }
  "$exe" "${FLAGS[@]}" --benchmark_out="$OUT/$lib.json" > "$OUT/$lib.txt" 2>&1
  echo "after $lib $(date -Is) $(uptime)" >> "$OUT/load.txt"
done
