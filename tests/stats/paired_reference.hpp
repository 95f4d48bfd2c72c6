#pragma once
// The reference results of tests/fixtures/stats/make_paired_fixtures.py (scipy's signed-rank
// test, the intervals that invert it, Kendall's tau and the Theil-Sen slope).

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/source_tree.hpp"

namespace culprit::stats::testing {

inline const nlohmann::json& paired_reference() {
  static const nlohmann::json document = [] {
    const auto path =
        (culprit::testing::source_dir() / "tests/fixtures/stats/paired_reference.json").string();
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
