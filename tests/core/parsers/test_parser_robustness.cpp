// Every parser on hostile input: truncated fixtures, binary garbage, huge and non-finite numbers,
// deep nesting, very long lines. Each must return samples or a one-line error, never crash or
// hang.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/parsers/output_format.hpp"
#include "tests/core/parsers/parser_test_support.hpp"

namespace culprit::parsers {
namespace {

struct NamedParser {
  std::string name;
  ParseOptions options;
};

std::vector<NamedParser> every_parser() {
  std::vector<NamedParser> parsers;
  for (const auto format : {OutputFormat::auto_detect, OutputFormat::culprit, OutputFormat::gbench,
                            OutputFormat::nvbench}) {
    ParseOptions options;
    options.format = format;
    parsers.push_back({std::string(to_string(format)), options});
  }
  ParseOptions csv;
  csv.format = OutputFormat::csv;
  csv.csv.case_columns = {"Operation", "m"};
  csv.csv.value_column = "Runtime";
  csv.csv.unit = "ms";
  parsers.push_back({"csv", csv});
  ParseOptions regex;
  regex.format = OutputFormat::regex;
  regex.regex.pattern = R"((?P<case>\w+)\D*(?P<value>[-+0-9.eE]+))";
  parsers.push_back({"regex", regex});
  return parsers;
}

void expect_survives(std::string_view input, std::string_view what) {
  for (const auto& parser : every_parser()) {
    const auto parsed = parse_output_text(input, parser.options);
    if (parsed) {
      for (const auto& samples : parsed->samples) {
        for (const double value : samples.values)
          EXPECT_TRUE(std::isfinite(value)) << parser.name << " on " << what;
      }
      continue;
    }
    EXPECT_FALSE(parsed.error().message.empty()) << parser.name << " on " << what;
    EXPECT_EQ(parsed.error().message.find('\n'), std::string::npos)
        << parser.name << " on " << what << ": " << parsed.error().message;
  }
}

std::vector<std::string> fixtures() {
  return {testing::read_file(testing::parser_fixture("culprit/run.jsonl")),
          testing::read_file(testing::parser_fixture("gbench/repetitions.json")),
          testing::read_file(testing::parser_fixture("gbench/nan_counters.json")),
          testing::read_file(testing::parser_fixture("csv/cutlass_gemm.csv"))};
}

TEST(ParserRobustness, TruncatedFixtures) {
  auto inputs = fixtures();
  inputs.push_back(testing::read_file(testing::parser_fixture("nvbench/axes_ref.json")));
  for (const auto& text : inputs) {
    const std::size_t step = std::max<std::size_t>(text.size() / 30, 1);
    for (std::size_t cut = 0; cut < text.size(); cut += step)
      expect_survives(text.substr(0, cut), "a fixture cut at " + std::to_string(cut));
  }
}

TEST(ParserRobustness, BinaryGarbage) {
  std::uint64_t state = 42;
  const auto next_byte = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<char>(state >> 56U);
  };
  for (const std::size_t size : {1, 2, 17, 1000, 65536}) {
    std::string garbage;
    for (std::size_t i = 0; i < size; ++i)
      garbage += next_byte();
    expect_survives(garbage, "garbage");
    expect_survives("{" + garbage, "garbage after a brace");
    expect_survives(std::string(R"({"type":"sample","case":")") + garbage, "garbage in a string");
  }
  // Fixtures with bytes flipped.
  for (auto text : fixtures()) {
    for (std::size_t i = 0; i < text.size(); i += 101)
      text[i] = next_byte();
    expect_survives(text, "a fixture with flipped bytes");
  }
}

TEST(ParserRobustness, EmptyAndBlank) {
  const std::string nul(1, '\0');
  for (const std::string_view text :
       {std::string_view(""), std::string_view(" "), std::string_view("\n\n\n"),
        std::string_view("\r\n"), std::string_view("\t"), std::string_view(nul)})
    expect_survives(text, "blank");
  expect_survives(std::string("\0\0\0{}\0", 7), "NUL bytes");
}

TEST(ParserRobustness, HugeAndNonFiniteNumbers) {
  for (const auto* value : {"1e999", "-1e999", "1e-999", "NaN", "nan", "inf", "-Infinity",
                            "Infinity", "\"NaN\"", "\"inf\"", "18446744073709551616", "-0", "0x10",
                            "1e308", "123456789012345678901234567890"}) {
    const std::string number(value);
    expect_survives(
        R"({"type":"sample","case":"c","metric":"time","unit":"s","direction":"lower","value":)" +
            number + "}",
        number);
    expect_survives(
        R"({"context":{},"benchmarks":[{"name":"a","run_type":"iteration","real_time":)" + number +
            R"(,"cpu_time":1,"time_unit":"ns","counter":)" + number + "}]}",
        number);
    expect_survives("Operation,m,Runtime\nk," + number + "," + number + "\n", number);
    expect_survives("kernel: " + number + "\n", number);
  }
}

TEST(ParserRobustness, DeepNesting) {
  const std::string deep_array(200000, '[');
  expect_survives(deep_array, "deep arrays");
  std::string deep_object;
  for (int i = 0; i < 50000; ++i)
    deep_object += R"({"a":)";
  expect_survives(deep_object, "deep objects");
  expect_survives(R"({"type":"sample","case":)" + deep_array, "a deep record");
  expect_survives(R"({"context":{},"benchmarks":)" + deep_array, "a deep gbench document");
  // Within the limit, nesting is fine.
  expect_survives(std::string(100, '[') + std::string(100, ']'), "moderate nesting");
}

TEST(ParserRobustness, LongLines) {
  const std::string long_line(1 << 20, 'x');
  expect_survives(long_line, "a long line");
  expect_survives("{\"" + long_line + "\":1}", "a long key");
  expect_survives("Operation,m,Runtime\n\"" + long_line + "\",1,2\n", "a long field");
}

} // namespace
} // namespace culprit::parsers
