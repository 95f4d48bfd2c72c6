#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tests/core/store/store_fixture.hpp"

namespace culprit::store::testing {
namespace {

TEST_P(StoreTest, CountedRunsComeBackInRunOrderWithTheirIds) {
  auto first = make_run(k_key, {1.0, 1.1, 1.2});
  auto second = make_run(k_key, {2.0, 2.1});
  second.started = first.started - std::chrono::seconds(5); // started earlier, recorded later
  const auto first_id = record(first);
  const auto second_id = record(second);

  auto runs = m_store->counted_runs(k_key, "sgemm/4096", "time");
  ASSERT_TRUE(runs) << runs.error().message;
  EXPECT_EQ(runs->run_ids, (std::vector<std::int64_t>{second_id, first_id}));
  EXPECT_EQ(runs->samples, (std::vector<std::vector<double>>{{2.0, 2.1}, {1.0, 1.1, 1.2}}));
  EXPECT_EQ(runs->unit, "s");
  EXPECT_EQ(runs->direction, parsers::Direction::lower_is_better);
}

TEST_P(StoreTest, WarmupAndFailedRunsAreRecordedButNotCounted) {
  auto warmup = make_run(k_key, {9.0});
  warmup.warmup = true;
  auto failed = make_run(k_key, {8.0});
  failed.status = RunStatus::parse_error;
  failed.message = "no samples";
  auto timed_out = make_run(k_key, {});
  timed_out.status = RunStatus::timeout;
  timed_out.timed_out = true;
  timed_out.signal = 9;
  record(warmup);
  record(failed);
  record(timed_out);
  record(make_run(k_key, {1.0}));

  auto runs = m_store->counted_runs(k_key, "sgemm/4096", "time");
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->samples, (std::vector<std::vector<double>>{{1.0}}));
  auto counts = m_store->count_runs(k_key);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->counted, 1);
  EXPECT_EQ(counts->warmup, 1);
  EXPECT_EQ(counts->failed, 2);
}

TEST_P(StoreTest, RunsOfAnotherRecipeHostOrArtifactAreSeparate) {
  record(make_run(k_key, {1.0}));
  ASSERT_TRUE(m_store->record_host(make_host("host-2")));
  record(make_run({k_key.artifact_id, "recipe-2", k_key.host_id}, {2.0}));
  record(make_run({k_key.artifact_id, k_key.recipe_hash, "host-2"}, {3.0}));
  record(make_run({"artifact-b", k_key.recipe_hash, k_key.host_id}, {4.0}));

  auto runs = m_store->counted_runs(k_key, "sgemm/4096", "time");
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->samples, (std::vector<std::vector<double>>{{1.0}}));
  EXPECT_EQ(m_store->count_runs({"artifact-b", k_key.recipe_hash, k_key.host_id})->counted, 1);
  EXPECT_EQ(m_store->count_runs({"artifact-c", k_key.recipe_hash, k_key.host_id})->counted, 0);
}

TEST_P(StoreTest, OnlyTheAskedCaseAndMetric) {
  auto run = make_run(k_key, {1.0, 2.0});
  run.samples.push_back(
      {"sgemm/4096", "gpu_time", "s", parsers::Direction::lower_is_better, {0.5}});
  run.samples.push_back({"sgemm/4096", "bw", "B/s", parsers::Direction::higher_is_better, {7e9}});
  run.samples.push_back({"dgemm/64", "time", "s", parsers::Direction::lower_is_better, {3.0}});
  record(run);
  record(make_run(k_key, {5.0}, "dgemm/64"));

  EXPECT_EQ(m_store->counted_runs(k_key, "sgemm/4096", "gpu_time")->samples,
            (std::vector<std::vector<double>>{{0.5}}));
  EXPECT_EQ(m_store->counted_runs(k_key, "dgemm/64", "time")->samples,
            (std::vector<std::vector<double>>{{3.0}, {5.0}}));
  auto bandwidth = m_store->counted_runs(k_key, "sgemm/4096", "bw");
  EXPECT_EQ(bandwidth->unit, "B/s");
  EXPECT_EQ(bandwidth->direction, parsers::Direction::higher_is_better);
  EXPECT_TRUE(m_store->counted_runs(k_key, "nope", "time")->run_ids.empty());

  auto cases = m_store->measured_cases(k_key);
  ASSERT_TRUE(cases) << cases.error().message;
  const std::vector<CaseMetric> expected = {
      {"dgemm/64", "time", "s", parsers::Direction::lower_is_better},
      {"sgemm/4096", "bw", "B/s", parsers::Direction::higher_is_better},
      {"sgemm/4096", "gpu_time", "s", parsers::Direction::lower_is_better},
      {"sgemm/4096", "time", "s", parsers::Direction::lower_is_better},
  };
  EXPECT_EQ(*cases, expected);
  // Only the named cases, a name with quotes and brackets as it is, one measured nowhere left out.
  const std::vector<std::string> named = {"sgemm/4096", "nope\",[]"};
  auto only = m_store->measured_cases(k_key, {}, named);
  ASSERT_TRUE(only) << only.error().message;
  EXPECT_EQ(*only, std::vector<CaseMetric>(expected.begin() + 1, expected.end()));
}

TEST_P(StoreTest, TheRunsOfARangeOfCasesAreThoseOfEachCaseAlone) {
  auto run = make_run(k_key, {1.0, 2.0});
  run.samples.push_back(
      {"sgemm/4096", "gpu_time", "s", parsers::Direction::lower_is_better, {0.5}});
  run.samples.push_back({"dgemm/64", "time", "s", parsers::Direction::lower_is_better, {3.0}});
  run.samples.push_back({"zgemm/8", "time", "s", parsers::Direction::lower_is_better, {9.0}});
  record(run);
  auto warmup = make_run(k_key, {7.0}, "dgemm/64");
  warmup.warmup = true;
  record(warmup);
  record(make_run(k_key, {5.0, 6.0}, "dgemm/64"));
  record(make_run({"artifact-b", k_key.recipe_hash, k_key.host_id}, {4.0}, "dgemm/64"));

  const auto between = m_store->counted_runs_between(k_key, "dgemm/64", "sgemm/4096");
  ASSERT_TRUE(between) << between.error().message;
  ASSERT_EQ(between->size(), 3U);
  const std::vector<std::pair<std::string, std::string>> order = {
      {"dgemm/64", "time"}, {"sgemm/4096", "gpu_time"}, {"sgemm/4096", "time"}};
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& got = (*between)[i];
    EXPECT_EQ(std::pair(got.case_name, got.metric), order[i]);
    const auto alone = m_store->counted_runs(k_key, got.case_name, got.metric);
    ASSERT_TRUE(alone);
    EXPECT_EQ(got.runs.run_ids, alone->run_ids);
    EXPECT_EQ(got.runs.samples, alone->samples);
    EXPECT_EQ(got.runs.unit, alone->unit);
    EXPECT_EQ(got.runs.blocks, alone->blocks);
  }
  EXPECT_EQ((*between)[0].runs.samples, (std::vector<std::vector<double>>{{3.0}, {5.0, 6.0}}));
  EXPECT_TRUE(m_store->counted_runs_between(k_key, "a", "b")->empty());
}

TEST_P(StoreTest, ACaseReportedInTwoPiecesKeepsAllItsSamples) {
  auto run = make_run(k_key, {1.0, 2.0});
  run.samples.push_back(run.samples.front());
  run.samples.back().values = {3.0};
  record(run);
  EXPECT_EQ(m_store->counted_runs(k_key, "sgemm/4096", "time")->samples,
            (std::vector<std::vector<double>>{{1.0, 2.0, 3.0}}));
}

TEST_P(StoreTest, FreshnessBySessionOrStartTime) {
  const auto cutoff = now();
  auto old_run = make_run(k_key, {1.0});
  old_run.started = cutoff - std::chrono::hours(1);
  old_run.session = "monday";
  auto new_run = make_run(k_key, {2.0});
  new_run.started = cutoff;
  new_run.session = "tuesday";
  record(old_run);
  record(new_run);

  const Freshness since{cutoff, std::nullopt};
  EXPECT_EQ(m_store->counted_runs(k_key, "sgemm/4096", "time", since)->samples,
            (std::vector<std::vector<double>>{{2.0}}));
  const Freshness monday{std::nullopt, "monday"};
  EXPECT_EQ(m_store->counted_runs(k_key, "sgemm/4096", "time", monday)->samples,
            (std::vector<std::vector<double>>{{1.0}}));
  const Freshness both{cutoff, "monday"};
  EXPECT_EQ(m_store->count_runs(k_key, both)->counted, 0);
  EXPECT_EQ(m_store->measured_cases(k_key, both)->size(), 0U);
  EXPECT_EQ(m_store->count_runs(k_key)->counted, 2);
}

TEST_P(StoreTest, ARunWithANonFiniteSampleIsRefusedWhole) {
  auto run = make_run(k_key, {1.0, std::numeric_limits<double>::quiet_NaN()});
  auto id = m_store->record_run(run);
  ASSERT_FALSE(id);
  EXPECT_NE(id.error().message.find("non-finite"), std::string::npos);
  EXPECT_EQ(m_store->count_runs(k_key)->counted, 0);
}

TEST_P(StoreTest, ARunOfAnUnknownHostIsRefused) {
  auto run = make_run({k_key.artifact_id, k_key.recipe_hash, "stranger"}, {1.0});
  auto id = m_store->record_run(run);
  ASSERT_FALSE(id);
  EXPECT_NE(id.error().message.find("stranger"), std::string::npos);
}

TEST_P(StoreTest, UnitsThatChangeBetweenRunsAreAnError) {
  record(make_run(k_key, {1.0}));
  auto other = make_run(k_key, {1000.0});
  other.samples.front().unit = "ms";
  record(other);
  auto runs = m_store->counted_runs(k_key, "sgemm/4096", "time");
  ASSERT_FALSE(runs);
  EXPECT_NE(runs.error().message.find("two units"), std::string::npos);
}

TEST_P(StoreTest, ArtifactRecordHasEveryRunWithItsFields) {
  auto run = make_run(k_key, {1.0, 2.0});
  run.samples.push_back({"a-case", "gpu_time", "s", parsers::Direction::lower_is_better, {0.25}});
  run.gpu_throttled = true;
  run.signal = std::nullopt;
  run.session = "s1";
  run.message = "hot";
  const auto id = record(run);
  auto warmup = make_run(k_key, {7.0});
  warmup.warmup = true;
  warmup.started = run.started + std::chrono::seconds(1);
  record(warmup);

  auto artifact = m_store->artifact_record(k_key.artifact_id);
  ASSERT_TRUE(artifact) << artifact.error().message;
  ASSERT_EQ(artifact->runs.size(), 2U);
  const auto& stored = artifact->runs[0];
  EXPECT_EQ(stored.id, id);
  EXPECT_EQ(stored.started, run.started);
  EXPECT_EQ(stored.build_key, run.build_key);
  EXPECT_EQ(stored.commit_id, run.commit_id);
  EXPECT_DOUBLE_EQ(stored.wall_seconds, 1.5);
  EXPECT_DOUBLE_EQ(stored.user_seconds, 1.25);
  EXPECT_DOUBLE_EQ(stored.sys_seconds, 0.125);
  EXPECT_EQ(stored.max_rss_kib, 20'480);
  EXPECT_EQ(stored.exit_code, 0);
  EXPECT_EQ(stored.signal, std::nullopt);
  EXPECT_TRUE(stored.gpu_throttled);
  EXPECT_EQ(stored.session, "s1");
  EXPECT_EQ(stored.message, "hot");
  ASSERT_EQ(stored.samples.size(), 2U);
  EXPECT_EQ(stored.samples[0].case_name, "a-case");
  EXPECT_EQ(stored.samples[1].values, (std::vector<double>{1.0, 2.0}));
  EXPECT_TRUE(artifact->runs[1].warmup);

  const Freshness later{run.started + std::chrono::milliseconds(500), std::nullopt};
  EXPECT_EQ(m_store->artifact_record(k_key.artifact_id, later)->runs.size(), 1U);
}

TEST_P(StoreTest, ARunWhoseMessageQuotesRawBytesIsRecorded) {
  auto run = make_run(k_key, {1.0});
  run.status = RunStatus::parse_error;
  run.message = std::string("cannot parse \xff\xfe at byte 3\0 of the output", 40);
  ASSERT_TRUE(m_store->record_run(run));
  const auto artifact = m_store->artifact_record(k_key.artifact_id);
  ASSERT_TRUE(artifact) << artifact.error().message;
  ASSERT_EQ(artifact->runs.size(), 1U);
  const auto& message = artifact->runs[0].message;
  EXPECT_TRUE(message.starts_with("cannot parse ")) << message;
  EXPECT_TRUE(message.ends_with(" of the output")) << message;
}

// A case whose name is not UTF-8 (a benchmark's raw bytes) is one case with one name on either
// backend: its bytes replaced by U+FFFD, as PostgreSQL must and evidence does, and found by the
// name as reported or as stored.
TEST_P(StoreTest, ACaseNameThatIsNotUtf8HasOneNameOnEitherBackend) {
  const std::string reported = "conv\xff/\xfe\xfeN=8";
  const std::string stored = "conv\xEF\xBF\xBD/\xEF\xBF\xBD\xEF\xBF\xBDN=8";
  record(make_run(k_key, {1.0, 2.0}, reported));
  record(make_run(k_key, {3.0}, stored));
  const auto cases = m_store->measured_cases(k_key);
  ASSERT_TRUE(cases) << cases.error().message;
  ASSERT_EQ(cases->size(), 1U);
  EXPECT_EQ((*cases)[0].case_name, stored);
  for (const auto& name : {reported, stored}) {
    const auto runs = m_store->counted_runs(k_key, name, "time");
    ASSERT_TRUE(runs) << runs.error().message;
    EXPECT_EQ(runs->samples, (std::vector<std::vector<double>>{{1.0, 2.0}, {3.0}}));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest,
                         ::testing::Values(store::sql::Dialect::sqlite,
                                           store::sql::Dialect::postgres),
                         backend_name);

TEST(RunStatusNames, RoundTrip) {
  for (const auto status : {RunStatus::ok, RunStatus::failed, RunStatus::timeout,
                            RunStatus::parse_error, RunStatus::interrupted})
    EXPECT_EQ(parse_run_status(to_string(status)), status);
  EXPECT_EQ(parse_run_status("fine"), std::nullopt);
}

} // namespace
} // namespace culprit::store::testing
