#!/usr/bin/env bash
# Lines per module (non-blank, non-comment-only lines of .h/.cpp), so that growth is a visible decision
# (shared/style.md principles 13-15). Also counts ops and test cases. Prints; never fails.
cd "$(dirname "$0")/.."
count() { cat "$@" 2>/dev/null | grep -v -E '^\s*$|^\s*//' | wc -l; }
printf '%-28s %8s %6s\n' module lines files
total=0
for d in src/*/ tests/*/ bench; do
  [ -d "$d" ] || continue
  files=$(find "$d" -name '*.h' -o -name '*.cpp' | sort)
  [ -n "$files" ] || continue
  # shellcheck disable=SC2086
  n=$(count $files)
  total=$((total + n))
  printf '%-28s %8d %6d\n' "${d%/}" "$n" "$(echo "$files" | wc -l)"
done
printf '%-28s %8d\n' total "$total"
echo "ops with autograd (Tensor-returning functions in src/ops/*.h): $(grep -h -E '^(Tensor|std::vector<Tensor>) [a-z_0-9]+\(' src/ops/*.h | wc -l)"
echo "test cases (TEST/TEST_P): $(grep -r -h -E '^TEST(_P)?\(' tests | wc -l)"
