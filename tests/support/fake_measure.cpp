#include "tests/support/fake_measure.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <utility>

namespace culprit::testing {

Result<build::BuildResult> FakeBuildProvider::build(const std::string& commit,
                                                    const std::string& rev) {
  ++m_builds;
  build::BuildResult result;
  result.commit = commit;
  result.rev = rev;
  result.key = "key-" + commit;
  if (m_failing.contains(commit)) {
    result.status = build::BuildStatus::failed;
    result.message = "the build command exited with status 2";
    return result;
  }
  result.status = build::BuildStatus::built;
  const auto it = m_artifacts.find(commit);
  result.artifact_id = it == m_artifacts.end() ? "artifact-" + commit : it->second;
  result.artifact_dir = "/nonexistent/" + result.artifact_id;
  return result;
}

FakeRig::FakeRig(std::uint64_t seed, const std::filesystem::path& dir)
    : m_executor(seed), m_seed(seed) {
  if (dir.empty()) {
    m_owned_dir = std::make_unique<TempDir>("culprit-rig");
    m_dir = m_owned_dir->path();
  } else {
    m_dir = dir;
  }
  auto store = store::Store::open_in(m_dir);
  if (!store)
    throw std::runtime_error(store.error().message);
  m_store = std::make_unique<store::Store>(std::move(*store));
  const auto now = store::now();
  if (!m_store->record_host({"fake-host", "{}", now, now}))
    throw std::runtime_error("cannot record the fake host");
  new_sampler();
}

measure::Sampler& FakeRig::new_sampler(int warmup, std::optional<double> budget_seconds) {
  recipe::RunRecipe run;
  run.command = std::string("bench");
  run.format = "culprit";
  measure::SamplerOptions options;
  options.run = run;
  options.parse = measure::parse_options_for(run).value();
  options.recipe_hash = "fake-recipe";
  options.host_id = "fake-host";
  options.warmup = warmup;
  if (budget_seconds)
    options.budget = std::chrono::duration<double>(*budget_seconds);
  options.seed = m_seed;
  options.scratch_dir = m_dir;
  m_sampler = std::make_unique<measure::Sampler>(m_executor, *m_store, std::move(options));
  return *m_sampler;
}

measure::Sampler& FakeRig::new_session_sampler(const std::string& session) {
  auto options = m_sampler->options();
  options.session = session;
  options.freshness.session = session;
  m_sampler = std::make_unique<measure::Sampler>(m_executor, *m_store, std::move(options));
  return *m_sampler;
}

measure::Sampler& FakeRig::new_duet_sampler() {
  auto options = m_sampler->options();
  options.duet_cpus = {std::vector<int>{0}, std::vector<int>{1}};
  m_sampler = std::make_unique<measure::Sampler>(m_executor, *m_store, std::move(options));
  return *m_sampler;
}

measure::Subject FakeRig::subject(const std::string& commit, const std::string& artifact_id) {
  const auto artifact = artifact_id.empty() ? "artifact-" + commit : artifact_id;
  return {commit, commit, "key-" + commit, artifact, "/nonexistent/" + artifact};
}

Result<exec::ExecResult> FakeDeviceExecutor::run(const exec::ExecRequest& request) {
  auto outcomes = run_batch(std::span(&request, 1));
  return std::move(outcomes.front());
}

std::vector<Result<exec::ExecResult>>
FakeDeviceExecutor::run_batch(std::span<const exec::ExecRequest> requests) {
  ++m_batches;
  std::vector<Result<exec::ExecResult>> outcomes;
  if (std::exchange(m_fail_next, false)) {
    const Error missing{ExitCode::infrastructure,
                        "the worker left no results.jsonl; it did not finish"};
    outcomes.assign(requests.size(), std::unexpected(missing));
    return outcomes;
  }
  std::int64_t started = store::to_micros(store::now());
  for (const auto& request : requests) {
    auto scaled = request;
    scaled.env["CULPRIT_FAKE_SCALE"] = std::to_string(m_speed);
    auto outcome = m_models.run(scaled);
    if (outcome)
      outcome->started_micros = started++;
    outcomes.push_back(std::move(outcome));
  }
  return outcomes;
}

PlantedHistory::PlantedHistory(int n) {
  range.good = range.good_rev = "g";
  for (int i = 0; i < n; ++i)
    range.commits.push_back(fmt::format("c{:02}", i));
  range.bad = range.bad_rev = range.commits.back();
}

void PlantedHistory::install(FakeRig& rig, const std::vector<std::pair<std::string, double>>& cases,
                             double sigma, parsers::Direction direction) const {
  for (int i = -1; i < static_cast<int>(range.commits.size()); ++i) {
    FakeCommit model;
    model.samples_per_run = 5;
    for (const auto& [name, base] : cases) {
      double level = base;
      if (const auto it = steps.find(name); it != steps.end())
        for (const auto& [at, factor] : it->second)
          if (at <= i)
            level *= factor;
      model.cases.push_back(fake_case(name, level, sigma, direction));
    }
    rig.executor().set_commit(i < 0 ? range.good : range.commits[static_cast<std::size_t>(i)],
                              model);
  }
}

FakeCase fake_case(const std::string& name, double median, double sigma,
                   parsers::Direction direction) {
  FakeCase c;
  c.name = name;
  c.median = median;
  c.sigma = sigma;
  c.direction = direction;
  if (direction == parsers::Direction::higher_is_better) {
    c.metric = "bytes_per_second";
    c.unit = "B/s";
  }
  return c;
}

} // namespace culprit::testing
