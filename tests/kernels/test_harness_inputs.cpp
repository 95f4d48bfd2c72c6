// What the harness feeds kernels and reads from the host: its random inputs (SplitMix64 against
// the published reference values, and the uniform distribution by its moments and its bins),
// the files it reads with stdio, and the timing loop behind State::exec.

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <culprit/harness.hpp>
#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace {

namespace harness = culprit::harness;

TEST(HarnessRandom, SplitMix64GivesTheReferenceSequence) {
  // The first outputs of the reference implementation (Vigna's splitmix64.c) from seed 0, and
  // from seed 1234567 as computed by an independent implementation of the published algorithm.
  harness::SplitMix64 zero(0);
  EXPECT_EQ(zero.next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(zero.next(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(zero.next(), 0x06C45D188009454FULL);
  harness::SplitMix64 other(1234567);
  EXPECT_EQ(other.next(), 0x599ED017FB08FC85ULL);
  EXPECT_EQ(other.next(), 0x2C73F08458540FA5ULL);
  EXPECT_EQ(other.next(), 0x883EBCE5A3F27C77ULL);
}

TEST(HarnessRandom, UniformValuesStayInTheirRangeAndAreReproducible) {
  const auto values = harness::uniform_vector(100000, 7, -2.0F, 3.0F);
  for (const float value : values) {
    ASSERT_GE(value, -2.0F);
    ASSERT_LT(value, 3.0F);
  }
  EXPECT_EQ(values, harness::uniform_vector(100000, 7, -2.0F, 3.0F));
  EXPECT_NE(values, harness::uniform_vector(100000, 8, -2.0F, 3.0F));
  // A range of one float's width holds one value only.
  const float low = 1.0F;
  const float high = std::nextafter(low, 2.0F);
  for (const float value : harness::uniform_vector(1000, 3, low, high))
    ASSERT_EQ(value, low);
}

TEST(HarnessRandom, UniformValuesHaveTheMomentsAndBinsOfTheUniformDistribution) {
  constexpr std::size_t k_count = 1 << 20;
  const auto values = harness::uniform_vector(k_count, 11, 0.0F, 1.0F);
  double sum = 0;
  double squares = 0;
  constexpr int k_bins = 16;
  std::vector<double> bins(k_bins, 0.0);
  for (const float value : values) {
    sum += value;
    squares += static_cast<double>(value) * value;
    bins[static_cast<std::size_t>(value * k_bins)] += 1;
  }
  const double n = k_count;
  const double mean = sum / n;
  const double variance = squares / n - mean * mean;
  // The mean of U(0,1) is 1/2 with a standard error of sqrt(1/12/n) = 0.00028 here: 5 of them.
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12.0 / n));
  EXPECT_NEAR(variance, 1.0 / 12.0, 0.001);
  // Pearson's chi-square over 16 equal bins, 15 degrees of freedom: 37.70 is the 0.999 quantile
  // (scipy.stats.chi2.ppf(0.999, 15)).
  double chi_square = 0;
  for (const double observed : bins) {
    const double expected = n / k_bins;
    chi_square += (observed - expected) * (observed - expected) / expected;
  }
  EXPECT_LT(chi_square, 37.70);
}

TEST(HarnessHost, MemoryAvailableIsReadFromProcMeminfo) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  double expected = 0;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:")
      expected = kib * 1024.0;
  }
  ASSERT_GT(expected, 0.0) << "this kernel has no MemAvailable";
  // Other processes allocate and free between the two reads (ASan's quarantine alone holds up to
  // 256 MiB): the figure is a share of the machine's memory, not a second reading of the same.
  double total = 0;
  std::ifstream again("/proc/meminfo");
  while (again >> key >> kib >> unit) {
    if (key == "MemTotal:")
      total = kib * 1024.0;
  }
  const double available = harness::available_host_memory_bytes();
  EXPECT_GT(available, 0.0);
  EXPECT_LE(available, total);
}

TEST(HarnessSuites, FilesWithLongLinesCarriageReturnsAndNoLastNewlineAreRead) {
  harness::Registry registry;
  registry.add("bench", [](harness::State&) {}).add_int_axis("N", {1});
  culprit::testing::TempDir temp("culprit-harness-suite");
  std::string long_values = "1";
  for (int value = 2; value <= 200; ++value)
    long_values += "," + std::to_string(value); // a line of about 700 characters
  std::ofstream(temp / "long.suite")
      << "# a comment\r\nbench N=" << long_values << "   # two hundred cases\r\nbench N=500";
  const auto cases = harness::load_suite(registry, (temp / "long.suite").string());
  ASSERT_EQ(cases.size(), 201U);
  EXPECT_EQ(cases.front().name, "bench/N=1");
  EXPECT_EQ(cases[199].name, "bench/N=200");
  EXPECT_EQ(cases.back().name, "bench/N=500");

  std::ofstream(temp / "bad.suite") << "bench N=1\n\nbench N=x\n";
  try {
    harness::load_suite(registry, (temp / "bad.suite").string());
    FAIL() << "no error";
  } catch (const harness::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("bad.suite:3: axis N=x is not a possible size"),
              std::string::npos)
        << error.what();
  }
}

TEST(HarnessState, ExecCallsTheFunctionForEveryWarmupAndSample) {
  harness::Registry registry;
  registry.add("bench", [](harness::State&) {});
  const auto cases = registry.default_cases();
  harness::RunSettings settings;
  settings.samples = 7;
  settings.warmup = 3;
  harness::HostCacheFlusher flusher(4096);
  harness::State state(cases.front(), settings, flusher);
  int calls = 0;
  state.exec([&calls] { ++calls; });
  EXPECT_EQ(calls, 10);
  ASSERT_EQ(state.samples().size(), 7U);
  EXPECT_EQ(state.samples().back().index, 6);
  EXPECT_EQ(state.samples().back().metric, "time");

  // A function object given as a const reference works too.
  const auto counting = [&calls] { ++calls; };
  state.exec(counting);
  EXPECT_EQ(calls, 20);
}

} // namespace
