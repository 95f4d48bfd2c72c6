#!/usr/bin/env bash
# The layers of core/ (scripts/check-layers.py, core/README.md), .gitignore rules that spare the
# sources, then clang-format and clang-tidy over our own C++ sources; any finding fails.
# clang-tidy reads the compile database of the `lint` preset (configured here, never built): it has
# no precompiled headers, so every file is checked as it compiles on its own.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cmake --preset lint >/dev/null
build_dir=build/lint

python3 scripts/check-layers.py

# A tracked file that an ignore rule matches means a new file beside it would silently stay out of
# git (a fresh clone then fails to build): every rule must leave the sources alone.
if ignored=$(git ls-files | git check-ignore --no-index --stdin); then
  echo "lint: .gitignore matches tracked files; new files beside them would never be committed:" >&2
  echo "$ignored" | head -5 >&2
  exit 1
fi

mapfile -t sources < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh' | grep -v '^tests/fixtures/')
echo "lint: clang-format on ${#sources[@]} files"
clang-format-19 --dry-run --Werror "${sources[@]}"

mapfile -t units < <(git ls-files 'cli/*.cpp' 'core/*.cpp' 'stats/*.cpp')
echo "lint: clang-tidy on ${#units[@]} translation units"
printf "%s\n" "${units[@]}" | xargs -P 2 -n 4 clang-tidy-22 -p "$build_dir" --quiet --extra-arg=-Wno-unknown-warning-option 2>/dev/null
echo "lint: clean"
