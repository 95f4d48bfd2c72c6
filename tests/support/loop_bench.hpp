#pragma once
// A C benchmark whose "loop" case costs WORK iterations (read from the file `work` at build time)
// and whose "steady" case never changes, with the culprit.toml that builds and runs it: the
// project of the end-to-end tests that measure for real.

#include <string_view>

namespace culprit::testing {

inline constexpr std::string_view k_loop_bench = R"(#include <stdio.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(void) {
  volatile double x = 0;
  for (int s = 0; s < 5; s++) {
    double t0 = now();
    for (long i = 0; i < WORK; i++) x += i * 0.5;
    printf("{\"type\":\"sample\",\"case\":\"loop\",\"metric\":\"time\",\"unit\":\"s\","
           "\"direction\":\"lower\",\"value\":%.9f}\n", now() - t0);
    printf("{\"type\":\"sample\",\"case\":\"steady\",\"metric\":\"time\",\"unit\":\"s\","
           "\"direction\":\"lower\",\"value\":%.9f}\n", 0.001);
  }
  return 0;
}
)";

inline constexpr std::string_view k_loop_recipe = R"([build]
command = "cc -O1 -DWORK=$(cat {src}/work) -o {build}/bench {src}/bench.c"
artifacts = ["bench"]

[run]
command = "{build}/bench"
format = "culprit"
timeout = 30

[decide]
threshold = "5%"
max_runs = 20
)";

} // namespace culprit::testing
