// Workload suites: the format, its errors, and the suites shipped in examples/suites/.

#include <filesystem>
#include <string>
#include <vector>

#include <culprit/harness.hpp>
#include <gtest/gtest.h>

#include "kernels/bench/cases.hpp"
#include "tests/support/source_tree.hpp"

namespace {

namespace harness = culprit::harness;

// The reference kernels' registry as both benchmark programs declare it, with no-op functions.
harness::Registry kernel_registry() {
  harness::Registry registry;
  const auto nothing = [](harness::State&) {};
  kernels::bench::register_kernel_benchmarks(registry,
                                             {nothing, nothing, nothing, nothing, nothing});
  return registry;
}

std::vector<std::string> suite_case_names(const std::string& text) {
  const auto cases = harness::suite_cases(kernel_registry(),
                                          harness::parse_suite(text, "test.suite"), "test.suite");
  std::vector<std::string> names;
  for (const auto& one : cases)
    names.push_back(one.name);
  return names;
}

std::string suite_error(const std::string& text) {
  try {
    suite_case_names(text);
  } catch (const harness::UsageError& error) {
    return error.what();
  }
  return "no error";
}

TEST(Suites, LinesChooseCasesAndListsMultiply) {
  EXPECT_EQ(suite_case_names("# a comment\n"
                             "sgemm M=16,512 N=64 K=32   # trailing comment\n"
                             "\n"
                             "\tsaxpy\tN=100\r\n"
                             "softmax rows=3 cols=7\n"),
            (std::vector<std::string>{"sgemm/M=16,N=64,K=32", "sgemm/M=512,N=64,K=32",
                                      "saxpy/N=100", "softmax/rows=3,cols=7"}));
}

TEST(Suites, AxesALineLeavesOutTakeTheirDefaults) {
  EXPECT_EQ(suite_case_names("softmax cols=64\nlayernorm\n"),
            (std::vector<std::string>{"softmax/rows=256,cols=64", "layernorm/rows=256,cols=768",
                                      "layernorm/rows=256,cols=4096"}));
}

TEST(Suites, ACaseGivenTwiceRunsOnce) {
  EXPECT_EQ(suite_case_names("saxpy N=5\nsaxpy N=5,6\n"),
            (std::vector<std::string>{"saxpy/N=5", "saxpy/N=6"}));
}

TEST(Suites, MistakesNameTheFileTheLineAndWhatIsWrong) {
  EXPECT_EQ(suite_error("saxpy N=1\nsgemm M=1 Q=2\n"),
            "test.suite:2: sgemm has no axis 'Q' (its axes: M, N, K)");
  EXPECT_EQ(suite_error("sgem M=1\n"),
            "test.suite:1: unknown benchmark 'sgem' (this program has saxpy, reduce, sgemm, "
            "softmax, layernorm)");
  EXPECT_EQ(suite_error("sgemm M=0\n"), "test.suite:1: axis M=0 is not a possible size: it takes "
                                        "whole numbers from 1 to 1048576");
  EXPECT_EQ(suite_error("sgemm M=2097152\n"), "test.suite:1: axis M=2097152 is not a possible "
                                              "size: it takes whole numbers from 1 to 1048576");
  EXPECT_EQ(suite_error("saxpy N=-5\n"), "test.suite:1: axis N=-5 is not a possible size: it "
                                         "takes whole numbers from 1 to 1099511627776");
  EXPECT_EQ(suite_error("saxpy N=1e6\n").substr(0, 28), "test.suite:1: axis N=1e6 is ");
  EXPECT_EQ(suite_error("saxpy N=4,,8\n"), "test.suite:1: axis N has an empty value in 'N=4,,8'");
  EXPECT_EQ(suite_error("saxpy N=4 N=8\n"), "test.suite:1: axis N is given twice");
  EXPECT_EQ(suite_error("saxpy N\n"), "test.suite:1: expected axis=value, got 'N'");
  EXPECT_EQ(suite_error("saxpy =4\n"), "test.suite:1: '=4' has no axis name before '='");
  EXPECT_EQ(suite_error("s/axpy N=4\n"), "test.suite:1: 's/axpy' is not a benchmark name");
  EXPECT_EQ(suite_error("# only comments\n\n"),
            "test.suite defines no cases: add lines like 'BENCHMARK AXIS=VALUE ...'");
}

TEST(Suites, AMissingFileIsAUsageError) {
  try {
    harness::load_suite(kernel_registry(), "/nonexistent/x.suite");
    FAIL() << "no error";
  } catch (const harness::UsageError& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot read suite file /nonexistent/x.suite: check the path given to --suite");
  }
}

TEST(Suites, EveryShippedSuiteParses) {
  const std::filesystem::path dir = culprit::testing::source_dir() / "examples/suites";
  int suites = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".suite")
      continue;
    ++suites;
    std::vector<harness::Case> cases;
    EXPECT_NO_THROW(cases = harness::load_suite(kernel_registry(), entry.path().string()))
        << entry.path();
    EXPECT_FALSE(cases.empty()) << entry.path();
  }
  EXPECT_GE(suites, 4);
}

TEST(Suites, TheLlamaSuiteHoldsTheProjectionsOfALayer) {
  const auto cases =
      harness::load_suite(kernel_registry(), culprit::testing::source_dir().string() +
                                                 "/examples/suites/llama3-8b.suite");
  std::vector<std::string> names;
  for (const auto& one : cases)
    names.push_back(one.name);
  for (const char* expected :
       {"sgemm/M=512,N=6144,K=4096", "sgemm/M=4096,N=14336,K=4096", "sgemm/M=16,N=4096,K=14336",
        "softmax/rows=16384,cols=512", "layernorm/rows=4096,cols=4096"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
}

} // namespace
