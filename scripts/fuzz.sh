#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ (clang, -fsanitize=fuzzer,address,undefined; only the few sources each parser
# needs) and runs each for a bounded time. Usage: bash scripts/fuzz.sh [seconds per target, default 10]
# A crash, a sanitizer report or an unexpected exception fails the script; the reproducer lands in build/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
out=build/fuzz
mkdir -p "$out"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc
       -include fuzz/source_location_compat.h)

build() {  # name sources...
  local name=$1
  shift
  clang++ "${flags[@]}" "fuzz/$name.cpp" "$@" src/base/error.cpp -o "$out/$name"
}
build shard_fuzz src/data/shard.cpp src/base/file.cpp &
build tiktoken_fuzz src/tokenizer/tiktoken_file.cpp &
build jsonl_fuzz src/data/jsonl.cpp src/base/file.cpp src/base/utf8.cpp &
wait %1 && wait %2 && wait %3

# Seed inputs: one small valid file per format.
python3 - "$out" <<'PY'
import base64, os, struct, sys
out = sys.argv[1]
def put(name, data):
    os.makedirs(os.path.join(out, "seeds_" + name), exist_ok=True)
    with open(os.path.join(out, "seeds_" + name, "seed"), "wb") as f:
        f.write(data)
put("shard_fuzz", struct.pack("<256i", 20240520, 1, 3, *([0] * 253)) + struct.pack("<3H", 5, 300, 7))
put("tiktoken_fuzz", b"".join(base64.b64encode(bytes([i])) + b" %d\n" % i for i in range(4)) + b"YWI= 4\n")
put("jsonl_fuzz", b'{"id": "a", "text": "hello\\nworld"}\n\n{"text": "\\u00e9"}\n')
PY

for name in shard_fuzz tiktoken_fuzz jsonl_fuzz; do
  mkdir -p "$out/corpus_$name"
  if ! (cd "$out" && "./$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    "corpus_$name" "seeds_$name" > "$name.log" 2>&1); then
    tail -n 60 "$out/$name.log"
    echo "fuzz: $name FAILED (log: $out/$name.log)"
    exit 1
  fi
  echo "fuzz: $name: $(grep -o 'Done [0-9]* runs' "$out/$name.log" | tail -n 1) in ${seconds}s, no findings"
done
