#!/usr/bin/env bash
# The demo: builds culprit, then (once bisection lands) bisects a generated history with planted
# regressions.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup-debian.sh
cmake --preset release >/dev/null
cmake --build --preset release --target culprit
echo "demo: culprit is built at build/release/cli/culprit; the demo bisection is not implemented yet"
