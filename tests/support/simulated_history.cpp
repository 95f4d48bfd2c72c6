#include "tests/support/simulated_history.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace culprit::testing {

SimulatedHistory::SimulatedHistory(std::size_t commits, std::vector<FakeCase> cases,
                                   int samples_per_run)
    : m_cases(std::move(cases)), m_samples_per_run(samples_per_run) {
  for (std::size_t i = 0; i < commits; ++i)
    m_commits.push_back(fmt::format("c{:04}", i));
}

void SimulatedHistory::plant(const std::string& case_name, std::size_t at, double factor) {
  m_steps[case_name][at] = factor;
}

void SimulatedHistory::install(FakeExecutor& executor, double speed) const {
  for (std::size_t i = 0; i < m_commits.size(); ++i) {
    FakeCommit model;
    model.samples_per_run = m_samples_per_run;
    for (auto c : m_cases) {
      c.median *= speed;
      if (const auto it = m_steps.find(c.name); it != m_steps.end())
        for (const auto& [at, factor] : it->second)
          if (at <= i)
            c.median *= factor;
      model.cases.push_back(c);
    }
    executor.set_commit(m_commits[i], model);
  }
}

std::vector<history::RangeCommit> SimulatedHistory::range() const {
  std::vector<history::RangeCommit> range;
  for (std::size_t i = 0; i < m_commits.size(); ++i)
    range.push_back({m_commits[i], 1'700'000'000 + (static_cast<std::int64_t>(i) * 3600)});
  return range;
}

Result<std::vector<std::string>> ChainGraph::range(const std::string& before,
                                                   const std::string& after) {
  const auto from = std::ranges::find(m_commits, before);
  const auto to = std::ranges::find(m_commits, after);
  if (from == m_commits.end() || to == m_commits.end() || to <= from)
    return usage_error("{}..{} is not a range of the simulated chain", before, after);
  return std::vector<std::string>(from + 1, to + 1);
}

} // namespace culprit::testing
