#!/usr/bin/env bash
# The demo: builds culprit, makes "kestrel" (a small kernel project whose ~60-commit history holds
# two planted performance regressions, a commit that does not build and a merge; see
# examples/demo/README.md), and bisects it: `culprit bisect --good v0.1 --bad main`.
# Then it checks the culprits named against the ones planted.
# Usage: examples/demo.sh [DIR]   (default: a new temporary directory, kept for you to look at)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/setup-debian.sh
echo "demo: building culprit (Release)..."
cmake --preset release >/dev/null
cmake --build --preset release --target culprit | tail -n 1
culprit="$root/build/release/cli/culprit"

work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/culprit-demo-XXXXXX")}
mkdir -p "$work"
echo "demo: making the kestrel history in $work/kestrel"
bash examples/demo/make_history.sh "$work/kestrel" >"$work/planted.json"

echo "demo: culprit bisect --good v0.1 --bad main (in $work/kestrel)"
started=$(date +%s)
status=0
(cd "$work/kestrel" && "$culprit" --cache-dir "$work/cache" bisect --good v0.1 --bad main \
  --json "$work/evidence.json") || status=$?
elapsed=$(($(date +%s) - started))
echo "demo: the bisection took ${elapsed} s and exited with status $status"

/usr/bin/python3 - "$work/planted.json" "$work/evidence.json" <<'PY'
import json, sys
planted = json.load(open(sys.argv[1]))
try:
    evidence = json.load(open(sys.argv[2]))
except OSError:
    sys.exit("demo: no evidence was written")
found = {c["commit"] for c in (evidence.get("bisect") or {}).get("culprits", [])}
missing = 0
for regression in planted["regressions"]:
    ok = regression["commit"] in found
    missing += not ok
    print(f"demo: planted in {regression['kernel']:<10} {regression['commit'][:12]} "
          f"{'found' if ok else 'MISSED'}: {regression['subject']}")
print(f"demo: the broken commit {planted['broken']['commit'][:12]} and the merge are in the range;"
      f" evidence: {sys.argv[2]}")
sys.exit(1 if missing else 0)
PY
