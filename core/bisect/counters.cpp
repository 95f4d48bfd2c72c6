#include "core/bisect/counters.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <set>

#include "core/parsers/valgrind_counts.hpp"

namespace culprit::bisect {
namespace {

// The case the counts of `subject` are of: `wanted` when it was counted, else the one counted
// case of a program counted as a whole; empty when neither.
Result<std::string> counted_case(measure::Sampler& counter, const measure::Subject& subject,
                                 const std::string& wanted) {
  CULPRIT_TRY_ASSIGN(const auto cases, counter.cases(subject));
  std::set<std::string> counted;
  for (const auto& c : cases)
    if (parsers::is_valgrind_metric(c.metric))
      counted.insert(c.case_name);
  if (counted.contains(wanted))
    return wanted;
  if (counted.size() == 1)
    return *counted.begin();
  return std::string();
}

// The first run's value of each count of `name` in `subject`'s runs; none where it has none.
Result<std::vector<std::optional<double>>>
counts_of(measure::Sampler& counter, const measure::Subject& subject, const std::string& name) {
  std::vector<std::optional<double>> values;
  for (const auto& metric : parsers::valgrind_metric_descriptors()) {
    CULPRIT_TRY_ASSIGN(const auto runs,
                       counter.runs(subject, measure::CaseKey{name, std::string(metric.name)}, 1));
    if (runs.samples.empty() || runs.samples.front().empty())
      values.emplace_back();
    else
      values.emplace_back(runs.samples.front().front());
  }
  return values;
}

Result<CounterDiff> diff_of(measure::Sampler& counter, const measure::Subject& parent,
                            const measure::Subject& culprit, const std::string& case_name) {
  CounterDiff diff;
  const std::array<measure::RunsWanted, 2> wants = {measure::RunsWanted{&parent, 1},
                                                    measure::RunsWanted{&culprit, 1}};
  // Counts do not mind a neighbour: when neither is counted yet and two CPUs are free, the two
  // runs go at once, each on CPUs of its own (under Valgrind a run is 20 to 100 times slower).
  CULPRIT_TRY_ASSIGN(const auto parent_runs, counter.counted_runs(parent));
  CULPRIT_TRY_ASSIGN(const auto culprit_runs, counter.counted_runs(culprit));
  auto complete = parent_runs == 0 && culprit_runs == 0 && counter.can_duet()
                      ? counter.ensure_blocks({{&parent, &culprit}, 1, true})
                      : counter.ensure(wants);
  if (!complete) {
    if (complete.error().code == ExitCode::interrupted)
      return std::unexpected(complete.error());
    diff.note = complete.error().message; // a run that fails under Valgrind: a hint fewer
    return diff;
  }
  if (!*complete) {
    diff.note = "the time budget ran out before the culprit and its parent were counted";
    return diff;
  }
  CULPRIT_TRY_ASSIGN(diff.counted_case, counted_case(counter, culprit, case_name));
  if (diff.counted_case.empty()) {
    diff.note = "the program's runs under Valgrind counted other cases than this one";
    return diff;
  }
  CULPRIT_TRY_ASSIGN(const auto before, counts_of(counter, parent, diff.counted_case));
  CULPRIT_TRY_ASSIGN(const auto after, counts_of(counter, culprit, diff.counted_case));
  const auto& metrics = parsers::valgrind_metric_descriptors();
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (before[i] && after[i])
      diff.changes.push_back({std::string(metrics[i].name), *before[i], *after[i]});
  if (diff.changes.empty())
    diff.note = "the runs under Valgrind left no counts of this case";
  return diff;
}

} // namespace

Status count_culprits(BisectOutcome& outcome, measure::Sampler& counter) {
  for (auto& culprit : outcome.culprits) {
    const auto parent = outcome.subjects.find(culprit.parent);
    const auto found = outcome.subjects.find(culprit.commit);
    if (parent == outcome.subjects.end() || found == outcome.subjects.end())
      continue; // not measured (identical artifacts): nothing moved
    CULPRIT_TRY_ASSIGN(culprit.counters, diff_of(counter, parent->second, found->second,
                                                 culprit.selected.key.case_name));
  }
  return {};
}

} // namespace culprit::bisect
