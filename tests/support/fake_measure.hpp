#pragma once
// A measurement rig without git or builds, for driver tests and simulations: a fake build
// provider that maps commits to artifact ids (or fails them), the fake executor that maps commits
// to sample distributions, and a real store and sampler in a temporary directory.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/bisect/bisect.hpp"
#include "core/measure/parse_options.hpp"
#include "core/measure/sampler.hpp"
#include "core/store/store.hpp"
#include "tests/support/fake_executor.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::testing {

class FakeBuildProvider final : public build::BuildProvider {
public:
  // Commits build to an artifact named after them unless told otherwise.
  void set_artifact(const std::string& commit, const std::string& artifact_id) {
    m_artifacts[commit] = artifact_id;
  }
  void fail(const std::string& commit) { m_failing.insert(commit); }
  Result<build::BuildResult> build(const std::string& commit, const std::string& rev) override;
  [[nodiscard]] int builds() const { return m_builds; }

private:
  std::map<std::string, std::string> m_artifacts;
  std::set<std::string> m_failing;
  int m_builds = 0;
};

// The store, executor and sampler of one simulated machine. FakeExecutor keys its models by
// CULPRIT_COMMIT, which the sampler sets from the subject's commit.
class FakeRig {
public:
  explicit FakeRig(std::uint64_t seed = 1, const std::filesystem::path& dir = {});

  // A new sampler over the same store (a new culprit process, as far as the store can tell).
  measure::Sampler& new_sampler(int warmup = 0,
                                std::optional<double> budget_seconds = std::nullopt);
  // A new sampler whose runs carry the session label `session` and that counts only those, as a
  // `culprit track` session's does.
  measure::Sampler& new_session_sampler(const std::string& session);
  // A new sampler that can run duets, on CPU sets {0} and {1}.
  measure::Sampler& new_duet_sampler();
  [[nodiscard]] measure::Sampler& sampler() { return *m_sampler; }
  [[nodiscard]] FakeExecutor& executor() { return m_executor; }
  [[nodiscard]] store::Store& store() { return *m_store; }
  // A subject as the fake build provider would make it.
  static measure::Subject subject(const std::string& commit, const std::string& artifact_id = {});

private:
  std::unique_ptr<TempDir> m_owned_dir;
  std::filesystem::path m_dir;
  FakeExecutor m_executor;
  std::unique_ptr<store::Store> m_store;
  std::unique_ptr<measure::Sampler> m_sampler;
  std::uint64_t m_seed;
};

// A device of a simulated cluster: it ships batches like the Slurm executor (one call runs a whole
// batch) and runs them through the rig's fake executor, every level multiplied by `speed` (a node
// a few percent faster or slower than another). Its runs are stored under "device-NAME".
class FakeDeviceExecutor final : public exec::Executor {
public:
  FakeDeviceExecutor(FakeExecutor& models, std::string name, double speed)
      : m_models(models), m_name(std::move(name)), m_speed(speed) {}
  Result<exec::ExecResult> run(const exec::ExecRequest& request) override;
  std::vector<Result<exec::ExecResult>>
  run_batch(std::span<const exec::ExecRequest> requests) override;
  [[nodiscard]] bool ships_batches() const override { return true; }
  Result<std::optional<exec::BatchDevice>> device() override {
    return exec::BatchDevice{describe()};
  }
  [[nodiscard]] std::optional<exec::BatchDevice> batch_device() const override {
    return describe();
  }
  [[nodiscard]] std::string_view name() const override { return "fake-device"; }
  [[nodiscard]] int batches() const { return m_batches; }
  // The next batch fails as a whole (a worker whose results are missing), once.
  void fail_next_batch() { m_fail_next = true; }

private:
  [[nodiscard]] exec::BatchDevice describe() const {
    return {"device-" + m_name, "{}", m_name, "job-" + m_name, {}};
  }
  FakeExecutor& m_models;
  std::string m_name;
  double m_speed;
  int m_batches = 0;
  bool m_fail_next = false;
};

// A history of `n` commits c00, c01, ... after "g"; each case's level is its base times the
// product of the steps planted at or before the commit.
struct PlantedHistory {
  bisect::BisectRange range;
  std::map<std::string, std::map<int, double>> steps; // case -> commit index -> factor

  explicit PlantedHistory(int n);
  void plant(const std::string& case_name, int index, double factor) {
    steps[case_name][index] = factor;
  }
  // Gives every commit its model in the rig's fake executor.
  void install(FakeRig& rig, const std::vector<std::pair<std::string, double>>& cases, double sigma,
               parsers::Direction direction = parsers::Direction::lower_is_better) const;
};

// One lognormal case with a median in seconds.
FakeCase fake_case(const std::string& name, double median, double sigma = 0.02,
                   parsers::Direction direction = parsers::Direction::lower_is_better);

} // namespace culprit::testing
