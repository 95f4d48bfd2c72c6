#!/usr/bin/env bash
# The whole test suite: installs what is missing, then configures, builds and runs CTest in the
# Release configuration, in the sanitizer configuration (AddressSanitizer + UBSan), and the tests
# of the threaded code (statistics workers, CPU peak measurement) under ThreadSanitizer.
# Usage: scripts/test.sh [release|sanitize|tsan ...]   (default: release sanitize tsan)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/setup-debian.sh

presets=("$@")
((${#presets[@]})) || presets=(release sanitize tsan)
for preset in "${presets[@]}"; do
  echo "== $preset: configure, build, test"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done
