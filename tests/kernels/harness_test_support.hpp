#pragma once
// What the harness's tests share: the names of a list of cases, and the JSON records of a run's
// output.

#include <sstream>
#include <string>
#include <vector>

#include <culprit/harness.hpp>
#include <nlohmann/json.hpp>

namespace kernels_testing {

inline std::vector<std::string> names(const std::vector<culprit::harness::Case>& cases) {
  std::vector<std::string> result;
  for (const auto& one : cases)
    result.push_back(one.name);
  return result;
}

// One JSON object per line of `text`.
inline std::vector<nlohmann::json> records(const std::string& text) {
  std::vector<nlohmann::json> result;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    result.push_back(nlohmann::json::parse(line));
  return result;
}

} // namespace kernels_testing
