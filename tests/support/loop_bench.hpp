#pragma once
// A C benchmark whose "loop" case costs WORK iterations (read from the file `work` at build time)
// and whose "steady" case never changes, with the culprit.toml that builds and runs it: the
// project of the end-to-end tests that measure for real.

#include <string>
#include <string_view>

#include "tests/support/git_repo.hpp"

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
statistic = "min"
max_runs = 40
)";

// The commits of the end-to-end tests' history: the benchmark at `good`, four commits that touch
// only notes, `culprit` making the loop 50% longer (its file `work` owned by @perf-team), and three
// more notes up to `bad`.
struct LoopHistory {
  std::string good, culprit, bad;

  explicit LoopHistory(ScratchRepo& scratch) {
    scratch.write("bench.c", k_loop_bench);
    scratch.write("culprit.toml", k_loop_recipe);
    scratch.write("work", "400000\n");
    scratch.write("CODEOWNERS", "* @everyone\nwork @perf-team\n");
    good = scratch.commit("benchmark");
    for (int i = 0; i < 4; ++i) {
      scratch.write("NOTES", "note " + std::to_string(i) + "\n");
      scratch.commit("notes " + std::to_string(i), "Grace Hopper");
    }
    scratch.write("work", "600000\n");
    culprit = scratch.commit("Do half as much work again", "Alan Turing");
    for (int i = 0; i < 3; ++i) {
      scratch.write("NOTES", "later " + std::to_string(i) + "\n");
      bad = scratch.commit("later " + std::to_string(i));
    }
  }
};

} // namespace culprit::testing
