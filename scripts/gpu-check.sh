#!/usr/bin/env bash
# gpu-check.sh: culprit's GPU path, run for real on a machine with an NVIDIA GPU, in one go.
#
#   scripts/gpu-check.sh pack [--dry-run] [BUNDLE]   here: packs culprit (its binary, every shared
#                                  library it needs and the dynamic loader it was linked against)
#                                  and osprey, a CUDA history of 16 commits made by
#                                  scripts/gpu-check/make-history.sh, into BUNDLE (default
#                                  build/gpu-check)
#   scripts/gpu-check.sh run [BUNDLE] OUT   there: builds the CUDA benchmark with nvcc for the
#                                  device, runs `culprit env`, `culprit run` of the CUDA cases, an
#                                  A/A compare, a compare across the planted regression, `culprit
#                                  bisect` over the history and `--instrument ncu` on the culprit
#                                  and its parent, and keeps under OUT each command's output,
#                                  evidence JSON and HTML, and summary.md with the figures
#   scripts/gpu-check.sh --dry-run [OUT]    here: pack --dry-run, then run, against a fake
#                                  nvidia-smi (an H100), a fake ncu and the kernels' CPU twins
#
# Through the device tool (its kind's GPU, 15 minutes of device time at most a session), after
# `scripts/gpu-check.sh pack` here:
#   run(command="bash scripts/gpu-check.sh run build/gpu-check \"$OUT\"",
#       carry=["build/gpu-check"], timeout_s=540)
# It is sized for at most 8 minutes there (not yet measured on a GPU). Exit status: 0 when every step gave what was planted,
# 1 when one did not (summary.md says which), 2 for a usage error, 4 when the bundle or what it
# needs cannot start on this machine (no driver, no GPU, no nvcc, a GPU busy with another
# process; CUDA_HOME says where the toolkit is when it is not at /usr/local/cuda).
set -euo pipefail

readonly program=gpu-check.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly root

fail() { # STATUS MESSAGE
  echo "$program: $2" >&2
  exit "$1"
}
usage() {
  sed -n '3,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# pack [--dry-run] [BUNDLE]
pack() {
  local backend=cuda
  if [[ ${1-} == --dry-run ]]; then
    backend=cpu
    shift
  fi
  [[ $# -le 1 ]] || usage
  local bundle=${1:-$root/build/gpu-check}
  local culprit=${CULPRIT:-$root/build/release/cli/culprit}
  [[ -x $culprit ]] || fail 2 "no culprit binary at $culprit: build it (cmake --preset release && cmake --build --preset release) or set CULPRIT"
  rm -rf "$bundle"
  mkdir -p "$bundle/bin" "$bundle/lib"
  cp "$culprit" "$bundle/bin/culprit"
  # Every library the binary loads, found as this machine's loader finds them, and the loader.
  local loader=""
  while read -r line; do
    case $line in
    *"=> not found"*) fail 4 "culprit needs a library this machine lacks: $line" ;;
    *"=> /"*)
      local path=${line#*=> }
      cp -L "${path%% (*}" "$bundle/lib/"
      ;;
    /*ld-linux*)
      loader=${line%% (*}
      cp -L "$loader" "$bundle/lib/"
      ;;
    esac
  done < <(ldd "$culprit")
  [[ -n $loader ]] || fail 4 "ldd names no dynamic loader for $culprit"
  cat >"$bundle/culprit" <<SH
#!/bin/sh
# culprit with the libraries it was built against, through their own loader: it starts whatever
# this machine's distribution is. Programs it starts use this machine's libraries.
here=\$(cd "\$(dirname "\$0")" && pwd)
exec "\$here/lib/${loader##*/}" --library-path "\$here/lib" "\$here/bin/culprit" "\$@"
SH
  chmod +x "$bundle/culprit"
  bash "$root/scripts/gpu-check/make-history.sh" "$bundle/osprey" "$backend" >"$bundle/planted.json"
  echo "$backend" >"$bundle/backend"
  if [[ $backend == cpu ]]; then
    mkdir -p "$bundle/fake/h100" "$bundle/fake/bin"
    cp "$root/tests/fixtures/host/nvidia-smi/fake-nvidia-smi.sh" "$bundle/fake/"
    cp "$root/tests/fixtures/host/nvidia-smi/h100/nvidia-smi" "$bundle/fake/h100/"
    cp "$root/scripts/gpu-check/ncu" "$bundle/fake/bin/"
  fi
  cp "$root/scripts/gpu-check/summary.py" "$bundle/"
  local size
  size=$(du -sm "$bundle" | cut -f1)
  echo "$program: packed $backend check into $bundle ($size MiB)"
  ((size < 60)) ||
    echo "$program: warning: the bundle is $size MiB, near or over what the device tool carries (64 MiB): pack a Release build" >&2
}

# planted KEY: a commit id from the bundle's planted.json.
planted() {
  sed -n "s/.*\"$1\": \"\([0-9a-f]*\)\".*/\1/p" "$bundle/planted.json" | head -n 1
}

# step NAME EXPECTED COMMAND...: runs a culprit command in the history, keeps its output in
# OUT/NAME.txt and a line "NAME expected status seconds" in OUT/steps.tsv. EXPECTED is an exit
# status, several separated by '/', or "any".
step() {
  local name=$1 expected=$2
  shift 2
  local started status=0
  started=$(date +%s)
  echo "$program: $name: culprit $*"
  (cd "$work/osprey" && timeout 300 "$bundle/culprit" --cache-dir "$work/cache" --color never "$@") \
    >"$out/$name.txt" 2>&1 || status=$?
  local seconds=$(($(date +%s) - started))
  printf '%s\t%s\t%s\t%s\n' "$name" "$expected" "$status" "$seconds" >>"$out/steps.tsv"
  echo "$program: $name: exit $status (expected $expected) in ${seconds} s"
  tail -n 4 "$out/$name.txt" | sed 's/^/    /'
}

# run [BUNDLE] OUT
run_check() {
  [[ $# -ge 1 && $# -le 2 ]] || usage
  bundle=$root/build/gpu-check
  [[ $# -eq 2 ]] && bundle=$1 && shift
  [[ -d $bundle ]] || fail 2 "no bundle at $bundle: run '$program pack' first"
  bundle=$(cd "$bundle" && pwd)
  out=$1
  mkdir -p "$out" && out=$(cd "$out" && pwd)
  [[ -f $bundle/backend && -x $bundle/culprit ]] || fail 2 "$bundle is not a bundle: run '$program pack' first"
  local backend
  backend=$(cat "$bundle/backend")
  local cuda_home=${CUDA_HOME:-/usr/local/cuda}
  if [[ $backend == cpu ]]; then
    export PATH="$bundle/fake/bin:$bundle/fake/h100:$PATH"
  elif [[ -d $cuda_home/bin ]]; then
    export PATH="$PATH:$cuda_home/bin"
  fi
  local version
  version=$("$bundle/culprit" --version 2>&1) ||
    fail 4 "the bundle's culprit does not start on this machine ($(head -n 1 <<<"$version")): pack it again here"
  if [[ $backend == cuda ]]; then
    local gpus busy
    command -v nvidia-smi >/dev/null ||
      fail 4 "no nvidia-smi: this machine has no NVIDIA driver; run the check on a machine with a GPU, or --dry-run here"
    gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader,nounits 2>&1) ||
      fail 4 "nvidia-smi sees no GPU ($(head -n 1 <<<"$gpus")): check the driver with nvidia-smi"
    command -v nvcc >/dev/null ||
      fail 4 "no nvcc on PATH or in $cuda_home/bin: install the CUDA toolkit or set CUDA_HOME"
    busy=$(nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader 2>/dev/null || true)
    [[ -z $busy || -n ${GPU_CHECK_ALLOW_BUSY:-} ]] ||
      fail 4 "the GPU is busy with another process ($(head -n 1 <<<"$busy")): its timings would be another's; wait, or set GPU_CHECK_ALLOW_BUSY=1"
  fi
  work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-XXXXXX")
  cp -a "$bundle/osprey" "$work/osprey"
  : >"$out/steps.tsv"
  {
    echo "culprit: $version"
    echo "bundle: $backend$([[ $backend == cpu ]] && echo ' (dry run: fake nvidia-smi and ncu, CPU twins)')"
    echo "host: $(uname -srm), $(nproc) CPUs"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader,nounits 2>&1
    command -v nvcc >/dev/null && nvcc --version | tail -n 1
  } >"$out/machine.txt"
  cat "$out/machine.txt"

  local good bad aa_head parent regression
  good=$(planted good) bad=$(planted bad) aa_head=$(planted aa_head)
  parent=$(planted parent) regression=$(planted regression)
  step env 0 env --json "$out/env.json"
  step run 0 run "$bad" --json "$out/run.json" --html "$out/run.html"
  if [[ $(tail -n 1 "$out/steps.tsv" | cut -f 3) != 0 ]]; then
    echo "$program: the benchmark does not build or run here (run.txt says why); the other steps are left out"
    finish
    return 1
  fi
  # On the GPU the A/A pair must be `same`; the dry run's CPU twins on a shared machine may also
  # be inconclusive (exit 3): what it must never say is slower or faster.
  local aa_expected=0
  [[ $backend == cpu ]] && aa_expected=0/3
  step aa "$aa_expected" compare "$good" "$aa_head" --json "$out/aa.json" --html "$out/aa.html"
  step planted 1 compare "$parent" "$regression" --json "$out/planted.json" --html "$out/planted.html"
  step bisect 0 bisect --good "$good" --bad "$bad" --no-counters --json "$out/bisect.json" \
    --html "$out/bisect.html"
  if command -v ncu >/dev/null; then
    step ncu any compare "$parent" "$regression" --instrument ncu --json "$out/ncu.json" \
      --html "$out/ncu.html"
  else
    printf 'ncu\tany\tmissing\t0\n' >>"$out/steps.tsv"
    echo "$program: ncu: not on PATH; step left out"
  fi
  finish
}

# finish: the summary of what the steps kept; false when a step did not give what was planted.
finish() {
  cp "$bundle/planted.json" "$out/planted-commits.json"
  rm -rf "$work"
  local status=0
  if command -v python3 >/dev/null; then
    python3 "$bundle/summary.py" "$out" >"$out/summary.md" || status=1
  else
    { echo "# GPU check"; echo; echo '```'; cat "$out/machine.txt" "$out/steps.tsv"; echo '```'; } >"$out/summary.md"
    while IFS=$'\t' read -r _ expected got _; do
      [[ $expected == any || /$expected/ == */"$got"/* ]] || status=1
    done <"$out/steps.tsv"
  fi
  cat "$out/summary.md"
  echo "$program: everything is in $out"
  return "$status"
}

[[ $# -ge 1 ]] || usage
case $1 in
pack) shift && pack "$@" ;;
run) shift && run_check "$@" ;;
--dry-run)
  shift
  [[ $# -le 1 ]] || usage
  dry_out=${1:-$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-out-XXXXXX")}
  dry_bundle=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-bundle-XXXXXX")
  pack --dry-run "$dry_bundle/b"
  status=0
  run_check "$dry_bundle/b" "$dry_out" || status=$?
  rm -rf "$dry_bundle"
  exit "$status"
  ;;
-h | --help) usage ;;
*) usage ;;
esac
