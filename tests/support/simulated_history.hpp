#pragma once
// Simulated project histories for tests and benchmarks of tracking and triage: a first-parent
// chain of commits c0000, c0001, ... whose cases step by planted factors, drawn by the fake
// executor, and a commit graph over that chain.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/history/track.hpp"
#include "core/history/triage.hpp"
#include "tests/support/fake_executor.hpp"

namespace culprit::testing {

class SimulatedHistory {
public:
  // `commits` commits; every case of `cases` starts at its median.
  SimulatedHistory(std::size_t commits, std::vector<FakeCase> cases, int samples_per_run = 5);

  // From commit `at` on, `case_name` is `factor` times what it was.
  void plant(const std::string& case_name, std::size_t at, double factor);
  // The models of every commit, into the executor, on a machine `speed` times as slow as the
  // levels say (every level multiplied by it: a busier night).
  void install(FakeExecutor& executor, double speed = 1.0) const;

  [[nodiscard]] const std::vector<std::string>& commits() const { return m_commits; }
  [[nodiscard]] const std::string& commit(std::size_t index) const { return m_commits.at(index); }
  // The whole chain with committer times an hour apart, oldest first.
  [[nodiscard]] std::vector<history::RangeCommit> range() const;

private:
  std::vector<std::string> m_commits;
  std::vector<FakeCase> m_cases;
  int m_samples_per_run;
  std::map<std::string, std::map<std::size_t, double>> m_steps; // case -> commit -> factor
};

// before..after along the simulated chain.
class ChainGraph final : public history::CommitGraph {
public:
  explicit ChainGraph(std::vector<std::string> commits) : m_commits(std::move(commits)) {}
  Result<std::vector<std::string>> range(const std::string& before,
                                         const std::string& after) override;

private:
  std::vector<std::string> m_commits;
};

} // namespace culprit::testing
