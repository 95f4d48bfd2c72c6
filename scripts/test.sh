#!/usr/bin/env bash
# The whole test suite: installs what is missing, then configures, builds and runs CTest in the
# Release configuration, in the sanitizer configuration (AddressSanitizer + UBSan), and the tests
# of the threaded code (statistics workers, CPU peak measurement) under ThreadSanitizer.
# Usage: scripts/test.sh [release|sanitize|tsan ...]   (default: release sanitize tsan)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/setup-debian.sh

# The tests that start a real Slurm cluster skip (and say so) where they cannot: without root or
# without slurm-wlm and munge. Where setup could install those as root, a skip is a failure.
if [[ $(id -u) -eq 0 ]] && command -v slurmctld >/dev/null && command -v munged >/dev/null; then
  export CULPRIT_REQUIRE_SLURM=1
fi

# The tests of the shared store start a throwaway PostgreSQL server (scripts/postgres-server.sh);
# setup installed it, so a test that cannot start one fails rather than skips.
if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  export CULPRIT_REQUIRE_POSTGRES=1
fi

presets=("$@")
((${#presets[@]})) || presets=(release sanitize tsan)
for preset in "${presets[@]}"; do
  echo "== $preset: configure, build, test"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done
