#include "core/history/track.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <optional>
#include <string>

namespace culprit::history {
namespace {

Subject subject_of(const BuildResult& build) {
  return {build.commit, build.rev, build.key, build.artifact_id, build.artifact_dir};
}

} // namespace

std::vector<RangeCommit> select_commits(const std::vector<RangeCommit>& range,
                                        const Selection& selection) {
  std::vector<RangeCommit> recent;
  for (const auto& commit : range)
    if (!selection.since || commit.time >= *selection.since)
      recent.push_back(commit);
  const std::size_t every = std::max<std::size_t>(selection.every, 1);
  std::vector<RangeCommit> chosen;
  for (std::size_t i = 0; i < recent.size(); ++i)
    if (i % every == 0 || i + 1 == recent.size())
      chosen.push_back(recent[i]);
  return chosen;
}

Result<std::int64_t> parse_since(std::string_view text) {
  // YYYY-MM-DD, then optionally [T ]HH:MM[:SS], then optionally Z or +HH:MM, +HHMM, -...
  std::string_view rest = text;
  const auto digits = [&rest](std::size_t n) -> std::optional<int> {
    if (rest.size() < n)
      return std::nullopt;
    int value = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (rest[i] < '0' || rest[i] > '9')
        return std::nullopt;
      value = (value * 10) + (rest[i] - '0');
    }
    rest.remove_prefix(n);
    return value;
  };
  const auto literal = [&rest](char c) {
    if (rest.empty() || rest.front() != c)
      return false;
    rest.remove_prefix(1);
    return true;
  };
  const auto bad = [text] {
    return usage_error("--since {}: not a date; give 2026-01-31, 2026-01-31T12:00 or "
                       "2026-01-31T12:00:00+01:00",
                       text);
  };
  const auto y = digits(4);
  if (!y || !literal('-'))
    return bad();
  const auto m = digits(2);
  if (!m || !literal('-'))
    return bad();
  const auto d = digits(2);
  if (!d)
    return bad();
  using namespace std::chrono;
  const year_month_day day{year{*y}, month{static_cast<unsigned>(*m)},
                           std::chrono::day{static_cast<unsigned>(*d)}};
  if (!day.ok())
    return usage_error("--since {}: there is no such day", text);
  auto seconds = sys_days(day).time_since_epoch() / 1s;
  if (literal('T') || literal(' ')) {
    const auto hour = digits(2);
    if (!hour || !literal(':'))
      return bad();
    const auto minute = digits(2);
    if (!minute)
      return bad();
    int second = 0;
    if (literal(':')) {
      const auto s = digits(2);
      if (!s)
        return bad();
      second = *s;
    }
    if (*hour > 23 || *minute > 59 || second > 60)
      return usage_error("--since {}: there is no such time of day", text);
    seconds += (*hour * 3600) + (*minute * 60) + second;
  }
  if (literal('Z')) {
    // UTC, as without a zone
  } else if (!rest.empty() && (rest.front() == '+' || rest.front() == '-')) {
    const bool east = rest.front() == '+';
    rest.remove_prefix(1);
    const auto hours = digits(2);
    literal(':');
    const auto minutes = digits(2);
    if (!hours || !minutes || *hours > 23 || *minutes > 59)
      return bad();
    const int offset = (*hours * 3600) + (*minutes * 60);
    seconds += east ? -offset : offset;
  }
  if (!rest.empty())
    return bad();
  return seconds;
}

Result<TrackOutcome> track_commits(const std::vector<RangeCommit>& commits, BuildProvider& builds,
                                   Sampler& sampler, Ledger& ledger, const TrackSettings& settings,
                                   const std::function<void(const TrackProgress&)>& progress) {
  TrackOutcome outcome;
  const int runs_before = sampler.runs_made();
  const std::size_t chunk = std::max<std::size_t>(settings.chunk, 1);
  for (std::size_t first = 0; first < commits.size(); first += chunk) {
    const std::size_t last = std::min(commits.size(), first + chunk);
    std::vector<Subject> subjects;
    std::vector<std::size_t> positions;
    for (std::size_t i = first; i < last; ++i) {
      if (progress)
        progress({.done = i, .total = commits.size(), .commit = commits[i].id});
      CULPRIT_TRY_ASSIGN(auto built, builds.build(commits[i].id, commits[i].id));
      const bool ok = built.ok();
      outcome.commits.push_back({commits[i].id, std::move(built), false});
      if (!ok) {
        ++outcome.failed_builds;
        continue;
      }
      subjects.push_back(subject_of(outcome.commits.back().build));
      positions.push_back(outcome.commits.size() - 1);
    }
    std::vector<Want> wants;
    wants.reserve(subjects.size());
    for (const auto& subject : subjects)
      wants.push_back({&subject, settings.runs});
    CULPRIT_TRY_ASSIGN(const bool finished, sampler.ensure(wants));
    if (!finished)
      return infra_error("the time budget ran out after {} of {} commits; everything measured "
                         "is kept: run the same command again to go on",
                         first, commits.size());
    for (std::size_t k = 0; k < subjects.size(); ++k) {
      const auto& commit = commits[positions[k]];
      CULPRIT_TRY(ledger.record_tracked({.commit = subjects[k].commit,
                                         .host_id = sampler.options().host_id,
                                         .recipe_hash = sampler.options().recipe_hash,
                                         .artifact_id = subjects[k].artifact_id,
                                         .source = "track",
                                         .file = {},
                                         .commit_time = commit.time,
                                         .tracked_at = store::now()}));
      outcome.commits[positions[k]].measured = true;
      ++outcome.measured;
    }
  }
  outcome.runs_made = sampler.runs_made() - runs_before;
  if (!commits.empty() && outcome.measured == 0)
    return infra_error("none of the {} commits built (the first failed: {}); fix the build or "
                       "see the build logs",
                       commits.size(), outcome.commits.front().build.message);
  return outcome;
}

} // namespace culprit::history
