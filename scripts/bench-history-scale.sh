#!/usr/bin/env bash
# The history at a team's scale, through the binaries: a repository of COMMITS first-parent
# commits, and for each commit and host one imported run (culprit JSON lines) of CASES cases with
# 5 samples each, lognormal noise of 2%, and ten planted steps of 20% (each in one case, at a
# commit of its own). Then it times, with the peak memory of each:
#   import    every commit of every host (`culprit import --commit C --host H`), in all
#   history   `culprit history --host H0 --json` over everything (the change-point search triage
#             starts from), and how many of the planted steps it found, with how many other ones
#   one case  `culprit history --host H0 --case CASE` of one case
#   append    one more night: a new commit imported for every case
#   then one  `history` of one case after it
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
work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-scale-XXXXXX")
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT

# The repository (git fast-import: one file changed a commit) and the results of every commit
# and host, with the planted steps in $work/planted.
/usr/bin/python3 - "$work" "$cases" "$commits" "$hosts" <<'EOF'
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
for h in range(hosts):
    for i in range(commits + 1):
        lines = []
        for c in range(cases):
            level = 1e-3 * (1 + c % 7) * (1.2 if c in steps and i >= steps[c] else 1.0)
            for _ in range(5):
                value = level * math.exp(random.gauss(0, 0.02))
                lines.append('{"type":"sample","case":"case%05d","metric":"time","unit":"s",'
                             '"direction":"lower","value":%.9g}' % (c, value))
        with open(os.path.join(work, "results", f"{h}-{i}.jsonl"), "w") as out:
            out.write("\n".join(lines) + "\n")
EOF
git init -q -b main "$work/repo"
(cd "$work/repo" && git fast-import --quiet <"$work/history.fi" && git checkout -q main)
mapfile -t ids < <(git -C "$work/repo" rev-list --reverse main)
printf '[build]\ncommand = "true"\n\n[run]\ncommand = "true"\nformat = "culprit"\n' >"$work/recipe.toml"

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
start=$(date +%s.%N)
for ((h = 0; h < hosts; h++)); do
  for ((i = 0; i < commits; i++)); do
    (cd "$work/repo" && "${cli[@]}" -q import --commit "${ids[$i]}" --host "host$h" \
      --format culprit "$work/results/$h-$i.jsonl" >/dev/null)
  done
done
awk -v a="$start" -v b="$(date +%s.%N)" -v n="$((commits * hosts))" \
  'BEGIN { printf "import     %8.2f s in all, %.3f s a commit and host\n", b - a, (b - a) / n }'

cd "$work/repo"
timed history "${cli[@]}" history --host host0 --json "$work/history.json"
/usr/bin/python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
history = json.load(open(f"{work}/history.json"))
ids = open(f"{work}/ids").read().split()
planted = {}
for line in open(f"{work}/planted"):
    case, at = line.split()
    planted[case] = ids[int(at)]
position = {commit: i for i, commit in enumerate(ids)}
exact = near = other = 0
for change in history["change_points"]:
    at = planted.get(change["case"])
    if at == change["commit"]:
        exact += 1
    elif at is not None and abs(position[at] - position[change["commit"]]) <= 1:
        near += 1
    else:
        other += 1
print(f"           found {exact} of {len(planted)} planted steps at their commit, {near} one "
      f"commit off; {other} other change points")
EOF
one=$(head -n 1 "$work/planted" | cut -d' ' -f1)
timed "one case" "${cli[@]}" history --host host0 --case "$one"
timed "append" "${cli[@]}" -q import --commit "${ids[$commits]}" --host host0 --format culprit \
  "$work/results/0-$commits.jsonl"
timed "then one" "${cli[@]}" history --host host0 --case "$one"
