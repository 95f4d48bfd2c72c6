#!/usr/bin/env bash
# Runs the benchmarks of the tool itself (tests/benchmarks/bench_*) and prints their figures.
# Usage: scripts/bench.sh [NAME...]   (default: every benchmark)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup-debian.sh
cmake --preset release >/dev/null
cmake --build --preset release
names=("$@")
if ((${#names[@]} == 0)); then
  mapfile -t names < <(cd tests/benchmarks && ls bench_*.cpp | sed 's/\.cpp$//')
fi
for name in "${names[@]}"; do
  echo "== $name"
  "build/release/tests/benchmarks/$name"
done
