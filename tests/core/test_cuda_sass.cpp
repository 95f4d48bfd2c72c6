#include "core/build/cuda_sass.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/source_tree.hpp"
#include <gtest/gtest.h>

namespace culprit {
namespace {

using build::SassClass;

std::string read_sass_fixture(const std::string& name) {
  const std::filesystem::path path = culprit::testing::source_dir() / "tests/fixtures/sass" / name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << "missing fixture " << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CudaSass, OpcodesLoseTheirPredicatesAndModifiers) {
  EXPECT_EQ(build::opcode_of("@P0 EXIT"), "EXIT");
  EXPECT_EQ(build::opcode_of("@!PT LDG.E.64.CONSTANT R2, desc[UR4][R2.64]"), "LDG");
  EXPECT_EQ(build::opcode_of("  FFMA R7, R2, UR6, R7 "), "FFMA");
  EXPECT_EQ(build::opcode_of("BRA `(.L_x_0)"), "BRA");
  EXPECT_EQ(build::opcode_of(""), "");
  EXPECT_EQ(build::opcode_of("@P0"), "");
  EXPECT_EQ(build::opcode_of(".byte 0xff"), "");
}

TEST(CudaSass, ClassifiesOpcodesByTheDocumentedTable) {
  EXPECT_EQ(build::classify_opcode("LDG"), SassClass::global_load);
  EXPECT_EQ(build::classify_opcode("STG"), SassClass::global_store);
  EXPECT_EQ(build::classify_opcode("LDS"), SassClass::shared_load);
  EXPECT_EQ(build::classify_opcode("STS"), SassClass::shared_store);
  EXPECT_EQ(build::classify_opcode("LDL"), SassClass::local_load);
  EXPECT_EQ(build::classify_opcode("STL"), SassClass::local_store);
  EXPECT_EQ(build::classify_opcode("FFMA"), SassClass::fp32);
  EXPECT_EQ(build::classify_opcode("HADD2"), SassClass::fp16);
  EXPECT_EQ(build::classify_opcode("HGMMA"), SassClass::tensor);
  EXPECT_EQ(build::classify_opcode("IMAD"), SassClass::integer);
  EXPECT_EQ(build::classify_opcode("UIADD3"), SassClass::integer);
  EXPECT_EQ(build::classify_opcode("BSSY"), SassClass::control);
  EXPECT_EQ(build::classify_opcode("BAR"), SassClass::barrier);
  EXPECT_EQ(build::classify_opcode("ULDC"), SassClass::other);
  EXPECT_EQ(build::classify_opcode("S2R"), SassClass::other);
}

TEST(CudaSass, ReadsCuobjdumpSassOfACubin) {
  const auto binary = build::parse_cuobjdump_sass(read_sass_fixture("saxpy.sm_90.sass.txt"));
  ASSERT_TRUE(binary) << binary.error().message;
  ASSERT_EQ(binary->kernels.size(), 1U);
  const auto& saxpy = binary->kernels[0];
  EXPECT_EQ(saxpy.name, "saxpy");
  EXPECT_EQ(saxpy.arch, "sm_90");
  EXPECT_EQ(saxpy.instructions, 20);
  EXPECT_EQ(saxpy.opcodes.at("NOP"), 12);
  EXPECT_EQ(saxpy.opcodes.at("LDG"), 2);
  EXPECT_EQ(saxpy.count(SassClass::global_load), 2);
  EXPECT_EQ(saxpy.count(SassClass::global_store), 1);
  EXPECT_EQ(saxpy.count(SassClass::fp32), 1);
  EXPECT_EQ(saxpy.count(SassClass::control), 3); // two EXIT, one BRA
  EXPECT_EQ(saxpy.count(SassClass::integer), 4); // three IMAD, one ISETP
  EXPECT_FALSE(binary->ptx_only());
}

TEST(CudaSass, NvdisasmAndCuobjdumpCountTheSameInstructions) {
  for (const char* stem : {"saxpy", "sgemm_base", "sgemm_head"}) {
    const auto cuobjdump =
        build::parse_cuobjdump_sass(read_sass_fixture(std::string(stem) + ".sm_90.sass.txt"));
    const auto nvdisasm =
        build::parse_nvdisasm(read_sass_fixture(std::string(stem) + ".sm_90.nvdisasm.txt"));
    ASSERT_TRUE(cuobjdump) << cuobjdump.error().message;
    ASSERT_TRUE(nvdisasm) << nvdisasm.error().message;
    ASSERT_EQ(nvdisasm->kernels.size(), cuobjdump->kernels.size()) << stem;
    for (const auto& kernel : cuobjdump->kernels) {
      const auto* twin = nvdisasm->find(kernel.mangled, kernel.arch);
      ASSERT_NE(twin, nullptr) << stem << " " << kernel.mangled;
      EXPECT_EQ(twin->opcodes, kernel.opcodes) << kernel.mangled;
      EXPECT_EQ(twin->instructions, kernel.instructions) << kernel.mangled;
    }
  }
}

TEST(CudaSass, ReadsEveryArchOfAnExecutablesFatbin) {
  const auto binary = build::parse_cuobjdump_sass(read_sass_fixture("sgemm_head.fatbin.sass.txt"));
  ASSERT_TRUE(binary) << binary.error().message;
  ASSERT_EQ(binary->kernels.size(), 4U); // two kernels, each for sm_80 and sm_90
  EXPECT_EQ(binary->sass_archs, (std::vector<std::string>{"sm_80", "sm_90"}));
  const auto* sgemm = binary->find("_Z12sgemm_kerneliPKfS0_Pf", "sm_80");
  ASSERT_NE(sgemm, nullptr);
  EXPECT_EQ(sgemm->name, "sgemm_kernel");
  EXPECT_GT(sgemm->count(SassClass::global_load), 0);
  const auto usage = build::parse_res_usage(read_sass_fixture("sgemm_head.fatbin.res-usage.txt"));
  ASSERT_TRUE(usage) << usage.error().message;
  auto with_resources = *binary;
  build::attach_resources(with_resources, *usage);
  for (const auto& kernel : with_resources.kernels)
    ASSERT_TRUE(kernel.resources) << kernel.mangled << " " << kernel.arch;
  EXPECT_EQ(with_resources.find("_Z12sgemm_kerneliPKfS0_Pf", "sm_80")->resources->shared_bytes,
            1024);
  EXPECT_EQ(with_resources.find("_Z12sgemm_kerneliPKfS0_Pf", "sm_90")->resources->shared_bytes,
            2048);
}

TEST(CudaSass, ReadsResourceUsageOfACubin) {
  const auto usage = build::parse_res_usage(read_sass_fixture("sgemm_base.sm_90.res-usage.txt"));
  ASSERT_TRUE(usage) << usage.error().message;
  ASSERT_EQ(usage->size(), 2U);
  const auto& sgemm = (*usage)[1];
  EXPECT_EQ(sgemm.mangled, "_Z12sgemm_kerneliPKfS0_Pf");
  EXPECT_EQ(sgemm.arch, "");
  EXPECT_EQ(sgemm.resources.registers, 32);
  EXPECT_EQ(sgemm.resources.shared_bytes, 3072);
  EXPECT_EQ(sgemm.resources.stack_bytes, 0);
  EXPECT_EQ(sgemm.resources.local_bytes, 0);
  EXPECT_EQ(sgemm.resources.constant_bytes, 560);
  const auto saxpy = build::parse_res_usage(read_sass_fixture("saxpy.sm_90.res-usage.txt"));
  ASSERT_TRUE(saxpy);
  ASSERT_EQ(saxpy->size(), 1U);
  EXPECT_EQ((*saxpy)[0].resources.registers, 10);
}

TEST(CudaSass, APtxOnlyFatbinHasNoMachineCode) {
  const auto binary = build::parse_cuobjdump_sass(read_sass_fixture("saxpy.ptx-only.sass.txt"));
  ASSERT_TRUE(binary) << binary.error().message;
  EXPECT_TRUE(binary->ptx_only());
  EXPECT_TRUE(binary->kernels.empty());
  EXPECT_EQ(binary->ptx_archs, std::vector<std::string>{"sm_90"});
  const auto usage = build::parse_res_usage(read_sass_fixture("saxpy.ptx-only.res-usage.txt"));
  ASSERT_TRUE(usage);
  EXPECT_TRUE(usage->empty());
}

TEST(CudaSass, TextWithoutCudaCodeIsAOneLineError) {
  for (const std::string& text :
       {std::string(), std::string("Segmentation fault\nmore\n"), std::string("\x01\x02\xff\n"),
        std::string("Function : \n/*00*/ ;\n")}) {
    const auto sass = build::parse_cuobjdump_sass(text);
    const auto disasm = build::parse_nvdisasm(text);
    const auto usage = build::parse_res_usage(text);
    if (!sass) {
      EXPECT_EQ(sass.error().message.find('\n'), std::string::npos);
    }
    EXPECT_FALSE(disasm);
    EXPECT_FALSE(usage);
  }
  const auto garbage = build::parse_cuobjdump_sass("Segmentation fault\n");
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().message,
            "cuobjdump -sass printed no CUDA code (it began \"Segmentation fault\")");
}

TEST(CudaSass, TruncatedOutputKeepsWhatWasRead) {
  const auto text = read_sass_fixture("sgemm_base.sm_90.sass.txt");
  for (std::size_t cut = 0; cut < text.size(); cut += 997) {
    const auto binary = build::parse_cuobjdump_sass(text.substr(0, cut));
    if (binary) {
      EXPECT_LE(binary->kernels.size(), 2U);
    }
  }
}

} // namespace
} // namespace culprit
