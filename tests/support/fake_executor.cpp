#include "tests/support/fake_executor.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <functional>
#include <numbers>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/util/interrupt.hpp"

namespace culprit {
namespace {

// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
// 2014): tiny, and its output is the same on every platform, unlike the standard distributions.
class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t state) : m_state(state) {}
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31U);
  }
  // Uniform in (0, 1].
  double uniform() { return (static_cast<double>(next() >> 11U) + 1.0) * 0x1.0p-53; }
  // Standard normal, by the Box-Muller transform.
  double normal() {
    const double radius = std::sqrt(-2.0 * std::log(uniform()));
    return radius * std::cos(2.0 * std::numbers::pi * uniform());
  }

private:
  std::uint64_t m_state;
};

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

void validate(const FakeCommit& model) {
  if (model.samples_per_run < 1)
    throw std::invalid_argument("fake executor: samples_per_run must be at least 1");
  for (const auto& fake_case : model.cases) {
    const bool valid = !fake_case.name.empty() && !fake_case.metric.empty() &&
                       std::isfinite(fake_case.median) && fake_case.median > 0 &&
                       std::isfinite(fake_case.sigma) && fake_case.sigma >= 0 &&
                       std::isfinite(fake_case.run_sigma) && fake_case.run_sigma >= 0 &&
                       fake_case.outlier_rate >= 0 && fake_case.outlier_rate <= 1 &&
                       std::isfinite(fake_case.outlier_factor) && fake_case.outlier_factor > 0;
    if (!valid)
      throw std::invalid_argument("fake executor: invalid distribution for case '" +
                                  fake_case.name + "'");
  }
}

using MachineFactor = std::function<double(double)>;

std::string sample_lines(const FakeCommit& model, SplitMix64& random, exec::Seconds& simulated,
                         double scale, const MachineFactor& machine, double& clock) {
  std::string out = R"({"type":"header","format":"culprit-jsonl","version":1,)"
                    R"("harness":"culprit fake executor","backend":"cpu","device":"fake"})"
                    "\n";
  for (const auto& fake_case : model.cases) {
    const double run_level =
        scale * fake_case.median * std::exp(fake_case.run_sigma * random.normal());
    for (int index = 0; index < model.samples_per_run; ++index) {
      double value = run_level * std::exp(fake_case.sigma * random.normal());
      if (random.uniform() <= fake_case.outlier_rate)
        value *= fake_case.outlier_factor;
      if (machine) {
        const double factor = machine(clock);
        value = fake_case.direction == parsers::Direction::lower_is_better ? value * factor
                                                                           : value / factor;
        clock += fake_case.unit == "s" ? value : 1e-3;
      }
      if (fake_case.unit == "s")
        simulated += exec::Seconds(value);
      const nlohmann::json record = {{"type", "sample"},
                                     {"case", fake_case.name},
                                     {"metric", fake_case.metric},
                                     {"unit", fake_case.unit},
                                     {"direction", to_string(fake_case.direction)},
                                     {"value", value},
                                     {"index", index}};
      out += record.dump();
      out += '\n';
    }
  }
  return out;
}

} // namespace

FakeExecutor::FakeExecutor(std::uint64_t seed) : m_seed(seed) {}

void FakeExecutor::set_commit(const std::string& commit, FakeCommit model) {
  validate(model);
  const std::scoped_lock lock(m_mutex);
  m_models[commit] = std::move(model);
}

void FakeExecutor::set_default(FakeCommit model) {
  validate(model);
  const std::scoped_lock lock(m_mutex);
  m_default = std::move(model);
}

const FakeCommit* FakeExecutor::model_for(const std::string& commit) const {
  const FakeCommit* best = nullptr;
  std::size_t best_length = 0;
  for (const auto& [prefix, model] : m_models) {
    if (commit.starts_with(prefix) && (best == nullptr || prefix.size() > best_length)) {
      best = &model;
      best_length = prefix.size();
    }
  }
  return best != nullptr ? best : (m_default ? &*m_default : nullptr);
}

void FakeExecutor::set_machine(const FakeMachine& machine) {
  const bool valid = machine.slow_share >= 0 && machine.slow_share < 1 &&
                     machine.mean_slow_seconds > 0 && machine.slow_min >= 1 &&
                     machine.slow_max >= machine.slow_min && machine.run_overhead_seconds >= 0 &&
                     std::isfinite(machine.drift_per_second);
  if (!valid)
    throw std::invalid_argument("fake executor: a machine that cannot be simulated");
  const std::scoped_lock lock(m_mutex);
  m_machine = machine;
  m_machine_state = m_seed ^ 0x6d61636869e65ULL;
  m_switches.clear();
  m_factors.clear();
}

double FakeExecutor::machine_factor(double t) {
  const auto& machine = *m_machine;
  const double drift = 1.0 + (machine.drift_per_second * t);
  if (machine.slow_share <= 0)
    return drift;
  SplitMix64 random(m_machine_state);
  while (m_switches.empty() || m_switches.back() <= t) {
    // Alternate fast and slow stretches, each of exponential length.
    const bool slow = m_factors.size() % 2 == 1;
    const double start = m_switches.empty() ? -1.0 : m_switches.back();
    const double mean =
        slow ? machine.mean_slow_seconds
             : machine.mean_slow_seconds * (1.0 - machine.slow_share) / machine.slow_share;
    m_switches.push_back(start + (-mean * std::log(random.uniform())));
    m_factors.push_back(
        slow ? machine.slow_min + ((machine.slow_max - machine.slow_min) * random.uniform()) : 1.0);
    m_machine_state = random.next();
    random = SplitMix64(m_machine_state);
  }
  // The stretch that contains t: the first that ends after it.
  const auto ends = std::upper_bound(m_switches.begin(), m_switches.end(), t);
  return drift * m_factors[static_cast<std::size_t>(ends - m_switches.begin())];
}

Result<exec::ExecResult> FakeExecutor::run(const exec::ExecRequest& request) {
  const std::scoped_lock lock(m_mutex);
  auto result = run_locked(request, m_clock);
  if (m_machine)
    m_clock += m_machine->run_overhead_seconds;
  return result;
}

std::vector<Result<exec::ExecResult>>
FakeExecutor::run_together(std::span<const exec::ExecRequest> requests) {
  const std::scoped_lock lock(m_mutex);
  ++m_duets;
  std::vector<Result<exec::ExecResult>> results;
  const double start = m_clock;
  double end = start;
  for (const auto& request : requests) {
    double clock = start;
    results.push_back(run_locked(request, clock));
    end = std::max(end, clock);
  }
  m_clock = end + (m_machine ? m_machine->run_overhead_seconds : 0.0);
  return results;
}

int FakeExecutor::duets() const {
  const std::scoped_lock lock(m_mutex);
  return m_duets;
}

Result<exec::ExecResult> FakeExecutor::run_locked(const exec::ExecRequest& request, double& clock) {
  if (interrupt_requested())
    return fail(ExitCode::interrupted,
                "interrupted before running '" + exec::command_line(request) + "'");
  const auto variable = request.env.find("CULPRIT_COMMIT");
  if (variable == request.env.end())
    return usage_error("fake executor: the request for '{}' has no CULPRIT_COMMIT",
                       exec::command_line(request));
  const std::string& commit = variable->second;

  const FakeCommit* model = model_for(commit);
  if (model == nullptr)
    return usage_error("fake executor: no distribution for commit {}", commit);
  const int run_index = m_runs[commit]++;
  m_order.push_back(commit);

  exec::ExecResult result;
  switch (model->behaviour) {
  case FakeBehaviour::measure: {
    SplitMix64 random(m_seed ^ fnv1a(commit) ^ (static_cast<std::uint64_t>(run_index) << 32U));
    double scale = 1;
    if (const auto it = request.env.find("CULPRIT_FAKE_SCALE"); it != request.env.end())
      scale = std::stod(it->second);
    MachineFactor machine;
    if (m_machine)
      machine = [this](double t) { return machine_factor(t); };
    result.out = sample_lines(*model, random, result.wall, scale, machine, clock);
    break;
  }
  case FakeBehaviour::fail:
    result.exit_code = 1;
    result.err = "fake benchmark: failing as told for commit " + commit + "\n";
    break;
  case FakeBehaviour::crash:
    result.exit_code = -1;
    result.signal = SIGSEGV;
    break;
  case FakeBehaviour::time_out:
    result.exit_code = -1;
    result.signal = SIGKILL;
    result.timed_out = true;
    result.wall = request.timeout;
    break;
  }
  result.out_bytes = result.out.size();
  result.err_bytes = result.err.size();
  result.user = result.wall;
  return result;
}

int FakeExecutor::run_count(std::string_view commit) const {
  const std::scoped_lock lock(m_mutex);
  int count = 0;
  for (const auto& [name, runs] : m_runs) {
    if (name.starts_with(commit))
      count += runs;
  }
  return count;
}

int FakeExecutor::total_runs() const {
  const std::scoped_lock lock(m_mutex);
  return static_cast<int>(m_order.size());
}

std::vector<std::string> FakeExecutor::run_order() const {
  const std::scoped_lock lock(m_mutex);
  return m_order;
}

} // namespace culprit
