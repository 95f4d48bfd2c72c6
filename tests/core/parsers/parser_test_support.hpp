#pragma once
// Helpers shared by the parser tests: fixtures and lookups in a ParsedOutput.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "core/parsers/metric.hpp"
#include "tests/support/source_tree.hpp"

namespace culprit::testing {

inline std::filesystem::path parser_fixture(std::string_view relative) {
  return culprit::testing::source_dir() / "tests/fixtures/parsers" / relative;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file.good()) << "cannot open " << path;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The samples of one metric of one case, or nullptr.
inline const parsers::CaseSamples* find_samples(const parsers::ParsedOutput& output,
                                                std::string_view case_name,
                                                std::string_view metric) {
  for (const auto& samples : output.samples) {
    if (samples.case_name == case_name && samples.metric == metric)
      return &samples;
  }
  return nullptr;
}

inline const parsers::CaseInfo* find_case(const parsers::ParsedOutput& output,
                                          std::string_view case_name) {
  for (const auto& info : output.cases) {
    if (info.case_name == case_name)
      return &info;
  }
  return nullptr;
}

} // namespace culprit::testing
