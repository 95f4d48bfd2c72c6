#!/usr/bin/env bash
# The whole test suite: installs what is missing, then configures, builds and runs CTest in the
# Release configuration and in the sanitizer configuration (AddressSanitizer + UBSan).
# Usage: scripts/test.sh [release|sanitize|tsan ...]   (default: release sanitize)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/setup-debian.sh

presets=("$@")
((${#presets[@]})) || presets=(release sanitize)
for preset in "${presets[@]}"; do
  echo "== $preset: configure, build, test"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done
