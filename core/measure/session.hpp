#pragma once
// Everything a command that measures needs, set up once: the store in the cache, this host's
// fingerprint (recorded in the store, and warned about when noisy), a GPU probe when there are
// GPUs, a scratch directory for the runs, and the sampler over them.

#include <array>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/exec/executor.hpp"
#include "core/host/fingerprint.hpp"
#include "core/measure/sampler.hpp"
#include "core/measure/scratch.hpp"
#include "core/recipe/recipe.hpp"
#include "core/store/store.hpp"
#include "core/util/error.hpp"

namespace culprit::measure {

struct SessionOptions {
  std::filesystem::path repo_cache; // the per-repository cache directory
  std::string store_url;            // a shared store (core/store/location.hpp); empty: the cache's
  bool fresh = false;               // ignore runs stored before this session
  // The label this command records its runs under; when set, only runs recorded under it count
  // (a bisection's own runs: a re-run replays them, and runs of other commands never change it).
  std::optional<std::string> runs_label;
  bool probe_gpus = true;
  // The CPU sets of duets (host::duet_cpus); empty when duets do not run here.
  std::array<std::vector<int>, 2> duet_cpus;
};

// `run` timed instead of counted: instrument time, and the format's own metric in place of a
// count.
recipe::RunRecipe timed_run(recipe::RunRecipe run);
// `run` counted on a simulated CPU instead (--instrument valgrind, instructions first).
recipe::RunRecipe counted_run(recipe::RunRecipe run);

class MeasureSession {
public:
  static Result<std::unique_ptr<MeasureSession>>
  open(exec::Executor& executor, const recipe::Recipe& recipe, const SessionOptions& options);
  MeasureSession(const MeasureSession&) = delete;
  MeasureSession& operator=(const MeasureSession&) = delete;
  MeasureSession(MeasureSession&&) = delete;
  MeasureSession& operator=(MeasureSession&&) = delete;
  ~MeasureSession();

  [[nodiscard]] store::Store& store() { return *m_store; }
  [[nodiscard]] Sampler& sampler() { return *m_sampler; }
  // Under a counting instrument: a sampler of the same recipe that times the runs instead
  // (timed_run), its runs stored apart; nullptr under --instrument time.
  [[nodiscard]] Sampler* time_sampler() { return m_time_sampler.get(); }
  // A sampler that counts under Valgrind (core/bisect/counters.hpp): the session's own under
  // --instrument valgrind; else, when Valgrind is installed and runs are local, one of the same
  // recipe under counted_run, its runs stored apart; else nullptr.
  [[nodiscard]] Sampler* counter_sampler();
  // Another sampler over the same store and recipe that runs through `executor` (a lane of a
  // cluster: its runs are keyed by the device it gets).
  [[nodiscard]] std::unique_ptr<Sampler> make_sampler(exec::Executor& executor) const;
  [[nodiscard]] const host::HostFingerprint& host() const { return m_host; }
  [[nodiscard]] const nlohmann::json& host_json() const { return m_host_json; }
  // One line each: a noisy host (powersave governor, load, a VM, ...), what to do about it.
  [[nodiscard]] const std::vector<std::string>& warnings() const { return m_warnings; }

private:
  MeasureSession() = default;

  std::unique_ptr<store::Store> m_store;
  std::unique_ptr<host::GpuProbe> m_gpu;
  std::unique_ptr<Sampler> m_sampler;
  std::unique_ptr<Sampler> m_time_sampler;
  std::unique_ptr<Sampler> m_counter_sampler;
  host::HostFingerprint m_host;
  nlohmann::json m_host_json;
  std::vector<std::string> m_warnings;
  std::filesystem::path m_scratch;
  std::unique_ptr<ScratchDir> m_scratch_dir; // removed when the session ends
};

} // namespace culprit::measure
