#!/usr/bin/env bash
# Runs the benchmarks of the tool itself (tests/benchmarks/bench_*) and prints their figures.
# Usage: scripts/bench.sh [NAME...]   (default: every bench_* benchmark)
# Two more names run culprit against `git bisect run` through the binaries (minutes each):
#   counted   the counted lane's figures: generated histories of 64 and 256 commits of a Google
#             Benchmark program with a 3% step (and 64 with a 2% step at --threshold 1%), by
#             --instrument valgrind, by time, and by git bisect run (scripts/bench-git-bisect.sh)
#   kestrel   the demo's kestrel, the same three ways (scripts/bench-kestrel.sh)
# and one the history at a team's scale through `culprit import` and `culprit history`:
#   scale     500 cases x 200 commits, then 2,000 x 1,000 x 2 hosts (scripts/bench-history-scale.sh)
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
  case $name in
  counted)
    for commits in 64 256; do
      INSTRUMENT=valgrind PROGRAM=gbench SCALE=20000 bash scripts/bench-git-bisect.sh 10 "$commits" 0.03
      PROGRAM=gbench SCALE=20000 bash scripts/bench-git-bisect.sh 5 "$commits" 0.03
    done
    THRESHOLD=1% INSTRUMENT=valgrind PROGRAM=gbench SCALE=20000 bash scripts/bench-git-bisect.sh 10 64 0.02
    ;;
  kestrel) bash scripts/bench-kestrel.sh 3 ;;
  scale)
    bash scripts/bench-history-scale.sh 500 200 1
    bash scripts/bench-history-scale.sh 2000 1000 2
    ;;
  *) "build/release/tests/benchmarks/$name" ;;
  esac
done
