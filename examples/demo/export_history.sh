#!/usr/bin/env bash
# export_history.sh REPO: writes the history of REPO (a demo repository made by make_history.sh,
# then edited: commits amended, added, reordered with git rebase -i --rebase-merges) back into
# history/: one patch per commit after the first, and the series that make_history.sh replays.
#
# REPO's main must hold the first-parent chain from the import commit, with at most one merge
# of one branch; the marks of the current series (good tag, regressions, broken, fixes-build)
# are carried over to the commits with the same subject, so keep subjects of marked commits.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly here
readonly history="$here/history"
readonly program=export_history.sh

fail() {
  echo "$program: $*" >&2
  exit 1
}

[[ $# -eq 1 ]] || {
  echo "usage: $program REPO" >&2
  exit 2
}
readonly repo=$1
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
git_in() { git -C "$repo" "$@"; }

# The marks of the current series, by subject.
declare -A marks
if [[ -f $history/series ]]; then
  while read -r first rest; do
    [[ $first == *.patch && -n $rest ]] || continue
    subject=$(git mailinfo /dev/null /dev/null <"$history/$first" | sed -n 's/^Subject: //p')
    marks[$subject]=$rest
  done < <(sed 's/#.*//' "$history/series")
fi
good_subject=$(git_in log -1 --format=%s v0.1 2>/dev/null) || fail "REPO has no tag v0.1"

mapfile -t chain < <(git_in rev-list --reverse --first-parent main)
merges=$(git_in rev-list --count --first-parent --merges main)
[[ $merges -le 1 ]] || fail "main has $merges merges; the series format takes one"
merge=$(git_in rev-list --first-parent --merges main)

# Commits in the order the series makes them: main's in their order, and the branch's inserted
# after the fork point, each before the first commit of main that is younger than it.
side=() fork=""
if [[ -n $merge ]]; then
  mapfile -t side < <(git_in rev-list --reverse "$merge^2" --not "$merge^1")
  fork=$(git_in merge-base "$merge^1" "$merge^2")
fi
entries=() next=0 forked=0
[[ $fork == "${chain[0]}" ]] && forked=1
for id in "${chain[@]:1}"; do
  if [[ $id == "$merge" ]]; then
    for ((; next < ${#side[@]}; next++)); do entries+=("side ${side[next]}"); done
    entries+=("merge $id")
    continue
  fi
  if ((forked)); then
    date=$(git_in log -1 --format=%at "$id")
    for ((; next < ${#side[@]}; next++)); do
      (($(git_in log -1 --format=%at "${side[next]}") < date)) || break
      entries+=("side ${side[next]}")
    done
  fi
  entries+=("main $id")
  [[ $id == "$fork" ]] && forked=1
done

rm -f "$history"/*.patch "$history"/*.msg
branch=""
[[ -n $merge ]] && branch=$(git_in log -1 --format=%s "$merge" | sed -n "s/^Merge branch '\\(.*\\)'.*/\\1/p")
{
  sed -n '/^#/p' "$history/series" 2>/dev/null || true
  number=0 on=main
  for entry in "${entries[@]}"; do
    read -r kind id <<<"$entry"
    number=$((number + 1))
    if [[ $kind == merge ]]; then
      [[ $on == main ]] || echo "switch main"
      file=$(printf '%04d-merge-%s.msg' "$number" "$branch")
      {
        git_in log -1 --format='From: %an <%ae>%nDate: %aD%nSubject: %s%n%n%b' "$id"
      } >"$history/$file"
      echo "merge $branch $file"
      on=main
      continue
    fi
    want=main
    [[ $kind == side ]] && want=$branch
    if [[ $want != "$on" ]]; then
      if [[ $want == "$branch" && -z ${started-} ]]; then
        echo "branch $branch"
        started=1
      else
        echo "switch $want"
      fi
      on=$want
    fi
    file=$(git_in format-patch -1 --zero-commit --no-signature --no-numbered \
      --start-number "$number" -o "$history" "$id")
    file=${file##*/}
    subject=$(git_in log -1 --format=%s "$id")
    echo "$file${marks[$subject]:+ ${marks[$subject]}}"
    [[ $subject == "$good_subject" ]] && echo "tag v0.1 good"
  done
  for tag in $(git_in tag --points-at main); do echo "tag $tag"; done
} >"$history/series.new"
mv "$history/series.new" "$history/series"
echo "$program: wrote $number entries to $history" >&2
