#pragma once
// Tracking: measuring a series of commits into the store, incrementally, so that a nightly job
// can run it on each new commit. Each run of `culprit track` is a *session*: its runs carry the
// session's label in the store. A commit already tracked on the host (under the run recipe) is
// not measured again; each new commit is built (a cached build costs nothing) and given a fixed
// number of runs in this session, in chunks whose runs are interleaved. Runs of two sessions are
// not samples of one level (the machine may have been busier one night), so every session also
// measures again, in its first chunk, an *anchor*: the tracked commit nearest before the new
// ones. `culprit history` aligns the sessions by what their anchors show (history/series.hpp).
// After each chunk its commits go to the ledger, so an interrupted track keeps what it finished.
// A commit that fails to build is skipped and reported.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/build/provider.hpp"
#include "core/history/ledger.hpp"
#include "core/measure/sampler.hpp"
#include "core/util/error.hpp"

namespace culprit::history {

struct RangeCommit {
  std::string id;
  std::int64_t time = 0; // committer time, seconds since the epoch
};

struct Selection {
  std::size_t every = 1;                            // every N-th commit, counted from the oldest
  std::optional<std::int64_t> since = std::nullopt; // only commits committed since this time
};

// The commits of a range (oldest first) that a selection takes: those since the date, then every
// N-th of them counted from the oldest, and always the newest, so that the selection of a range
// that grows at its tip stays the same and a nightly run measures only what is new.
std::vector<RangeCommit> select_commits(const std::vector<RangeCommit>& range,
                                        const Selection& selection);

// "2026-01-31", "2026-01-31T12:00", "2026-01-31T12:00:00Z" or with an offset "+01:00" (UTC when
// none): seconds since the epoch. Anything else is a usage error that shows the forms.
Result<std::int64_t> parse_since(std::string_view text);

struct TrackSettings {
  std::size_t runs = 5;  // counted runs per commit
  std::size_t chunk = 8; // commits whose runs are interleaved before they go to the ledger
  // Tracked commits measured again with the new ones, so that the sessions can be aligned. Only
  // a sampler that labels its runs with a session can measure an anchor anew.
  std::size_t anchors = 1;
  bool remeasure = false; // measure the commits already tracked again too (--fresh)
};

// What a session measures: anchors first, then the commits of the selection not tracked before
// on the host under the recipe (all of them with `remeasure`), in order.
struct TrackPlan {
  std::vector<RangeCommit> commits;
  std::vector<std::string> anchors;
  std::size_t already_tracked = 0; // commits of the selection left alone
};

// The anchors are the tracked commits of the host and recipe that are not measured anyway,
// nearest before the first new commit in the ledger's order (nearest after it when too few come
// before). No anchors when nothing is new or nothing was tracked before.
TrackPlan plan_track(const std::vector<RangeCommit>& selected,
                     const std::vector<TrackedPoint>& tracked, std::string_view host_id,
                     std::string_view recipe_hash, const TrackSettings& settings);

// What the samples of one case (of the run recipe's cases and metric) said about interference
// across the tracked commits (stats/interference.hpp): the first description, and in how many
// commits there was one.
struct TrackNoise {
  std::string case_name;
  std::string summary;
  std::size_t affected = 0;
  std::size_t measured = 0;
};

struct TrackedCommit {
  std::string commit;
  build::BuildResult build;
  bool measured = false;
  bool anchor = false;
};

struct TrackOutcome {
  std::vector<TrackedCommit> commits; // measured in this session: anchors first, then in order
  std::size_t measured = 0;           // new commits measured (anchors not counted)
  std::size_t already_tracked = 0;    // commits of the selection tracked before, left alone
  std::vector<std::string> anchors;   // tracked before and measured again in this session
  // Anchors chosen that could not be measured again (their build failed).
  std::vector<std::string> anchors_not_measured;
  std::size_t failed_builds = 0;
  int runs_made = 0;             // new runs, warm-ups included; 0 when everything was in the store
  std::vector<TrackNoise> noise; // cases whose samples showed interference, in case order
};

struct TrackProgress {
  std::size_t done = 0;
  std::size_t total = 0;
  std::string commit;
  bool anchor = false;
};

// A label for the runs of a new track session: "track:" and the time it started, with the
// process id to tell apart two sessions started in the same microsecond.
std::string new_session_label();

// Measures `commits` (the selection) as planned by plan_track, on the first lane's host and recipe.
// Errors: every build failed (infrastructure), runs that keep failing, an interrupt, the store.
Result<TrackOutcome> track_commits(const std::vector<RangeCommit>& commits,
                                   build::BuildProvider& builds, measure::Sampler& sampler,
                                   Ledger& ledger, const TrackSettings& settings,
                                   const std::function<void(const TrackProgress&)>& progress = {});

// Over K lanes (--parallel K, one Slurm allocation each): the commits are split into K contiguous
// blocks, block b measured on lane b, and each block also measures the first commit of the next,
// so that every pair of neighbouring commits was measured on one device. A commit is recorded in
// the ledger under each device that measured it: `culprit history` shows one device's stretch with
// --host, or all with --all-hosts (where a fixed offset between devices can show at a block's
// edge). The chunks of all lanes are built, then measured at once.
Result<TrackOutcome> track_commits(const std::vector<RangeCommit>& commits,
                                   build::BuildProvider& builds,
                                   std::span<measure::Sampler* const> lanes, Ledger& ledger,
                                   const TrackSettings& settings,
                                   const std::function<void(const TrackProgress&)>& progress = {});

// The commit indices of each lane's block: K contiguous blocks of n commits, each with the next
// block's first commit added at its end.
std::vector<std::vector<std::size_t>> lane_blocks(std::size_t commits, std::size_t lanes);

} // namespace culprit::history
