#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ (clang, -fsanitize=fuzzer,address,undefined; only the few sources each
# parser needs, each source compiled once for all targets), two at a time (CI has 2 cores), and runs each for a
# bounded time, starting from its seed corpus
# kept in the repo (fuzz/corpus/<target>/). Usage: bash scripts/fuzz.sh [seconds per target, default 10]
# A crash, a sanitizer report or an unexpected exception fails the script; the reproducer lands in build/fuzz/.
# The runs go two at a time as well, so 15 targets at 5 s (the test command's) take about 40 s.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
out=build/fuzz
mkdir -p "$out/generated/recipe"
# Line tables only (all a report needs): recipe.cpp, the heaviest, compiles in 35 s instead of 45 s with full -g.
# -O0 would halve that again but runs the json parsers 10x slower, so the 10 s runs would find much less.
flags=(-std=c++20 -O1 -gline-tables-only -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc
       -I"$out/generated" -include fuzz/source_location_compat.h)
# The shipped stack profiles the recipe parser resolves launch.stack against, embedded as the CMake build does.
cmake -DJSON_DIR=configs/stacks -DOUT="$out/generated/recipe/stacks.json.inc" -P cmake/embed_json.cmake
tensor=(src/tensor/tensor.cpp src/tensor/allocator.cpp src/tensor/strided.cpp src/dtype/dtype.cpp
        src/dtype/convert.cpp src/base/rng.cpp)

targets=()
declare -A inputs  # target -> what it links besides fuzz/<target>.cpp and the error / temp-file sources
target() {         # name sources-and-libraries...
  targets+=("$1")
  local name=$1
  shift
  inputs[$name]="$*"
}
target shard_fuzz src/data/shard.cpp src/base/file.cpp
target tiktoken_fuzz src/tokenizer/tiktoken_file.cpp src/tokenizer/hf_tokenizer_json.cpp src/base/utf8.cpp
target jsonl_fuzz src/data/jsonl.cpp src/base/file.cpp src/base/utf8.cpp
target safetensors_fuzz src/io/safetensors.cpp src/io/crc32c.cpp src/base/file.cpp "${tensor[@]}"
target recipe_fuzz src/recipe/recipe.cpp src/dtype/dtype.cpp src/recipe/recipe_ranges.cpp src/recipe/recipe_schema.cpp src/recipe/stack_profile.cpp src/base/home.cpp src/model/config.cpp src/model/hf_config.cpp src/base/file.cpp src/base/utf8.cpp
target catalog_fuzz src/hw/catalog.cpp
target stack_profile_fuzz src/recipe/stack_profile.cpp src/base/file.cpp
target hf_config_fuzz src/model/hf_config.cpp src/model/config.cpp src/base/file.cpp
target csv_fuzz src/io/csv.cpp src/base/file.cpp src/base/utf8.cpp
target parquet_fuzz src/io/parquet.cpp src/io/parquet_chunk.cpp src/io/parquet_delta.cpp src/io/parquet_metadata.cpp src/io/parquet_pages.cpp src/io/thrift_compact.cpp -lsnappy -lzstd
target sentencepiece_fuzz src/tokenizer/sentencepiece_model.cpp -lsentencepiece
target core_bundle_fuzz src/icl/bundle.cpp src/data/jsonl.cpp src/io/csv.cpp src/base/file.cpp src/base/utf8.cpp -lyaml-cpp
target matmul_shapes_fuzz src/qa/matmul_shapes.cpp src/base/file.cpp
target run_metrics_fuzz src/report/run_metrics.cpp src/dtype/dtype.cpp src/report/svg_chart.cpp src/data/jsonl.cpp src/base/file.cpp src/base/utf8.cpp src/recipe/recipe.cpp src/recipe/recipe_ranges.cpp src/recipe/recipe_schema.cpp src/recipe/stack_profile.cpp src/base/home.cpp src/model/config.cpp src/model/hf_config.cpp
target sweep_plan_fuzz src/sweep/plan.cpp src/sweep/variants.cpp src/sweep/records.cpp src/base/rng.cpp src/base/file.cpp

# Every source is compiled once (the parsers share base/ and data/ files), two at a time, then each target linked.
common=(src/base/error.cpp src/base/temp_files.cpp src/base/json_parse.cpp)
object() { local o=${1//\//_}; echo "$out/obj/${o%.cpp}.o"; }
pending=()
background() {  # command...: runs it in the background, at most two at a time; a failure stops the script
  if [ "${#pending[@]}" -ge 2 ]; then
    # Whichever finishes first frees its core (waiting on the oldest left a core idle behind a long compile:
    # recipe.cpp takes 16 s, most sources 1-10 s).
    local done_pid
    wait -n -p done_pid "${pending[@]}"
    local left=()
    for p in "${pending[@]}"; do if [ "$p" != "$done_pid" ]; then left+=("$p"); fi; done
    pending=("${left[@]}")
  fi
  "$@" &
  pending+=("$!")
}
drain() {
  for p in "${pending[@]}"; do wait "$p"; done
  pending=()
}
mkdir -p "$out/obj"
sources=("${common[@]}")
for name in "${targets[@]}"; do
  sources+=("fuzz/$name.cpp")
  for f in ${inputs[$name]}; do if [[ $f == *.cpp ]]; then sources+=("$f"); fi; done
done
mapfile -t sources < <(printf '%s\n' "${sources[@]}" | sort -u)
for src in "${sources[@]}"; do
  # The harnesses (fuzz/*.cpp) only hand the bytes to a parser: -O0 compiles them in about half the time (8.2 s ->
  # 4.4 s for stack_profile_fuzz on a Zen 3); the parsers they call keep -O1.
  level=()
  if [[ $src == fuzz/* ]]; then level=(-O0); fi
  background clang++ "${flags[@]}" "${level[@]}" -c "$src" -o "$(object "$src")"
done
drain
link() {  # name
  local args=("$(object "fuzz/$1.cpp")")
  for f in ${inputs[$1]} "${common[@]}"; do if [[ $f == *.cpp ]]; then args+=("$(object "$f")"); else args+=("$f"); fi; done
  clang++ "${flags[@]}" "${args[@]}" -o "$out/$1"
}
for name in "${targets[@]}"; do background link "$name"; done
drain

run() {  # name: one bounded run, its log in build/fuzz/<name>.log; a finding prints the log's tail and fails
  mkdir -p "$out/corpus_$1"
  # New inputs go to build/fuzz/corpus_<name> (the first directory); the repo's seeds are only read.
  if ! (cd "$out" && "./$1" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    "corpus_$1" "../../fuzz/corpus/$1" > "$1.log" 2>&1); then
    tail -n 60 "$out/$1.log"
    echo "fuzz: $1 FAILED (log: $out/$1.log)"
    return 1
  fi
}
# Two runs at a time (one per core), through the same slots as the compiles: the first finding stops the script.
for name in "${targets[@]}"; do background run "$name"; done
drain

for name in "${targets[@]}"; do
  echo "fuzz: $name: $(grep -o 'Done [0-9]* runs' "$out/$name.log" | tail -n 1) in ${seconds}s, no findings"
done
