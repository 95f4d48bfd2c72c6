// An interrupted `culprit track` goes on where it stopped when the same command runs again: the
// runs it made count, and no commit gets more runs than it asked for.

#include <array>
#include <csignal>
#include <fstream>
#include <functional>
#include <thread>

#include <gmock/gmock.h>

#include "core/store/sql.hpp"
#include "tests/reliability/reliability_support.hpp"
#include "tests/support/postgres_server.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// The ok runs in the store that `store_args` name (with the cache dir `cache`).
using CountRuns = std::function<std::int64_t(const std::filesystem::path& cache,
                                             const std::vector<std::string>& store_args)>;

std::int64_t runs_in_cache(const std::filesystem::path& cache,
                           const std::vector<std::string>& /*store_args*/) {
  return inspect_store(cache).ok_runs;
}

// The body of the test on either store: `stores` gives the arguments that name the store of the
// interrupted track and the one of the whole one (none: the cache dir's files); `extra` more
// arguments of the track command (--fresh).
void interrupted_track_resumes(const std::array<std::vector<std::string>, 2>& stores,
                               const CountRuns& count, const std::vector<std::string>& extra = {}) {
  TempDir temp("culprit-track-resume");
  StepProject project(temp / "project", {.commits = 6, .step_at = 3});
  const auto script = temp / "slow.sh";
  std::ofstream(script) << "sleep 0.5\nsh \"$(dirname \"$1\")/bench.sh\" \"$1\"\n";
  const auto cache = temp / "cache";
  const auto command = [&](const std::filesystem::path& cache_dir,
                           const std::vector<std::string>& store) {
    std::vector<std::string> args = {"--cache-dir", cache_dir.string()};
    args.insert(args.end(), store.begin(), store.end());
    args.insert(args.end(), {"track", project.good() + ".." + project.bad(), "--runs", "3",
                             "--warmup", "0", "--run", "sh " + script.string() + " {build}/value"});
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const auto track = command(cache, stores[0]);
  // What a track that is never interrupted makes: 3 runs of each artifact (commits whose
  // artifacts are identical share theirs).
  ASSERT_EQ(run_culprit(command(temp / "whole", stores[1]), project.dir()).exit_code, 0);
  const auto expected = count(temp / "whole", stores[1]);
  ASSERT_GE(expected, 6);

  auto first = start_culprit(track, project.dir());
  // Interrupted once some runs are stored, well before all it needs.
  const auto runs_so_far = [&] {
    try {
      return count(cache, stores[0]);
    } catch (const std::exception&) {
      return std::int64_t{0}; // culprit holds the store for a moment
    }
  };
  for (int tries = 0; tries < 600 && runs_so_far() < 4; ++tries)
    std::this_thread::sleep_for(50ms);
  first.signal(SIGINT);
  const auto stopped = first.wait();
  ASSERT_EQ(stopped.exit_code, 130) << stopped.out << stopped.err;
  const auto kept = count(cache, stores[0]);
  ASSERT_GE(kept, 4);
  ASSERT_LT(kept, expected);

  const auto resumed = run_culprit(track, project.dir());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("culprit: note: going on with the interrupted session"));
  EXPECT_EQ(count(cache, stores[0]), expected) << "each run made once";

  if (!extra.empty())
    return;
  // Finished, the session is closed: a third track is a new session that measures nothing.
  const auto again = run_culprit(track, project.dir());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, ::testing::Not(HasSubstr("going on")));
  EXPECT_EQ(count(cache, stores[0]), expected);
}

TEST(TrackResume, AnInterruptedTrackGoesOnInItsSessionWithoutMeasuringTwice) {
  interrupted_track_resumes({}, runs_in_cache);
}

// --fresh measures anew what was tracked before, but the runs the interrupted session made are
// this session's runs all the same.
TEST(TrackResume, AnInterruptedFreshTrackCountsTheRunsItsSessionMade) {
  interrupted_track_resumes({}, runs_in_cache, {"--fresh"});
}

TEST(TrackResume, OnASharedStoreTooAnInterruptedTrackGoesOnWithoutMeasuringTwice) {
  std::string why_not;
  auto* server = PostgresServer::shared(&why_not);
  CULPRIT_POSTGRES_OR_SKIP(server, why_not);
  auto interrupted = server->fresh_database();
  auto whole = server->fresh_database();
  ASSERT_TRUE(interrupted && whole);
  interrupted_track_resumes(
      {std::vector<std::string>{"--store", *interrupted},
       std::vector<std::string>{"--store", *whole}},
      [](const std::filesystem::path& /*cache*/, const std::vector<std::string>& store) {
        auto db = store::sql::Database::open_postgres(store.at(1)).value();
        auto count = db.prepare("SELECT count(*) FROM runs WHERE status = 'ok' AND warmup = 0");
        return count && count->step().value_or(false) ? count->column_int64(0) : 0;
      });
}

} // namespace
} // namespace culprit::testing
