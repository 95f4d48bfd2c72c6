// An interrupted `culprit track` goes on where it stopped when the same command runs again: the
// runs it made count, and no commit gets more runs than it asked for.

#include <csignal>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>

#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

TEST(TrackResume, AnInterruptedTrackGoesOnInItsSessionWithoutMeasuringTwice) {
  TempDir temp("culprit-track-resume");
  StepProject project(temp / "project", {.commits = 6, .step_at = 3});
  const auto script = temp / "slow.sh";
  std::ofstream(script) << "sleep 0.2\nsh \"$(dirname \"$1\")/bench.sh\" \"$1\"\n";
  const auto cache = temp / "cache";
  const std::vector<std::string> track = {
      "--cache-dir", cache.string(),
      "track",       project.good() + ".." + project.bad(),
      "--runs",      "3",
      "--warmup",    "0",
      "--run",       "sh " + script.string() + " {build}/value"};
  // What a track that is never interrupted makes: 3 runs of each artifact (commits whose
  // artifacts are identical share theirs).
  auto whole = track;
  whole[1] = (temp / "whole").string();
  ASSERT_EQ(run_culprit(whole, project.dir()).exit_code, 0);
  const auto expected = inspect_store(temp / "whole").ok_runs;
  ASSERT_GE(expected, 6);

  auto first = start_culprit(track, project.dir());
  // Interrupted once some runs are stored, well before all it needs.
  const auto runs_so_far = [&] {
    try {
      return inspect_store(cache).ok_runs;
    } catch (const std::exception&) {
      return std::int64_t{0}; // culprit holds the store for a moment
    }
  };
  for (int tries = 0; tries < 600 && runs_so_far() < 4; ++tries)
    std::this_thread::sleep_for(50ms);
  first.signal(SIGINT);
  const auto stopped = first.wait();
  ASSERT_EQ(stopped.exit_code, 130) << stopped.out << stopped.err;
  const auto kept = inspect_store(cache).ok_runs;
  ASSERT_GE(kept, 4);
  ASSERT_LT(kept, expected);

  const auto resumed = run_culprit(track, project.dir());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("going on with the interrupted session"));
  EXPECT_EQ(inspect_store(cache).ok_runs, expected) << "each run made once";

  // Finished, the session is closed: a third track is a new session that measures nothing.
  const auto again = run_culprit(track, project.dir());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, ::testing::Not(HasSubstr("going on")));
  EXPECT_EQ(inspect_store(cache).ok_runs, expected);
}

} // namespace
} // namespace culprit::testing
