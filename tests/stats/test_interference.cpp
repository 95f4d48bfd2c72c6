#include "stats/interference.hpp"

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "stats/rng.hpp"
#include "tests/stats/paired_reference.hpp"
#include "tests/stats/simulate.hpp"
#include "tests/support/source_tree.hpp"

namespace culprit::stats {
namespace {

using testing::Noise;
using testing::RunShape;
using testing::SharedMachine;
using testing::simulate_runs;
using testing::simulate_shared;

TEST(Interference, TwoSpeedStatesAreFoundWithTheirShareAndDistance) {
  Rng rng(1, 0);
  SharedMachine machine;
  machine.slow_share = 0.4;
  const auto runs = simulate_shared(machine, 20, 20, 1e-3, rng);
  const auto diagnosis = diagnose_interference(runs, Direction::lower_is_better);
  ASSERT_TRUE(diagnosis) << diagnosis.error().message;
  ASSERT_TRUE(diagnosis->states);
  EXPECT_TRUE(diagnosis->one_sided);
  EXPECT_NEAR(diagnosis->states->fast, 1e-3, 2e-5);
  EXPECT_NEAR(diagnosis->states->slow / diagnosis->states->fast, 1.75, 0.1);
  EXPECT_NEAR(diagnosis->states->slow_share, 0.4, 0.08);
  EXPECT_NEAR(diagnosis->states->slow_stretch, 4.0, 1.0);
  EXPECT_GT(diagnosis->states->threshold, diagnosis->states->fast);
  EXPECT_LT(diagnosis->states->threshold, diagnosis->states->slow);
  EXPECT_FALSE(diagnosis->drift);
}

TEST(Interference, AThroughputsSlowStateIsItsLowOne) {
  Rng rng(2, 0);
  auto runs = simulate_shared(SharedMachine{}, 10, 20, 1.0, rng);
  for (auto& run : runs)
    for (double& value : run)
      value = 1e9 / value; // bytes per second
  const auto diagnosis = diagnose_interference(runs, Direction::higher_is_better);
  ASSERT_TRUE(diagnosis);
  ASSERT_TRUE(diagnosis->states);
  EXPECT_NEAR(diagnosis->states->fast, 1e9, 2e7);
  EXPECT_LT(diagnosis->states->slow, diagnosis->states->fast);
}

TEST(Interference, QuietSymmetricNoiseIsNotInterference) {
  for (const double scale : {0.005, 0.01, 0.03, 0.05}) {
    for (const Noise noise : {Noise::normal, Noise::lognormal}) {
      Rng rng(3, 0);
      const RunShape shape{
          .runs = 30, .samples = 10, .noise = noise, .between = scale, .within = scale};
      const auto diagnosis =
          diagnose_interference(simulate_runs(shape, 1.0, rng), Direction::lower_is_better);
      ASSERT_TRUE(diagnosis);
      EXPECT_FALSE(diagnosis->states) << to_string(noise) << " " << scale;
      EXPECT_FALSE(diagnosis->one_sided) << to_string(noise) << " " << scale;
    }
  }
}

TEST(Interference, AHeavySlowTailIsOneSidedWithoutStates) {
  Rng rng(4, 0);
  const RunShape shape{
      .runs = 30, .samples = 10, .noise = Noise::heavy_tailed, .between = 0.0, .within = 0.0};
  // Heavy-tailed noise per run and none within: one sample per run carries it.
  RunShape per_sample = shape;
  per_sample.samples = 1;
  per_sample.runs = 300;
  per_sample.between = 0.03;
  const auto diagnosis =
      diagnose_interference(simulate_runs(per_sample, 1.0, rng), Direction::lower_is_better);
  ASSERT_TRUE(diagnosis);
  EXPECT_TRUE(diagnosis->one_sided);
  EXPECT_GE(diagnosis->skewness, 0.5);
}

TEST(Interference, DriftAcrossRunsIsMeasured) {
  Rng rng(5, 0);
  Runs runs;
  for (int i = 0; i < 30; ++i) {
    std::vector<double> run;
    for (int s = 0; s < 5; ++s)
      run.push_back(1.0 * (1.0 + (0.002 * i)) * std::exp(0.003 * rng.normal()));
    runs.push_back(run);
  }
  const auto diagnosis = diagnose_interference(runs, Direction::lower_is_better);
  ASSERT_TRUE(diagnosis);
  ASSERT_TRUE(diagnosis->drift);
  EXPECT_NEAR(diagnosis->drift->change, 0.058, 0.01);
  EXPECT_GT(diagnosis->drift->tau, 0.5);
  EXPECT_LT(diagnosis->drift->p_value, 1e-6);
}

// Samples culprit recorded on a shared 2-vCPU cloud VM
// (tests/fixtures/stats/recorded_samples.json).
Runs recorded(const std::string& name) {
  const auto path =
      (culprit::testing::source_dir() / "tests/fixtures/stats/recorded_samples.json").string();
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  return nlohmann::json::parse(in).at("cases").at(name).at("runs").get<Runs>();
}

TEST(Interference, RecordedOnASharedVmTwoStatesAreFound) {
  const auto diagnosis = diagnose_interference(recorded("two_states"), Direction::lower_is_better);
  ASSERT_TRUE(diagnosis) << diagnosis.error().message;
  EXPECT_TRUE(diagnosis->one_sided);
  ASSERT_TRUE(diagnosis->states);
  EXPECT_NEAR(diagnosis->states->slow / diagnosis->states->fast, 1.2, 0.05);
  EXPECT_NEAR(diagnosis->states->slow_share, 0.71, 0.02);
  EXPECT_GT(diagnosis->states->slow_stretch, 3.0);
  EXPECT_EQ(diagnosis->runs, 15U);
  EXPECT_EQ(diagnosis->samples, 150U);
}

TEST(Interference, RecordedOnASharedVmRareSlowStretchesAreFound) {
  const auto diagnosis = diagnose_interference(recorded("rare_slow"), Direction::lower_is_better);
  ASSERT_TRUE(diagnosis) << diagnosis.error().message;
  EXPECT_TRUE(diagnosis->one_sided);
  ASSERT_TRUE(diagnosis->states);
  EXPECT_NEAR(diagnosis->states->slow / diagnosis->states->fast, 1.5, 0.1);
  EXPECT_LT(diagnosis->states->slow_share, 0.1);
}

TEST(Interference, RecordedOnASharedVmAQuietStretchIsQuiet) {
  const auto diagnosis = diagnose_interference(recorded("quiet"), Direction::lower_is_better);
  ASSERT_TRUE(diagnosis) << diagnosis.error().message;
  EXPECT_FALSE(diagnosis->one_sided);
  EXPECT_FALSE(diagnosis->states);
}

TEST(Interference, RefusesTooFewOrNonPositiveSamples) {
  EXPECT_FALSE(diagnose_interference(Runs{{1.0, 2.0}}, Direction::lower_is_better));
  EXPECT_FALSE(diagnose_interference(Runs{{1.0, 2.0, 0.0, 3.0}}, Direction::lower_is_better));
}

TEST(TrendTest, AgreesWithScipysKendallTauAndTheilSen) {
  for (const auto& c : testing::paired_reference().at("trend")) {
    const auto x = c.at("x").get<std::vector<double>>();
    const auto y = c.at("y").get<std::vector<double>>();
    const auto name = c.at("name").get<std::string>();
    const auto trend = trend_test(x, y);
    ASSERT_TRUE(trend) << name;
    EXPECT_NEAR(trend->tau, c.at("tau").get<double>(), 1e-12) << name;
    EXPECT_NEAR(trend->p_value, c.at("p_value").get<double>(), 1e-9) << name;
    EXPECT_NEAR(trend->slope, c.at("slope").get<double>(), 1e-12) << name;
  }
}

} // namespace
} // namespace culprit::stats
