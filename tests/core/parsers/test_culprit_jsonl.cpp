#include "core/parsers/culprit_jsonl.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/core/parsers/parser_test_support.hpp"

namespace culprit::parsers {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using testing::find_case;
using testing::find_samples;
using ::testing::HasSubstr;

std::string jsonl_error(std::string_view text) {
  const auto parsed = parse_culprit_jsonl(text);
  EXPECT_FALSE(parsed) << "expected an error for: " << text;
  if (parsed)
    return "";
  EXPECT_EQ(parsed.error().code, ExitCode::infrastructure);
  EXPECT_EQ(parsed.error().message.find('\n'), std::string::npos) << "not one line";
  return parsed.error().message;
}

constexpr std::string_view k_sample =
    R"({"type":"sample","case":"c","metric":"time","unit":"s","direction":"lower","value":1})";

TEST(CulpritJsonl, ReadsTheFixture) {
  const auto parsed =
      parse_culprit_jsonl(testing::read_file(testing::parser_fixture("culprit/run.jsonl")));
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->samples.size(), 3U);

  const auto* sgemm = find_samples(*parsed, "sgemm/M=512,N=512,K=512", "time");
  ASSERT_NE(sgemm, nullptr);
  EXPECT_EQ(sgemm->unit, "s");
  EXPECT_EQ(sgemm->direction, Direction::lower_is_better);
  EXPECT_THAT(sgemm->values, ElementsAre(DoubleNear(4.12e-3, 1e-15), DoubleNear(4.08e-3, 1e-15)));

  const auto* gflops = find_samples(*parsed, "sgemm/M=512,N=512,K=512", "gflops");
  ASSERT_NE(gflops, nullptr);
  EXPECT_EQ(gflops->unit, "GFLOP/s");
  EXPECT_EQ(gflops->direction, Direction::higher_is_better);
  EXPECT_THAT(gflops->values, ElementsAre(65.1));

  const auto* saxpy = find_samples(*parsed, "saxpy/N=1048576", "time");
  ASSERT_NE(saxpy, nullptr);
  EXPECT_THAT(saxpy->values, ElementsAre(DoubleNear(181.5e-6, 1e-18), DoubleNear(179e-6, 1e-18)));

  const auto* info = find_case(*parsed, "sgemm/M=512,N=512,K=512");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->flops, 268435456.0);
  EXPECT_EQ(info->bytes, 3145728.0);
  EXPECT_EQ(info->axes.at("K"), "512");
  ASSERT_NE(find_case(*parsed, "saxpy/N=1048576"), nullptr);
  EXPECT_FALSE(find_case(*parsed, "saxpy/N=1048576")->flops);
}

TEST(CulpritJsonl, KeepsTheOrderOfCasesAndSamples) {
  const std::string text =
      R"({"type":"sample","case":"b","metric":"time","unit":"ns","direction":"lower","value":3}
{"type":"sample","case":"a","metric":"time","unit":"ns","direction":"lower","value":1}
{"type":"sample","case":"b","metric":"time","unit":"ns","direction":"lower","value":2}
)";
  const auto parsed = parse_culprit_jsonl(text);
  ASSERT_TRUE(parsed);
  ASSERT_EQ(parsed->samples.size(), 2U);
  EXPECT_EQ(parsed->samples[0].case_name, "b");
  EXPECT_THAT(parsed->samples[0].values,
              ElementsAre(DoubleNear(3e-9, 1e-20), DoubleNear(2e-9, 1e-20)));
}

TEST(CulpritJsonl, AcceptsWindowsLineEndingsAndNoFinalNewline) {
  const auto parsed = parse_culprit_jsonl(std::string(k_sample) + "\r\n" + std::string(k_sample));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->samples.at(0).values.size(), 2U);
}

TEST(CulpritJsonl, InvalidJsonNamesLineAndColumn) {
  const auto message =
      jsonl_error("log line\n" + std::string(k_sample) + "\n  {\"type\":\"sample\",}\n");
  EXPECT_THAT(message, HasSubstr("culprit JSON lines: line 3, column 20:"));
}

TEST(CulpritJsonl, WrongKindsNameTheLineAndKey) {
  EXPECT_THAT(
      jsonl_error(
          R"({"type":"sample","case":"c","metric":"time","unit":"s","direction":"lower","value":"1"})"),
      HasSubstr("line 1: value: expected a number, found a string (\"1\")"));
  EXPECT_THAT(
      jsonl_error(
          R"({"type":"sample","case":"","metric":"time","unit":"s","direction":"lower","value":1})"),
      HasSubstr("line 1: case: expected a non-empty string"));
  EXPECT_THAT(
      jsonl_error(
          R"({"type":"sample","case":"c","metric":"time","unit":"s","direction":"down","value":1})"),
      HasSubstr("direction: expected \"lower\" or \"higher\", found \"down\""));
  EXPECT_THAT(
      jsonl_error(R"({"type":"sample","case":"c","metric":"time","unit":"s","direction":"lower"})"),
      HasSubstr("value: missing"));
  EXPECT_THAT(jsonl_error(R"({"case":"c"})"), HasSubstr("line 1: type: missing"));
  EXPECT_THAT(
      jsonl_error(
          R"({"type":"sample","case":"c","metric":"time","unit":"s","direction":"lower","value":1,"index":-1})"),
      HasSubstr("index: expected a non-negative whole number"));
  EXPECT_THAT(
      jsonl_error(
          R"({"type":"sample","case":"c","metric":"time","unit":"s","direction":"lower","value":1,"cold":1})"),
      HasSubstr("cold: expected true or false"));
  EXPECT_THAT(jsonl_error(R"({"type":"case","case":"c","flops":-1})"),
              HasSubstr("flops: expected a non-negative number"));
  EXPECT_THAT(jsonl_error(R"({"type":"case","case":"c","axes":{"M":512}})"),
              HasSubstr("axes.M: expected a string, found a number"));
}

TEST(CulpritJsonl, RefusesANewerMajorVersionAndALateHeader) {
  EXPECT_THAT(jsonl_error(R"({"type":"header","format":"culprit-jsonl","version":2})"),
              HasSubstr("format version 2 is newer than this culprit reads (1); upgrade culprit"));
  EXPECT_THAT(jsonl_error(R"({"type":"header","format":"other","version":1})"),
              HasSubstr("format: expected \"culprit-jsonl\""));
  EXPECT_THAT(jsonl_error(std::string(k_sample) + "\n" + R"({"type":"header","version":1})"),
              HasSubstr("line 2: type: a header must be the first record"));
}

TEST(CulpritJsonl, TheHeaderNamesTheDeviceAndAGpusProperties) {
  const std::string gpu =
      R"({"type":"header","version":1,"backend":"cuda","device":"NVIDIA A100-SXM4-80GB",)"
      R"("gpu":{"sm_count":108,"sm_clock_mhz":1410,"memory_clock_mhz":1593,)"
      R"("memory_bus_bits":5120,"compute_major":8,"compute_minor":0}})";
  const auto parsed = parse_culprit_jsonl(gpu + "\n" + std::string(k_sample));
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->device);
  EXPECT_EQ(parsed->device->backend, "cuda");
  EXPECT_EQ(parsed->device->name, "NVIDIA A100-SXM4-80GB");
  ASSERT_TRUE(parsed->device->gpu);
  EXPECT_EQ(parsed->device->gpu->sm_count, 108);
  EXPECT_EQ(parsed->device->gpu->memory_bus_bits, 5120);
  EXPECT_EQ(parsed->device->gpu->compute_major, 8);

  const auto cpu =
      parse_culprit_jsonl(R"({"type":"header","version":1,"backend":"cpu","device":"AMD EPYC"})"
                          "\n" +
                          std::string(k_sample));
  ASSERT_TRUE(cpu && cpu->device);
  EXPECT_FALSE(cpu->device->gpu);
  EXPECT_THAT(jsonl_error(R"({"type":"header","version":1,"device":"x","gpu":{"sm_count":0}})"),
              HasSubstr("gpu.sm_count: expected a positive number"));
  EXPECT_THAT(jsonl_error(R"({"type":"header","version":1,"device":"x","gpu":7})"),
              HasSubstr("gpu: expected an object"));
}

TEST(CulpritJsonl, AMetricMustKeepItsUnitAndDirection) {
  const std::string text =
      std::string(k_sample) + "\n" +
      R"({"type":"sample","case":"c","metric":"time","unit":"B","direction":"lower","value":1})";
  EXPECT_THAT(jsonl_error(text),
              HasSubstr("line 2: value: time of case 'c' is in 'B' here but was in 's' before"));
  const std::string flipped =
      std::string(k_sample) + "\n" +
      R"({"type":"sample","case":"c","metric":"time","unit":"ms","direction":"higher","value":1})";
  EXPECT_THAT(jsonl_error(flipped), HasSubstr("higher-is-better here but was lower-is-better"));
}

TEST(CulpritJsonl, ACaseIsDescribedOncePerRun) {
  const std::string text = std::string(k_sample) + "\n" + R"({"type":"case","case":"c"})" + "\n" +
                           R"({"type":"case","case":"c"})";
  EXPECT_THAT(jsonl_error(text), HasSubstr("line 3: case: a second case record for 'c'"));
}

TEST(CulpritJsonl, OutputWithoutSamplesIsAnError) {
  EXPECT_THAT(jsonl_error(""), HasSubstr("no sample record found"));
  EXPECT_THAT(jsonl_error("Benchmark done\n{\"type\":\"header\",\"version\":1}\n"),
              HasSubstr("2 lines: no sample record found"));
}

TEST(CulpritJsonl, BatchSamplesAreReadAsTheirMetric) {
  const std::string text =
      std::string(k_sample) + "\n" +
      R"({"type":"sample","case":"c","metric":"batch_gpu_time","unit":"s","direction":"lower",)"
      R"("value":2e-6,"index":0,"cold":false,"batch":500})";
  const auto parsed = parse_culprit_jsonl(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto* batch = find_samples(*parsed, "c", "batch_gpu_time");
  ASSERT_NE(batch, nullptr);
  EXPECT_THAT(batch->values, ElementsAre(2e-6));
  EXPECT_TRUE(parsed->warnings.empty());
  EXPECT_THAT(jsonl_error(R"({"type":"sample","case":"c","metric":"t","unit":"s",)"
                          R"("direction":"lower","value":1,"batch":0})"),
              HasSubstr("batch: expected a positive whole number"));
  EXPECT_THAT(jsonl_error(R"({"type":"sample","case":"c","metric":"t","unit":"s",)"
                          R"("direction":"lower","value":1,"batch":"many"})"),
              HasSubstr("batch"));
}

TEST(CulpritJsonl, ThrottledSamplesOfAGpuCaseAreAWarning) {
  const std::string text =
      std::string(k_sample) + "\n" +
      R"({"type":"case","case":"c","sm_clock":{"checked":true,"default_mhz":1980,)"
      R"("threshold":0.75},"samples_taken":13,"dropped":{"throttled":3}})" +
      "\n" +
      R"({"type":"case","case":"d","sm_clock":{"checked":true,"default_mhz":1980,)"
      R"("threshold":0.75},"samples_taken":10,"dropped":{"throttled":0}})";
  const auto parsed = parse_culprit_jsonl(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_THAT(parsed->warnings,
              ElementsAre("culprit JSON lines: case c: 3 of 13 samples dropped: the SM clock was "
                          "below 75% of its default 1980 MHz"));
  ASSERT_NE(find_case(*parsed, "c"), nullptr);
  EXPECT_THAT(jsonl_error(std::string(k_sample) + "\n" +
                          R"({"type":"case","case":"c","dropped":{"throttled":-1}})"),
              HasSubstr("line 2: dropped.throttled: expected a non-negative whole number"));
  EXPECT_THAT(
      jsonl_error(std::string(k_sample) + "\n" + R"({"type":"case","case":"c","dropped":3})"),
      HasSubstr("dropped: expected an object"));
}

TEST(CulpritJsonl, CasesWhoseClockWasNotCheckedGiveOneWarning) {
  const std::string text =
      std::string(k_sample) + "\n" +
      R"({"type":"case","case":"c","sm_clock":{"checked":false,"default_mhz":1980,)"
      R"("threshold":0.75},"samples_taken":10})" +
      "\n" +
      R"({"type":"case","case":"d","sm_clock":{"checked":false,"default_mhz":1980,)"
      R"("threshold":0.75},"samples_taken":10})" +
      "\n" + R"({"type":"case","case":"e","sm_clock":{"checked":true},"dropped":{}})";
  const auto parsed = parse_culprit_jsonl(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_THAT(parsed->warnings,
              ElementsAre("culprit JSON lines: the SM clock was not checked in 2 of 3 GPU cases "
                          "(no NVML): throttled samples may be among theirs"));
}

TEST(CulpritJsonl, ASkippedCaseIsAWarningNotAnError) {
  const std::string text =
      std::string(k_sample) + "\n" +
      R"({"type":"skip","case":"big","reason":"needs 96.0 GiB of device memory"})";
  const auto parsed = parse_culprit_jsonl(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_THAT(parsed->warnings, ElementsAre("culprit JSON lines: case big was skipped by the "
                                            "benchmark: needs 96.0 GiB of device memory"));
  EXPECT_TRUE(parsed->errors.empty());
  EXPECT_EQ(find_samples(*parsed, "big", "time"), nullptr);
  EXPECT_THAT(jsonl_error(R"({"type":"skip","case":""})"), HasSubstr("case: expected a non-empty"));
  EXPECT_THAT(jsonl_error(R"({"type":"skip","case":"a","reason":"x"})"
                          "\n"
                          R"({"type":"skip","case":"b"})"),
              HasSubstr("no sample record found: every case was skipped (case a was skipped by "
                        "the benchmark: x, and 1 more)"));
}

TEST(CulpritJsonl, OverflowingNumbersAreErrorsNotInfinities) {
  EXPECT_THAT(
      jsonl_error(
          R"({"type":"sample","case":"c","metric":"time","unit":"s","direction":"lower","value":1e999})"),
      HasSubstr("line 1"));
}

TEST(CulpritJsonl, DetectsItsRecords) {
  EXPECT_TRUE(looks_like_culprit_jsonl("hello\n" + std::string(k_sample)));
  EXPECT_FALSE(looks_like_culprit_jsonl("{\n  \"context\": {}\n}\n"));
  EXPECT_FALSE(looks_like_culprit_jsonl(R"({"kind":"sample"})"));
  EXPECT_FALSE(looks_like_culprit_jsonl("no records at all"));
}

} // namespace
} // namespace culprit::parsers
