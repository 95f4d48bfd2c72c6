// Nsight Compute's CSV (ncu --csv, its raw page): each kernel a case, each metric the mean over
// its launches, ncu's own lines skipped; and what is refused. tests/fixtures/ncu/README.md says
// where the fixtures come from.

#include "core/parsers/ncu_csv.hpp"

#include <map>
#include <string>
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/fs.hpp"
#include "tests/core/parsers/parser_test_support.hpp"

namespace culprit::parsers {
namespace {

using ::testing::HasSubstr;

std::string ncu_fixture(std::string_view name) {
  return read_file(testing::source_dir() / "tests/fixtures/ncu" / name).value_or("");
}

TEST(NcuCsv, EachKernelIsACaseWithTheMeanOfItsLaunches) {
  const auto samples = parse_ncu_csv(ncu_fixture("raw.csv"));
  ASSERT_TRUE(samples) << samples.error().message;
  std::map<std::pair<std::string, std::string>, double> value;
  std::map<std::string, Direction> direction;
  for (const auto& s : *samples) {
    ASSERT_EQ(s.values.size(), 1U);
    value[{s.case_name, s.metric}] = s.values[0];
    direction[s.metric] = s.direction;
  }
  EXPECT_EQ(samples->size(), 12U) << "six metrics of two kernels";
  // Two launches of saxpy_kernel<4>: the means; its return type and parameters dropped.
  EXPECT_EQ((value[{"saxpy_kernel<4>", "gpu_instructions"}]), 2097152.0);
  EXPECT_EQ((value[{"saxpy_kernel<4>", "dram_bytes_read"}]), (8388608.0 + 8388864.0) / 2);
  EXPECT_DOUBLE_EQ((value[{"saxpy_kernel<4>", "l2_hit_rate"}]), 0.11);
  EXPECT_DOUBLE_EQ((value[{"saxpy_kernel<4>", "achieved_occupancy"}]), (78.41 + 79.02) / 2);
  EXPECT_EQ((value[{"saxpy_kernel<4>", "sm_cycles"}]), (9876.0 + 9912.0) / 2);
  // Kbyte is a thousand bytes; thousands separators are read.
  EXPECT_DOUBLE_EQ((value[{"sgemm_tiled", "dram_bytes_read"}]), 131070.0);
  EXPECT_DOUBLE_EQ((value[{"sgemm_tiled", "dram_bytes_written"}]), 65540.0);
  EXPECT_EQ((value[{"sgemm_tiled", "sm_cycles"}]), 123456.5);
  EXPECT_EQ((value[{"sgemm_tiled", "gpu_instructions"}]), 1572864.0);
  EXPECT_EQ(direction["l2_hit_rate"], Direction::higher_is_better);
  EXPECT_EQ(direction["achieved_occupancy"], Direction::higher_is_better);
  EXPECT_EQ(direction["dram_bytes_read"], Direction::lower_is_better);
  EXPECT_EQ(samples->front().case_name, "saxpy_kernel<4>") << "kernels in the order they ran";
}

TEST(NcuCsv, WhatNcuCouldNotProfileIsSaid) {
  const auto denied = parse_ncu_csv(ncu_fixture("error.log"));
  ASSERT_FALSE(denied);
  EXPECT_THAT(denied.error().message, HasSubstr("ERR_NVGPUCTRPERM"));
  EXPECT_THAT(parse_ncu_csv("").error().message, HasSubstr("no CSV table"));
}

TEST(NcuCsv, BadTablesAreRefusedWithTheirRow) {
  const std::string header = R"("ID","Kernel Name","Metric Name","Metric Unit","Metric Value")"
                             "\n";
  const auto not_a_number =
      parse_ncu_csv(header + R"x("0","k(int)","sm__cycles_elapsed.avg","cycle","n/a")x");
  ASSERT_FALSE(not_a_number);
  EXPECT_THAT(not_a_number.error().message, HasSubstr("'n/a', not a number"));
  const auto short_row = parse_ncu_csv(header + R"x("0","k(int)","sm__cycles_elapsed.avg")x");
  ASSERT_FALSE(short_row);
  EXPECT_THAT(short_row.error().message, HasSubstr("3 fields where the header has 5"));
  const auto other_metrics =
      parse_ncu_csv(header + R"x("0","k(int)","gpu__time_duration.sum","nsecond","1,000")x");
  ASSERT_FALSE(other_metrics);
  EXPECT_THAT(other_metrics.error().message, HasSubstr("no kernel launch"));
  const auto open_quote = parse_ncu_csv(header + R"x("0","k(int)","sm__cycles)x");
  EXPECT_FALSE(open_quote);
  const auto no_columns = parse_ncu_csv(R"("ID","Kernel Name")"
                                        "\n");
  ASSERT_FALSE(no_columns);
  EXPECT_THAT(no_columns.error().message, HasSubstr("header lacks"));
}

// A count ncu cannot have made (negative, not a number, infinite) is the run's parse error,
// naming ncu's CSV and the row, and so is a row without a kernel name; a value near the largest
// double is a count like any other.
TEST(NcuCsv, ValuesNoCountCanHaveAreRefusedWithTheirRow) {
  const std::string header = R"("ID","Kernel Name","Metric Name","Metric Unit","Metric Value")"
                             "\n";
  for (const std::string value : {"-5", "-1,000", "nan", "NaN", "inf", "-inf", "infinity"}) {
    const auto refused = parse_ncu_csv(
        header + R"x("0","k(int)","smsp__inst_executed.sum","inst",")x" + value + "\"\n");
    ASSERT_FALSE(refused) << value;
    EXPECT_EQ(refused.error().code, ExitCode::infrastructure) << value;
    EXPECT_THAT(refused.error().message, HasSubstr("ncu's CSV row 2")) << value;
    EXPECT_THAT(refused.error().message, HasSubstr("'" + value + "'")) << value;
  }
  const auto nameless = parse_ncu_csv(header + R"x("0","","smsp__inst_executed.sum","inst","12")x"
                                               "\n");
  ASSERT_FALSE(nameless);
  EXPECT_THAT(nameless.error().message, HasSubstr("ncu's CSV row 2 names no kernel"));
  const auto blank =
      parse_ncu_csv(header + R"x("0","void (int)","smsp__inst_executed.sum","inst","12")x"
                             "\n");
  ASSERT_FALSE(blank);
  EXPECT_THAT(blank.error().message, HasSubstr("names no kernel"));
  const auto huge =
      parse_ncu_csv(header + R"x("0","k(int)","smsp__inst_executed.sum","inst","1.7e308")x"
                             "\n");
  ASSERT_TRUE(huge) << huge.error().message;
  EXPECT_EQ(huge->front().values.front(), 1.7e308);
}

// Kernel names lose their return type and parameter list whatever characters the name holds:
// operators whose symbol has angle brackets or parentheses, template arguments with parentheses,
// an anonymous namespace.
TEST(NcuCsv, KernelNamesAreStrippedOfReturnTypeAndParameters) {
  const std::string header = R"("ID","Kernel Name","Metric Name","Metric Unit","Metric Value")"
                             "\n";
  const auto case_of = [&](const std::string& kernel) {
    const auto samples =
        parse_ncu_csv(header + "\"0\",\"" + kernel + R"x(","sm__cycles_elapsed.avg","cycle","7")x");
    EXPECT_TRUE(samples) << kernel << ": " << samples.error().message;
    return samples ? samples->front().case_name : std::string();
  };
  EXPECT_EQ(case_of("void saxpy_kernel<4>(int, float, const float *, float *)"), "saxpy_kernel<4>");
  EXPECT_EQ(case_of("sgemm_tiled"), "sgemm_tiled") << "extern \"C\": a name alone";
  EXPECT_EQ(case_of("void operator>>(int)"), "operator>>");
  EXPECT_EQ(case_of("void operator<<(int)"), "operator<<");
  EXPECT_EQ(case_of("void operator<(int, int)"), "operator<");
  EXPECT_EQ(case_of("void ns::Functor::operator()(float *)"), "ns::Functor::operator()");
  EXPECT_EQ(case_of("void ns::operator()<int>(int)"), "ns::operator()<int>");
  EXPECT_EQ(case_of("bool operator<=>(int)"), "operator<=>");
  EXPECT_EQ(case_of("void operator< <int>(int)"), "operator< <int>");
  EXPECT_EQ(case_of("void tiled<(int)16, true>(float *)"), "tiled<(int)16, true>");
  EXPECT_EQ(case_of("void (anonymous namespace)::reduce<float>(float const*, float*)"),
            "(anonymous namespace)::reduce<float>");
  EXPECT_EQ(case_of("unsigned int count_kernel(unsigned int *)"), "count_kernel");
  EXPECT_EQ(case_of("void cub::DeviceReduceKernel<cub::Policy<600>, float *, int>(float *, int)"),
            "cub::DeviceReduceKernel<cub::Policy<600>, float *, int>");
}

TEST(NcuCsv, NamesItsMetrics) {
  EXPECT_TRUE(is_ncu_metric("gpu_instructions"));
  EXPECT_TRUE(is_ncu_metric("l2_hit_rate"));
  EXPECT_FALSE(is_ncu_metric("instructions"));
  EXPECT_THAT(std::string(ncu_metrics()), HasSubstr("smsp__inst_executed.sum"));
}

} // namespace
} // namespace culprit::parsers
