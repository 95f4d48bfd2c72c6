#include "stats/step_position.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "stats/error.hpp"
#include "stats/rng.hpp"
#include "tests/stats/simulate.hpp"

namespace culprit::stats {
namespace {

using testing::RunShape;
using testing::simulate_runs;

struct Step {
  Runs good;
  Runs bad;
};

const RunShape k_quiet{.runs = 10, .samples = 3, .between = 0.005, .within = 0.002};

Step make_step(Rng& rng, double step = 1.10) {
  return Step{simulate_runs(k_quiet, 1.0, rng), simulate_runs(k_quiet, step, rng)};
}

TEST(StepPosition, ProbeAtGoodsLevelIsGoodLike) {
  Rng rng(1, 0);
  const Step step = make_step(rng);
  const auto position = step_position(step.good, step.bad, simulate_runs(k_quiet, 1.0, rng));
  ASSERT_TRUE(position) << position.error().message;
  EXPECT_EQ(position->classification, StepClass::good_like);
  EXPECT_NEAR(position->position.estimate, 0.0, 0.1);
  EXPECT_NEAR(position->step.estimate, std::log(1.10), 0.01);
  EXPECT_NEAR(position->tolerance, std::log(1.02) / std::log(1.10), 0.02);
}

TEST(StepPosition, ProbeAtBadsLevelIsBadLike) {
  Rng rng(2, 0);
  const Step step = make_step(rng);
  const auto position = step_position(step.good, step.bad, simulate_runs(k_quiet, 1.10, rng));
  ASSERT_TRUE(position);
  EXPECT_EQ(position->classification, StepClass::bad_like);
  EXPECT_NEAR(position->position.estimate, 1.0, 0.1);
}

TEST(StepPosition, LevelClearlyBetweenIsIntermediate) {
  Rng rng(3, 0);
  const Step step = make_step(rng);
  const auto position = step_position(step.good, step.bad, simulate_runs(k_quiet, 1.05, rng));
  ASSERT_TRUE(position);
  EXPECT_EQ(position->classification, StepClass::intermediate);
  EXPECT_NEAR(position->position.estimate, std::log(1.05) / std::log(1.10), 0.1);
  EXPECT_LT(position->position.lower, position->position.estimate);
  EXPECT_GT(position->position.upper, position->position.estimate);
}

TEST(StepPosition, NoisyProbeIsUnresolved) {
  Rng rng(4, 0);
  const Step step = make_step(rng);
  // A level halfway between the ends, measured too noisily to tell which half it is in. (With
  // three runs a bootstrap interval is too narrow to trust; drivers measure at least five.)
  const RunShape noisy{.runs = 6, .samples = 1, .between = 0.08};
  const auto position = step_position(step.good, step.bad, simulate_runs(noisy, 1.05, rng));
  ASSERT_TRUE(position);
  EXPECT_LT(position->position.lower, 0.5);
  EXPECT_GT(position->position.upper, 0.5);
  EXPECT_EQ(position->classification, StepClass::unresolved);
}

TEST(StepPosition, ANoisyProbeWhollyOnOneSideOfTheMiddleTakesThatSide) {
  // Too noisy to show that the probe is within the threshold of good's level (an equivalence
  // test would need many more runs), but clearly nearer good than bad: good-like.
  Rng rng(7, 0);
  const Step step = make_step(rng, 1.20);
  const RunShape noisy{.runs = 10, .samples = 1, .between = 0.06};
  const auto position = step_position(step.good, step.bad, simulate_runs(noisy, 1.0, rng));
  ASSERT_TRUE(position);
  EXPECT_GT(position->position.upper, position->tolerance);
  EXPECT_EQ(position->classification, StepClass::good_like);
}

TEST(StepPosition, StepLostInNoiseIsUnresolved) {
  Rng rng(5, 0);
  const RunShape noisy{.runs = 4, .samples = 1, .between = 0.2};
  const auto position =
      step_position(simulate_runs(noisy, 1.0, rng), simulate_runs(noisy, 1.03, rng),
                    simulate_runs(noisy, 1.0, rng));
  ASSERT_TRUE(position);
  EXPECT_EQ(position->classification, StepClass::unresolved);
  EXPECT_LE(position->step.lower, 0.0);
}

TEST(StepPosition, ASpeedupWorksToo) {
  Rng rng(6, 0);
  const Step step = make_step(rng, 0.9);
  const auto position = step_position(step.good, step.bad, simulate_runs(k_quiet, 0.9, rng));
  ASSERT_TRUE(position);
  EXPECT_EQ(position->classification, StepClass::bad_like);
}

TEST(StepPosition, NoStepIsAnError) {
  const Runs same(4, std::vector<double>{2.0, 2.0});
  const auto position = step_position(same, same, same);
  ASSERT_FALSE(position);
  EXPECT_EQ(position.error().kind, ErrorKind::degenerate);
  EXPECT_EQ(step_position(same, Runs{{3.0}, {3.0}}, Runs{{-1.0}, {3.0}}).error().kind,
            ErrorKind::non_positive);
  EXPECT_EQ(step_position(same, Runs{{3.0}, {3.0}}, Runs{{3.0}}).error().kind, ErrorKind::too_few);
}

// A probe exactly like good, with perfectly stable measurements: zero-width and good-like.
TEST(StepPosition, ConstantLevelsClassifyCleanly) {
  const Runs good(4, std::vector<double>{2.0, 2.0});
  const Runs bad(4, std::vector<double>{2.4, 2.4});
  const auto position = step_position(good, bad, good);
  ASSERT_TRUE(position);
  EXPECT_EQ(position->classification, StepClass::good_like);
  EXPECT_EQ(position->position.lower, 0.0);
  EXPECT_EQ(position->position.upper, 0.0);
}

} // namespace
} // namespace culprit::stats
