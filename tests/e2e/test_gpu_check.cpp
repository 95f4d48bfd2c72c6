// scripts/gpu-check.sh, the GPU check: its bundle (culprit with its libraries and loader, the CUDA
// history) and the one-line refusals of a machine that cannot run it: no driver, no GPU, no nvcc,
// a GPU busy with another process, a bundle that does not start. The whole check runs here as the
// dry run of .ci/run.

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/e2e/instrument_test_support.hpp"
#include "tests/support/process.hpp"
#include "tests/support/source_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using testing::run_process;
using testing::source_dir;
using ::testing::StartsWith;
using testing::TempDir;
using testing::write_executable;

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int lines_of(const std::string& text) {
  int lines = 0;
  for (const char c : text)
    lines += c == '\n' ? 1 : 0;
  return lines;
}

class GpuCheck : public ::testing::Test {
protected:
  void SetUp() override {
    const auto packed = run_process({"bash", script.string(), "pack", bundle.string()}, temp.path(),
                                    {{"CULPRIT", CULPRIT_EXE}});
    ASSERT_EQ(packed.exit_code, 0) << packed.out << packed.err;
  }

  // `gpu-check.sh run BUNDLE OUT` with PATH = `path` (then /usr/bin:/bin) and no CUDA toolkit.
  testing::ProcessOutput run_check(const std::string& path) {
    return run_process({"bash", script.string(), "run", bundle.string(), (temp / "out").string()},
                       temp.path(),
                       {{"PATH", path + "/usr/bin:/bin"}, {"CUDA_HOME", "/nonexistent"}});
  }

  // One line on stderr, exit status 4, and nothing measured.
  static void refused(const testing::ProcessOutput& result, const std::string& why) {
    EXPECT_EQ(result.exit_code, 4) << result.out << result.err;
    EXPECT_THAT(result.err, StartsWith("gpu-check.sh: " + why)) << result.err;
    EXPECT_EQ(lines_of(result.err), 1) << result.err;
    EXPECT_THAT(result.out, ::testing::Not(HasSubstr("culprit run")));
  }

  TempDir temp{"culprit-gpu-check"};
  std::filesystem::path script = source_dir() / "scripts" / "gpu-check.sh";
  std::filesystem::path bundle = temp / "bundle";
  std::filesystem::path fakes = source_dir() / "tests" / "fixtures" / "host" / "nvidia-smi";
};

TEST_F(GpuCheck, TheBundleStartsCulpritThroughItsOwnLoaderAndHoldsTheCudaHistory) {
  EXPECT_TRUE(std::filesystem::exists(bundle / "bin" / "culprit"));
  bool loader = false;
  for (const auto& entry : std::filesystem::directory_iterator(bundle / "lib"))
    loader = loader || entry.path().filename().string().starts_with("ld-linux");
  EXPECT_TRUE(loader) << "the dynamic loader travels with the libraries";
  // With nothing of this machine's library path: the bundle's own libraries.
  const auto version = run_process({(bundle / "culprit").string(), "--version"}, temp.path(),
                                   {{"LD_LIBRARY_PATH", ""}});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_THAT(version.out, HasSubstr("culprit"));

  const std::string planted = read_text(bundle / "planted.json");
  EXPECT_THAT(planted, HasSubstr(R"("backend": "cuda")"));
  EXPECT_THAT(planted, HasSubstr(R"("commits_in_range": 15)"));
  const std::string recipe = read_text(bundle / "osprey" / "culprit.toml");
  EXPECT_THAT(recipe, HasSubstr("build.sh {src} {build} cuda"));
  const auto log =
      run_process({"git", "-C", (bundle / "osprey").string(), "log", "--format=%s"}, temp.path());
  EXPECT_THAT(log.out, HasSubstr("saxpy: cap the grid at 128 blocks"));
  EXPECT_THAT(log.out, HasSubstr("bench: print the project's version"));
  EXPECT_EQ(read_text(bundle / "backend"), "cuda\n");
}

TEST_F(GpuCheck, AMachineWithoutADriverIsRefusedInOneLine) {
  refused(run_check(""), "no nvidia-smi: this machine has no NVIDIA driver");
}

TEST_F(GpuCheck, ADriverThatSeesNoGpuIsRefusedInOneLine) {
  refused(run_check((fakes / "no-devices").string() + ":"),
          "nvidia-smi sees no GPU (No devices were found)");
}

TEST_F(GpuCheck, AMachineWithoutNvccIsRefusedInOneLine) {
  refused(run_check((fakes / "h100").string() + ":"), "no nvcc on PATH or in /nonexistent/bin");
}

TEST_F(GpuCheck, AGpuBusyWithAnotherProcessIsRefusedInOneLine) {
  const auto bin = temp / "busy";
  std::filesystem::create_directories(bin);
  write_executable(bin / "nvidia-smi", R"sh(#!/bin/sh
case "$1" in
--query-compute-apps=*) echo "4242, python3" ;;
*) echo "NVIDIA H100 80GB HBM3" ;;
esac
)sh");
  write_executable(bin / "nvcc", "#!/bin/sh\nexit 0\n");
  refused(run_check(bin.string() + ":"), "the GPU is busy with another process (4242, python3)");
}

TEST_F(GpuCheck, ABundleWhoseCulpritDoesNotStartIsRefusedInOneLine) {
  std::filesystem::remove(bundle / "bin" / "culprit");
  write_executable(bundle / "bin" / "culprit", "not a program\n");
  refused(run_check((fakes / "h100").string() + ":"), "the bundle's culprit does not start");
}

TEST_F(GpuCheck, NoBundleIsAUsageError) {
  const auto result = run_process(
      {"bash", script.string(), "run", (temp / "none").string(), (temp / "out").string()},
      temp.path());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("no bundle at"));
  EXPECT_THAT(result.err, HasSubstr("run 'gpu-check.sh pack' first"));
}

} // namespace
} // namespace culprit
