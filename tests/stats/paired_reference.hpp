#pragma once
// The reference results of tests/fixtures/stats/make_paired_fixtures.py (scipy's signed-rank
// test, the intervals that invert it, Kendall's tau and the Theil-Sen slope).

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace culprit::stats::testing {

inline const nlohmann::json& paired_reference() {
  static const nlohmann::json document = [] {
    const std::string path =
        std::string(CULPRIT_SOURCE_DIR) + "/tests/fixtures/stats/paired_reference.json";
    std::ifstream in(path);
    if (!in)
      throw std::runtime_error("cannot open " + path);
    return nlohmann::json::parse(in);
  }();
  return document;
}

inline std::vector<double> differences(const std::string& name) {
  return paired_reference().at("differences").at(name).get<std::vector<double>>();
}

} // namespace culprit::stats::testing
