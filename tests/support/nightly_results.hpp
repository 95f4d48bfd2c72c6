#pragma once
// Results made elsewhere, as a nightly CI job would upload them: one Google Benchmark case, for
// the tests of `culprit import`.

#include <string_view>

namespace culprit::testing {

inline constexpr std::string_view k_nightly_gbench = R"({
  "context": {"date": "2026-01-01T00:00:00+00:00", "host_name": "ci", "num_cpus": 2},
  "benchmarks": [
    {"name": "BM_Copy/64", "run_name": "BM_Copy/64", "run_type": "iteration", "iterations": 1000,
     "real_time": 120.5, "cpu_time": 120.1, "time_unit": "ns"}
  ]
})";

} // namespace culprit::testing
