// Progress where no terminal is watching (a CI log, a file): bisect, track and triage say each
// step on a line of its own, so that a long command is never silent; -q silences it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/process.hpp"
#include "tests/support/step_project.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using testing::run_culprit;
using testing::StepProject;
using testing::TempDir;

std::vector<std::string> lines_with(const std::string& text, std::string_view part) {
  std::vector<std::string> found;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = text.find('\n', at);
    const auto line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.find(part) != std::string::npos)
      found.push_back(line);
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return found;
}

TEST(Progress, WithoutATerminalEachProbeAndEachTrackedCommitIsALine) {
  TempDir temp("culprit-progress");
  StepProject project(temp / "project", {.commits = 9, .step_at = 5});
  const auto cache = (temp / "cache").string();
  const auto bisect = run_culprit(
      {"--cache-dir", cache, "bisect", "--good", project.good(), "--bad", project.bad()},
      project.dir());
  ASSERT_EQ(bisect.exit_code, 0) << bisect.err;
  const auto rounds = lines_with(bisect.err, ": round ");
  EXPECT_GE(rounds.size(), 3U) << bisect.err;
  for (const auto& line : rounds) {
    EXPECT_TRUE(line.starts_with("culprit: kernel: round ")) << line;
    EXPECT_THAT(line, HasSubstr(" of about "));
    EXPECT_THAT(line, HasSubstr(" runs)"));
  }
  EXPECT_EQ(lines_with(bisect.err, "\r").size(), 0U) << "no terminal codes in a log";

  const auto track = run_culprit(
      {"--cache-dir", cache, "track", project.good() + ".." + project.bad(), "--runs", "2"},
      project.dir());
  ASSERT_EQ(track.exit_code, 0) << track.err;
  EXPECT_EQ(lines_with(track.err, "culprit: commit ").size(), 8U) << track.err;
  EXPECT_EQ(lines_with(track.err, "culprit: commit 8 of 8: ").size(), 1U) << track.err;

  const auto quiet = run_culprit(
      {"--cache-dir", cache, "-q", "bisect", "--good", project.good(), "--bad", project.bad()},
      project.dir());
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_TRUE(lines_with(quiet.err, ": round ").empty()) << quiet.err;
}

} // namespace
} // namespace culprit
