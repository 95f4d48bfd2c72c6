#!/usr/bin/env bash
# Installs culprit's build and test dependencies from Debian 12's packages, by name.
# Idempotent, and quick when everything is already there: apt runs only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgit2-dev libcli11-dev libfmt-dev libboost-math-dev nlohmann-json3-dev libtomlplusplus-dev
  libsqlite3-dev libpq-dev postgresql libgtest-dev libgmock-dev libbenchmark-dev libre2-dev libcsv-dev libmuparser-dev
  python3 python3-scipy python3-numpy
  clang-19 clang-tidy-22 clang-format-19 libclang-rt-19-dev
  groff-base chromium slurm-wlm munge valgrind time
)
if [[ -n "${CULPRIT_EXTRA_PACKAGES:-}" ]]; then
  read -r -a extra <<<"$CULPRIT_EXTRA_PACKAGES"
  packages+=("${extra[@]}")
fi

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  echo "setup: every dependency is installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: run as root or install sudo" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
