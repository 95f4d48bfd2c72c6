#!/usr/bin/env bash
# make-history.sh DIR BACKEND [REV]: makes "osprey", the small CUDA project of the GPU check, in
# DIR (new or empty): a git repository of 16 commits on main over the reference kernels, their
# benchmark program and the culprit harness as this repository has them at REV (default HEAD),
# and prints what it planted as JSON on stdout.
#
#   BACKEND cuda  the recipe builds kernels/bench/bench_cuda.cu with nvcc for the GPU it runs on
#   BACKEND cpu   the recipe builds the CPU twins with c++ (the dry run of scripts/gpu-check.sh)
#
# The history: v0.1 (the good end), a commit that changes only the README after it (the A/A
# pair), one planted performance regression in saxpy (on the GPU its grid is capped at 128 blocks;
# on the CPU twin it computes in double precision), one commit that does not build and the one
# that fixes it, and commits that change comments and documents. Authors and dates are fixed.
set -euo pipefail

readonly program=make-history.sh
fail() {
  echo "$program: $*" >&2
  exit 1
}
if [[ $# -lt 2 || $# -gt 3 || $1 == -* ]] || [[ $2 != cuda && $2 != cpu ]]; then
  echo "usage: $program DIR cuda|cpu [REV]   (DIR must be new or empty)" >&2
  exit 2
fi
backend=$2
rev=${3:-HEAD}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$1" || fail "cannot create $1"
dir=$(cd "$1" && pwd)
[[ -z $(ls -A "$dir") ]] || fail "$dir is not empty: give a new or empty directory"

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
git_in() { git -C "$dir" "$@"; }

day=0
# commit NAME EMAIL SUBJECT: commits everything in the tree, one day after the previous commit.
commit() {
  day=$((day + 1))
  local date
  date=$(printf '2025-02-%02dT10:00:00+0000' "$day")
  export GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2 GIT_AUTHOR_DATE=$date
  export GIT_COMMITTER_NAME=$1 GIT_COMMITTER_EMAIL=$2 GIT_COMMITTER_DATE=$date
  git_in add -A
  git_in commit -q -m "$3"
  git_in rev-parse HEAD
}
# note FILE TEXT: appends a line to a file of the project.
note() { printf '%s\n' "$2" >>"$dir/$1"; }
# comment FILE TEXT: puts a comment line at the top of a source file.
comment() {
  local file="$dir/$1"
  { printf '// %s\n' "$2"; cat "$file"; } >"$file.new" && mv "$file.new" "$file"
}

git init -q -b main "$dir"
git -C "$root" archive "$rev" kernels/include kernels/cuda kernels/cpu kernels/reference \
  kernels/bench | tar -x -C "$dir" || fail "cannot read kernels/ at $rev"

cat >"$dir/build.sh" <<'SH'
#!/bin/sh
# build.sh SRC BUILD BACKEND: builds BUILD/bench, the benchmark program of the kernels, with nvcc
# for the GPU of this machine (cuda; CUDA_ARCH overrides -arch=native) or with c++ (cpu).
set -eu
src=$1 build=$2 backend=$3
mkdir -p "$build/obj"
flags="-std=c++17 -O3 -I$src -I$src/kernels/include"
pids=""
compile() { # COMPILER SOURCE [FLAGS...]
  compiler=$1 source=$2
  shift 2
  "$compiler" $flags "$@" -c -o "$build/obj/$(basename "$source").o" "$src/$source" &
  pids="$pids $!"
}
if [ "$backend" = cuda ]; then
  arch=${CUDA_ARCH:-native}
  for source in kernels/bench/bench_cuda.cu kernels/cuda/saxpy.cu kernels/cuda/reduce.cu \
    kernels/cuda/sgemm.cu kernels/cuda/softmax.cu kernels/cuda/layernorm.cu; do
    compile nvcc "$source" -arch="$arch"
  done
  compile c++ kernels/reference/check.cpp
  linker="nvcc -arch=$arch"
else
  for source in kernels/bench/bench_cpu.cpp kernels/cpu/saxpy.cpp kernels/cpu/reduce.cpp \
    kernels/cpu/sgemm.cpp kernels/cpu/softmax.cpp kernels/cpu/layernorm.cpp \
    kernels/reference/check.cpp; do
    compile c++ "$source" -falign-functions=64 -falign-loops=64
  done
  linker=c++
fi
status=0
for pid in $pids; do
  wait "$pid" || status=1
done
[ "$status" -eq 0 ] || exit 1
$linker -o "$build/bench" "$build"/obj/*.o
SH

if [[ $backend == cuda ]]; then
  cases='"--case", "saxpy/N=16777216", "--case", "saxpy/N=65536", "--case", "reduce/N=16777216",
           "--case", "sgemm/M=256,N=256,K=256", "--case", "softmax/rows=4096,cols=1024",
           "--case", "layernorm/rows=4096,cols=4096"'
  # On a GPU a change of 3% stands out from clean intervals.
  threshold=0.03
else
  # The CPU twins on a shared machine: the dry run checks that every step works, not the noise.
  threshold=0.15
  cases='"--case", "saxpy/N=65536", "--case", "reduce/N=65536",
           "--case", "softmax/rows=256,cols=128"'
fi
cat >"$dir/culprit.toml" <<TOML
# How culprit builds and measures osprey (see culprit.toml(5)).
[build]
command = "sh {src}/build.sh {src} {build} $backend"
artifacts = ["bench"]

[run]
command = ["{build}/bench", "--samples", "20",
           $cases]
format = "culprit"
timeout = 60

[decide]
threshold = $threshold
min_runs = 5
max_runs = 20
TOML
cat >"$dir/README.md" <<'MD'
# osprey

The culprit reference kernels (saxpy, reduce, sgemm, softmax, layernorm) and their benchmark
program. `sh build.sh . build cuda` builds `build/bench`.
MD
printf 'build/\n' >"$dir/.gitignore"

commit "Ana Lima" "ana.lima@example.org" "Import the reference kernels and their benchmark program" >/dev/null
git_in tag v0.1
good=$(git_in rev-parse HEAD)
# The A/A pair: a program that differs from v0.1's outside the kernels (the version string its
# harness writes in every header), so that both ends are built and measured.
sed -i 's/\(k_harness_version = "[^"]*\)"/\1+osprey"/' "$dir/kernels/include/culprit/harness/runner.hpp"
git_in diff --quiet && fail "the A/A change did not apply to kernels/ at $rev"
aa=$(commit "Ana Lima" "ana.lima@example.org" "harness: name osprey's copy in its version")
comment kernels/cuda/reduce.cu "Two passes: per-block partial sums, then one block sums the partials."
commit "Jonas Berg" "jonas.berg@example.org" "reduce: say why it takes two passes" >/dev/null
comment kernels/cuda/softmax.cu "One block per row; the row maximum is subtracted first."
comment kernels/cpu/softmax.cpp "The row maximum is subtracted first, as on the GPU."
parent=$(commit "Jonas Berg" "jonas.berg@example.org" "softmax: comments on the row maximum")

# The planted regression: fewer, longer-lived blocks starve the memory system on the GPU; the
# twin's double precision halves the width of its vector loop.
sed -i 's/k_max_blocks = 65536;/k_max_blocks = 128;/' "$dir/kernels/cuda/saxpy.cu"
sed -i 's/y\[i\] = a \* x\[i\] + y\[i\];/y[i] = static_cast<float>(static_cast<double>(a) * x[i] + y[i]);/' \
  "$dir/kernels/cpu/saxpy.cpp"
git_in diff --quiet && fail "the planted change did not apply to kernels/ at $rev"
regression=$(commit "Priya Nair" "priya.nair@example.org" \
  "saxpy: cap the grid at 128 blocks, and round once from double on the CPU")

note README.md "Each case is checked against a double-precision reference before it is timed."
commit "Ana Lima" "ana.lima@example.org" "README: each case is checked before it is timed" >/dev/null
note README.md "Sizes are axes; see the --list option of build/bench."
commit "Ana Lima" "ana.lima@example.org" "README: where the sizes come from" >/dev/null
# The commit that does not build (the first probe of a bisection), and its fix.
sed -i 's|#include "kernels/bench/cases.hpp"|#include "kernels/bench/cases.hpp"\n#include "kernels/bench/version.hpp"|' \
  "$dir/kernels/bench/bench_cuda.cu" "$dir/kernels/bench/bench_cpu.cpp"
broken=$(commit "Priya Nair" "priya.nair@example.org" "bench: print the project's version")
printf '#pragma once\n// The version of osprey.\n#define OSPREY_VERSION "0.2"\n' >"$dir/kernels/bench/version.hpp"
fix=$(commit "Priya Nair" "priya.nair@example.org" "bench: add the version header forgotten in the last commit")
comment kernels/cuda/layernorm.cu "Mean and variance in one pass, combined pairwise across lanes."
commit "Jonas Berg" "jonas.berg@example.org" "layernorm: say how mean and variance are combined" >/dev/null
comment kernels/cuda/sgemm.cu "Tiles of A and B are staged through shared memory."
commit "Ana Lima" "ana.lima@example.org" "sgemm: say where the tiles live" >/dev/null
note README.md "Run build/bench --help for its options."
commit "Ana Lima" "ana.lima@example.org" "README: point at --help" >/dev/null
comment kernels/cpu/reduce.cpp "Pairwise summation keeps the error growing with log n."
commit "Jonas Berg" "jonas.berg@example.org" "reduce: why the CPU twin sums pairwise" >/dev/null
note .gitignore "*.o"
commit "Ana Lima" "ana.lima@example.org" "gitignore: object files" >/dev/null
comment kernels/cuda/layernorm.cu "gamma and beta are read once per element."
commit "Jonas Berg" "jonas.berg@example.org" "layernorm: the traffic of gamma and beta" >/dev/null
note README.md "Report a slow kernel with the output of culprit bisect."
bad=$(commit "Ana Lima" "ana.lima@example.org" "README: how to report a slow kernel")

printf '{"backend": "%s", "good": "%s", "aa_base": "%s", "aa_head": "%s",\n' \
  "$backend" "$good" "$good" "$aa"
printf ' "parent": "%s", "regression": "%s", "broken": "%s", "fix": "%s", "bad": "%s",\n' \
  "$parent" "$regression" "$broken" "$fix" "$bad"
printf ' "commits_in_range": %s}\n' "$(git_in rev-list --count "$good..$bad")"
