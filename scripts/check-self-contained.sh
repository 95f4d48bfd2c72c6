#!/usr/bin/env bash
# Shows that the tests read nothing outside the repository, as a user who clones it alone has it:
# 1. nothing under tests/, scripts/ or .ci/ names a directory beside the repository;
# 2. the tests that read fixtures, examples and scripts pass when they read them from a copy of
#    the repository with nothing beside it. The copy reuses the test binaries already built in
#    BUILD_DIR (they read the tree from $CULPRIT_TEST_SOURCE_DIR): building again from the copy
#    would double the time CI spends compiling, and prove nothing more about what the tests read.
# Usage: scripts/check-self-contained.sh [BUILD_DIR]   (default: build/release)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=$(realpath "${1:-build/release}")

# 1. The names of places beside the repository (the shared fixtures directory of old).
if git grep -nE '\.\./shared|SHARED_DIR' -- tests scripts .ci ':!tests/fuzz/corpus' \
  ':!scripts/check-self-contained.sh'; then
  echo "check-self-contained: the lines above read from outside the repository;" \
    "move what they read into tests/fixtures/" >&2
  exit 1
fi

# 2. A copy of the tracked (and new, not ignored) files in a directory of its own.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/repo"
git ls-files -z --cached --others --exclude-standard |
  tar --null -T - -cf - 2>/dev/null | tar -xf - -C "$scratch/repo"
export CULPRIT_TEST_SOURCE_DIR="$scratch/repo"
echo "== the tests that read the repository's files, from a copy at $scratch/repo"
# core_tests whole (under a minute; not the tests that start a real Slurm cluster), and the
# statistics tests that read the scipy reference values.
"$build/tests/core_tests" --gtest_brief=1 --gtest_filter='-SlurmClusterClients.*'
"$build/tests/stats_tests" --gtest_brief=1 \
  --gtest_filter='Bootstrap.*:ChangePoints.*:Fdr.*:RankTests.*:Summary.*:SignedRank.*:Interference.*:TrendTest.*'
echo "check-self-contained: the tests read nothing outside the repository"
