#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (preset fuzz: clang-19, ASan + UBSan) and runs each
# over its committed corpus (tests/fuzz/corpus/<target>/) for SECONDS (default 20). New inputs go
# to a scratch directory; --update merges them into the committed corpora (minimized with
# -merge=1). A crash, leak or time-out stops that target; its input is kept under build/fuzz/.
# Usage: scripts/fuzz.sh [--update] [SECONDS] [TARGET...]   (TARGET: culprit_jsonl, recipe, ...)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

update=0
if [[ "${1:-}" == "--update" ]]; then
  update=1
  shift
fi
seconds=${1:-20}
shift || true

bash scripts/setup-debian.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

targets=("$@")
if ((${#targets[@]} == 0)); then
  mapfile -t targets < <(cd tests/fuzz && ls fuzz_*.cpp | sed 's/^fuzz_//; s/\.cpp$//')
fi

crashes="$root/build/fuzz/crashes"
mkdir -p "$crashes"
passed=0
failed=0
for target in "${targets[@]}"; do
  corpus="tests/fuzz/corpus/$target"
  mkdir -p "$corpus"
  scratch=$(mktemp -d)
  dict=()
  case "$target" in
  recipe) dict=(-dict=tests/fuzz/dict/toml.dict) ;;
  culprit_jsonl | gbench_json | nvbench_json | output_auto | evidence)
    dict=(-dict=tests/fuzz/dict/json.dict) ;;
  esac
  echo "== fuzz_$target: ${seconds}s"
  if "build/fuzz/tests/fuzz/fuzz_$target" "$scratch" "$corpus" "${dict[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$crashes/$target-" -print_final_stats=1 2>"$scratch.log"; then
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)' "$scratch.log" || true
    passed=$((passed + 1))
    if ((update)); then
      merged=$(mktemp -d)
      "build/fuzz/tests/fuzz/fuzz_$target" -merge=1 "$merged" "$corpus" "$scratch" 2>/dev/null
      rm -rf "${corpus:?}"/*
      cp "$merged"/* "$corpus"/ 2>/dev/null || true
      rm -rf "$merged"
      echo "   corpus: $(ls "$corpus" | wc -l) inputs, $(du -sh "$corpus" | cut -f1)"
    fi
  else
    tail -n 40 "$scratch.log"
    echo "fuzz_$target FAILED; the input is in $crashes/"
    failed=$((failed + 1))
  fi
  rm -rf "$scratch" "$scratch.log"
done
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
