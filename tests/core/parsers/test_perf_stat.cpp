// perf stat's CSV output (-x ,): the counts of the events culprit asks for, a hybrid CPU's PMUs
// summed, and the refusals of a machine without counters. tests/fixtures/perf/README.md says
// where each fixture comes from.

#include "core/parsers/perf_stat.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/fs.hpp"
#include "tests/core/parsers/parser_test_support.hpp"

namespace culprit::parsers {
namespace {

using ::testing::HasSubstr;

std::string perf_fixture(std::string_view name) {
  return read_file(testing::source_dir() / "tests/fixtures/perf" / name).value_or("");
}

TEST(PerfStat, ReadsEveryEventCulpritAsksForAndNothingElse) {
  const auto counts = parse_perf_stat(perf_fixture("stat_x_comma.csv"));
  ASSERT_TRUE(counts) << counts.error().message;
  const std::map<std::string, double> expected = {
      {"instructions", 4205148521.0},   {"cycles", 2779112349.0},
      {"branches", 812456123.0},        {"branch_mispredictions", 10456789.0},
      {"cache_references", 95123456.0}, {"cache_misses", 12345678.0}};
  EXPECT_EQ(*counts, expected) << "task-clock and the metric-only line are not counts asked for";
  const auto samples = perf_samples("bench", *counts);
  ASSERT_EQ(samples.size(), 6U);
  EXPECT_EQ(samples[0].metric, "instructions");
  EXPECT_EQ(samples[0].case_name, "bench");
  EXPECT_EQ(samples[0].values, std::vector<double>{4205148521.0});
  EXPECT_EQ(samples[0].direction, Direction::lower_is_better);
}

TEST(PerfStat, SumsTheCoresOfAHybridCpuAndSkipsAKindTheRunNeverRanOn) {
  const auto counts = parse_perf_stat(perf_fixture("stat_hybrid.csv"));
  ASSERT_TRUE(counts) << counts.error().message;
  EXPECT_EQ(counts->at("instructions"), 3000000.0);
  EXPECT_EQ(counts->at("cycles"), 2000000.0);
}

TEST(PerfStat, AMachineWithoutCountersIsAUsageErrorThatSuggestsValgrind) {
  const auto counts = parse_perf_stat(perf_fixture("stat_vm.csv"));
  ASSERT_FALSE(counts);
  EXPECT_EQ(counts.error().code, ExitCode::usage);
  EXPECT_THAT(counts.error().message, HasSubstr("no 'instructions' counter"));
  EXPECT_THAT(counts.error().message, HasSubstr("--instrument valgrind"));
}

TEST(PerfStat, BadOutputIsRefusedWithWhatIsWrong) {
  EXPECT_FALSE(parse_perf_stat(""));
  EXPECT_FALSE(parse_perf_stat("# started on a day\n\n"));
  const auto garbage = parse_perf_stat("twelve,,instructions,1,100.00,,\n");
  ASSERT_FALSE(garbage);
  EXPECT_THAT(garbage.error().message, HasSubstr("'twelve' is not a count"));
  const auto short_line = parse_perf_stat("12345\n");
  ASSERT_FALSE(short_line);
  EXPECT_THAT(short_line.error().message, HasSubstr("line 1"));
  const auto not_counted = parse_perf_stat("<not counted>,,instructions,0,0.00,,\n");
  ASSERT_FALSE(not_counted);
  EXPECT_EQ(not_counted.error().code, ExitCode::infrastructure);
  EXPECT_FALSE(parse_perf_stat("-5,,instructions,1,100.00,,\n"));
}

// A count perf cannot have made, infinite or not a number, is refused naming perf's output and
// the line; one near the largest double is read.
TEST(PerfStat, CountsThatAreNoNumbersAreRefusedWithTheirLine) {
  for (const std::string value : {"inf", "+inf", "infinity", "nan", "-inf", "1e999"}) {
    const auto refused =
        parse_perf_stat("# started on a day\n" + value + ",,instructions:u,1,100.00,,\n");
    ASSERT_FALSE(refused) << value;
    EXPECT_EQ(refused.error().code, ExitCode::infrastructure) << value;
    EXPECT_THAT(refused.error().message, HasSubstr("perf stat output line 2")) << value;
    EXPECT_THAT(refused.error().message, HasSubstr("'" + value + "' is not a count")) << value;
  }
  const auto huge = parse_perf_stat("1.7e308,,instructions:u,1,100.00,,\n");
  ASSERT_TRUE(huge) << huge.error().message;
  EXPECT_EQ(huge->at("instructions"), 1.7e308);
}

TEST(PerfStat, NamesItsMetrics) {
  EXPECT_TRUE(is_perf_metric("instructions"));
  EXPECT_TRUE(is_perf_metric("cache_misses"));
  EXPECT_FALSE(is_perf_metric("estimated_cycles"));
  EXPECT_FALSE(is_perf_metric("time"));
  EXPECT_EQ(perf_events(),
            "instructions,cycles,branches,branch-misses,cache-references,cache-misses");
}

} // namespace
} // namespace culprit::parsers
