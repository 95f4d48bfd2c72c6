#!/usr/bin/env bash
# make_history.sh DIR: creates the demo repository in DIR (new or empty) and prints, as one JSON
# object on stdout, what was planted in its history: the good and bad ends, the two performance
# regressions, the commit that broke the build and the one that fixed it, and the merge.
#
# The repository is "kestrel", a small project of CPU kernels. Its first commit imports the
# benchmark harness (kernels/include/culprit) and the CPU kernels, their reference checks and
# their benchmark program (kernels/cpu, kernels/reference, kernels/bench) as this tree had them
# when the history was written (a frozen copy in import/base.tar.gz, so that later work on
# kernels/ cannot stop the patches from applying), with the files in import/ (a Makefile, a
# README). The commits after it are the patches listed in
# history/series, applied with git am. Everything is fixed (authors, dates, no user or system
# git configuration, no network), so the same tree always gives the same commit ids.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly here
readonly history="$here/history"
readonly program=make_history.sh

fail() {
  echo "$program: $*" >&2
  exit 1
}

if [[ $# -ne 1 || $1 == -* ]]; then
  echo "usage: $program DIR   (creates the demo repository in DIR, which must be new or empty)" >&2
  exit 2
fi
mkdir -p "$1" || fail "cannot create $1"
dir=$(cd "$1" && pwd)
readonly dir
[[ -z $(ls -A "$dir") ]] || fail "$dir is not empty: give a new or empty directory"

# Only the settings made here count: no user or system configuration, no inherited repository.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
unset GIT_CEILING_DIRECTORIES GIT_NAMESPACE GIT_TEMPLATE_DIR GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE
unset GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE

git_in() { git -C "$dir" "$@"; }

# Sets author and committer (the same person, the same date) for the next commit.
identity() { # NAME EMAIL DATE
  export GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2 GIT_AUTHOR_DATE=$3
  export GIT_COMMITTER_NAME=$1 GIT_COMMITTER_EMAIL=$2 GIT_COMMITTER_DATE=$3
}

# Reads the From:, Date: and Subject: of a patch (or of a .msg file, a patch without a diff):
# sets identity and leaves the full message (subject, blank line, body) in $message_file.
readonly message_file="$dir/.git/demo-message"
read_header() { # FILE
  local info name="" email="" date="" subject=""
  info=$(git mailinfo "$message_file.body" /dev/null <"$1") || fail "cannot read the header of $1"
  while IFS= read -r line; do
    case $line in
    "Author: "*) name=${line#Author: } ;;
    "Email: "*) email=${line#Email: } ;;
    "Date: "*) date=${line#Date: } ;;
    "Subject: "*) subject=${line#Subject: } ;;
    esac
  done <<<"$info"
  [[ -n $name && -n $email && -n $date && -n $subject ]] ||
    fail "$1 lacks a From:, Date: or Subject: line"
  identity "$name" "$email" "$date"
  printf '%s\n' "$subject" >"$message_file"
  if [[ -s $message_file.body ]]; then
    printf '\n' >>"$message_file"
    cat "$message_file.body" >>"$message_file"
  fi
}

import_tree() {
  local cpu=(saxpy reduce sgemm softmax layernorm)
  local harness="$dir/third_party/culprit/include/culprit"
  local base="$dir/.git/demo-base"
  mkdir -p "$base"
  tar -xzf "$here/import/base.tar.gz" -C "$base"
  mkdir -p "$harness/harness" "$dir/kernels/cpu" "$dir/kernels/reference" "$dir/kernels/bench"
  cp "$base/kernels/include/culprit/harness.hpp" "$harness/"
  cp "$base"/kernels/include/culprit/harness/*.hpp "$harness/harness/"
  for kernel in "${cpu[@]}"; do
    cp "$base/kernels/cpu/$kernel.hpp" "$base/kernels/cpu/$kernel.cpp" "$dir/kernels/cpu/"
  done
  cp "$base/kernels/reference/check.hpp" "$base/kernels/reference/check.cpp" "$dir/kernels/reference/"
  cp "$base/kernels/bench/bench_cpu.cpp" "$base/kernels/bench/cases.hpp" "$dir/kernels/bench/"
  cp "$here/import/Makefile" "$here/import/README.md" "$here/import/.gitignore" "$dir/"
  chmod -R u=rwX,go=rX "$dir/kernels" "$dir/third_party" "$dir/Makefile" "$dir/README.md" "$dir/.gitignore"
  rm -rf "$base"
}

git init -q -b main "$dir"
import_tree
identity "Maya Okafor" "maya.okafor@example.org" "2024-03-04T10:12:00+0000"
git_in add -A
git_in commit -q -F - <<'EOF'
Import the CPU kernels and the culprit benchmark harness

kestrel starts from the CPU twins of the culprit reference kernels (saxpy, reduce, sgemm, softmax
and layernorm), the double-precision checks they are held to, and a benchmark program built on
the header-only culprit harness, vendored under third_party/culprit. make builds
build/kestrel_bench, which prints culprit JSON lines.
EOF

# What the marks in the series point at, filled in while the history is made.
good="" bad_ref=main regressions=() broken="" fix="" merge="" merge_branch=""

apply_patch() { # FILE
  read_header "$1"
  git_in am -q --committer-date-is-author-date "$1" >/dev/null 2>"$dir/.git/demo-am.log" || {
    cat "$dir/.git/demo-am.log" >&2
    fail "history/${1##*/} does not apply: the files it changes differ from what it expects" \
      "(was examples/demo/import changed? then the demo history needs updating)"
  }
}

merge_into_current() { # BRANCH MSG-FILE
  read_header "$2"
  git_in merge -q --no-ff --no-edit -F "$message_file" "$1" >/dev/null ||
    fail "merging $1 failed"
}

line_number=0
while IFS= read -r line || [[ -n $line ]]; do
  line_number=$((line_number + 1))
  line=${line%%#*}
  read -r -a words <<<"$line"
  [[ ${#words[@]} -gt 0 ]] || continue
  where="history/series:$line_number"
  case ${words[0]} in
  *.patch)
    [[ -f $history/${words[0]} ]] || fail "$where: no such patch ${words[0]}"
    apply_patch "$history/${words[0]}"
    head=$(git_in rev-parse HEAD)
    case ${words[1]-} in
    "") ;;
    regression)
      [[ ${#words[@]} -eq 4 ]] || fail "$where: a regression mark takes KERNEL CASE"
      regressions+=("$head ${words[2]} ${words[3]}")
      ;;
    broken) broken=$head ;;
    fixes-build) fix=$head ;;
    *) fail "$where: unknown mark '${words[1]}'" ;;
    esac
    ;;
  tag)
    git_in tag "${words[1]}"
    [[ ${words[2]-} == good ]] && good=$(git_in rev-parse HEAD)
    ;;
  branch) git_in switch -q -c "${words[1]}" ;;
  switch) git_in switch -q "${words[1]}" ;;
  merge)
    merge_into_current "${words[1]}" "$history/${words[2]}"
    merge=$(git_in rev-parse HEAD)
    merge_branch=${words[1]}
    ;;
  *) fail "$where: unknown directive '${words[0]}'" ;;
  esac
done <"$history/series"
git_in switch -q "$bad_ref"
rm -f "$message_file" "$message_file.body" "$dir/.git/demo-am.log"

[[ -n $good && ${#regressions[@]} -eq 2 && -n $broken && -n $fix && -n $merge ]] ||
  fail "history/series must mark the good tag, two regressions, a broken commit, its fix and a merge"

json_string() { # TEXT
  local text=${1//\\/\\\\}
  text=${text//\"/\\\"}
  printf '"%s"' "$text"
}
commit_json() { # COMMIT: {"commit": ..., "subject": ..., "author": ...}
  printf '{"commit": "%s", "subject": %s, "author": %s' "$1" \
    "$(json_string "$(git_in log -1 --format=%s "$1")")" \
    "$(json_string "$(git_in log -1 --format=%an "$1")")"
}
id_list() { # COMMIT...
  local first=1
  printf '['
  for id in "$@"; do
    ((first)) || printf ', '
    first=0
    printf '"%s"' "$id"
  done
  printf ']'
}

bad=$(git_in rev-parse "$bad_ref")
{
  printf '{"repo": %s,\n' "$(json_string "$dir")"
  printf ' "good": "%s", "good_ref": "%s",\n' "$good" "$(git_in describe --tags --exact-match "$good")"
  printf ' "bad": "%s", "bad_ref": "%s",\n' "$bad" "$bad_ref"
  printf ' "commits_in_range": %s, "first_parent_commits": %s,\n' \
    "$(git_in rev-list --count "$good..$bad")" "$(git_in rev-list --count --first-parent "$good..$bad")"
  printf ' "regressions": ['
  for i in "${!regressions[@]}"; do
    read -r id kernel case_name <<<"${regressions[$i]}"
    ((i == 0)) || printf ',\n                 '
    commit_json "$id"
    printf ', "kernel": %s, "case": %s}' "$(json_string "$kernel")" "$(json_string "$case_name")"
  done
  printf '],\n'
  # Every commit from the broken one up to the fix fails to build.
  mapfile -t unbuildable < <(git_in rev-list --reverse "$broken~1..$fix~1")
  printf ' "broken": '
  commit_json "$broken"
  printf ', "fixed_by": '
  commit_json "$fix"
  printf '}, "unbuildable": %s},\n' "$(id_list "${unbuildable[@]}")"
  mapfile -t side < <(git_in rev-list --reverse "$merge^2" --not "$merge^1")
  printf ' "merge": '
  commit_json "$merge"
  printf ', "branch": %s, "branch_commits": %s}}\n' "$(json_string "$merge_branch")" \
    "$(id_list "${side[@]}")"
}
