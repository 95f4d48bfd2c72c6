// The renderers against golden files in tests/fixtures/report/. Any difference fails. After an
// intended change, regenerate them and review the diff before committing:
//   CULPRIT_UPDATE_GOLDEN=1 build/release/tests/core_tests --gtest_filter='ReportGolden*'

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/report/report.hpp"
#include "tests/support/evidence_samples.hpp"
#include "tests/support/source_tree.hpp"

namespace culprit::report {
namespace {

const std::filesystem::path k_golden_dir =
    culprit::testing::source_dir() / "tests" / "fixtures" / "report";

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first line where two texts differ, for a readable failure.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream a(expected);
  std::istringstream b(actual);
  std::string la;
  std::string lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b)
      return "no difference in lines (line endings?)";
    if (la != lb || more_a != more_b)
      return "line " + std::to_string(line) + ":\n  golden:   " + (more_a ? la : "<end>") +
             "\n  rendered: " + (more_b ? lb : "<end>");
  }
}

void expect_golden(const std::string& name, const std::string& rendered) {
  const auto file = k_golden_dir / name;
  const char* update = std::getenv("CULPRIT_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    std::ofstream(file, std::ios::binary) << rendered;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(file))
      << file << " is missing; run with CULPRIT_UPDATE_GOLDEN=1 to write it";
  const auto golden = read(file);
  EXPECT_TRUE(golden == rendered) << name << " differs from its golden file, "
                                  << first_difference(golden, rendered)
                                  << "\n(after an intended change: CULPRIT_UPDATE_GOLDEN=1)";
}

RenderOptions ordered() {
  RenderOptions options;
  options.commit_order = testing::bisect_sample_order();
  return options;
}

// Every format of one sample against NAME.txt, NAME.md, NAME.html, NAME.junit.xml and
// NAME.annotations, and the summary its command printed against NAME.summary.
void expect_every_format(const std::string& name, const evidence::Evidence& e,
                         const RenderOptions& options) {
  auto as_printed = options;
  as_printed.evidence_file = name + ".json";
  expect_golden(name + ".summary", render_summary(e, as_printed));
  expect_golden(name + ".txt", render_text(e, options));
  expect_golden(name + ".md", render_markdown(e, options));
  expect_golden(name + ".html", render_html(e, options));
  expect_golden(name + ".junit.xml", render_junit(e, options));
  expect_golden(name + ".annotations", github_annotations(e));
}

TEST(ReportGolden, Compare) {
  expect_every_format("compare", testing::compare_sample(), {});
}

TEST(ReportGolden, Bisect) {
  expect_every_format("bisect", testing::bisect_sample(), ordered());
}

TEST(ReportGolden, Malicious) {
  expect_every_format("malicious", testing::malicious_sample(), ordered());
}

TEST(ReportGolden, Run) {
  expect_every_format("run", testing::run_sample(), {});
}

TEST(ReportGolden, Track) {
  expect_every_format("track", testing::track_sample(), {});
}

TEST(ReportGolden, Failed) {
  expect_every_format("failed", testing::failed_sample(), {});
}

} // namespace
} // namespace culprit::report
