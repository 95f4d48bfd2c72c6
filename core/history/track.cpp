#include "core/history/track.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <unistd.h>

#include "core/measure/compare.hpp"
#include "core/measure/case_select.hpp"
#include "core/measure/estimator.hpp"

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

std::string new_session_label() {
  const auto micros = store::to_micros(store::now());
  const auto seconds = static_cast<std::time_t>(micros / 1'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("track:{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z/{}", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                     micros % 1'000'000, ::getpid());
}

TrackPlan plan_track(const std::vector<RangeCommit>& selected,
                     const std::vector<TrackedPoint>& tracked, std::string_view host_id,
                     std::string_view recipe_hash, const TrackSettings& settings) {
  std::vector<const TrackedPoint*> before; // the host's tracked points, in the ledger's order
  std::set<std::string> known;
  for (const auto& point : tracked)
    if (point.host_id == host_id && point.recipe_hash == recipe_hash && point.source == "track" &&
        known.insert(point.commit).second)
      before.push_back(&point);
  TrackPlan plan;
  std::vector<RangeCommit> fresh;
  std::set<std::string> measured;
  for (const auto& commit : selected) {
    if (!settings.remeasure && known.contains(commit.id)) {
      ++plan.already_tracked;
      continue;
    }
    if (measured.insert(commit.id).second)
      fresh.push_back(commit);
  }
  if (fresh.empty() || settings.anchors == 0)
    return {.commits = std::move(fresh), .anchors = {}, .already_tracked = plan.already_tracked};
  // Candidates are the tracked commits this session does not measure anyway; the nearest before
  // the first new commit come first, then the nearest after it.
  std::vector<const TrackedPoint*> earlier;
  std::vector<const TrackedPoint*> later;
  for (const auto* point : before) {
    if (measured.contains(point->commit))
      continue;
    (point->commit_time <= fresh.front().time ? earlier : later).push_back(point);
  }
  std::ranges::reverse(earlier);
  earlier.insert(earlier.end(), later.begin(), later.end());
  for (const auto* point : earlier) {
    if (plan.anchors.size() == settings.anchors)
      break;
    plan.anchors.push_back(point->commit);
    plan.commits.push_back({point->commit, point->commit_time});
  }
  std::ranges::reverse(plan.commits); // oldest anchor first
  std::ranges::reverse(plan.anchors);
  plan.commits.insert(plan.commits.end(), fresh.begin(), fresh.end());
  return plan;
}

Result<TrackOutcome> track_commits(const std::vector<RangeCommit>& commits, BuildProvider& builds,
                                   Sampler& sampler, Ledger& ledger, const TrackSettings& settings,
                                   const std::function<void(const TrackProgress&)>& progress) {
  Sampler* const lanes[] = {&sampler};
  return track_commits(commits, builds, lanes, ledger, settings, progress);
}

namespace {

// Adds what one commit's samples say about interference to `noise`, case by case. A commit whose
// cases cannot be selected (a glob that matches nothing here) adds nothing.
Status diagnose_commit(Sampler& sampler, const Subject& subject, std::vector<TrackNoise>& noise) {
  CULPRIT_TRY_ASSIGN(const auto available, sampler.cases(subject));
  const auto& recipe = sampler.options().run;
  const auto selected = select_cases(available, recipe.cases, recipe.metric);
  if (!selected)
    return {};
  for (const auto& c : *selected) {
    CULPRIT_TRY_ASSIGN(const auto runs, sampler.runs(subject, c.key));
    auto it = std::ranges::find(noise, c.key.case_name, &TrackNoise::case_name);
    if (it == noise.end())
      it = noise.insert(
          noise.end(),
          TrackNoise{.case_name = c.key.case_name, .summary = {}, .affected = 0, .measured = 0});
    ++it->measured;
    const auto diagnosis = diagnose(runs.samples, c.direction);
    if (!diagnosis)
      continue;
    const auto summary = describe_interference(*diagnosis);
    if (summary.empty())
      continue;
    ++it->affected;
    if (it->summary.empty())
      it->summary = summary;
  }
  return {};
}

} // namespace

std::vector<std::vector<std::size_t>> lane_blocks(std::size_t commits, std::size_t lanes) {
  lanes = std::max<std::size_t>(1, std::min(lanes, commits));
  std::vector<std::vector<std::size_t>> blocks(lanes);
  for (std::size_t b = 0; b < lanes; ++b) {
    const std::size_t begin = b * commits / lanes;
    const std::size_t end = (b + 1) * commits / lanes;
    for (std::size_t i = begin; i < end; ++i)
      blocks[b].push_back(i);
    if (b + 1 < lanes)
      blocks[b].push_back(end); // the overlap: the next block's first commit, on this device too
  }
  return blocks;
}

Result<TrackOutcome> track_commits(const std::vector<RangeCommit>& selected, BuildProvider& builds,
                                   std::span<Sampler* const> lanes, Ledger& ledger,
                                   const TrackSettings& settings,
                                   const std::function<void(const TrackProgress&)>& progress) {
  TrackOutcome outcome;
  if (lanes.empty())
    return infra_error("tracking needs a sampler");
  const auto& first_lane = lanes.front()->options();
  CULPRIT_TRY_ASSIGN(const auto tracked_before, ledger.tracked());
  auto track_settings = settings;
  if (!first_lane.session)
    track_settings.anchors = 0; // without a label of its own, the session cannot measure anew
  const auto plan = plan_track(selected, tracked_before, first_lane.host_id, first_lane.recipe_hash,
                               track_settings);
  outcome.already_tracked = plan.already_tracked;
  outcome.anchors = plan.anchors;
  const auto& commits = plan.commits;
  const std::set<std::string> anchors(plan.anchors.begin(), plan.anchors.end());
  int runs_before = 0;
  for (auto* lane : lanes)
    runs_before += lane->runs_made();
  const std::size_t chunk = std::max<std::size_t>(settings.chunk, 1);
  const auto blocks = lane_blocks(commits.size(), lanes.size());
  std::map<std::size_t, std::size_t> position_of; // commit index -> index in outcome.commits
  std::size_t done = 0;
  std::size_t longest = 0;
  for (const auto& block : blocks)
    longest = std::max(longest, block.size());
  for (std::size_t first = 0; first < longest; first += chunk) {
    // The next chunk of every lane's block: built, then measured on all lanes at once.
    std::vector<std::vector<std::size_t>> chunk_of(blocks.size());
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      for (std::size_t i = first; i < std::min(blocks[b].size(), first + chunk); ++i)
        chunk_of[b].push_back(blocks[b][i]);
    }
    // Each commit once: the overlapping commit is in two lanes' chunks.
    std::vector<std::pair<std::string, std::string>> wanted;
    std::set<std::size_t> asked;
    for (const auto& indices : chunk_of)
      for (const auto index : indices)
        if (!position_of.contains(index) && asked.insert(index).second)
          wanted.emplace_back(commits[index].id, commits[index].id);
    if (wanted.size() > 1)
      CULPRIT_TRY(builds.prepare(wanted));
    std::vector<std::vector<Subject>> subjects(blocks.size());
    std::vector<std::vector<std::size_t>> positions(blocks.size());
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      subjects[b].reserve(chunk_of[b].size());
      for (const auto index : chunk_of[b]) {
        auto [it, fresh] = position_of.try_emplace(index, outcome.commits.size());
        if (fresh) {
          if (progress)
            progress({.done = done++,
                      .total = commits.size(),
                      .commit = commits[index].id,
                      .anchor = anchors.contains(commits[index].id)});
          CULPRIT_TRY_ASSIGN(auto built, builds.build(commits[index].id, commits[index].id));
          if (!built.ok())
            ++outcome.failed_builds;
          outcome.commits.push_back({.commit = commits[index].id,
                                     .build = std::move(built),
                                     .measured = false,
                                     .anchor = anchors.contains(commits[index].id)});
        }
        const auto& tracked = outcome.commits[it->second];
        if (!tracked.build.ok())
          continue;
        subjects[b].push_back(subject_of(tracked.build));
        positions[b].push_back(index);
      }
    }
    std::vector<LaneWants> wants(blocks.size());
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      wants[b].sampler = lanes[b];
      for (const auto& subject : subjects[b])
        wants[b].wants.push_back({&subject, settings.runs});
    }
    CULPRIT_TRY_ASSIGN(const bool finished, ensure_lanes(wants));
    if (!finished)
      return fail(ExitCode::inconclusive,
                  fmt::format("inconclusive: the time budget ran out after {} of {} commits; "
                              "everything measured is kept: run the same command again to go on",
                              outcome.measured, commits.size()));
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      for (std::size_t k = 0; k < subjects[b].size(); ++k) {
        const auto& commit = commits[positions[b][k]];
        auto& tracked = outcome.commits[position_of.at(positions[b][k])];
        const TrackedPoint point{.commit = subjects[b][k].commit,
                                 .host_id = lanes[b]->options().host_id,
                                 .recipe_hash = lanes[b]->options().recipe_hash,
                                 .artifact_id = subjects[b][k].artifact_id,
                                 .source = "track",
                                 .file = {},
                                 .commit_time = commit.time,
                                 .tracked_at = store::now(),
                                 .sessions = {}};
        // An anchor keeps its place in the history; this session only adds its runs.
        if (!tracked.anchor)
          CULPRIT_TRY(ledger.record_tracked(point));
        if (const auto& session = lanes[b]->options().session)
          CULPRIT_TRY(ledger.record_session(point, *session));
        if (!tracked.measured) {
          tracked.measured = true;
          if (!tracked.anchor)
            ++outcome.measured;
          CULPRIT_TRY(diagnose_commit(*lanes[b], subjects[b][k], outcome.noise));
        }
      }
    }
  }
  std::vector<TrackedCommit> ordered; // in the order given
  ordered.reserve(outcome.commits.size());
  for (const auto& [index, position] : position_of)
    ordered.push_back(std::move(outcome.commits[position]));
  outcome.commits = std::move(ordered);
  std::erase_if(outcome.noise, [](const TrackNoise& n) { return n.affected == 0; });
  int runs_after = 0;
  for (auto* lane : lanes)
    runs_after += lane->runs_made();
  outcome.runs_made = runs_after - runs_before;
  if (outcome.measured == 0 && outcome.failed_builds > 0 &&
      outcome.failed_builds + anchors.size() >= commits.size())
    return infra_error("none of the {} new commits built (the first failed: {}); fix the build "
                       "or see the build logs",
                       commits.size() - anchors.size(),
                       std::ranges::find_if(outcome.commits, [](const TrackedCommit& c) {
                         return !c.build.ok();
                       })->build.message);
  return outcome;
}

} // namespace culprit::history
