// The commits a history shows, labelled with what git says of them.
#include "core/report/history.hpp"

namespace culprit::report {

CommitLabels commit_labels(const git::Repository& repo, const history::History& history) {
  CommitLabels labels;
  const auto label = [&](const std::string& commit) {
    if (commit.empty() || labels.contains(commit))
      return;
    if (auto info = repo.commit_info(commit))
      labels.emplace(commit, CommitLabel{info->subject, info->author.name, info->author.iso8601()});
  };
  for (const auto& series : history.series)
    for (const auto& point : series.points) {
      label(point.commit);
      label(point.last_commit);
    }
  return labels;
}

std::string change_kind(const history::ChangePoint& change) {
  return change.regression() ? "regression" : "improvement";
}

} // namespace culprit::report
