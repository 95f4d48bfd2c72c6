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

#include "core/measure/case_select.hpp"
#include "core/measure/compare.hpp"
#include "core/measure/estimator.hpp"

namespace culprit::history {
namespace {

measure::Subject subject_of(const build::BuildResult& build) {
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

Result<TrackOutcome> track_commits(const std::vector<RangeCommit>& commits,
                                   build::BuildProvider& builds, measure::Sampler& sampler,
                                   Ledger& ledger, const TrackSettings& settings,
                                   const std::function<void(const TrackProgress&)>& progress) {
  measure::Sampler* const lanes[] = {&sampler};
  return track_commits(commits, builds, lanes, ledger, settings, progress);
}

namespace {

// Adds what one commit's samples say about interference to `noise`, case by case. A commit whose
// cases cannot be selected (a glob that matches nothing here) adds nothing.
Status diagnose_commit(measure::Sampler& sampler, const measure::Subject& subject,
                       std::vector<TrackNoise>& noise) {
  CULPRIT_TRY_ASSIGN(const auto available, sampler.cases(subject));
  const auto& recipe = sampler.options().run;
  const auto selected = measure::select_cases(available, recipe.cases, recipe.metric);
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
    const auto diagnosis = measure::diagnose(runs.samples, c.direction);
    if (!diagnosis)
      continue;
    const auto summary = measure::describe_interference(*diagnosis);
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

namespace {

int runs_made(std::span<measure::Sampler* const> lanes) {
  int runs = 0;
  for (auto* lane : lanes)
    runs += lane->runs_made();
  return runs;
}

// One tracking session over a plan's commits: each lane measures its block of them, chunk by
// chunk (built, then measured on all lanes at once), and the ledger records each point.
class Tracking {
public:
  Tracking(const TrackPlan& plan, build::BuildProvider& builds,
           std::span<measure::Sampler* const> lanes, Ledger& ledger, const TrackSettings& settings,
           const std::function<void(const TrackProgress&)>& progress)
      : m_commits(plan.commits), m_anchors(plan.anchors.begin(), plan.anchors.end()),
        m_builds(builds), m_lanes(lanes), m_ledger(ledger), m_settings(settings),
        m_progress(progress), m_blocks(lane_blocks(m_commits.size(), lanes.size())) {}

  Result<TrackOutcome> run(TrackOutcome outcome) {
    m_outcome = std::move(outcome);
    const int runs_before = runs_made(m_lanes);
    const std::size_t chunk = std::max<std::size_t>(m_settings.chunk, 1);
    std::size_t longest = 0;
    for (const auto& block : m_blocks)
      longest = std::max(longest, block.size());
    for (std::size_t first = 0; first < longest; first += chunk) {
      const auto chunk_of = chunks(first, chunk);
      CULPRIT_TRY(prepare(chunk_of));
      CULPRIT_TRY_ASSIGN(const auto measured, build(chunk_of));
      CULPRIT_TRY(measure(measured));
      CULPRIT_TRY(record(measured));
    }
    finish(runs_made(m_lanes) - runs_before);
    return check_something_built();
  }

private:
  // The commits of a chunk that each lane measures: subjects[b][k] is commits[positions[b][k]].
  struct Chunk {
    std::vector<std::vector<measure::Subject>> subjects;
    std::vector<std::vector<std::size_t>> positions;
  };

  // The indices [first, first + chunk) of every lane's block.
  [[nodiscard]] std::vector<std::vector<std::size_t>> chunks(std::size_t first,
                                                             std::size_t chunk) const {
    std::vector<std::vector<std::size_t>> chunk_of(m_blocks.size());
    for (std::size_t b = 0; b < m_blocks.size(); ++b)
      for (std::size_t i = first; i < std::min(m_blocks[b].size(), first + chunk); ++i)
        chunk_of[b].push_back(m_blocks[b][i]);
    return chunk_of;
  }

  // The chunk's new commits built ahead in parallel where the provider can, each once (the
  // overlapping commit is in two lanes' chunks).
  Status prepare(const std::vector<std::vector<std::size_t>>& chunk_of) {
    std::vector<std::pair<std::string, std::string>> wanted;
    std::set<std::size_t> asked;
    for (const auto& indices : chunk_of)
      for (const auto index : indices)
        if (!m_position_of.contains(index) && asked.insert(index).second)
          wanted.emplace_back(m_commits[index].id, m_commits[index].id);
    if (wanted.size() > 1)
      CULPRIT_TRY(m_builds.prepare(wanted));
    return {};
  }

  // Builds each commit the first time a lane meets it; the subjects of those that built.
  Result<Chunk> build(const std::vector<std::vector<std::size_t>>& chunk_of) {
    Chunk chunk{.subjects = std::vector<std::vector<measure::Subject>>(m_blocks.size()),
                .positions = std::vector<std::vector<std::size_t>>(m_blocks.size())};
    for (std::size_t b = 0; b < m_blocks.size(); ++b) {
      chunk.subjects[b].reserve(chunk_of[b].size());
      for (const auto index : chunk_of[b]) {
        const auto& commit = m_commits[index];
        auto [it, fresh] = m_position_of.try_emplace(index, m_outcome.commits.size());
        if (fresh) {
          const bool anchor = m_anchors.contains(commit.id);
          if (m_progress)
            m_progress({.done = m_done++,
                        .total = m_commits.size(),
                        .commit = commit.id,
                        .anchor = anchor});
          CULPRIT_TRY_ASSIGN(auto built, m_builds.build(commit.id, commit.id));
          if (!built.ok())
            ++m_outcome.failed_builds;
          m_outcome.commits.push_back({.commit = commit.id,
                                       .build = std::move(built),
                                       .measured = false,
                                       .anchor = anchor});
        }
        const auto& tracked = m_outcome.commits[it->second];
        if (!tracked.build.ok())
          continue;
        chunk.subjects[b].push_back(subject_of(tracked.build));
        chunk.positions[b].push_back(index);
      }
    }
    return chunk;
  }

  Status measure(const Chunk& chunk) {
    std::vector<measure::LaneWants> wants(m_blocks.size());
    for (std::size_t b = 0; b < m_blocks.size(); ++b) {
      wants[b].sampler = m_lanes[b];
      // Commits whose artifacts are identical share their runs (the sampler counts by
      // artifact): each artifact is asked for once, or it would get its runs once per commit.
      std::set<std::string> asked;
      for (const auto& subject : chunk.subjects[b])
        if (asked.insert(subject.artifact_id).second)
          wants[b].wants.push_back({&subject, m_settings.runs});
    }
    CULPRIT_TRY_ASSIGN(const bool finished, measure::ensure_lanes(wants));
    if (!finished)
      return fail(ExitCode::inconclusive,
                  fmt::format("inconclusive: the time budget ran out after {} of {} commits; "
                              "everything measured is kept: run the same command again to go on",
                              m_outcome.measured, m_commits.size()));
    return {};
  }

  // The ledger's points and sessions of the chunk, and what its samples say about interference.
  Status record(const Chunk& chunk) {
    for (std::size_t b = 0; b < m_blocks.size(); ++b) {
      const auto& lane = m_lanes[b]->options();
      for (std::size_t k = 0; k < chunk.subjects[b].size(); ++k) {
        const auto& subject = chunk.subjects[b][k];
        const auto& commit = m_commits[chunk.positions[b][k]];
        auto& tracked = m_outcome.commits[m_position_of.at(chunk.positions[b][k])];
        const TrackedPoint point{.commit = subject.commit,
                                 .host_id = lane.host_id,
                                 .recipe_hash = lane.recipe_hash,
                                 .artifact_id = subject.artifact_id,
                                 .source = "track",
                                 .file = {},
                                 .commit_time = commit.time,
                                 .tracked_at = store::now(),
                                 .sessions = {}};
        // An anchor keeps its place in the history; this session only adds its runs.
        if (!tracked.anchor)
          CULPRIT_TRY(m_ledger.record_tracked(point));
        if (lane.session)
          CULPRIT_TRY(m_ledger.record_session(point, *lane.session));
        if (!tracked.measured) {
          tracked.measured = true;
          if (!tracked.anchor)
            ++m_outcome.measured;
          CULPRIT_TRY(diagnose_commit(*m_lanes[b], subject, m_outcome.noise));
        }
      }
    }
    return {};
  }

  // The commits in the order given, the cases without interference dropped, the runs counted.
  void finish(int runs) {
    std::vector<TrackedCommit> ordered;
    ordered.reserve(m_outcome.commits.size());
    for (const auto& [index, position] : m_position_of)
      ordered.push_back(std::move(m_outcome.commits[position]));
    m_outcome.commits = std::move(ordered);
    std::erase_if(m_outcome.noise, [](const TrackNoise& n) { return n.affected == 0; });
    // An anchor counts as one only when this session measured it again.
    for (const auto& commit : m_outcome.commits)
      if (commit.anchor && !commit.measured) {
        std::erase(m_outcome.anchors, commit.commit);
        m_outcome.anchors_not_measured.push_back(commit.commit);
      }
    m_outcome.runs_made = runs;
  }

  Result<TrackOutcome> check_something_built() {
    const std::size_t fresh = m_commits.size() - m_anchors.size();
    if (m_outcome.measured == 0 && m_outcome.failed_builds > 0 &&
        m_outcome.failed_builds + m_anchors.size() >= m_commits.size())
      return infra_error("none of the {} new commits built (the first failed: {}); fix the build "
                         "or see the build logs",
                         fresh, std::ranges::find_if(m_outcome.commits, [](const TrackedCommit& c) {
                                  return !c.build.ok();
                                })->build.message);
    return std::move(m_outcome);
  }

  const std::vector<RangeCommit>& m_commits;
  const std::set<std::string> m_anchors;
  build::BuildProvider& m_builds;
  std::span<measure::Sampler* const> m_lanes;
  Ledger& m_ledger;
  const TrackSettings& m_settings;
  const std::function<void(const TrackProgress&)>& m_progress;
  const std::vector<std::vector<std::size_t>> m_blocks;
  TrackOutcome m_outcome;
  std::map<std::size_t, std::size_t> m_position_of; // commit index -> index in outcome.commits
  std::size_t m_done = 0;
};

} // namespace

Result<TrackOutcome> track_commits(const std::vector<RangeCommit>& selected,
                                   build::BuildProvider& builds,
                                   std::span<measure::Sampler* const> lanes, Ledger& ledger,
                                   const TrackSettings& settings,
                                   const std::function<void(const TrackProgress&)>& progress) {
  if (lanes.empty())
    return infra_error("tracking needs a sampler");
  const auto& first_lane = lanes.front()->options();
  CULPRIT_TRY_ASSIGN(const auto tracked_before, ledger.tracked());
  auto plan_settings = settings;
  if (!first_lane.session)
    plan_settings.anchors = 0; // without a label of its own, the session cannot measure anew
  const auto plan = plan_track(selected, tracked_before, first_lane.host_id, first_lane.recipe_hash,
                               plan_settings);
  TrackOutcome outcome;
  outcome.already_tracked = plan.already_tracked;
  outcome.anchors = plan.anchors;
  return Tracking(plan, builds, lanes, ledger, settings, progress).run(std::move(outcome));
}

} // namespace culprit::history
