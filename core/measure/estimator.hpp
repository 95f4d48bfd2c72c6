#pragma once
// Which statistic of each run decides a case, and why (culprit-statistics(7), "Interference":
// interference is one-sided, and the machine is shared).
//
// The setting is `auto` or a statistic named as in stats/run_statistic.hpp (median, mean, min,
// max, p1..p99). `auto` looks at the samples of both sides: where either shows one-sided
// interference (stats/interference.hpp: speed states, or a long slow tail), the fast side of each
// run decides (its minimum for a time, its maximum for a throughput), since other tenants only
// ever add time; otherwise each run's median does. A driver keeps the fast side once it has chosen
// it for a case: later looks do not switch back.
//
// With a fast-side statistic the slow side is still looked at: a change that moves the slow tail
// but not the fast state ("sometimes twice as slow") is reported as a tail change, compared with
// each run's 90th percentile (10th for a throughput).

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"
#include "stats/interference.hpp"
#include "stats/run_statistic.hpp"
#include "stats/slow_runs.hpp"

namespace culprit::measure {

struct StatisticSetting {
  bool automatic = true;
  stats::RunStatistic fixed = stats::RunStatistic::median(); // when not automatic

  // "auto", or a statistic; a usage error that says what is allowed otherwise.
  static Result<StatisticSetting> parse(std::string_view text);
  [[nodiscard]] std::string name() const;
};

struct Estimator {
  stats::RunStatistic statistic = stats::RunStatistic::median();
  std::string reason; // for people and the evidence: why this statistic
  [[nodiscard]] bool fast_side() const;
};

// The diagnoses of the sides' samples (an absent one had too few samples to say).
Estimator choose_estimator(const StatisticSetting& setting, parsers::Direction direction,
                           std::span<const std::optional<stats::Interference>> diagnoses);

// The estimator for what is measured next, given the one in use and diagnoses of measurements
// made since it was chosen: with statistic = auto, a median gives way to the fast side once a
// diagnosis shows one-sided interference (never the other way: a machine that was noisy once can
// be again). `where` names the measurements, for the reason. Empty when nothing changes.
std::optional<Estimator> judge_later_by(
    const StatisticSetting& setting, parsers::Direction direction, const Estimator& current,
    std::span<const std::optional<stats::Interference>> diagnoses, std::string_view where);

// The statistic of each run that looks at the slow tail: p90 of a time, p10 of a throughput.
stats::RunStatistic slow_side(parsers::Direction direction);

// A phrase for people, or empty when the samples show nothing worth a line: "two speed states:
// the slow one 1.8x the fast, 46% of the samples, in stretches of 4 samples", "isolated slow
// samples: 7% of the samples 9x the others, one at a time", "a long slow tail: ...", and "drift
// +3.1% from the first run to the last".
std::string describe_interference(const stats::Interference& diagnosis);

// A phrase for people about whole runs in the slow state: "whole runs slow: 38% of the runs were
// slow from start to end; judged by the 24 of 40 blocks whose runs shared a state". With one
// sample a run there is no fast side within a run: the phrase says that each run's one sample
// decides, and its state is told by its level among the other runs.
std::string describe_slow_runs(const stats::BlockSelection& selection, bool one_sample_runs);

} // namespace culprit::measure
