// culprit's change-point search judged on a public labelled benchmark and on simulated histories.
//
// 1. TCPD, the Turing change-point data set (alan-turing-institute/TCPD: real series, each
//    annotated by five people; not part of this repository). Every univariate series of the
//    directory is searched with the settings `culprit history` uses by default
//    (history::ChangeOptions{}: E-divisive at significance 0.01 with 499 permutations, segments
//    of at least 3 points, steps under the [decide] threshold dropped), and scored with the
//    benchmark's own F1 (margin 5) and segmentation cover (stats/cp_metrics.hpp).
//    How a series is fed: each value is one point of one run and there are no replicates, so
//    the search is E-divisive on the log values followed by the threshold, and the neighbour test
//    (which needs replicates) never runs. A series with a value <= 0 cannot be a history of
//    times (`culprit history` refuses it); it is searched by E-divisive on its raw values with
//    the same settings (marked "raw"). Missing values (null) are left out of the search and the
//    change points mapped back to the indices of the series, which the annotations use.
//    Beside culprit's scores: those of binary segmentation, PELT and "no change point" with
//    TCPDBench's default settings, per series from TCPDBench's analysis/output/scores/
//    default_f1_scores.json and default_cover_scores.json (alan-turing-institute/TCPDBench),
//    averaged over the same subset: the series with a score of all three. (Binary segmentation
//    and PELT have none on uk_coal_employ, whose missing values they failed on; it is shown
//    but left out of the means.)
// 2. Simulated histories (the fake executor, tracked and searched as `culprit history` does, with
//    replicates: the model of bench_history). Step-free series of 50 to 300 commits under
//    lognormal noise of 1% to 4% with outliers give the false change points per 1,000 points;
//    series with 1 to 3 planted steps of 3% to 15% give the share of steps with a change point
//    within 5 commits, and the same F1 and cover with the planted steps as the one annotator.
//
// Usage: bench_tcpd [TCPD_DIR [trials per configuration of the simulated part, default 8]]
// TCPD_DIR holds annotations.json and datasets/<name>/<name>.json; without it, or with "-", only
// the simulated part runs (as scripts/bench.sh runs every benchmark without arguments).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/history/series.hpp"
#include "core/history/track.hpp"
#include "stats/change_points.hpp"
#include "stats/cp_metrics.hpp"
#include "tests/support/fake_measure.hpp"
#include "tests/support/simulated_history.hpp"

using namespace culprit;
using namespace culprit::history;
using testing::FakeBuildProvider;
using testing::FakeRig;
using testing::SimulatedHistory;
using testing::TempDir;

namespace {

constexpr std::size_t k_margin = 5;

struct Baseline {
  const char* name;
  double binseg_f1, pelt_f1, zero_f1;
  double binseg_cover, pelt_cover, zero_cover;
};

// TCPDBench (alan-turing-institute/TCPDBench), analysis/output/scores/default_f1_scores.json and
// default_cover_scores.json: the "default" experiment's scores of binseg, pelt and zero on the
// univariate series of TCPD whose data ship in the TCPD repository.
constexpr Baseline k_baselines[] = {
    {"bank", 0.4, 0.4, 1.0, 0.5094664371772806, 0.5094664371772806, 1.0},
    {"brent_spot", 0.48343373493975905, 0.4647239263803681, 0.3146067415730337, 0.6267941377908149,
     0.6266446013415417, 0.2658176},
    {"businv", 0.3703703703703703, 0.3703703703703703, 0.5882352941176471, 0.5616385346323081,
     0.6027521396099411, 0.46094765840220386},
    // A score, not a constant (it happens to lie near 1/sqrt(pi)).
    // NOLINTBEGIN(modernize-use-std-numbers)
    {"centralia", 0.9090909090909091, 0.9090909090909091, 0.7628865979381444, 0.5635978835978837,
     0.5635978835978837, 0.6746666666666667},
    // NOLINTEND(modernize-use-std-numbers)
    {"children_per_woman", 0.6175115207373272, 0.6175115207373272, 0.5074626865671642,
     0.7982556272643626, 0.7982556272643626, 0.42910563901060694},
    {"co2_canada", 0.6905689789555729, 0.6613545816733067, 0.36097560975609755, 0.6080954444081101,
     0.6114412387983277, 0.2775684153596538},
    {"construction", 0.7090909090909091, 0.7090909090909091, 0.6956521739130436, 0.4662169703155342,
     0.4227346947723124, 0.5746032369964917},
    {"debt_ireland", 0.7603305785123966, 0.7603305785123966, 0.4693877551020408, 0.6346153846153847,
     0.6346153846153847, 0.32063492063492066},
    {"gdp_argentina", 0.888888888888889, 0.888888888888889, 0.8235294117647058, 0.6674763588023808,
     0.6674763588023808, 0.737087043952887},
    {"gdp_croatia", 0.5833333333333333, 0.5833333333333333, 0.8235294117647058, 0.6053921568627451,
     0.6053921568627451, 0.7083333333333333},
    {"gdp_iran", 0.4915254237288136, 0.4915254237288136, 0.651685393258427, 0.4773172527036974,
     0.4773172527036974, 0.582639714625446},
    {"gdp_japan", 0.6153846153846154, 0.6153846153846154, 0.888888888888889, 0.6538916256157635,
     0.6538916256157635, 0.802140309155767},
    {"global_co2", 0.9285714285714286, 0.7536231884057971, 0.8461538461538461, 0.748224852071006,
     0.6376856527413208, 0.7583210059171598},
    {"homeruns", 0.8118811881188119, 0.8118811881188119, 0.659217877094972, 0.6826141913243321,
     0.6826141913243321, 0.5107153116920425},
    {"jfk_passengers", 0.7755102040816326, 0.7755102040816326, 0.723404255319149,
     0.8392664497512488, 0.8392664497512488, 0.6298433048433048},
    {"lga_passengers", 0.43820224719101125, 0.43820224719101125, 0.5347985347985348,
     0.45828866764869847, 0.4744170110960888, 0.3830283439257799},
    {"nile", 1.0, 1.0, 0.8235294117647058, 0.8800821917808218, 0.8800821917808218, 0.75808},
    {"ozone", 0.6495726495726496, 1.0, 0.723404255319149, 0.6001481481481481, 0.6345922998096911,
     0.5736625514403293},
    {"quality_control_1", 1.0, 1.0, 0.6666666666666666, 0.9923773726743093, 0.9923773726743093,
     0.5031081260398699},
    {"quality_control_2", 1.0, 1.0, 0.7500000000000001, 0.9223181723701366, 0.9223181723701366,
     0.6382524441558766},
    {"quality_control_3", 1.0, 1.0, 0.6666666666666666, 0.995645855133124, 0.995645855133124,
     0.5002717310161545},
    {"quality_control_4", 0.8727272727272728, 0.7263157894736841, 0.7804878048780489,
     0.5176214973477965, 0.5377566882818624, 0.6727407999999999},
    {"quality_control_5", 1.0, 1.0, 1.0, 1.0, 1.0, 1.0},
    {"rail_lines", 0.8461538461538461, 0.8461538461538461, 0.5365853658536586, 0.7863825363825364,
     0.7863825363825364, 0.4281957633308984},
    {"seatbelts", 0.6829268292682926, 0.6829268292682926, 0.6206896551724138, 0.796945892630244,
     0.796945892630244, 0.5283637152777778},
    {"shanghai_license", 0.8679245283018869, 0.8679245283018869, 0.6363636363636364,
     0.9196947071511531, 0.9196947071511531, 0.5470886377156454},
    {"unemployment_nl", 0.8764044943820225, 0.7730061349693252, 0.5663082437275986,
     0.669177886902036, 0.6483671445199073, 0.5065595248493318},
    {"us_population", 0.6666666666666666, 0.47058823529411764, 0.888888888888889,
     0.3909313725490196, 0.5061274509803921, 0.8033761053440983},
    {"usd_isk", 0.6565143824027072, 0.6565143824027072, 0.48866498740554154, 0.7347653721190944,
     0.7303371792260955, 0.43629300594994175},
    {"well_log", 0.5342019543973942, 0.5545670225385527, 0.23702252693437809, 0.6954264948476262,
     0.6785920888706041, 0.22457547325102878},
};

const Baseline* baseline_of(const std::string& name) {
  for (const auto& b : k_baselines)
    if (name == b.name)
      return &b;
  return nullptr;
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "bench_tcpd: %s\n", message.c_str());
  std::exit(2);
}

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    fail("cannot open " + path.string() +
         "; give the TCPD directory (annotations.json, datasets/)");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    fail(path.string() + ": " + e.what());
  }
}

// culprit's change points of a series of values (indices of the first value of each new level).
std::vector<std::size_t> search(const std::vector<double>& values, bool& raw) {
  const ChangeOptions options;
  raw = std::ranges::any_of(values, [](double v) { return !(v > 0); });
  std::vector<std::size_t> found;
  if (raw) {
    stats::ChangePointOptions e_divisive;
    e_divisive.significance = options.significance;
    e_divisive.permutations = options.permutations;
    e_divisive.min_segment = options.min_segment;
    e_divisive.seed = options.seed;
    auto points = stats::e_divisive(values, e_divisive);
    if (!points)
      fail(points.error().message);
    for (const auto& point : *points)
      found.push_back(point.index);
    return found;
  }
  Series series;
  series.case_name = "tcpd";
  series.metric = "value";
  for (std::size_t i = 0; i < values.size(); ++i) {
    SeriesPoint point;
    point.commit = point.last_commit = std::to_string(i);
    point.median = values[i];
    point.ci = {values[i], values[i]};
    point.runs = 1;
    series.points.push_back(point);
  }
  auto changes = find_change_points(series, options);
  if (!changes)
    fail(changes.error().message);
  for (const auto& change : *changes)
    found.push_back(change.index);
  return found;
}

struct Means {
  int series = 0;
  double f1 = 0, cover = 0, binseg_f1 = 0, binseg_cover = 0, pelt_f1 = 0, pelt_cover = 0,
         zero_f1 = 0, zero_cover = 0;
  int zero_agrees = 0;
};

void tcpd(const std::filesystem::path& dir) {
  const auto annotations = read_json(dir / "annotations.json");
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "datasets"))
    if (std::filesystem::exists(entry.path() / (entry.path().filename().string() + ".json")))
      names.push_back(entry.path().filename().string());
  std::ranges::sort(names);
  std::printf("TCPD: culprit's change points (history defaults) against binary segmentation, PELT "
              "and no change point (TCPDBench, default settings)\n");
  std::printf("%-20s %5s %4s %4s  %6s %6s %6s %6s  %6s %6s %6s %6s\n", "series", "n", "cps", "",
              "F1", "binseg", "pelt", "zero", "cover", "binseg", "pelt", "zero");
  Means means;
  std::vector<std::string> left_out;
  for (const auto& name : names) {
    const auto data = read_json(dir / "datasets" / name / (name + ".json"));
    if (data.at("n_dim").get<int>() != 1) {
      left_out.push_back(name + " (multivariate)");
      continue;
    }
    if (!annotations.contains(name))
      fail("no annotations for " + name);
    const auto& raw_values = data.at("series").at(0).at("raw");
    const std::size_t n = raw_values.size();
    std::vector<double> values;
    std::vector<std::size_t> index_of; // the series index of each searched value
    for (std::size_t i = 0; i < n; ++i)
      if (!raw_values[i].is_null()) {
        values.push_back(raw_values[i].get<double>());
        index_of.push_back(i);
      }
    bool raw = false;
    std::vector<std::size_t> predictions;
    for (const std::size_t k : search(values, raw))
      predictions.push_back(index_of[k]);
    std::vector<std::vector<std::size_t>> truth;
    for (const auto& [annotator, locations] : annotations.at(name).items())
      truth.push_back(locations.get<std::vector<std::size_t>>());
    const double f1 = stats::f1_score(truth, predictions, k_margin).f1;
    const double cover = stats::covering(truth, predictions, n);
    const Baseline* b = baseline_of(name);
    std::string mark = raw ? "raw" : "";
    if (n != values.size())
      mark += mark.empty() ? "gaps" : ",gaps";
    if (b == nullptr) {
      std::printf("%-20s %5zu %4zu %4s  %6.3f %6s %6s %6s  %6.3f %6s %6s %6s  (not in the means: "
                  "no baseline scores)\n",
                  name.c_str(), n, predictions.size(), mark.c_str(), f1, "-", "-", "-", cover, "-",
                  "-", "-");
      continue;
    }
    std::printf("%-20s %5zu %4zu %4s  %6.3f %6.3f %6.3f %6.3f  %6.3f %6.3f %6.3f %6.3f\n",
                name.c_str(), n, predictions.size(), mark.c_str(), f1, b->binseg_f1, b->pelt_f1,
                b->zero_f1, cover, b->binseg_cover, b->pelt_cover, b->zero_cover);
    // The scorer against TCPDBench's own: its "no change point" scores recomputed here.
    const bool zero_agrees =
        std::abs(stats::f1_score(truth, {}, k_margin).f1 - b->zero_f1) < 1e-9 &&
        std::abs(stats::covering(truth, {}, n) - b->zero_cover) < 1e-9;
    means.zero_agrees += zero_agrees ? 1 : 0;
    ++means.series;
    means.f1 += f1;
    means.cover += cover;
    means.binseg_f1 += b->binseg_f1;
    means.binseg_cover += b->binseg_cover;
    means.pelt_f1 += b->pelt_f1;
    means.pelt_cover += b->pelt_cover;
    means.zero_f1 += b->zero_f1;
    means.zero_cover += b->zero_cover;
  }
  if (means.series == 0)
    fail("no univariate series with baseline scores under " + (dir / "datasets").string());
  const double k = means.series;
  std::printf("%-20s %5s %4s %4s  %6.3f %6.3f %6.3f %6.3f  %6.3f %6.3f %6.3f %6.3f\n",
              ("mean of " + std::to_string(means.series)).c_str(), "", "", "", means.f1 / k,
              means.binseg_f1 / k, means.pelt_f1 / k, means.zero_f1 / k, means.cover / k,
              means.binseg_cover / k, means.pelt_cover / k, means.zero_cover / k);
  for (const auto& name : left_out)
    std::printf("left out: %s\n", name.c_str());
  std::printf("scorer check: TCPDBench's \"no change point\" F1 and cover recomputed here agree on "
              "%d of %d series\n",
              means.zero_agrees, means.series);
  std::printf("raw: values <= 0, searched by E-divisive on the values themselves; gaps: missing "
              "values left out of the search\n");
}

// A simulated history tracked as `culprit history` tracks one (5 runs of 5 samples a commit)
// and searched with its defaults: the change points' indices.
std::vector<std::size_t>
simulated_change_points(std::size_t commits, double noise,
                        const std::vector<std::pair<std::size_t, double>>& steps,
                        std::uint64_t seed) {
  FakeCase c;
  c.name = "kernel";
  c.median = 1e-3;
  c.sigma = noise;
  c.run_sigma = noise / 2;
  c.outlier_rate = 0.01;
  c.outlier_factor = 3;
  SimulatedHistory simulated(commits, {c});
  for (const auto& [at, factor] : steps)
    simulated.plant("kernel", at, factor);
  FakeRig rig(seed);
  TempDir dir("culprit-bench-tcpd");
  auto ledger = Ledger::open_in(dir.path()).value();
  FakeBuildProvider builds;
  simulated.install(rig.executor());
  auto tracked = track_commits(select_commits(simulated.range(), {}), builds, rig.sampler(), ledger,
                               {.runs = 5, .chunk = 32});
  if (!tracked)
    fail("track: " + tracked.error().message);
  auto history = load_history(rig.store(), choose_points(ledger.tracked().value(), {}).value(), {});
  if (!history)
    fail("history: " + history.error().message);
  std::vector<std::size_t> found;
  for (const auto& change : history->change_points)
    found.push_back(change.index);
  return found;
}

void simulated(long trials) {
  std::printf("\nsimulated histories (tracked with 5 runs of 5 samples a commit, history "
              "defaults)\n%8s %6s  %6s %7s %9s  %6s %6s %7s %6s %6s\n",
              "commits", "noise", "flat", "points", "false/1k", "steps", "found", "extra", "F1",
              "cover");
  std::uint64_t seed = 7000;
  long total_points = 0;
  int total_false = 0;
  int total_steps = 0;
  int total_found = 0;
  for (const std::size_t commits : {50, 150, 300})
    for (const double noise : {0.01, 0.025, 0.04}) {
      std::mt19937_64 rng(commits * 1000 + static_cast<std::uint64_t>(noise * 1000));
      long points = 0;
      int false_points = 0;
      int steps_planted = 0;
      int steps_found = 0;
      int extra = 0; // change points farther than the margin from every planted step
      double f1 = 0;
      double cover = 0;
      for (long t = 0; t < trials; ++t) {
        // A step-free history.
        false_points +=
            static_cast<int>(simulated_change_points(commits, noise, {}, ++seed).size());
        points += static_cast<long>(commits);
        // One with 1 to 3 steps, at least 8 commits apart.
        std::vector<std::pair<std::size_t, double>> steps;
        std::uniform_real_distribution<double> size(0.03, 0.15);
        std::uniform_int_distribution<std::size_t> where(6, commits - 7);
        std::bernoulli_distribution improvement(0.25);
        const std::size_t count = 1 + static_cast<std::size_t>(t % 3);
        while (steps.size() < count) {
          const std::size_t at = where(rng);
          if (std::ranges::any_of(steps, [&](const auto& s) {
                return (at > s.first ? at - s.first : s.first - at) < 8;
              }))
            continue;
          const double change = size(rng);
          steps.emplace_back(at, improvement(rng) ? 1 / (1 + change) : 1 + change);
        }
        const auto found = simulated_change_points(commits, noise, steps, ++seed);
        std::vector<std::size_t> truth;
        truth.reserve(steps.size());
        for (const auto& [at, factor] : steps)
          truth.push_back(at);
        steps_planted += static_cast<int>(steps.size());
        steps_found += static_cast<int>(stats::true_positives(truth, found, k_margin).size());
        for (const auto index : found)
          extra += std::ranges::none_of(truth,
                                        [&](std::size_t at) {
                                          return (at > index ? at - index : index - at) <= k_margin;
                                        })
                       ? 1
                       : 0;
        f1 += stats::f1_score({truth}, found, k_margin).f1;
        cover += stats::covering({truth}, found, commits);
      }
      std::printf("%8zu %5.1f%%  %6ld %7ld %9.2f  %6d %5.0f%% %7d %6.3f %6.3f\n", commits,
                  noise * 100, trials, points, 1000.0 * false_points / static_cast<double>(points),
                  steps_planted, 100.0 * steps_found / steps_planted, extra,
                  f1 / static_cast<double>(trials), cover / static_cast<double>(trials));
      std::fflush(stdout);
      total_points += points;
      total_false += false_points;
      total_steps += steps_planted;
      total_found += steps_found;
    }
  std::printf("all: %.2f false change points per 1,000 points of step-free histories (%d in %ld); "
              "%.1f%% of %d planted steps found within %zu commits\n",
              1000.0 * total_false / static_cast<double>(total_points), total_false, total_points,
              100.0 * total_found / total_steps, total_steps, k_margin);
}

} // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "-";
  const long trials = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 8;
  if (trials < 1)
    fail("usage: bench_tcpd [TCPD_DIR|- [TRIALS]]; TRIALS is a positive number");
  if (dir == "-")
    std::printf("TCPD: not run (give the directory of alan-turing-institute/TCPD, which holds "
                "annotations.json and datasets/)\n");
  else
    tcpd(dir);
  simulated(trials);
  return 0;
}
