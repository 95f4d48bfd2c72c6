// K-ary bisection over lanes that ship batches to devices of a simulated cluster.
#include <cmath>
#include <memory>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/bisect/bisect.hpp"
#include "core/evidence/fill.hpp"
#include "core/history/ledger.hpp"
#include "core/history/track.hpp"
#include "core/measure/parse_options.hpp"
#include "tests/support/fake_measure.hpp"

namespace culprit {
namespace {

using ::testing::ElementsAre;
using testing::FakeBuildProvider;
using testing::FakeDeviceExecutor;
using testing::FakeRig;
using testing::PlantedHistory;

// K devices of a cluster over one rig's store and models: device i runs everything
// speeds[i] times as slow as the models say.
struct Cluster {
  std::vector<std::unique_ptr<FakeDeviceExecutor>> devices;
  std::vector<std::unique_ptr<measure::Sampler>> samplers;
  std::vector<measure::Sampler*> lanes;

  Cluster(FakeRig& rig, const std::vector<double>& speeds) {
    for (std::size_t i = 0; i < speeds.size(); ++i) {
      devices.push_back(std::make_unique<FakeDeviceExecutor>(
          rig.executor(), "node" + std::to_string(i), speeds[i]));
      samplers.push_back(std::make_unique<measure::Sampler>(*devices.back(), rig.store(),
                                                            rig.sampler().options()));
      lanes.push_back(samplers.back().get());
    }
  }
};

// Counted runs of a fake subject on one device.
struct MeasurementKeyCount {
  store::Store& store;
  std::string host_id;
  std::int64_t operator()(const std::string& commit) const {
    auto counts = store.count_runs({"artifact-" + commit, "fake-recipe", host_id});
    return counts ? counts->counted : -1;
  }
};

std::vector<std::string> culprits(const bisect::BisectOutcome& outcome) {
  std::vector<std::string> out;
  for (const auto& c : outcome.culprits)
    out.push_back(c.selected.key.case_name + "@" + c.commit);
  return out;
}

TEST(ParallelBisect, TwoProbesARoundFindTheCulpritInFewerRounds) {
  PlantedHistory history(64);
  history.plant("sgemm", 37, 1.10);
  std::map<int, std::size_t> rounds;
  for (const int k : {1, 2, 3}) {
    FakeRig rig;
    history.install(rig, {{"sgemm", 1e-3}}, 0.01);
    Cluster cluster(rig, std::vector<double>(static_cast<std::size_t>(k), 1.0));
    FakeBuildProvider builds;
    auto outcome =
        bisect::run_bisect(history.range, builds, cluster.lanes, bisect::BisectSettings{});
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(to_string(outcome->status), "culprit_found") << "K=" << k;
    EXPECT_THAT(culprits(*outcome), ElementsAre("sgemm@c37")) << "K=" << k;
    EXPECT_EQ(outcome->lanes, static_cast<std::size_t>(k));
    rounds[k] = outcome->rounds;
    // About log_(K+1) of the range: each round leaves a (K+1)-th of it.
    EXPECT_LE(outcome->rounds,
              static_cast<std::size_t>(std::ceil(std::log(64.0) / std::log(k + 1.0))) + 1)
        << "K=" << k;
    // Every device did some of the work.
    for (const auto& device : cluster.devices)
      EXPECT_GT(device->batches(), 0) << "K=" << k;
  }
  EXPECT_LT(rounds[2], rounds[1]);
  EXPECT_LT(rounds[3], rounds[2]);
}

TEST(ParallelBisect, AFixedOffsetBetweenDevicesCannotFlipAVerdict) {
  // The devices differ by 6%, more than the 4% step: a probe judged against references measured
  // on another device would look like the wrong end. Each probe is only ever compared with runs
  // made on its own device, so the culprit is exact whatever the seed.
  for (const std::uint64_t seed : {1U, 2U, 3U, 4U}) {
    PlantedHistory history(40);
    history.plant("sgemm", 22, 1.04);
    FakeRig rig(seed);
    history.install(rig, {{"sgemm", 1e-3}}, 0.005);
    Cluster cluster(rig, {1.0, 1.06});
    FakeBuildProvider builds;
    auto outcome =
        bisect::run_bisect(history.range, builds, cluster.lanes, bisect::BisectSettings{});
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(to_string(outcome->status), "culprit_found") << "seed " << seed;
    EXPECT_THAT(culprits(*outcome), ElementsAre("sgemm@c22")) << "seed " << seed;
    ASSERT_EQ(outcome->culprits.size(), 1U);
    ASSERT_TRUE(outcome->culprits[0].change.has_value());
    EXPECT_NEAR(outcome->culprits[0].change->ratio.estimate, 1.04, 0.01) << "seed " << seed;
    // Both devices classified probes, and each step says where.
    std::set<std::string> devices;
    for (const auto& step : outcome->steps)
      if (!step.host_id.empty())
        devices.insert(step.host_id);
    EXPECT_EQ(devices, (std::set<std::string>{"device-node0", "device-node1"}));
    // And so does the evidence.
    evidence::Evidence evidence;
    ASSERT_TRUE(
        evidence::fill_bisect_evidence(evidence, history.range, *outcome, cluster.lanes, 0.95, 1));
    ASSERT_TRUE(evidence.bisect.has_value());
    std::set<std::string> recorded;
    for (const auto& step : evidence.bisect->steps) {
      recorded.insert(step.host_id);
      EXPECT_EQ(step.case_name, "sgemm");
      EXPECT_EQ(step.statistic, "median");
    }
    EXPECT_EQ(recorded, devices);
  }
}

TEST(ParallelBisect, TwoCulpritsAndSkippedBuildsWithThreeLanes) {
  PlantedHistory history(48);
  history.plant("sgemm", 11, 1.10);
  history.plant("sgemm", 35, 1.10);
  FakeRig rig;
  history.install(rig, {{"sgemm", 1e-3}}, 0.01);
  Cluster cluster(rig, {1.0, 0.97, 1.03});
  FakeBuildProvider builds;
  for (const int failing : {12, 24, 36})
    builds.fail(history.range.commits[static_cast<std::size_t>(failing)]);
  auto outcome = bisect::run_bisect(history.range, builds, cluster.lanes, bisect::BisectSettings{});
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(to_string(outcome->status), "culprit_found");
  EXPECT_THAT(culprits(*outcome), ElementsAre("sgemm@c11", "sgemm@c35"));
}

TEST(ParallelBisect, ABatchThatFailsStopsTheBisectionWithNothingOfItStored) {
  PlantedHistory history(16);
  history.plant("sgemm", 5, 1.10);
  FakeRig rig;
  history.install(rig, {{"sgemm", 1e-3}}, 0.01);
  Cluster cluster(rig, {1.0});
  cluster.devices[0]->fail_next_batch();
  FakeBuildProvider builds;
  auto outcome = bisect::run_bisect(history.range, builds, cluster.lanes, bisect::BisectSettings{});
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ExitCode::infrastructure);
  EXPECT_EQ(rig.executor().total_runs(), 0);
  EXPECT_EQ((MeasurementKeyCount{rig.store(), "device-node0"}("g")), 0);
}

TEST(ParallelTrack, SpreadsTheCommitsOverTheLanesWithOneCommitOverlapping) {
  EXPECT_EQ(history::lane_blocks(10, 1),
            (std::vector<std::vector<std::size_t>>{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}));
  EXPECT_EQ(history::lane_blocks(10, 3),
            (std::vector<std::vector<std::size_t>>{{0, 1, 2, 3}, {3, 4, 5, 6}, {6, 7, 8, 9}}));
  EXPECT_EQ(history::lane_blocks(2, 4), (std::vector<std::vector<std::size_t>>{{0, 1}, {1}}));
}

TEST(ParallelTrack, EachLaneMeasuresItsBlockAndTheLedgerSaysWhichDevice) {
  PlantedHistory history(12);
  FakeRig rig;
  history.install(rig, {{"sgemm", 1e-3}}, 0.01);
  Cluster cluster(rig, {1.0, 1.05});
  testing::TempDir dir;
  auto ledger = history::Ledger::open_in(dir.path());
  ASSERT_TRUE(ledger) << ledger.error().message;
  std::vector<history::RangeCommit> commits;
  for (const auto& id : history.range.commits)
    commits.push_back({id, 0});
  FakeBuildProvider builds;
  auto outcome =
      history::track_commits(commits, builds, cluster.lanes, *ledger, {.runs = 3, .chunk = 4});
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->measured, 12U);
  ASSERT_EQ(outcome->commits.size(), 12U);
  EXPECT_EQ(outcome->commits.front().commit, "c00"); // in the order given
  EXPECT_EQ(outcome->commits.back().commit, "c11");
  EXPECT_EQ(builds.builds(), 12); // the overlapping commit is built once
  auto points = ledger->tracked();
  ASSERT_TRUE(points);
  std::map<std::string, std::set<std::string>> hosts_of;
  for (const auto& point : *points)
    hosts_of[point.commit].insert(point.host_id);
  EXPECT_EQ(hosts_of["c00"], (std::set<std::string>{"device-node0"}));
  EXPECT_EQ(hosts_of["c06"], (std::set<std::string>{"device-node0", "device-node1"}));
  EXPECT_EQ(hosts_of["c11"], (std::set<std::string>{"device-node1"}));
  for (const auto& device : cluster.devices)
    EXPECT_GT(device->batches(), 0);
}

TEST(BatchSampling, ABatchIsImportedWholeOrNotAtAll) {
  FakeRig rig;
  FakeCommit model;
  model.cases = {testing::fake_case("sgemm", 1e-3)};
  rig.executor().set_default(model);
  Cluster cluster(rig, {1.0});
  auto& lane = *cluster.lanes[0];
  const auto a = FakeRig::subject("a");
  const auto b = FakeRig::subject("b");
  const std::vector<measure::RunsWanted> wants = {{&a, 2}, {&b, 2}};
  auto plan = lane.plan_batch(wants);
  ASSERT_TRUE(plan && *plan) << (plan ? "" : plan.error().message);
  ASSERT_EQ((*plan)->requests.size(), 4U); // no warm-ups in the rig's sampler
  auto outcomes = cluster.devices[0]->run_batch((*plan)->requests);
  const MeasurementKeyCount count{rig.store(), "device-node0"};
  // A batch with one request that could not run: none of it goes in.
  auto broken = outcomes;
  broken[3] = std::unexpected(Error{ExitCode::infrastructure, "results.jsonl ends in a cut line"});
  auto imported = lane.import_batch(**plan, broken);
  ASSERT_FALSE(imported);
  EXPECT_EQ(imported.error().code, ExitCode::infrastructure);
  EXPECT_EQ(count("a") + count("b"), 0);
  // An interrupted batch: the runs that finished go in, and the interrupt is reported.
  auto stopped = outcomes;
  stopped[2] = std::unexpected(Error{ExitCode::interrupted, "interrupted"});
  stopped[3] = stopped[2];
  imported = lane.import_batch(**plan, stopped);
  ASSERT_FALSE(imported);
  EXPECT_EQ(imported.error().code, ExitCode::interrupted);
  EXPECT_EQ(count("a") + count("b"), 2);
  // The rest comes in a new batch, planned for what is missing.
  auto rest = lane.plan_batch(wants);
  ASSERT_TRUE(rest && *rest);
  EXPECT_EQ((*rest)->requests.size(), 2U);
  ASSERT_TRUE(lane.import_batch(**rest, cluster.devices[0]->run_batch((*rest)->requests)));
  EXPECT_EQ(count("a"), 2);
  EXPECT_EQ(count("b"), 2);
  auto none = lane.plan_batch(wants);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

} // namespace
} // namespace culprit
