#include "core/parsers/output_format.hpp"

#include <csignal>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/core/parsers/parser_test_support.hpp"

namespace culprit::parsers {
namespace {

using ::testing::ElementsAre;
using testing::find_samples;
using ::testing::HasSubstr;

std::string gbench_text() {
  return testing::read_file(testing::parser_fixture("gbench/repetitions.json"));
}

TEST(OutputFormat, NamesRoundTrip) {
  for (const auto format :
       {OutputFormat::auto_detect, OutputFormat::culprit, OutputFormat::gbench,
        OutputFormat::nvbench, OutputFormat::csv, OutputFormat::regex, OutputFormat::time}) {
    const auto parsed = parse_output_format(to_string(format));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, format);
  }
  const auto unknown = parse_output_format("json");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ExitCode::usage);
  EXPECT_THAT(unknown.error().message,
              HasSubstr("unknown output format 'json'; expected one of auto, culprit, gbench"));
}

TEST(OutputFormat, DetectsEachJsonFormat) {
  EXPECT_EQ(detect_output_format(testing::read_file(testing::parser_fixture("culprit/run.jsonl"))),
            OutputFormat::culprit);
  EXPECT_EQ(detect_output_format(gbench_text()), OutputFormat::gbench);
  EXPECT_EQ(
      detect_output_format(testing::read_file(testing::parser_fixture("gbench/nan_counters.json"))),
      OutputFormat::gbench);
  EXPECT_EQ(
      detect_output_format(testing::read_file(testing::parser_fixture("nvbench/axes_ref.json"))),
      OutputFormat::nvbench);
}

TEST(OutputFormat, UndetectableOutputListsTheFormats) {
  const auto plain = detect_output_format("Runtime: 3.2 ms\n");
  ASSERT_FALSE(plain);
  EXPECT_EQ(plain.error().code, ExitCode::infrastructure);
  EXPECT_THAT(plain.error().message, HasSubstr("(the output starts with \"Runtime: 3.2 ms\")"));
  EXPECT_THAT(plain.error().message,
              HasSubstr("give --format culprit, gbench, nvbench, csv (with its columns), regex"));
  EXPECT_THAT(detect_output_format("").error().message, HasSubstr("the output is empty"));
  EXPECT_THAT(detect_output_format(R"({"results": []})").error().message,
              HasSubstr("neither Google Benchmark's"));
  // Output that starts as JSON but breaks says where it broke.
  EXPECT_THAT(detect_output_format("{\n  \"context\": {,\n").error().message,
              HasSubstr("line 2, column"));
}

TEST(OutputFormat, AutoParsesWhatItDetects) {
  ParseOptions options;
  const auto parsed = parse_output_text(gbench_text(), options);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_NE(find_samples(*parsed, "BM_Copy/1024", "real_time"), nullptr);
  EXPECT_EQ(parsed->errors.size(), 1U);
}

TEST(OutputFormat, TheTimeFormatReadsTheRunNotItsOutput) {
  exec::ExecResult run;
  run.wall = exec::Seconds(1.5);
  run.user = exec::Seconds(1.25);
  run.sys = exec::Seconds(0.25);
  run.max_rss_kb = 2048;
  run.out = "not parsed";
  ParseOptions options;
  options.format = OutputFormat::time;
  options.time.case_name = "bench";
  const auto parsed = parse_run_output(run, options);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_THAT(find_samples(*parsed, "bench", "wall_time")->values, ElementsAre(1.5));
  EXPECT_THAT(find_samples(*parsed, "bench", "user_time")->values, ElementsAre(1.25));
  EXPECT_THAT(find_samples(*parsed, "bench", "sys_time")->values, ElementsAre(0.25));
  EXPECT_EQ(find_samples(*parsed, "bench", "max_rss")->unit, "KiB");
  EXPECT_EQ(parse_output_text("", options).error().code, ExitCode::usage);

  run.exit_code = -1;
  run.signal = SIGSEGV;
  EXPECT_THAT(parse_run_output(run, options).error().message,
              HasSubstr("time: bench: the command was killed by signal 11"));
  options.time.case_name.clear();
  EXPECT_EQ(parse_run_output(exec::ExecResult{}, options).error().code, ExitCode::usage);
}

TEST(OutputFormat, TruncatedOutputIsNamedInErrorsAndWarnings) {
  exec::ExecResult run;
  const auto text = gbench_text();
  run.out = text.substr(0, 200);
  run.out_bytes = text.size();
  run.out_truncated = true;
  ParseOptions options;
  options.format = OutputFormat::gbench;
  const auto failed = parse_run_output(run, options);
  ASSERT_FALSE(failed);
  EXPECT_THAT(failed.error().message,
              HasSubstr("(standard output was cut at 200 of 15007 bytes by the output limit; raise "
                        "the limit)"));

  run.out = testing::read_file(testing::parser_fixture("culprit/run.jsonl"));
  run.out_bytes = run.out.size() * 10;
  options.format = OutputFormat::culprit;
  const auto kept = parse_run_output(run, options);
  ASSERT_TRUE(kept);
  EXPECT_THAT(kept->warnings.back(), HasSubstr("the samples are from what was kept"));
}

TEST(OutputFormat, ConsoleTextWhereJsonWasWantedSaysWhichFlagToAdd) {
  struct Console {
    std::string fixture;
    OutputFormat format; // the tool's own, besides auto
    std::string says;
  };
  for (const auto& [fixture, format, says] :
       {Console{"gbench/console.txt", OutputFormat::gbench,
                "Google Benchmark's console table, not its JSON: add --benchmark_format=json to "
                "the run command"},
        Console{"nvbench/markdown.txt", OutputFormat::nvbench,
                "nvbench's markdown, not its JSON: add --json stdout --md stderr"}}) {
    const auto text = testing::read_file(testing::parser_fixture(fixture));
    for (const auto as : {OutputFormat::auto_detect, format}) {
      ParseOptions options;
      options.format = as;
      const auto parsed = parse_output_text(text, options);
      ASSERT_FALSE(parsed) << fixture << " as " << to_string(as);
      // A usage error: the run command is wrong, and no further run can succeed.
      EXPECT_EQ(parsed.error().code, ExitCode::usage);
      EXPECT_THAT(parsed.error().message, HasSubstr(says));
    }
  }
  // Text that is neither stays an output error that lists the formats.
  ParseOptions options;
  const auto other = parse_output_text("hello\nworld\n", options);
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().code, ExitCode::usage);
  EXPECT_THAT(other.error().message, HasSubstr("give --format culprit, gbench"));
}

} // namespace
} // namespace culprit::parsers
