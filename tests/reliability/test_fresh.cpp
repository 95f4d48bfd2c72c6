// --fresh takes the runs of this invocation only, not those another command on the same cache
// makes while it runs.

#include <fstream>
#include <thread>

#include <gmock/gmock.h>

#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

TEST(Fresh, ACompareBesideAnotherCountsOnlyItsOwnRuns) {
  TempDir temp("culprit-fresh");
  StepProject project(temp / "project", {.commits = 3, .step_at = 2});
  const auto script = temp / "slow.sh";
  std::ofstream(script) << "sleep 0.1\nsh \"$(dirname \"$1\")/bench.sh\" \"$1\"\n";
  const std::vector<std::string> compare = {"--cache-dir",
                                            (temp / "cache").string(),
                                            "compare",
                                            project.good(),
                                            project.bad(),
                                            "--run",
                                            "sh " + script.string() + " {build}/value",
                                            "--min-runs",
                                            "10",
                                            "--max-runs",
                                            "10"};
  ASSERT_EQ(run_culprit(
                {"--cache-dir", (temp / "cache").string(), "build", project.good(), project.bad()},
                project.dir())
                .exit_code,
            0);
  auto other = start_culprit(compare, project.dir());
  std::this_thread::sleep_for(300ms);
  auto fresh = compare;
  fresh.emplace_back("--fresh");
  const auto result = run_culprit(fresh, project.dir());
  other.wait();
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_THAT(result.out, Not(HasSubstr("made by an earlier command"))) << result.out;
}

} // namespace
} // namespace culprit::testing
