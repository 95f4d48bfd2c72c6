#include "core/parsers/regex_lines.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/core/parsers/parser_test_support.hpp"

namespace culprit::parsers {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using testing::find_samples;
using ::testing::HasSubstr;

constexpr std::string_view k_log = R"(starting benchmark
kernel sgemm_128: 4.25 ms
kernel sgemm_256: 3.5 ms
note: ignore this line
kernel sgemm_128: 4.5 ms
)";

TEST(RegexLines, OneGroupIsTheValueOfTheGivenCase) {
  RegexOptions options;
  options.pattern = R"(sgemm_128: ([0-9.]+) ms)";
  options.unit = "ms";
  options.case_name = "sgemm";
  const auto parsed = parse_regex_lines(k_log, options);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->samples.size(), 1U);
  EXPECT_EQ(parsed->samples[0].case_name, "sgemm");
  EXPECT_EQ(parsed->samples[0].metric, "time");
  EXPECT_EQ(parsed->samples[0].unit, "s");
  EXPECT_THAT(parsed->samples[0].values,
              ElementsAre(DoubleNear(4.25e-3, 1e-15), DoubleNear(4.5e-3, 1e-15)));
}

TEST(RegexLines, NamedGroupsGiveCaseAndValue) {
  for (const auto* pattern : {R"(kernel (?P<case>\S+): (?P<value>[0-9.]+) ms)",
                              R"(kernel (?<case>\S+): (?<value>[0-9.]+) ms)"}) {
    RegexOptions options;
    options.pattern = pattern;
    options.unit = "ms";
    const auto parsed = parse_regex_lines(k_log, options);
    ASSERT_TRUE(parsed) << parsed.error().message;
    ASSERT_EQ(parsed->samples.size(), 2U);
    EXPECT_EQ(parsed->samples[0].case_name, "sgemm_128");
    EXPECT_EQ(parsed->samples[1].case_name, "sgemm_256");
    EXPECT_EQ(parsed->samples[0].values.size(), 2U);
  }
}

TEST(RegexLines, OtherUnitsAndMetricNamesAreKept) {
  RegexOptions options;
  options.pattern = R"(bandwidth (\d+) GB/s)";
  options.unit = "GB/s";
  options.direction = Direction::higher_is_better;
  const auto parsed = parse_regex_lines("bandwidth 812 GB/s\n", options);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->samples[0].metric, "value");
  EXPECT_EQ(parsed->samples[0].unit, "GB/s");
  EXPECT_EQ(parsed->samples[0].direction, Direction::higher_is_better);
  EXPECT_EQ(parsed->samples[0].case_name, "default");
}

TEST(RegexLines, BadPatternsAreUsageErrors) {
  RegexOptions options;
  options.pattern = "(unclosed";
  auto parsed = parse_regex_lines(k_log, options);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().code, ExitCode::usage);
  EXPECT_THAT(parsed.error().message, HasSubstr("the regex '(unclosed' is invalid"));

  options.pattern = R"((\w+): ([0-9.]+))";
  parsed = parse_regex_lines(k_log, options);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().code, ExitCode::usage);
  EXPECT_THAT(parsed.error().message, HasSubstr("has 2 capture groups"));

  options.pattern = "";
  EXPECT_EQ(parse_regex_lines(k_log, options).error().code, ExitCode::usage);
}

TEST(RegexLines, ACapturedNonNumberNamesLineAndColumn) {
  RegexOptions options;
  options.pattern = R"(sgemm_256: (\S+) ms)";
  const auto parsed = parse_regex_lines("kernel sgemm_256: 3.x5 ms\n", options);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().code, ExitCode::infrastructure);
  EXPECT_THAT(
      parsed.error().message,
      HasSubstr("regex: line 1, column 19: the value group captured \"3.x5\"; expected a number"));
}

TEST(RegexLines, NoMatchingLineIsAnError) {
  RegexOptions options;
  options.pattern = R"(dgemm: ([0-9.]+))";
  const auto parsed = parse_regex_lines(k_log, options);
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().message, HasSubstr("regex: 5 lines: no line matches"));
}

TEST(RegexLines, LongLinesAndNestedRepetitionDoNotBlowUp) {
  // A backtracking engine (std::regex) overflows its stack or takes exponential time here.
  RegexOptions options;
  options.pattern = R"(^(?:(?:a|aa)+)+b ([0-9]+)$)";
  const std::string line(1 << 20, 'a');
  const auto parsed = parse_regex_lines(line + "\n" + line + "b 7\n", options);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_THAT(parsed->samples[0].values, ElementsAre(7));
}

} // namespace
} // namespace culprit::parsers
