// Which metric a verdict is about when the recipe names none: a CUDA program of the harness
// reports gpu_time (CUDA events) and time (the host's, launch included); the kernels' figure is
// the GPU's.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/measure/case_select.hpp"

namespace culprit {
namespace {

store::CaseMetric metric(const std::string& case_name, const std::string& name) {
  return {case_name, name, "s", parsers::Direction::lower_is_better};
}

TEST(CaseSelect, ACudaCaseIsJudgedByItsGpuTimeNotTheHostsTime) {
  const auto selected = measure::select_cases(
      {metric("saxpy/N=65536", "time"), metric("saxpy/N=65536", "gpu_time")}, {}, "");
  ASSERT_TRUE(selected) << selected.error().message;
  ASSERT_EQ(selected->size(), 1U);
  EXPECT_EQ((*selected)[0].key.metric, "gpu_time");
}

TEST(CaseSelect, TheMetricNamedWinsAndOtherwiseTheFirstByName) {
  const std::vector<store::CaseMetric> available = {metric("a", "time"), metric("a", "gpu_time"),
                                                    metric("b", "zeta"), metric("b", "alpha")};
  const auto named = measure::select_cases(available, {"a"}, "time");
  ASSERT_TRUE(named) << named.error().message;
  EXPECT_EQ((*named)[0].key.metric, "time");
  const auto fallback = measure::select_cases(available, {"b"}, "");
  ASSERT_TRUE(fallback) << fallback.error().message;
  EXPECT_EQ((*fallback)[0].key.metric, "alpha");
  const auto missing = measure::select_cases(available, {"b"}, "time");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("the metrics are: alpha, zeta"), std::string::npos)
      << missing.error().message;
}

} // namespace
} // namespace culprit
