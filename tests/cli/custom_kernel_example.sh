#!/usr/bin/env bash
# examples/custom_kernel against the installed package: `cmake --install` of this build into a scratch prefix, the
# example configured with find_package(nanotrn) from there (nothing of the source tree on its include path), built,
# and run; its kernel must pass its fp64 check on both schedules, refuse a misuse naming the example's own line, and
# write a trace that is JSON with the example's source lines in it.
# Usage: custom_kernel_example.sh BUILD_DIR SOURCE_DIR SCRATCH
set -euo pipefail
build=$1 src=$2 scratch=$3
rm -rf "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" > "$scratch.install.log" 2>&1 || {
  cat "$scratch.install.log"
  exit 1
}
test -f "$scratch/prefix/include/nanotrn/neuron/isa/builder.h"
test ! -e "$scratch/prefix/include/nanotrn/cli"
cmake -S "$src/examples/custom_kernel" -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" > /dev/null
if grep -q -- "-I$src/src" "$scratch/build/build.ninja"; then
  echo "FAIL: the example compiles against the source tree"
  exit 1
fi
cmake --build "$scratch/build" > /dev/null
"$scratch/build/custom_kernel" --rows 1024 --cols 1536 --trace "$scratch/swiglu_trace.json"
/usr/bin/python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
events = t["traceEvents"] if isinstance(t, dict) else t
assert any("swiglu_kernel.cpp" in json.dumps(e) for e in events), "no slice names swiglu_kernel.cpp"
print("trace: %d events" % len(events))
' "$scratch/swiglu_trace.json"
