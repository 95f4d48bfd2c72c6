#include "core/build/cuda_sass_diff.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/source_tree.hpp"
#include <gtest/gtest.h>

namespace culprit {
namespace {

std::string read_sass_text(const std::string& name) {
  const std::filesystem::path path = culprit::testing::source_dir() / "tests/fixtures/sass" / name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << "missing fixture " << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A cubin fixture read as read_cuda_binary would read it.
build::CudaBinary cubin(const std::string& stem) {
  auto binary = build::parse_cuobjdump_sass(read_sass_text(stem + ".sm_90.sass.txt"));
  EXPECT_TRUE(binary);
  const auto usage = build::parse_res_usage(read_sass_text(stem + ".sm_90.res-usage.txt"));
  EXPECT_TRUE(usage);
  build::attach_resources(*binary, *usage);
  return *binary;
}

TEST(CudaSassDiff, ThePlantedSgemmChangeShowsItsRegistersLoadsAndOccupancy) {
  const auto diff = build::diff_sass(cubin("sgemm_base"), cubin("sgemm_head"), 256);
  EXPECT_FALSE(diff.machine_code_unchanged());
  EXPECT_EQ(diff.unchanged, 1U); // scale_kernel
  ASSERT_EQ(diff.changed.size(), 1U);
  const auto& sgemm = diff.changed[0];
  EXPECT_EQ(sgemm.name, "sgemm_kernel");
  EXPECT_EQ(sgemm.base->resources->registers, 32);
  EXPECT_EQ(sgemm.head->resources->registers, 40);
  EXPECT_GT(sgemm.head->count(build::SassClass::global_load),
            sgemm.base->count(build::SassClass::global_load));
  ASSERT_TRUE(sgemm.base_occupancy && sgemm.head_occupancy);
  EXPECT_DOUBLE_EQ(sgemm.base_occupancy->fraction, 1.0);
  EXPECT_DOUBLE_EQ(sgemm.head_occupancy->fraction, 0.75);
  EXPECT_EQ(build::render_sass_diff(diff, 10),
            std::vector<std::string>{
                "sgemm_kernel sm_90: 374 → 338 instructions (-124 LDS, +55 LDG, -48 FFMA), "
                "registers 32 → 40, shared 3072 → 2048 B, occupancy 100% → 75% at 256 threads"});
}

TEST(CudaSassDiff, TheSameCodeOnBothSidesSaysSo) {
  const auto diff = build::diff_sass(cubin("sgemm_head"), cubin("sgemm_head"), 256);
  EXPECT_TRUE(diff.machine_code_unchanged());
  EXPECT_EQ(build::render_sass_diff(diff, 10),
            std::vector<std::string>{"machine code of every kernel unchanged (2 kernels)"});
}

TEST(CudaSassDiff, KernelsOnOneSideAloneAreNamedAndTheListIsCapped) {
  const auto diff = build::diff_sass(cubin("saxpy"), cubin("sgemm_head"), 0);
  EXPECT_EQ(diff.added.size(), 2U);
  EXPECT_EQ(diff.removed.size(), 1U);
  EXPECT_EQ(diff.unchanged, 0U);
  const auto lines = build::render_sass_diff(diff, 2);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0], "scale_kernel sm_90: new kernel, 17 instructions");
  EXPECT_EQ(lines[2], "and 1 more kernel");
  const auto all = build::render_sass_diff(diff, 10);
  EXPECT_EQ(all.back(), "saxpy sm_90: kernel removed (20 instructions)");
}

TEST(CudaSassDiff, WithoutABlockSizeNoOccupancyIsShown) {
  const auto diff = build::diff_sass(cubin("sgemm_base"), cubin("sgemm_head"), 0);
  ASSERT_EQ(diff.changed.size(), 1U);
  EXPECT_FALSE(diff.changed[0].head_occupancy);
  EXPECT_EQ(build::describe_sass_change(diff.changed[0], 0).find("occupancy"), std::string::npos);
}

} // namespace
} // namespace culprit
