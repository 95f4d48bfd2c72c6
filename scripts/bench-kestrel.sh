#!/usr/bin/env bash
# The demo's kestrel bisected three ways, through the binaries, on this machine as it is: its
# history of 61 commits with two planted regressions (sgemm and layernorm), a broken stretch and a
# merge (examples/demo/README.md). Per trial, each from nothing (a cache of its own):
#   valgrind  culprit bisect --instrument valgrind: located by counts, confirmed in time (layernorm's
#             counts fall while its time rises, so it is bisected by time)
#   time      culprit bisect, the time lane (the demo)
#   git       git bisect run once per planted case, with the script people write: build with make,
#             run the benchmark once (its 10 samples, their median), call the commit bad when that
#             exceeds a threshold set halfway (geometric mean) between one run of the good end and
#             one of the bad; a commit that does not build is skipped (exit 125). Both bisections,
#             and their end runs and builds, are counted in its time.
# and prints whether each named each planted commit, its wall time, and culprit's runs by metric.
# Usage: scripts/bench-kestrel.sh [TRIALS=3]
# Needs a built culprit (build/release/cli/culprit, or the one CULPRIT names), make, c++ and valgrind.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
culprit=${CULPRIT:-"$root/build/release/cli/culprit"}
trials=${1:-3}
[[ -x $culprit ]] || { echo "bench-kestrel: build culprit first (cmake --build --preset release)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-kestrel-XXXXXX")
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT

now() { date +%s.%N; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

bash "$root/examples/demo/make_history.sh" "$work/kestrel" >"$work/planted.json"
planted() { # kernel -> commit
  /usr/bin/python3 -c 'import json,sys; print(next(r["commit"] for r in json.load(open(sys.argv[1]))["regressions"] if r["kernel"] == sys.argv[2]))' \
    "$work/planted.json" "$1"
}
case_of() { # kernel -> case
  /usr/bin/python3 -c 'import json,sys; print(next(r["case"] for r in json.load(open(sys.argv[1]))["regressions"] if r["kernel"] == sys.argv[2]))' \
    "$work/planted.json" "$1"
}
kernels=(sgemm layernorm)

culprit_bisect() { # label extra-args... -> "sgemm-ok layernorm-ok seconds runs"
  local label=$1
  shift
  local start evidence="$work/evidence-$label.json"
  rm -rf "$work/cache-$label"
  start=$(now)
  (cd "$work/kestrel" && "$culprit" -q --cache-dir "$work/cache-$label" bisect --good v0.1 \
    --bad main "$@" --json "$evidence" >/dev/null 2>&1) || true
  local elapsed
  elapsed=$(seconds_since "$start")
  /usr/bin/python3 - "$evidence" "$(planted sgemm)" "$(planted layernorm)" "$elapsed" <<'PY'
import collections, json, sys
try:
    e = json.load(open(sys.argv[1]))
except OSError:
    print("wrong wrong", sys.argv[4], "-"); sys.exit()
found = {c["commit"] for c in (e.get("bisect") or {}).get("culprits", [])}
runs = collections.Counter()
for m in e["measurements"]:
    runs[m["metric"]] += len(m["runs"])
print("exact" if sys.argv[2] in found else "missed", "exact" if sys.argv[3] in found else "missed",
      sys.argv[4], ",".join(f"{k}={v}" for k, v in sorted(runs.items())))
PY
}

# One run of the benchmark for one case, as the judge measures it: the median of its samples, ns.
cat >"$work/measure.sh" <<'M'
#!/usr/bin/env bash
make -s -j2 BUILD=build >/dev/null 2>&1 || exit 125
./build/kestrel_bench --samples 10 --case "$CASE" | /usr/bin/python3 -c '
import json, statistics, sys
values = [r["value"] for r in map(json.loads, sys.stdin) if r.get("type") == "sample"]
print(int(statistics.median(values) * 1e9) if values else 0)'
M
cat >"$work/judge.sh" <<'J'
#!/usr/bin/env bash
ns=$("$(dirname "$0")/measure.sh") || exit 125
(( ns > THRESHOLD_NS )) && exit 1 || exit 0
J
chmod +x "$work/measure.sh" "$work/judge.sh"

git_bisect() { # clone kernel -> "ok"
  local clone=$1 kernel=$2 t_good t_bad threshold
  export CASE
  CASE=$(case_of "$kernel")
  (cd "$clone" && git checkout -q v0.1 && rm -rf build) && t_good=$(cd "$clone" && "$work/measure.sh")
  (cd "$clone" && git checkout -q main && rm -rf build) && t_bad=$(cd "$clone" && "$work/measure.sh")
  threshold=$(awk -v a="$t_good" -v b="$t_bad" 'BEGIN { printf "%d", sqrt(a * b) }')
  sed "s/THRESHOLD_NS/$threshold/" "$work/judge.sh" >"$work/judge-$kernel.sh"
  chmod +x "$work/judge-$kernel.sh"
  (cd "$clone" && git bisect start main v0.1 >/dev/null 2>&1 &&
    git bisect run "$work/judge-$kernel.sh" >"$work/git-bisect-$kernel.log" 2>&1 || true)
  local named
  named=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit.*/\1/p' "$work/git-bisect-$kernel.log" | head -n 1)
  (cd "$clone" && git bisect reset -q >/dev/null 2>&1 || true)
  [[ $named == "$(planted "$kernel")" ]] && echo exact || echo missed
}

echo "culprit env:"
"$culprit" env 2>&1 | sed 's/^/  /'
printf '%5s | %-9s | %-8s %-9s | %8s | %s\n' trial lane sgemm layernorm seconds "culprit's runs"
declare -A exact total
for ((trial = 1; trial <= trials; ++trial)); do
  for lane in valgrind time; do
    extra=()
    [[ $lane == valgrind ]] && extra=(--instrument valgrind)
    read -r s l secs runs < <(culprit_bisect "$lane-$trial" "${extra[@]}")
    printf '%5d | %-9s | %-8s %-9s | %8s | %s\n' "$trial" "$lane" "$s" "$l" "$secs" "$runs"
    exact[$lane]=$((${exact[$lane]:-0} + $([[ $s == exact ]] && echo 1 || echo 0) + $([[ $l == exact ]] && echo 1 || echo 0)))
    total[$lane]=$(awk -v a="${total[$lane]:-0}" -v b="$secs" 'BEGIN { print a + b }')
  done
  rm -rf "$work/clone"
  git clone -q "$work/kestrel" "$work/clone"
  start=$(now)
  s=$(git_bisect "$work/clone" sgemm)
  l=$(git_bisect "$work/clone" layernorm)
  secs=$(seconds_since "$start")
  printf '%5d | %-9s | %-8s %-9s | %8s | %s\n' "$trial" git "$s" "$l" "$secs" "one run a probe"
  exact[git]=$((${exact[git]:-0} + $([[ $s == exact ]] && echo 1 || echo 0) + $([[ $l == exact ]] && echo 1 || echo 0)))
  total[git]=$(awk -v a="${total[git]:-0}" -v b="$secs" 'BEGIN { print a + b }')
done
for lane in valgrind time git; do
  awk -v l="$lane" -v e="${exact[$lane]}" -v n=$((2 * trials)) -v t="${total[$lane]}" -v k="$trials" \
    -v g="${total[git]}" 'BEGIN { printf "kestrel, %s: %d of %d culprits exact, %.1f s a bisection (%.1fx git bisect run)\n", l, e, n, t / k, t / g }'
done
