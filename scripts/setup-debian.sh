#!/usr/bin/env bash
# Installs culprit's build and test dependencies from Debian 12's packages, by name.
# Idempotent, and quick when everything is already there: apt runs only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgit2-dev libcli11-dev libfmt-dev libboost-math-dev nlohmann-json3-dev libtomlplusplus-dev
  libsqlite3-dev libpq-dev postgresql libgtest-dev libgmock-dev libbenchmark-dev libre2-dev libcsv-dev libmuparser-dev
  python3 python3-scipy python3-numpy python3-pip
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

# Root, or sudo, only when something is to be installed.
sudo=()
become_root() {
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: run as root or install sudo" >&2; exit 1; }
    sudo=(sudo)
  fi
}

if ((${#missing[@]} == 0)); then
  echo "setup: every dependency is installed"
else
  echo "setup: installing ${missing[*]}"
  become_root
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup: done"
fi

# cuobjdump and nvdisasm read CUDA machine code without a GPU. Debian's main component has no CUDA
# packages and a toolkit may carry nvcc and ptxas alone, so where neither PATH nor the toolkit has
# them they come from NVIDIA's PyPI wheels, unpacked into one folder with links on PATH.
cuda_tools=/usr/local/lib/culprit-cuda-tools
cuda_bin="${CUDA_HOME:-/usr/local/cuda}/bin"
need_tools=()
for tool in cuobjdump nvdisasm; do
  command -v "$tool" >/dev/null || [[ -x "$cuda_bin/$tool" || -x "$cuda_tools/bin/$tool" ]] ||
    need_tools+=("$tool")
done
if ((${#need_tools[@]} > 0)); then
  echo "setup: installing ${need_tools[*]} from PyPI into $cuda_tools"
  become_root
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  for tool in "${need_tools[@]}"; do
    python3 -m pip download -q --no-deps -d "$scratch/wheels" "nvidia-cuda-$tool"
  done
  for wheel in "$scratch"/wheels/*.whl; do
    python3 -m zipfile -e "$wheel" "$scratch/unpacked"
  done
  "${sudo[@]}" mkdir -p "$cuda_tools/bin"
  for tool in "${need_tools[@]}"; do
    found=$(find "$scratch/unpacked" -path "*/bin/$tool" -type f | head -n 1)
    [[ -n "$found" ]] || { echo "setup: the $tool wheel holds no bin/$tool" >&2; exit 1; }
    "${sudo[@]}" install -m 0755 "$found" "$cuda_tools/bin/$tool"
    "${sudo[@]}" ln -sf "$cuda_tools/bin/$tool" "/usr/local/bin/$tool"
  done
fi
