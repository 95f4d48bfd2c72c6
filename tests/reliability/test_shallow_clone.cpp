// A shallow clone, as most CI jobs fetch: bisect and track walk the range it holds, and a range
// past its boundary is refused with what to do, the clone untouched.

#include <gmock/gmock.h>

#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;

// What most CI jobs fetch: `git clone --depth 2`. Both ends are there; the parents of the older
// one are not, and culprit must not need them. A range that reaches past the boundary is one
// line that says to unshallow.
TEST(ShallowClone, BisectAndTrackWalkTheRangeTheCloneHolds) {
  TempDir temp("culprit-shallow");
  StepProject project(temp / "project", {.commits = 4, .step_at = 3});
  project.repo().git({"branch", "first", project.good()});
  const auto clone = temp / "clone";
  project.repo().git({"clone", "-q", "--depth", "2", "--no-single-branch",
                      "file://" + project.dir().string(), clone.string()});
  // The recipe is the working tree's own, as in the user's checkout.
  const auto cache = (temp / "cache").string();
  const auto before = snapshot(clone);

  const auto bisect =
      run_culprit({"--cache-dir", cache, "bisect", "--good", "HEAD~1", "--bad", "HEAD"}, clone);
  EXPECT_EQ(bisect.exit_code, 0) << bisect.err;
  EXPECT_THAT(bisect.out, HasSubstr("culprit " + project.culprit().substr(0, 12)));
  const auto track = run_culprit({"--cache-dir", cache, "track", "HEAD~1..HEAD"}, clone);
  EXPECT_EQ(track.exit_code, 0) << track.err;
  EXPECT_THAT(track.out, HasSubstr("tracked 1 of 1 commit of"));

  for (const auto& args :
       std::vector<std::vector<std::string>>{{"bisect", "--good", "origin/first", "--bad", "HEAD"},
                                             {"track", "origin/first..HEAD"}}) {
    auto with_cache = args;
    with_cache.insert(with_cache.begin(), {"--cache-dir", cache});
    const auto missing = run_culprit(with_cache, clone);
    EXPECT_EQ(missing.exit_code, 2) << missing.err;
    EXPECT_THAT(one_error_line(missing), HasSubstr("git fetch --unshallow"));
  }
  const auto after = snapshot(clone);
  EXPECT_TRUE(before == after) << changed_paths(before, after);
}

} // namespace
} // namespace culprit::testing
