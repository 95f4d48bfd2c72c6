#include "core/measure/estimator.hpp"

#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/util/escape.hpp"

namespace culprit::measure {
namespace {

constexpr std::size_t k_longest_statistic = 16; // longer than any name: quoted short

// The fast side of each run, for a case whose diagnosis shows one-sided interference; `where`
// (when not empty) names the measurements that showed it.
std::optional<Estimator>
fast_side_if_one_sided(parsers::Direction direction,
                       std::span<const std::optional<stats::Interference>> diagnoses,
                       std::string_view where) {
  for (const auto& diagnosis : diagnoses) {
    // Isolated slow samples alone leave the median in charge: a run's median already ignores
    // them, and its minimum would only be noisier.
    if (!diagnosis || !stats::fast_side_decides(*diagnosis))
      continue;
    const bool states = diagnosis->states && !stats::isolated(*diagnosis->states);
    const std::string what = states ? "two speed states" : "a long slow tail";
    const auto statistic = stats::fast_side(direction == parsers::Direction::lower_is_better
                                                ? stats::Direction::lower_is_better
                                                : stats::Direction::higher_is_better);
    return Estimator{statistic, fmt::format("auto: one-sided interference ({}){}, so the {} of "
                                            "each run",
                                            what, where.empty() ? "" : fmt::format(" in {}", where),
                                            stats::to_string(statistic))};
  }
  return std::nullopt;
}

} // namespace

Result<StatisticSetting> StatisticSetting::parse(std::string_view text) {
  if (text == "auto")
    return StatisticSetting{};
  if (text.size() > k_longest_statistic)
    return usage_error("unknown statistic '{}': use auto, median, mean, min, max or a percentile "
                       "p1 to p99",
                       excerpt(text));
  auto statistic = stats::parse_run_statistic(text);
  if (!statistic)
    return usage_error("{}", statistic.error().message);
  return StatisticSetting{false, *statistic};
}

std::string StatisticSetting::name() const {
  return automatic ? "auto" : stats::to_string(fixed);
}

bool Estimator::fast_side() const {
  return statistic.kind == stats::RunStatistic::Kind::quantile &&
         (statistic.q == 0.0 || statistic.q == 1.0);
}

Estimator choose_estimator(const StatisticSetting& setting, parsers::Direction direction,
                           std::span<const std::optional<stats::Interference>> diagnoses) {
  if (!setting.automatic)
    return {setting.fixed, "asked for"};
  if (auto fast = fast_side_if_one_sided(direction, diagnoses, ""))
    return std::move(*fast);
  return {stats::RunStatistic::median(), "auto: no one-sided interference, so each run's median"};
}

std::optional<Estimator> judge_later_by(
    const StatisticSetting& setting, parsers::Direction direction, const Estimator& current,
    std::span<const std::optional<stats::Interference>> diagnoses, std::string_view where) {
  if (!setting.automatic || current.fast_side())
    return std::nullopt;
  return fast_side_if_one_sided(direction, diagnoses, where);
}

stats::RunStatistic slow_side(parsers::Direction direction) {
  return stats::RunStatistic::percentile(direction == parsers::Direction::lower_is_better ? 90
                                                                                          : 10);
}

std::string describe_interference(const stats::Interference& diagnosis) {
  std::vector<std::string> parts;
  if (const auto& states = diagnosis.states) {
    const double ratio =
        states->slow > states->fast ? states->slow / states->fast : states->fast / states->slow;
    if (stats::isolated(*states))
      parts.push_back(fmt::format("isolated slow samples: {:.0f}% of the samples {:.2g}x the "
                                  "others, one at a time",
                                  states->slow_share * 100, ratio));
    else
      parts.push_back(fmt::format("two speed states: the slow one {:.2g}x the fast, {:.0f}% of "
                                  "the samples, in stretches of {:.2g} samples",
                                  ratio, states->slow_share * 100, states->slow_stretch));
  } else if (diagnosis.one_sided) {
    parts.push_back(fmt::format("a long slow tail: the 90th percentile {:.0f}% above the 10th",
                                diagnosis.spread * 100));
  }
  if (const auto& drift = diagnosis.drift)
    parts.push_back(
        fmt::format("drift {:+.1f}% from the first run to the last", drift->change * 100));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string describe_slow_runs(const stats::BlockSelection& selection, bool one_sample_runs) {
  const std::size_t blocks = selection.fast_blocks + selection.slow_blocks + selection.mixed_blocks;
  return fmt::format("whole runs slow: {:.0f}% of the runs were slow {}; judged by the {} of {} "
                     "blocks whose runs shared a state{}",
                     100.0 * selection.slow_share(),
                     one_sample_runs ? "(one sample a run: each run's sample decides, its state "
                                       "told by its level among the side's runs)"
                                     : "from start to end",
                     selection.kept.size(), blocks,
                     selection.slow_blocks > 0 && !selection.slow_blocks_used
                         ? fmt::format(" ({} blocks slow throughout left out: they scattered "
                                       "more than twice as much as the fast ones)",
                                       selection.slow_blocks)
                         : std::string());
}

} // namespace culprit::measure
