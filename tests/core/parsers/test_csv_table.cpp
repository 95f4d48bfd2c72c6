#include "core/parsers/csv_table.hpp"

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

CsvOptions cutlass_options() {
  CsvOptions options;
  options.case_columns = {"Operation", "m", "n", "k"};
  options.value_column = "Runtime";
  options.metric = "time";
  options.unit = "ms";
  return options;
}

std::string cutlass_text() {
  return testing::read_file(testing::parser_fixture("csv/cutlass_gemm.csv"));
}

std::string csv_error(std::string_view text, const CsvOptions& options) {
  const auto parsed = parse_csv_table(text, options);
  EXPECT_FALSE(parsed);
  return parsed ? "" : parsed.error().message;
}

TEST(CsvTable, ReadsCutlassProfilerOutput) {
  const auto parsed = parse_csv_table(cutlass_text(), cutlass_options());
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto* nn = find_samples(
      *parsed, "cutlass_simt_sgemm_128x128_8x2_nn_align1/m=4096,n=4096,k=4096", "time");
  ASSERT_NE(nn, nullptr);
  EXPECT_EQ(nn->unit, "s");
  EXPECT_THAT(nn->values, ElementsAre(DoubleNear(3.7741e-3, 1e-15)));
  EXPECT_NE(find_samples(*parsed, "cutlass_simt_sgemm_128x128_8x2_nn_align1/m=8192,n=8192,k=8192",
                         "time"),
            nullptr);
  const auto* info =
      find_case(*parsed, "cutlass_simt_sgemm_128x128_8x2_nt_align1/m=4096,n=4096,k=4096");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->axes.at("k"), "4096");
}

TEST(CsvTable, HandlesQuotedFieldsWithCommasAndQuotes) {
  const auto parsed = parse_csv_table(cutlass_text(), cutlass_options());
  ASSERT_TRUE(parsed);
  EXPECT_NE(find_samples(
                *parsed,
                R"(cutlass_simt_sgemm_128x128_8x2_nn_align1, "split" variant/m=4096,n=4096,k=4096)",
                "time"),
            nullptr);
}

TEST(CsvTable, SkipsRowsWithoutAValueWithAWarning) {
  const auto parsed = parse_csv_table(cutlass_text(), cutlass_options());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->samples.size(), 4U);
  ASSERT_EQ(parsed->warnings.size(), 1U);
  EXPECT_THAT(parsed->warnings[0], HasSubstr("1 rows with an empty Runtime were skipped"));
}

TEST(CsvTable, UsesTheValueColumnAsMetricAndTheGivenDirection) {
  CsvOptions options;
  options.case_columns = {"Operation"};
  options.value_column = "GFLOPs";
  options.unit = "GFLOP/s";
  options.direction = Direction::higher_is_better;
  const auto parsed = parse_csv_table(cutlass_text(), options);
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto* gflops = find_samples(*parsed, "cutlass_simt_sgemm_128x128_8x2_nn_align1", "GFLOPs");
  ASSERT_NE(gflops, nullptr);
  EXPECT_EQ(gflops->unit, "GFLOP/s");
  EXPECT_EQ(gflops->direction, Direction::higher_is_better);
  EXPECT_THAT(gflops->values, ElementsAre(36416.7, 36673.2));
  EXPECT_TRUE(parsed->cases.empty());
}

TEST(CsvTable, SkipsARepeatedHeaderAndBlankLines) {
  const std::string text = "name,time\na,1\n\nname,time\nb,2\na,3\n";
  CsvOptions options;
  options.case_columns = {"name"};
  options.value_column = "time";
  const auto parsed = parse_csv_table(text, options);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_THAT(find_samples(*parsed, "a", "time")->values, ElementsAre(1, 3));
}

TEST(CsvTable, QuotedFieldsMaySpanLines) {
  const std::string text = "name,time\n\"two\nlines\",1.5\nb,2\n";
  CsvOptions options;
  options.case_columns = {"name"};
  options.value_column = "time";
  const auto parsed = parse_csv_table(text, options);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_THAT(find_samples(*parsed, "two\nlines", "time")->values, ElementsAre(1.5));
}

TEST(CsvTable, ErrorsNameTheLineAndColumn) {
  CsvOptions options;
  options.case_columns = {"name"};
  options.value_column = "time";
  EXPECT_THAT(csv_error("banner\nname,time\na,1\nb,fast\n", options),
              HasSubstr("CSV: line 4, column time: expected a number, found \"fast\""));
  EXPECT_THAT(csv_error("name,time\na,1,extra\n", options),
              HasSubstr("CSV: line 2: 3 fields, but the header on line 1 has 2"));
  EXPECT_THAT(csv_error("name,time\na\"b,1\n", options),
              HasSubstr("CSV: line 2, column 2: malformed quoting"));
  EXPECT_THAT(csv_error("name,time\n\"open,1\n", options),
              HasSubstr("a quoted field is not closed"));
  EXPECT_THAT(csv_error("name,runtime\na,1\n", options),
              HasSubstr("no header line names the columns name, time"));
  EXPECT_THAT(csv_error("name,time\n", options), HasSubstr("no row with a value"));
  EXPECT_THAT(csv_error("name,time\n,1\n", options), HasSubstr("the case name is empty"));
  EXPECT_THAT(csv_error("name,time\na,nan\n", options),
              HasSubstr("expected a number, found \"nan\""));
}

TEST(CsvTable, OptionsMustNameColumns) {
  CsvOptions options;
  options.value_column = "time";
  const auto parsed = parse_csv_table("a,time\n", options);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().code, ExitCode::usage);
}

TEST(CsvTable, OtherDelimiters) {
  CsvOptions options;
  options.case_columns = {"name"};
  options.value_column = "ns";
  options.unit = "ns";
  options.delimiter = ';';
  const auto parsed = parse_csv_table("name;ns\n\"a;b\";1000\n", options);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_THAT(find_samples(*parsed, "a;b", "ns")->values, ElementsAre(DoubleNear(1e-6, 1e-18)));
}

} // namespace
} // namespace culprit::parsers
