#include "core/build/cuobjdump.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/exec/local_executor.hpp"
#include "tests/support/source_tree.hpp"
#include "tests/support/temp_dir.hpp"
#include <gtest/gtest.h>

namespace culprit {
namespace {

namespace fs = std::filesystem;

fs::path sass_fixture(const std::string& name) {
  return culprit::testing::source_dir() / "tests/fixtures/sass" / name;
}

// Puts a `cuobjdump` shell script with `body` first on PATH while it lives.
class FakeCuobjdump {
public:
  explicit FakeCuobjdump(const std::string& body) : m_saved(std::getenv("PATH")) {
    const auto script = m_dir / "cuobjdump";
    std::ofstream(script) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(script, fs::perms::owner_all);
    setenv("PATH", (m_dir.path().string() + ":" + m_saved).c_str(), 1);
  }
  ~FakeCuobjdump() { setenv("PATH", m_saved.c_str(), 1); }
  FakeCuobjdump(const FakeCuobjdump&) = delete;
  FakeCuobjdump& operator=(const FakeCuobjdump&) = delete;

private:
  culprit::testing::TempDir m_dir{"culprit-cuobjdump"};
  std::string m_saved;
};

Result<build::CudaBinary> read(const fs::path& file) {
  exec::LocalExecutor executor;
  return build::read_cuda_binary(executor, file, exec::Seconds(60));
}

TEST(Cuobjdump, ReadsARealCubin) {
  if (!build::find_cuobjdump())
    GTEST_SKIP() << "cuobjdump not found (scripts/setup-debian.sh installs it): the real tool "
                    "is not tested";
  const auto binary = read(sass_fixture("sgemm_head.sm_90.cubin"));
  ASSERT_TRUE(binary) << binary.error().message;
  ASSERT_EQ(binary->kernels.size(), 2U);
  const auto* sgemm = binary->find("_Z12sgemm_kerneliPKfS0_Pf", "sm_90");
  ASSERT_NE(sgemm, nullptr);
  ASSERT_TRUE(sgemm->resources);
  EXPECT_EQ(sgemm->resources->registers, 40);
  EXPECT_GT(sgemm->instructions, 100);
}

TEST(Cuobjdump, SaysWhenAFileHasPtxAloneOrNoDeviceCode) {
  if (!build::find_cuobjdump())
    GTEST_SKIP() << "cuobjdump not found (scripts/setup-debian.sh installs it): the real tool "
                    "is not tested";
  const auto ptx = read(sass_fixture("saxpy.ptx-only.fatbin"));
  ASSERT_TRUE(ptx) << ptx.error().message;
  EXPECT_TRUE(ptx->ptx_only());
  const auto none = read(sass_fixture("saxpy.cu"));
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("holds no CUDA device code"), std::string::npos)
      << none.error().message;
}

TEST(Cuobjdump, GarbageFromTheToolIsAOneLineError) {
  const FakeCuobjdump fake("echo 'Segmentation fault'");
  const auto binary = read(sass_fixture("saxpy.sm_90.cubin"));
  ASSERT_FALSE(binary);
  EXPECT_EQ(binary.error().code, ExitCode::infrastructure);
  EXPECT_EQ(binary.error().message,
            "cuobjdump -sass printed no CUDA code (it began \"Segmentation fault\")");
}

TEST(Cuobjdump, AFailingToolIsAOneLineErrorWithItsReason) {
  const FakeCuobjdump fake("echo 'cuobjdump fatal   : Could not open input file' >&2\nexit 1");
  const auto binary = read(sass_fixture("saxpy.sm_90.cubin"));
  ASSERT_FALSE(binary);
  EXPECT_EQ(binary.error().code, ExitCode::infrastructure);
  EXPECT_NE(binary.error().message.find("failed: cuobjdump fatal   : Could not open input file"),
            std::string::npos)
      << binary.error().message;
  EXPECT_EQ(binary.error().message.find('\n'), std::string::npos);
}

TEST(Cuobjdump, UnexpectedResourceUsageIsAnError) {
  // -sass answers as the real tool does, -res-usage with nothing it knows.
  const FakeCuobjdump fake("if [ \"$1\" = -sass ]; then cat '" +
                           sass_fixture("saxpy.sm_90.sass.txt").string() +
                           "'; else echo 'no such option'; fi");
  const auto binary = read(sass_fixture("saxpy.sm_90.cubin"));
  ASSERT_FALSE(binary);
  EXPECT_EQ(binary.error().message,
            "cuobjdump -res-usage printed no resource usage (it began \"no such option\")");
}

TEST(Cuobjdump, AMissingFileIsNamed) {
  const FakeCuobjdump fake("exit 0");
  const auto binary = read("/nonexistent/culprit/app");
  ASSERT_FALSE(binary);
  EXPECT_EQ(binary.error().message, "/nonexistent/culprit/app: no such file");
}

} // namespace
} // namespace culprit
