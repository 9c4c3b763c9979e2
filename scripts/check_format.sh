#!/usr/bin/env bash
# Fails when a C++ file under src/, tests/, bench/ or examples/ differs from what clang-format (the checked-in .clang-format)
# would make of it. Fix with: clang-format -i $(git ls-files '*.h' '*.cpp')
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files 'src/*.h' 'src/*.cpp' 'tests/*.h' 'tests/*.cpp' 'bench/*.h' 'bench/*.cpp' 'examples/*.h' 'examples/*.cpp')
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
clang-format --dry-run --Werror $files
echo "format: $(echo "$files" | wc -l) files clean"
