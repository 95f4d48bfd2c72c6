#include "core/parsers/gbench_json.hpp"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/core/parsers/parser_test_support.hpp"

namespace culprit::parsers {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using testing::find_samples;
using ::testing::HasSubstr;

std::string gbench_fixture(std::string_view name) {
  return testing::read_file(testing::parser_fixture(std::string("gbench/") + std::string(name)));
}

std::string gbench_error(std::string_view text) {
  const auto parsed = parse_gbench_json(text);
  EXPECT_FALSE(parsed);
  if (parsed)
    return "";
  EXPECT_EQ(parsed.error().code, ExitCode::infrastructure);
  return parsed.error().message;
}

TEST(GbenchJson, TakesEveryRepetitionAndSkipsAggregates) {
  const auto parsed = parse_gbench_json(gbench_fixture("repetitions.json"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto* copy = find_samples(*parsed, "BM_Copy/1024", "real_time");
  ASSERT_NE(copy, nullptr);
  // The three iteration rows of the fixture, in ns, as seconds; not the mean/median/stddev/cv rows.
  EXPECT_THAT(copy->values, ElementsAre(DoubleNear(7.1551372744179247e-9, 1e-20),
                                        DoubleNear(7.1857941974315693e-9, 1e-20),
                                        DoubleNear(7.1255663934381337e-9, 1e-20)));
  EXPECT_EQ(copy->unit, "s");
  EXPECT_EQ(copy->direction, Direction::lower_is_better);
  for (const auto& samples : parsed->samples)
    EXPECT_EQ(samples.values.size(), 3U) << samples.case_name << " " << samples.metric;
  for (const auto& samples : parsed->samples)
    EXPECT_EQ(samples.case_name.find("_mean"), std::string::npos);
}

TEST(GbenchJson, HonoursEachRowsTimeUnit) {
  const auto parsed = parse_gbench_json(gbench_fixture("single.json"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto* sum = find_samples(*parsed, "BM_Sum/n:4096", "cpu_time"); // in us
  ASSERT_NE(sum, nullptr);
  ASSERT_EQ(sum->values.size(), 1U);
  EXPECT_GT(sum->values[0], 1e-7);
  EXPECT_LT(sum->values[0], 1e-3);
  const auto* slow = find_samples(*parsed, "BM_Slow", "real_time"); // in ms
  ASSERT_NE(slow, nullptr);
  EXPECT_GT(slow->values[0], 1e-6);
  EXPECT_LT(slow->values[0], 1.0);
}

TEST(GbenchJson, KeepsCountersWithTheirDirection) {
  const auto parsed = parse_gbench_json(gbench_fixture("repetitions.json"));
  ASSERT_TRUE(parsed);
  const auto* bytes = find_samples(*parsed, "BM_Copy/65536", "bytes_per_second");
  ASSERT_NE(bytes, nullptr);
  EXPECT_EQ(bytes->unit, "B/s");
  EXPECT_EQ(bytes->direction, Direction::higher_is_better);
  const auto* items = find_samples(*parsed, "BM_Sum/n:4096", "items_per_second");
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(items->unit, "1/s");
  EXPECT_EQ(items->direction, Direction::higher_is_better);
  const auto* flops = find_samples(*parsed, "BM_Sum/n:4096", "flops");
  ASSERT_NE(flops, nullptr);
  EXPECT_EQ(flops->direction, Direction::higher_is_better);
  const auto* elements = find_samples(*parsed, "BM_Sum/n:4096", "elements");
  ASSERT_NE(elements, nullptr);
  EXPECT_EQ(elements->direction, Direction::lower_is_better);
  EXPECT_THAT(elements->values, ElementsAre(4096, 4096, 4096));

  GbenchOptions options;
  options.counter_directions["elements"] = Direction::higher_is_better;
  const auto overridden = parse_gbench_json(gbench_fixture("repetitions.json"), options);
  ASSERT_TRUE(overridden);
  EXPECT_EQ(find_samples(*overridden, "BM_Sum/n:4096", "elements")->direction,
            Direction::higher_is_better);
}

TEST(GbenchJson, TheWorkOfAnIterationComesFromItsRatesAndTheAxesFromItsName) {
  const auto parsed = parse_gbench_json(gbench_fixture("repetitions.json"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto find = [&](std::string_view name) -> const CaseInfo* {
    for (const auto& info : parsed->cases)
      if (info.case_name == name)
        return &info;
    return nullptr;
  };
  // SetBytesProcessed without a FLOP counter: what the case processed, not what it moved, so no
  // work is counted and it gets no roofline.
  const auto* copy = find("BM_Copy/1024");
  ASSERT_NE(copy, nullptr);
  EXPECT_FALSE(copy->bytes);
  EXPECT_FALSE(copy->flops);
  EXPECT_EQ(copy->axes.at("arg0"), "1024");
  // counters["flops"] = Counter(n, kIsIterationInvariantRate): FLOP/s x cpu_time gives n back.
  const auto* sum = find("BM_Sum/n:4096");
  ASSERT_NE(sum, nullptr);
  ASSERT_TRUE(sum->flops);
  EXPECT_NEAR(*sum->flops, 4096, 4096 * 1e-6);
  EXPECT_EQ(sum->axes.at("n"), "4096");

  const auto counted = parse_gbench_json(R"({"context": {}, "benchmarks": [
    {"name": "BM_Gemm/M:8/threads:2", "run_type": "iteration", "real_time": 2, "cpu_time": 2,
     "time_unit": "us", "flops_per_call": 1024, "GFLOPS": 0.5}]})");
  ASSERT_TRUE(counted) << counted.error().message;
  ASSERT_EQ(counted->cases.size(), 1U);
  const auto& gemm = counted->cases[0];
  EXPECT_EQ(gemm.axes, (std::map<std::string, std::string>{{"M", "8"}})) << "threads is no axis";
  ASSERT_TRUE(gemm.flops);
  // Both counters give the FLOPs: either reads right; GFLOPS x 1e9 x 2 us = 1000, or 1024.
  EXPECT_TRUE(*gemm.flops == 1024 || std::abs(*gemm.flops - 1000) < 1e-6) << *gemm.flops;

  // Beside a FLOP counter, bytes_per_second x cpu_time gives the bytes of one iteration back.
  const auto both = parse_gbench_json(R"({"context": {}, "benchmarks": [
    {"name": "BM_Axpy/n:256", "run_type": "iteration", "real_time": 2, "cpu_time": 2,
     "time_unit": "us", "flops_per_call": 512, "bytes_per_second": 1.536e9}]})");
  ASSERT_TRUE(both) << both.error().message;
  ASSERT_EQ(both->cases.size(), 1U);
  ASSERT_TRUE(both->cases[0].bytes);
  EXPECT_NEAR(*both->cases[0].bytes, 3072, 3072 * 1e-9);
  ASSERT_TRUE(both->cases[0].flops);
  EXPECT_EQ(*both->cases[0].flops, 512);
}

TEST(GbenchJson, ReportsErrorRowsOncePerCase) {
  const auto parsed = parse_gbench_json(gbench_fixture("repetitions.json"));
  ASSERT_TRUE(parsed);
  ASSERT_EQ(parsed->errors.size(), 1U);
  EXPECT_EQ(parsed->errors[0].case_name, "BM_Broken");
  EXPECT_EQ(parsed->errors[0].message, "device buffer could not be allocated");
  EXPECT_EQ(find_samples(*parsed, "BM_Broken", "real_time"), nullptr);
}

// Every iteration row in the order it came, with its iterations and threads (what Valgrind's
// counts of each timed loop are matched to); an error row has no iterations to count.
TEST(GbenchJson, ListsTheIterationRowsInTheOrderTheyRan) {
  const auto parsed = parse_gbench_json(gbench_fixture("repetitions.json"));
  ASSERT_TRUE(parsed);
  ASSERT_EQ(parsed->iteration_rows.size(), 15U);
  EXPECT_EQ(parsed->iteration_rows[0], (IterationRow{"BM_Copy/1024", 1925340, 1}));
  EXPECT_EQ(parsed->iteration_rows[3], (IterationRow{"BM_Copy/65536", 9179, 1}));
  EXPECT_EQ(parsed->iteration_rows[9], (IterationRow{"BM_Slow", 931, 1}));
  EXPECT_EQ(parsed->iteration_rows[14], (IterationRow{"BM_Broken", 0, 1}));
}

TEST(GbenchJson, ReadsBareNanAndInfinityCountersAsAbsent) {
  const auto parsed = parse_gbench_json(gbench_fixture("nan_counters.json"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_NE(find_samples(*parsed, "BM_Nan", "real_time"), nullptr);
  EXPECT_EQ(find_samples(*parsed, "BM_Nan", "ratio"), nullptr);
  EXPECT_EQ(parsed->warnings.size(), 2U);
  EXPECT_THAT(parsed->warnings[0], HasSubstr("counter inf of BM_Nan is not a finite number"));
}

TEST(GbenchJson, ReplacingNonFiniteLiteralsKeepsPositions) {
  EXPECT_EQ(replace_non_finite_literals(R"({"a": NaN, "b": -Infinity, "NaN": "Infinity"})"),
            R"({"a":null, "b": null     , "NaN": "Infinity"})");
  EXPECT_EQ(replace_non_finite_literals(R"({"a": 1})"), std::nullopt);
  EXPECT_EQ(replace_non_finite_literals(R"({"name": "NaN"})"), std::nullopt);
}

TEST(GbenchJson, ErrorsNameTheKeyPath) {
  auto text = gbench_fixture("single.json");
  const auto at = text.find("\"real_time\": ");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 13, "\"real_time\": \"fast\", \"x\": ");
  EXPECT_THAT(gbench_error(text),
              HasSubstr("Google Benchmark JSON: benchmarks[0].real_time: expected a "
                        "number, found a string (\"fast\")"));
  EXPECT_THAT(
      gbench_error(
          R"({"context":{},"benchmarks":[{"name":"a","real_time":1,"cpu_time":1,"time_unit":"fortnights"}]})"),
      HasSubstr("benchmarks[0].time_unit: expected ns, us, ms or s, found \"fortnights\""));
  EXPECT_THAT(
      gbench_error(R"({"context":{},"benchmarks":[{"name":"a","cpu_time":1,"time_unit":"ns"}]})"),
      HasSubstr("benchmarks[0].real_time: missing"));
  EXPECT_THAT(gbench_error(R"({"context":{},"benchmarks":[7]})"),
              HasSubstr("benchmarks[0]: expected an object, found a number"));
  EXPECT_THAT(gbench_error(R"({"context":{},"benchmarks":{}})"),
              HasSubstr("benchmarks: expected an array, found an object"));
  EXPECT_THAT(gbench_error(R"({"context":{},"benchmarks":[]})"), HasSubstr("benchmarks: empty"));
  EXPECT_THAT(gbench_error(R"([1,2])"), HasSubstr("top level: expected an object"));
}

TEST(GbenchJson, TruncatedOutputNamesWhereItStopped) {
  const auto text = gbench_fixture("single.json");
  const auto cut = text.substr(0, text.find("\"family_index\""));
  const auto last_line = std::count(cut.begin(), cut.end(), '\n') + 1;
  const auto message = gbench_error(cut);
  EXPECT_THAT(message,
              HasSubstr("Google Benchmark JSON: line " + std::to_string(last_line) + ", "));
  EXPECT_THAT(message, HasSubstr("unexpected end of input"));
}

TEST(GbenchJson, SkipsLogLinesBeforeTheDocument) {
  const auto parsed =
      parse_gbench_json("2026-01-01 starting\nwarming up\n" + gbench_fixture("single.json"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_THAT(parsed->warnings.at(0), HasSubstr("skipped 2 lines of other output"));
}

TEST(GbenchJson, DetectsItsDocuments) {
  EXPECT_TRUE(looks_like_gbench(Json::parse(gbench_fixture("single.json"))));
  EXPECT_FALSE(looks_like_gbench(Json::parse(R"({"benchmarks":[]})")));
}

} // namespace
} // namespace culprit::parsers
