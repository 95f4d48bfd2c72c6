#include "core/roofline/occupancy.hpp"

#include <string>

#include <gtest/gtest.h>

namespace culprit {
namespace {

struct OccupancyPoint {
  const char* arch;
  int threads;
  int registers;
  std::int64_t shared;
  int blocks;
  int warps;
  int max_warps;
  roofline::OccupancyLimiter limiter;
};

// Expected values computed apart from the code, by the formula of occupancy.hpp written out in
// Python with the Programming Guide's per-arch limits.
TEST(Occupancy, MatchesTheFormulaWorkedOutByHand) {
  using L = roofline::OccupancyLimiter;
  const OccupancyPoint points[] = {
      {"sm_80", 256, 32, 0, 8, 64, 64, L::warps},        // the well-known 100%
      {"sm_90", 256, 40, 2048, 6, 48, 64, L::registers}, // 12 warps a sub-partition
      {"sm_90", 256, 32, 3072, 8, 64, 64, L::warps},
      {"sm_86", 128, 64, 0, 8, 32, 48, L::registers},
      {"sm_75", 1024, 32, 0, 1, 32, 32, L::warps},
      {"sm_70", 96, 72, 20000, 4, 12, 64, L::shared},         // 96 KiB / 20224 B
      {"sm_89", 512, 48, 48 * 1024, 2, 32, 48, L::registers}, // shared allows 2 too
      {"sm_80", 64, 255, 0, 4, 8, 64, L::registers},
      {"sm_90", 32, 16, 0, 32, 32, 64, L::blocks},
      {"sm_70", 256, 0, 0, 8, 64, 64, L::warps},
  };
  for (const auto& p : points) {
    SCOPED_TRACE(std::string(p.arch) + " " + std::to_string(p.threads) + " threads, " +
                 std::to_string(p.registers) + " registers");
    const auto limits = roofline::occupancy_limits(p.arch);
    ASSERT_TRUE(limits);
    const auto occupancy =
        roofline::theoretical_occupancy(*limits, {.threads_per_block = p.threads,
                                                  .registers_per_thread = p.registers,
                                                  .shared_bytes_per_block = p.shared});
    ASSERT_TRUE(occupancy) << occupancy.error().message;
    EXPECT_EQ(occupancy->blocks_per_sm, p.blocks);
    EXPECT_EQ(occupancy->warps_per_sm, p.warps);
    EXPECT_EQ(occupancy->max_warps_per_sm, p.max_warps);
    EXPECT_DOUBLE_EQ(occupancy->fraction, static_cast<double>(p.warps) / p.max_warps);
    EXPECT_EQ(occupancy->limiter, p.limiter);
  }
}

TEST(Occupancy, KnowsTheArchitecturesItDocuments) {
  for (const char* arch : {"sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"})
    EXPECT_TRUE(roofline::occupancy_limits(arch)) << arch;
  for (const char* arch : {"sm_60", "sm_100", "", "compute_90", "sm_9"})
    EXPECT_FALSE(roofline::occupancy_limits(arch)) << arch;
  EXPECT_EQ(roofline::occupancy_limits("sm_90a")->arch, "sm_90");
}

TEST(Occupancy, ABlockTheSmCannotRunIsAUsageError) {
  const auto limits = *roofline::occupancy_limits("sm_80");
  const auto bad = [&](int threads, int registers, std::int64_t shared) {
    const auto occupancy =
        roofline::theoretical_occupancy(limits, {.threads_per_block = threads,
                                                 .registers_per_thread = registers,
                                                 .shared_bytes_per_block = shared});
    return !occupancy && occupancy.error().code == ExitCode::usage;
  };
  EXPECT_TRUE(bad(0, 32, 0));
  EXPECT_TRUE(bad(2048, 32, 0));
  EXPECT_TRUE(bad(256, 256, 0));
  EXPECT_TRUE(bad(256, 32, 200 * 1024));
  EXPECT_TRUE(bad(256, -1, 0));
  EXPECT_FALSE(bad(1024, 64, 163 * 1024));
}

} // namespace
} // namespace culprit
