// The benchmark scores of stats/cp_metrics.hpp against the reference values of
// tests/fixtures/tcpd/make_cp_metrics_fixtures.py (TCPDBench's metrics.py definitions), and the
// "no change point" scores TCPDBench itself published for three series.

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "stats/cp_metrics.hpp"
#include "tests/support/source_tree.hpp"

namespace culprit::stats {
namespace {

const nlohmann::json& cp_reference() {
  static const nlohmann::json document = [] {
    const std::string path =
        (culprit::testing::source_dir() / "tests/fixtures/tcpd/cp_metrics_reference.json").string();
    std::ifstream in(path);
    if (!in)
      throw std::runtime_error("cannot open " + path);
    return nlohmann::json::parse(in);
  }();
  return document;
}

using Locations = std::vector<std::size_t>;

TEST(CpMetrics, MatchesTheReferenceOnEveryCase) {
  const auto& cases = cp_reference();
  ASSERT_GE(cases.size(), 15U);
  for (const auto& [name, entry] : cases.items()) {
    SCOPED_TRACE(name);
    const auto annotations = entry.at("annotations").get<std::vector<Locations>>();
    const auto predictions = entry.at("predictions").get<Locations>();
    const auto n = entry.at("n").get<std::size_t>();
    const auto score = f1_score(annotations, predictions, 5);
    EXPECT_NEAR(score.f1, entry.at("f1").get<double>(), 1e-12);
    EXPECT_NEAR(score.precision, entry.at("precision").get<double>(), 1e-12);
    EXPECT_NEAR(score.recall, entry.at("recall").get<double>(), 1e-12);
    EXPECT_NEAR(covering(annotations, predictions, n), entry.at("cover").get<double>(), 1e-12);
  }
}

// TCPDBench's published scores of its "zero" method (no change point), analysis/output/scores/
// default_f1_scores.json and default_cover_scores.json.
TEST(CpMetrics, ReproducesTcpdBenchScoresOfNoChangePoint) {
  const auto& cases = cp_reference();
  const auto score = [&](const std::string& name) {
    const auto& entry = cases.at(name + "_zero");
    const auto annotations = entry.at("annotations").get<std::vector<Locations>>();
    return std::pair{f1_score(annotations, {}, 5).f1,
                     covering(annotations, {}, entry.at("n").get<std::size_t>())};
  };
  EXPECT_NEAR(score("nile").first, 0.8235294117647058, 1e-12);
  EXPECT_NEAR(score("nile").second, 0.75808, 1e-12);
  EXPECT_NEAR(score("businv").first, 0.5882352941176471, 1e-12);
  EXPECT_NEAR(score("businv").second, 0.46094765840220386, 1e-12);
  EXPECT_NEAR(score("centralia").first, 0.7628865979381444, 1e-12);
  EXPECT_NEAR(score("centralia").second, 0.6746666666666667, 1e-12);
}

TEST(CpMetrics, TruePositivesUseEachPredictionOnce) {
  // metrics.py's doctests.
  EXPECT_EQ(true_positives({1, 10, 20, 23}, {3, 8, 20}, 5), (Locations{1, 10, 20}));
  EXPECT_EQ(true_positives({1, 10, 20, 23}, {1, 3, 5, 8, 20}, 5), (Locations{1, 10, 20}));
  EXPECT_TRUE(true_positives({}, {1, 2, 3}, 5).empty());
  EXPECT_TRUE(true_positives({1, 2, 3}, {}, 5).empty());
  // One prediction between two annotations: the first takes it.
  EXPECT_EQ(true_positives({10, 14}, {12}, 5), (Locations{10}));
}

TEST(CpMetrics, ExtraPredictionsCostPrecisionNotRecall) {
  const std::vector<Locations> annotations{{50}, {50}};
  const auto exact = f1_score(annotations, {50}, 5);
  EXPECT_DOUBLE_EQ(exact.f1, 1.0);
  // An excursion found as two change points: one of them is no annotated change.
  const auto excursion = f1_score(annotations, {50, 70}, 5);
  EXPECT_DOUBLE_EQ(excursion.recall, 1.0);
  EXPECT_DOUBLE_EQ(excursion.precision, 2.0 / 3.0);
  EXPECT_LT(covering(annotations, {50, 70}, 100), covering(annotations, {50}, 100));
  EXPECT_DOUBLE_EQ(covering(annotations, {50}, 100), 1.0);
}

} // namespace
} // namespace culprit::stats
