#pragma once
// A benchmark whose speed the test controls: a C program that reports 20 samples of one case,
// "k", at a level of LEVEL microseconds (the file `level` at build time), shaped by the machine it
// pretends to run on (its first argument):
//
//   quiet            each sample the level, +-0.5%
//   states           a guest that flips between a fast state and one 1.8x slower, in stretches
//                    of about two samples, slow half the time: one-sided interference
//   drift COUNTER    the level grows by 0.5% with every run, counted in the file COUNTER (one
//                    run at a time): a machine that slows down steadily, by far more than the
//                    threshold over a comparison and by less than it within a block, which the
//                    pairing must cancel
//   runs STATE [N]   N samples a run (5 unless given) on a guest whose slow stretches outlast runs:
//                    each sample stays in the state of the one before with probability 0.9, from
//                    run to run too (the state and its factor, drawn from [1.5, 2] for each slow
//                    stretch, and the random sequence are kept in the file STATE; one run at a
//                    time, and the first run starts from a fixed seed, so that the same runs see
//                    the same states), so about a third of the runs are slow from their first
//                    sample to their last
//   log LOG          really busy for about 100 ms, the samples its true times, and one line
//                    "pid cpu start end" (CLOCK_REALTIME seconds) appended to LOG: what a duet
//                    test checks
//
// The file `tag` is compiled in, so that two commits of the same level still build different
// artifacts (identical ones would be compared without a run). CULPRIT_TEST_MACHINE_SPEED in the
// environment, when set, multiplies every sample: a whole machine that much slower.

#include <filesystem>
#include <string>
#include <string_view>

#include "tests/support/git_repo.hpp"

namespace culprit::testing {

inline constexpr std::string_view k_machine_bench = R"(#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned long long state;
static double uniform(void) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(state >> 11) * (1.0 / 9007199254740992.0);
}

int main(int argc, char** argv) {
  volatile int tag = TAG;
  (void)tag;
  const char* mode = argc > 1 ? argv[1] : "quiet";
  const double start = now();
  state = (unsigned long long)getpid() * 2654435761ULL ^ (unsigned long long)(start * 1e6);
  const char* speed = getenv("CULPRIT_TEST_MACHINE_SPEED");
  const double level = LEVEL * 1e-6 * (speed != NULL ? atof(speed) : 1.0);
  long count = 0;
  if (strcmp(mode, "drift") == 0 && argc > 2) {
    FILE* f = fopen(argv[2], "r");
    if (f != NULL) {
      if (fscanf(f, "%ld", &count) != 1)
        count = 0;
      fclose(f);
    }
    f = fopen(argv[2], "w");
    if (f == NULL)
      return 2;
    fprintf(f, "%ld\n", count + 1);
    fclose(f);
  }
  int slow = uniform() < 0.5;
  int samples = 20;
  double factor = 1.8;
  if (strcmp(mode, "runs") == 0) {
    samples = argc > 3 ? atoi(argv[3]) : 5;
    // The machine's random sequence goes on from run to run: the same runs see the same states.
    state = 0x9E3779B97F4A7C15ULL;
    slow = uniform() < 0.5;
    FILE* f = argc > 2 ? fopen(argv[2], "r") : NULL;
    if (f != NULL) {
      if (fscanf(f, "%d %lf %llu", &slow, &factor, &state) != 3) {
        state = 0x9E3779B97F4A7C15ULL;
        slow = uniform() < 0.5;
      }
      fclose(f);
    }
  }
  for (int s = 0; s < samples; s++) {
    double value = level * (1.0 + 0.01 * (uniform() - 0.5));
    if (strcmp(mode, "states") == 0) {
      if (uniform() < 0.5)
        slow = !slow;
      if (slow)
        value *= 1.8;
    } else if (strcmp(mode, "runs") == 0) {
      if (uniform() < 0.1) {
        slow = !slow;
        factor = 1.5 + 0.5 * uniform();
      }
      if (slow)
        value *= factor;
    } else if (strcmp(mode, "drift") == 0) {
      value *= 1.0 + 0.005 * (double)count;
    } else if (strcmp(mode, "log") == 0) {
      const double t0 = now();
      volatile double x = 0;
      while (now() - t0 < 5e-3)
        x += 1.0;
      value = now() - t0;
    }
    printf("{\"type\":\"sample\",\"case\":\"k\",\"metric\":\"time\",\"unit\":\"s\","
           "\"direction\":\"lower\",\"value\":%.9f}\n", value);
  }
  if (strcmp(mode, "runs") == 0 && argc > 2) {
    FILE* f = fopen(argv[2], "w");
    if (f == NULL)
      return 2;
    fprintf(f, "%d %.17g %llu\n", slow, factor, state);
    fclose(f);
  }
  if (strcmp(mode, "log") == 0 && argc > 2) {
    FILE* log = fopen(argv[2], "a");
    if (log == NULL)
      return 2;
    fprintf(log, "%d %d %.6f %.6f\n", (int)getpid(), sched_getcpu(), start, now());
    fclose(log);
  }
  return 0;
}
)";

// The recipe of the machine bench, run as `bench ARGS`.
inline std::string machine_recipe(std::string_view args, int max_runs = 30) {
  return "[build]\n"
         "command = \"cc -O1 -DLEVEL=$(cat {src}/level) -DTAG=$(cat {src}/tag) -o "
         "{build}/bench {src}/bench.c\"\n"
         "artifacts = [\"bench\"]\n\n"
         "[run]\n"
         "command = \"{build}/bench " +
         std::string(args) +
         "\"\n"
         "format = \"culprit\"\n"
         "timeout = 30\n\n"
         "[decide]\n"
         "threshold = \"2%\"\n"
         "max_runs = " +
         std::to_string(max_runs) + "\n";
}

// Two commits of the machine bench, `base` at `base_level` and `head` at `head_level`
// microseconds, with the recipe `machine_recipe(args)`.
struct MachineHistory {
  std::string base, head;

  MachineHistory(ScratchRepo& scratch, std::string_view args, int base_level, int head_level,
                 int max_runs = 30) {
    scratch.write("bench.c", k_machine_bench);
    scratch.write("culprit.toml", machine_recipe(args, max_runs));
    scratch.write("level", std::to_string(base_level) + "\n");
    scratch.write("tag", "1\n");
    base = scratch.commit("machine bench");
    scratch.write("level", std::to_string(head_level) + "\n");
    scratch.write("tag", "2\n");
    head = scratch.commit("the next version");
  }
};

} // namespace culprit::testing
