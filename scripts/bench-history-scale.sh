#!/usr/bin/env bash
# The history at a team's scale, through the binaries: a repository of COMMITS first-parent
# commits, and for each commit and host one imported run (culprit JSON lines) of CASES cases with
# 5 samples each, lognormal noise of 2%, and ten planted steps of 20% (each in one case, at a
# commit of its own). Then it times, with the peak memory of each:
#   import    every commit of every host (`culprit import --commit C --host H`), in all
#   searchH   `culprit history --host HH` over everything, one host at a time (the change-point
#             search triage starts from)
#   jsonH     the same with every point written as JSON, and how many of the planted steps it
#             found, with how many other ones
#   one case  `culprit history --host H0 --case CASE` of one case
#   appendH   one more night on host H: a new commit imported for every case
#   then one  `history` of one case after it, and `then all` everything on host 0 again
# and triage on host 0 (this machine: its results are imported as this host's, and the recipe
# replays them, so that triage can confirm and bisect the planted steps):
#   triage    the first triage: the whole history searched, every planted step bisected
#   nightly   after one more night: the newest points searched (culprit-triage(1))
#   full      the same with --full: every point searched again
# Usage: scripts/bench-history-scale.sh [CASES=500] [COMMITS=200] [HOSTS=1]
# Needs a built culprit (build/release/cli/culprit, or the one CULPRIT names) and GNU time.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
culprit=${CULPRIT:-"$root/build/release/cli/culprit"}
cases=${1:-500}
commits=${2:-200}
hosts=${3:-1}
[[ -x $culprit ]] || { echo "bench-history-scale: build culprit first (cmake --build --preset release)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench-history-scale: GNU time is missing: apt-get install time" >&2; exit 2; }
# KEEP=1 keeps the work directory; REUSE=DIR takes the repository and results of a kept one (they
# take minutes to make at 2,000 x 1,000) and imports them afresh.
if [[ -n ${REUSE:-} ]]; then
  work=$REUSE
  [[ -f $work/planted && -d $work/results ]] || { echo "bench-history-scale: $work holds no kept run" >&2; exit 2; }
  rm -rf "$work/cache"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-scale-XXXXXX")
  trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
fi

# The repository (git fast-import: one file changed a commit) and the results of every commit
# and host, with the planted steps in $work/planted.
[[ -n ${REUSE:-} ]] || /usr/bin/python3 - "$work" "$cases" "$commits" "$hosts" <<'EOF'
import math, os, random, sys
work, cases, commits, hosts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
random.seed(2026)
steps = {}  # case -> commit index of its step
while len(steps) < min(10, cases):
    at = random.randrange(20, commits - 10)
    if at not in steps.values():
        steps[random.randrange(cases)] = at
with open(os.path.join(work, "planted"), "w") as out:
    for case, at in sorted(steps.items()):
        out.write(f"case{case:05d} {at}\n")
with open(os.path.join(work, "history.fi"), "w") as fi:
    for i in range(commits + 1):  # the last is the appended night
        body = f"commit {i}\n"
        fi.write(f"commit refs/heads/main\nmark :{i + 1}\n"
                 f"committer Bench <bench@example.com> {1767225600 + 3600 * i} +0000\n"
                 f"data {len(f'commit {i}')}\ncommit {i}\n")
        if i > 0:
            fi.write(f"from :{i}\n")
        fi.write(f"M 644 inline counter\ndata {len(body)}\n{body}\n")
os.makedirs(os.path.join(work, "results"))
import numpy as np
noise = np.random.default_rng(2026)
names = [f"case{c:05d}" for c in range(cases)]
for h in range(hosts):
    for i in range(commits + 1):
        level = 1e-3 * (1 + np.arange(cases) % 7)
        for c, at in steps.items():
            if i >= at:
                level[c] *= 1.2
        values = level[:, None] * np.exp(noise.normal(0, 0.02, (cases, 5)))
        with open(os.path.join(work, "results", f"{h}-{i}.jsonl"), "w") as out:
            out.writelines('{"type":"sample","case":"%s","metric":"time","unit":"s",'
                           '"direction":"lower","value":%.9g}\n' % (names[c], v)
                           for c in range(cases) for v in values[c])
EOF
if [[ -z ${REUSE:-} ]]; then
  git init -q -b main "$work/repo"
  (cd "$work/repo" && git fast-import --quiet <"$work/history.fi" && git checkout -q main)
fi
mapfile -t ids < <(git -C "$work/repo" rev-list --reverse main)
# Host 0's results replayed: a build copies the commit's counter file ("commit I"), a run prints
# the results imported for commit I. Every run of a commit is then alike, so the noise of its
# imported samples reads as its level, and a bisection may name a neighbour of a planted step too.
printf '#!/bin/sh\nexec cat "%s/results/0-$(cut -d" " -f2 "$1/counter").jsonl"\n' "$work" >"$work/replay.sh"
printf '[build]\ncommand = "cp {src}/counter {build}/counter"\nartifacts = ["counter"]\n\n[run]\ncommand = "sh %s/replay.sh {build}"\nformat = "culprit"\n' "$work" >"$work/recipe.toml"

timed() { # label command... -> "label: S s, M MB"
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" ||
    { echo "bench-history-scale: $label failed:" >&2; cat "$work/err" >&2; exit 1; }
  read -r seconds kilobytes <"$work/time"
  printf '%-10s %8.2f s %8.0f MB\n' "$label" "$seconds" "$((kilobytes / 1024))"
}
cli=("$culprit" --cache-dir "$work/cache" --config "$work/recipe.toml")
printf '%s\n' "${ids[@]}" >"$work/ids"

echo "$cases cases x $commits commits x $hosts host(s): $((cases * commits * hosts)) points, $((cases * commits * hosts * 5)) samples"
# Host 0 is this machine (triage works on this host's history); host H > 0 is "hostH".
me=$(cd "$work/repo" && "${cli[@]}" import --commit "${ids[0]}" --format culprit "$work/results/0-0.jsonl" |
  sed -n 's/.* on host \([0-9a-f]*\).*/\1/p')
[[ -n $me ]] || { echo "bench-history-scale: could not tell this host's id from import" >&2; exit 1; }
host_of() { if (($1 == 0)); then echo "$me"; else echo "host$1"; fi; }
import_as() { # host -> the import command for it
  if (($1 > 0)); then as=("${cli[@]}" -q import --host "host$1"); else as=("${cli[@]}" -q import); fi
}
start=$(date +%s.%N)
for ((h = 0; h < hosts; h++)); do
  for ((i = 0; i < commits; i++)); do
    import_as "$h"
    (cd "$work/repo" && "${as[@]}" --commit "${ids[$i]}" \
      --format culprit "$work/results/$h-$i.jsonl" >/dev/null)
  done
done
awk -v a="$start" -v b="$(date +%s.%N)" -v n="$((commits * hosts))" \
  'BEGIN { printf "import     %8.2f s in all, %.3f s a commit and host\n", b - a, (b - a) / n }'

cd "$work/repo"
# The search over everything, as triage runs it: one host at a time; then the same with every
# point written as JSON (from which the planted steps are checked).
for ((h = 0; h < hosts; h++)); do
  timed "search$h" "${cli[@]}" history --host "$(host_of "$h")"
  timed "json$h" "${cli[@]}" history --host "$(host_of "$h")" --json "$work/history$h.json"
done
/usr/bin/python3 - "$work" "$hosts" <<'EOF2'
import json, sys
work, hosts = sys.argv[1], int(sys.argv[2])
ids = open(f"{work}/ids").read().split()
planted = {}
for line in open(f"{work}/planted"):
    case, at = line.split()
    planted[case] = ids[int(at)]
position = {commit: i for i, commit in enumerate(ids)}
for h in range(hosts):
    history = json.load(open(f"{work}/history{h}.json"))
    exact = near = other = 0
    for change in history["change_points"]:
        at = planted.get(change["case"])
        if at == change["commit"]:
            exact += 1
        elif at is not None and abs(position[at] - position[change["commit"]]) <= 1:
            near += 1
        else:
            other += 1
    print(f"           host{h}: found {exact} of {len(planted)} planted steps at their commit, "
          f"{near} one commit off; {other} other change points")
EOF2
one=$(head -n 1 "$work/planted" | cut -d' ' -f1)
timed "one case" "${cli[@]}" history --host "$me" --case "$one"
# The first triage searches everything and bisects each planted step; triage exits 1 when it
# names new regressions, 3 when some were inconclusive.
triage() { # label args... -> timed, with its exit status and what it says of its search
  local label=$1
  shift
  local status=0
  /usr/bin/time -f "%e %M" -o "$work/time" "${cli[@]}" triage "$@" >"$work/out" 2>"$work/err" || status=$?
  ((status <= 1 || status == 3)) || { echo "bench-history-scale: $label failed:" >&2; cat "$work/err" >&2; exit 1; }
  read -r seconds kilobytes < <(tail -n 1 "$work/time")  # after "Command exited with ..."
  printf '%-10s %8.2f s %8.0f MB  exit %d; %s\n' "$label" "$seconds" "$((kilobytes / 1024))" "$status" \
    "$(grep -E '^(searched|[0-9]+ change point)' "$work/out" | tr '\n' ' ')"
}
triage triage -v
for ((h = 0; h < hosts; h++)); do
  import_as "$h"
  timed "append$h" "${as[@]}" --commit "${ids[$commits]}" \
    --format culprit "$work/results/$h-$commits.jsonl"
done
timed "then one" "${cli[@]}" history --host "$me" --case "$one"
timed "then all" "${cli[@]}" history --host "$me"
triage nightly
triage full --full
