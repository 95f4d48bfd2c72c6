#include "core/build/ptxas.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/source_tree.hpp"
#include <gtest/gtest.h>

namespace culprit {
namespace {

std::string read_fixture(const std::string& name) {
  const std::filesystem::path path = culprit::testing::source_dir() / "tests/fixtures/ptxas" / name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << "missing fixture " << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The kernel or diff row named `name` for `arch`.
template <class Row>
const Row& find(const std::vector<Row>& rows, const std::string& name, const std::string& arch) {
  const auto found =
      std::ranges::find_if(rows, [&](const Row& r) { return r.name == name && r.arch == arch; });
  if (found == rows.end())
    throw std::runtime_error("no " + name + " for " + arch);
  return *found;
}

TEST(Ptxas, ReadsEveryKernelOfARealBuildLog) {
  const auto kernels = build::parse_ptxas_log(read_fixture("default.log"));
  ASSERT_EQ(kernels.size(), 12U); // six kernels, each for sm_80 and sm_90
  for (const auto& kernel : kernels) {
    EXPECT_TRUE(kernel.entry) << kernel.name;
    EXPECT_TRUE(kernel.arch == "sm_80" || kernel.arch == "sm_90") << kernel.arch;
    EXPECT_GT(kernel.registers, 0) << kernel.name;
    EXPECT_EQ(kernel.spill_store_bytes, 0) << kernel.name;
  }
  const auto& sgemm = find(kernels, "kernels::cuda::sgemm_kernel", "sm_80");
  EXPECT_EQ(sgemm.mangled, "_ZN7kernels4cuda12sgemm_kernelEiiifPKfS2_fPf");
  EXPECT_EQ(sgemm.signature, "kernels::cuda::sgemm_kernel(int, int, int, float, float const*, "
                             "float const*, float, float*)");
  EXPECT_EQ(sgemm.registers, 56);
  EXPECT_EQ(sgemm.barriers, 1);
  EXPECT_EQ(sgemm.shared_bytes, 8192); // two 16 x 64 float tiles
  EXPECT_EQ(sgemm.constant_bytes, 400);
  EXPECT_EQ(find(kernels, "kernels::cuda::sgemm_kernel", "sm_90").registers, 66);
  // sm_90 reports no cmem line.
  EXPECT_EQ(find(kernels, "kernels::cuda::saxpy_kernel", "sm_90").constant_bytes, 0);
  EXPECT_EQ(find(kernels, "kernels::cuda::saxpy_kernel", "sm_80").barriers, 0);
  EXPECT_EQ(find(kernels, "kernels::cuda::softmax_kernel", "sm_80").shared_bytes, 256);
}

TEST(Ptxas, ReadsSpillsAndStackWhenRegistersAreCapped) {
  const auto kernels = build::parse_ptxas_log(read_fixture("maxrreg32.log"));
  ASSERT_EQ(kernels.size(), 12U);
  const auto& sm80 = find(kernels, "kernels::cuda::sgemm_kernel", "sm_80");
  EXPECT_EQ(sm80.registers, 32);
  EXPECT_EQ(sm80.spill_store_bytes, 52);
  EXPECT_EQ(sm80.spill_load_bytes, 52);
  EXPECT_EQ(sm80.stack_bytes, 32);
  EXPECT_EQ(find(kernels, "kernels::cuda::sgemm_kernel", "sm_90").spill_store_bytes, 48);
}

TEST(Ptxas, DiffsTwoBuildsOfTheSameKernels) {
  const auto base = build::parse_ptxas_log(read_fixture("default.log"));
  const auto head = build::parse_ptxas_log(read_fixture("maxrreg32.log"));
  const auto rows = build::diff_ptxas(base, head);
  ASSERT_EQ(rows.size(), 12U);
  const auto& row = find(rows, "kernels::cuda::sgemm_kernel", "sm_80");
  EXPECT_EQ(row.change, build::PtxasChange::changed);
  EXPECT_EQ(build::describe_change(row),
            "registers 56 -> 32, spill stores 0 -> 52 B, spill loads 0 -> 52 B, stack 0 -> 32 B");
  const auto& saxpy = find(rows, "kernels::cuda::saxpy_kernel", "sm_80");
  EXPECT_EQ(saxpy.change, build::PtxasChange::unchanged);
  EXPECT_EQ(build::describe_change(saxpy), "");
  EXPECT_GE(std::ranges::count(rows, build::PtxasChange::changed, &build::PtxasDiffRow::change), 3);
}

TEST(Ptxas, DiffListsAddedAndRemovedKernels) {
  auto base = build::parse_ptxas_log(read_fixture("default.log"));
  auto head = base;
  base.erase(base.begin()); // saxpy sm_80 only in head: added
  head.pop_back();          // layernorm sm_90 only in base: removed
  const auto rows = build::diff_ptxas(base, head);
  ASSERT_EQ(rows.size(), 12U);
  EXPECT_EQ(rows.front().change, build::PtxasChange::added);
  EXPECT_EQ(build::describe_change(rows.front()), "new kernel");
  EXPECT_EQ(rows.back().change, build::PtxasChange::removed);
  EXPECT_EQ(rows.back().name, "kernels::cuda::layernorm_kernel");
  EXPECT_EQ(rows.back().arch, "sm_90");
  EXPECT_EQ(to_string(rows.back().change), "removed");
}

TEST(Ptxas, ReadsOlderFormsAndDeviceFunctions) {
  const std::string log = "nvcc -c a.cu\n"
                          "ptxas info    : 0 bytes gmem, 8 bytes cmem[2]\n"
                          "ptxas info    : Function properties for __internal_trig_slowpath\n"
                          "    40 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                          "ptxas info    : Compiling entry function 'old_kernel' for 'sm_70'\n"
                          "ptxas warning : Registers are spilled to local memory\n"
                          "ptxas info    : Used 20 registers, 8+0 bytes lmem, 16+16 bytes smem, "
                          "40 bytes cmem[0], 4 bytes cmem[1], 2 textures\n";
  const auto kernels = build::parse_ptxas_log(log);
  ASSERT_EQ(kernels.size(), 2U);
  EXPECT_FALSE(kernels[0].entry);
  EXPECT_EQ(kernels[0].name, "__internal_trig_slowpath");
  EXPECT_EQ(kernels[0].arch, "sm_70"); // learned from the entry that followed
  EXPECT_EQ(kernels[0].stack_bytes, 40);
  EXPECT_TRUE(kernels[1].entry);
  EXPECT_EQ(kernels[1].name, "old_kernel"); // extern "C": not mangled
  EXPECT_EQ(kernels[1].registers, 20);
  EXPECT_EQ(kernels[1].stack_bytes, 8);
  EXPECT_EQ(kernels[1].shared_bytes, 32);
  EXPECT_EQ(kernels[1].constant_bytes, 44);
}

TEST(Ptxas, ADeviceFunctionTakesTheArchOfItsOwnCompilation) {
  const std::string log = "ptxas info    : 0 bytes gmem\n"
                          "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
                          "ptxas info    : Used 10 registers\n"
                          "ptxas info    : 0 bytes gmem, 16 bytes cmem[4]\n"
                          "ptxas info    : Function properties for helper\n"
                          "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                          "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                          "ptxas info    : Used 11 registers\n";
  const auto kernels = build::parse_ptxas_log(log);
  ASSERT_EQ(kernels.size(), 3U);
  EXPECT_EQ(kernels[1].name, "helper");
  EXPECT_EQ(kernels[1].arch, "sm_90");
  EXPECT_EQ(kernels[2].registers, 11);
}

TEST(Ptxas, ALaterReportOfTheSameKernelReplacesTheEarlierOne) {
  const std::string first = "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
                            "ptxas info    : Used 10 registers\n";
  const std::string again = "ptxas info    : 0 bytes gmem\n"
                            "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
                            "ptxas info    : Used 12 registers\n";
  const auto kernels = build::parse_ptxas_log(first + again);
  ASSERT_EQ(kernels.size(), 1U);
  EXPECT_EQ(kernels[0].registers, 12);
}

TEST(Ptxas, IgnoresLogsWithoutPtxasOutput) {
  EXPECT_TRUE(build::parse_ptxas_log("").empty());
  EXPECT_TRUE(build::parse_ptxas_log("[1/2] Building CXX object a.o\n[2/2] Linking a\n").empty());
  EXPECT_TRUE(
      build::parse_ptxas_log("ptxas info    : Used 12 registers\n").empty()); // no entry yet
}

TEST(Ptxas, ShortNamesDropReturnTypesAndParameters) {
  EXPECT_EQ(build::short_name("void kernels::tiled<16>(float*)"), "kernels::tiled<16>");
  EXPECT_EQ(build::short_name("kernels::(anonymous namespace)::k(int, float)"),
            "kernels::(anonymous namespace)::k");
  EXPECT_EQ(build::short_name("void f<std::pair<int, int> >(int)"), "f<std::pair<int, int> >");
  EXPECT_EQ(build::short_name("saxpy"), "saxpy");
  EXPECT_EQ(build::demangle("_ZN7kernels5tiledILi16EEEvPf"), "void kernels::tiled<16>(float*)");
  EXPECT_EQ(build::demangle("not_mangled"), "not_mangled");
}

} // namespace
} // namespace culprit
