#!/usr/bin/env bash
# culprit bisect against `git bisect run` on a step that dwarfs the noise, through the binaries,
# on this machine as it is. Each trial makes a repository of COMMITS first-parent commits of a
# small C program (one process, about 0.2 s of integer work) whose work grows by STEP at one
# commit chosen at random; the others change a string in the binary, so that every commit
# builds a different one and is measured. Then:
#   culprit   culprit bisect --good <first> --bad <last>, with a cache of its own (nothing reused)
#   git       git bisect run with the script people write: build, run once, call the commit bad
#             when its time exceeds a threshold set halfway (geometric mean) between one run of
#             the good end and one of the bad, the two runs and builds counted in its time
# and prints, per trial and in all, whether each named the planted commit (culprit: exact, wrong,
# or why it named none: not_reproduced, inconclusive), and its wall time.
# Usage: scripts/bench-git-bisect.sh [TRIALS=5] [COMMITS=64] [STEP=0.20]
# Environment: INSTRUMENT=valgrind (or perf) bisects by counts (--instrument), confirming the
# culprit in time; SCALE sets the iterations per unit of work (default 500000: about 0.2 s; under
# Valgrind, 5000 keeps a run near half a second). PROGRAM=gbench makes the program a Google
# Benchmark one (bench.cc, one case, `format = "gbench"`, built with c++ against libbenchmark, each
# timed run filling BENCHMARK_MIN_TIME, default 0.05 s, set in the recipe's [run] env and in the
# judge's), and the judge reads the case's real_time from its JSON. THRESHOLD passes culprit a
# --threshold (a 2% step needs one under culprit's default 2%).
# Needs a built culprit (build/release/cli/culprit, or the one CULPRIT names) and cc (PROGRAM=gbench: c++, libbenchmark-dev).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
culprit=${CULPRIT:-"$root/build/release/cli/culprit"}
trials=${1:-5}
commits=${2:-64}
step=${3:-0.20}
scale=${SCALE:-500000}
program=${PROGRAM:-c}
min_time=${MIN_TIME:-0.05}
[[ $program == c || $program == gbench ]] || { echo "bench-git-bisect: PROGRAM is c or gbench" >&2; exit 2; }
instrument=()
[[ -n ${INSTRUMENT:-} ]] && instrument=(--instrument "$INSTRUMENT")
[[ -n ${THRESHOLD:-} ]] && instrument+=(--threshold "$THRESHOLD")
[[ -x $culprit ]] || { echo "bench-git-bisect: build culprit first (cmake --build --preset release)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-vs-git-XXXXXX")
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT

now() { date +%s.%N; }
git_quiet() { git -c user.name=bench -c user.email=bench@example.org -c commit.gpgsign=false "$@" >/dev/null; }

make_repo() { # dir culprit-index
  local dir=$1 planted=$2 base=200
  local work_units=$base
  mkdir -p "$dir"
  git_quiet -C "$dir" init -q -b main
  if [[ $program == gbench ]]; then
    cat >"$dir/bench.cc" <<'CC'
#include <benchmark/benchmark.h>
#include <cstdint>
#include "notes.h"
#include "work.h"
volatile const char* revision = REVISION; // every commit builds a different binary
static void BM_work(benchmark::State& state) {
  for (auto _ : state) {
    std::uint64_t x = static_cast<std::uint64_t>(revision[0]);
    for (long i = 0; i < WORK * SCALE; ++i)
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_work);
BENCHMARK_MAIN();
CC
    cat >"$dir/culprit.toml" <<T
[build]
command = "c++ -O2 -o {build}/bench {src}/bench.cc -lbenchmark -lpthread"
[run]
command = "{build}/bench --benchmark_format=json"
format = "gbench"
env = { BENCHMARK_MIN_TIME = "$min_time" }
T
  else
    cat >"$dir/bench.c" <<'C'
#include <stdint.h>
#include "notes.h"
#include "work.h"
volatile const char* revision = REVISION; /* every commit builds a different binary */
int main(void) {
  volatile uint64_t sink = (uint64_t)revision[0];
  uint64_t x = 1;
  for (long i = 0; i < WORK * SCALE; ++i)
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  sink = x;
  (void)sink;
  return 0;
}
C
    cat >"$dir/culprit.toml" <<'T'
[build]
command = "cc -O2 -o {build}/bench {src}/bench.c"
[run]
command = "{build}/bench"
format = "time"
T
  fi
  echo "#define WORK $work_units" >"$dir/work.h"
  echo "#define SCALE ${scale}L" >>"$dir/work.h"
  echo '#define REVISION "revision 0"' >"$dir/notes.h"
  git_quiet -C "$dir" add -A
  git_quiet -C "$dir" commit -q -m "start"
  for ((i = 0; i < commits; ++i)); do
    if ((i == planted)); then
      work_units=$(awk -v b="$base" -v s="$step" 'BEGIN { printf "%d", b * (1 + s) + 0.5 }')
      echo "#define WORK $work_units" >"$dir/work.h"
      echo "#define SCALE ${scale}L" >>"$dir/work.h"
    else
      echo "#define REVISION \"revision $((i + 1))\"" >"$dir/notes.h"
    fi
    git_quiet -C "$dir" commit -q -am "change $i"
  done
}

git_bisect() { # dir -> prints the first bad commit
  local dir=$1
  if [[ $program == gbench ]]; then
    # The script people write for a Google Benchmark program: build, run once, read real_time (ns).
    cat >"$work/judge.sh" <<J
#!/usr/bin/env bash
c++ -O2 -o bench bench.cc -lbenchmark -lpthread || exit 125
ns=\$(BENCHMARK_MIN_TIME=$min_time ./bench --benchmark_format=json | /usr/bin/python3 -c 'import json,sys; print(int(json.load(sys.stdin)["benchmarks"][0]["real_time"]))')
(( ns > THRESHOLD_NS )) && exit 1 || exit 0
J
  else
    cat >"$work/judge.sh" <<'J'
#!/usr/bin/env bash
cc -O2 -o bench bench.c || exit 125
start=$(date +%s%N); ./bench; end=$(date +%s%N)
(( end - start > THRESHOLD_NS )) && exit 1 || exit 0
J
  fi
  local good bad t_good t_bad
  good=$(git -C "$dir" rev-list --max-parents=0 HEAD)
  bad=$(git -C "$dir" rev-parse HEAD)
  time_of() { # commit -> one run's time in ns, measured as the judge measures it
    git -C "$dir" checkout -q "$1"
    if [[ $program == gbench ]]; then
      (cd "$dir" && c++ -O2 -o bench bench.cc -lbenchmark -lpthread &&
        BENCHMARK_MIN_TIME=$min_time ./bench --benchmark_format=json |
        /usr/bin/python3 -c 'import json,sys; print(int(json.load(sys.stdin)["benchmarks"][0]["real_time"]))')
    else
      (cd "$dir" && cc -O2 -o bench bench.c && local s=$(date +%s%N) && ./bench &&
        echo $(($(date +%s%N) - s)))
    fi
  }
  t_good=$(time_of "$good")
  t_bad=$(time_of "$bad")
  local threshold
  threshold=$(awk -v a="$t_good" -v b="$t_bad" 'BEGIN { printf "%d", sqrt(a * b) }')
  sed -i "s/THRESHOLD_NS/$threshold/" "$work/judge.sh"
  chmod +x "$work/judge.sh"
  (cd "$dir" && git bisect start "$bad" "$good" >/dev/null 2>&1 &&
    git bisect run "$work/judge.sh" >"$work/git-bisect.log" 2>&1 || true)
  sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit.*/\1/p' "$work/git-bisect.log" | head -n 1
  (cd "$dir" && git bisect reset -q >/dev/null 2>&1 || true)
}

echo "culprit env:"
"$culprit" env 2>&1 | sed 's/^/  /'
echo "program: $program"
printf '%5s %8s | %14s %8s | %8s %8s | %6s | %s\n' trial planted culprit seconds git seconds ratio \
  "culprit's runs"
c_exact=0 c_wrong=0 g_exact=0 c_total=0 g_total=0
for ((trial = 1; trial <= trials; ++trial)); do
  planted=$((RANDOM % commits))
  repo="$work/repo-$trial"
  make_repo "$repo" "$planted"
  expected=$(git -C "$repo" rev-list --reverse HEAD | sed -n "$((planted + 2))p")
  good=$(git -C "$repo" rev-list --max-parents=0 HEAD)
  bad=$(git -C "$repo" rev-parse HEAD)
  start=$(now)
  (cd "$repo" && "$culprit" -q --cache-dir "$work/cache-$trial" bisect --good "$good" --bad "$bad" \
    "${instrument[@]}" --json "$work/evidence-$trial.json" >/dev/null 2>&1) || true
  c_seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  # The commit named, or why none was: culprit names one only when it is sure (not_reproduced:
  # the ends did not differ beyond the threshold; inconclusive: the runs ran out).
  named=$(/usr/bin/python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); c=(e.get("bisect") or {}).get("culprits") or []; print(c[0]["commit"] if len(c)==1 else e["status"])' "$work/evidence-$trial.json" 2>/dev/null || echo failed)
  # Its runs by metric (counted and timed apart), for where the time went.
  runs=$(/usr/bin/python3 -c 'import json,sys,collections; e=json.load(open(sys.argv[1])); r=collections.Counter();
for m in e["measurements"]: r[m["metric"]]+=len(m["runs"])
print(" ".join(f"{k}={v}" for k,v in sorted(r.items())))' "$work/evidence-$trial.json" 2>/dev/null || echo -)
  clone="$work/clone-$trial"
  git clone -q "$repo" "$clone"
  start=$(now)
  g_named=$(git_bisect "$clone")
  g_seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  if [[ $named == "$expected" ]]; then
    c_ok=exact && c_exact=$((c_exact + 1))
  elif [[ $named =~ ^[0-9a-f]{40}$ ]]; then
    c_ok=wrong && c_wrong=$((c_wrong + 1))
  else
    c_ok=$named # no culprit named, and why
  fi
  [[ $g_named == "$expected" ]] && g_ok=exact && g_exact=$((g_exact + 1)) || g_ok=wrong
  c_total=$(awk -v a="$c_total" -v b="$c_seconds" 'BEGIN { print a + b }')
  g_total=$(awk -v a="$g_total" -v b="$g_seconds" 'BEGIN { print a + b }')
  printf '%5d %8d | %14s %8s | %8s %8s | %5.1fx | %s\n' "$trial" "$planted" "$c_ok" "$c_seconds" \
    "$g_ok" "$g_seconds" "$(awk -v a="$c_seconds" -v b="$g_seconds" 'BEGIN { print a / b }')" "$runs"
done
awk -v t="$trials" -v ce="$c_exact" -v cw="$c_wrong" -v ge="$g_exact" -v ct="$c_total" -v gt="$g_total" -v n="$commits" -v s="$step" \
  -v lane="${INSTRUMENT:-time}" -v p="$program" 'BEGIN { printf "%d commits of a %s program, a %.0f%% step, culprit by %s: culprit exact %d of %d, wrong %d (the others named none), %.1f s a bisection; git bisect run exact %d of %d, %.1f s; culprit/git %.1fx\n", n, p, s * 100, lane, ce, t, cw, ct / t, ge, t, gt / t, ct / gt }'
