#pragma once
// The reference results computed with numpy and scipy by
// tests/fixtures/stats/make_fixtures.py, and helpers to compare with them.

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/summary.hpp"
#include "tests/support/source_tree.hpp"

namespace culprit::stats::testing {

inline const nlohmann::json& reference() {
  static const nlohmann::json document = [] {
    const std::string path =
        (culprit::testing::source_dir() / "tests/fixtures/stats/stats_reference.json").string();
    std::ifstream in(path);
    if (!in)
      throw std::runtime_error("cannot open " + path);
    return nlohmann::json::parse(in);
  }();
  return document;
}

inline std::vector<double> dataset(const std::string& name) {
  return reference().at("datasets").at(name).get<std::vector<double>>();
}

// Whether our bootstrap endpoint agrees with scipy's up to Monte Carlo error. scipy ran with
// several seeds; its endpoints have mean m and standard deviation s. Ours is one more draw of the
// same random quantity (the same bootstrap distribution and number of resamples, another
// generator), so ours - m has standard deviation s sqrt(1 + 1/K). Four of those make a false
// alarm rarer than 1 in 10,000 per endpoint. An endpoint inside the range scipy itself produced
// also agrees: for a discrete statistic (a median of few values) the spread can be zero or
// lumpy, and the range is then the better yardstick.
struct Agreement {
  bool agrees = false;
  double mean = 0.0;
  double tolerance = 0.0;
};

inline Agreement agrees_with_scipy(double ours, const std::vector<double>& scipy_endpoints) {
  // Also used against other references computed with several seeds.
  const auto k = static_cast<double>(scipy_endpoints.size());
  const auto [mean, variance] = moments_of(scipy_endpoints);
  const double spread = std::sqrt(variance);
  const double tolerance = 4.0 * spread * std::sqrt(1.0 + 1.0 / k) + 1e-12 * std::abs(mean);
  const auto [low, high] = std::minmax_element(scipy_endpoints.begin(), scipy_endpoints.end());
  const bool in_range = ours >= *low && ours <= *high;
  return Agreement{std::abs(ours - mean) <= tolerance || in_range, mean, tolerance};
}

} // namespace culprit::stats::testing
