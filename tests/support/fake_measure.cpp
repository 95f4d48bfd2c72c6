#include "tests/support/fake_measure.hpp"

#include <stdexcept>

namespace culprit::testing {

Result<BuildResult> FakeBuildProvider::build(const std::string& commit, const std::string& rev) {
  ++m_builds;
  BuildResult result;
  result.commit = commit;
  result.rev = rev;
  result.key = "key-" + commit;
  if (m_failing.contains(commit)) {
    result.status = BuildStatus::failed;
    result.message = "the build command exited with status 2";
    return result;
  }
  result.status = BuildStatus::built;
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

Sampler& FakeRig::new_sampler(int warmup, std::optional<double> budget_seconds) {
  RunRecipe run;
  run.command = std::string("bench");
  run.format = "culprit";
  SamplerOptions options;
  options.run = run;
  options.parse = parse_options_for(run).value();
  options.recipe_hash = "fake-recipe";
  options.host_id = "fake-host";
  options.warmup = warmup;
  if (budget_seconds)
    options.budget = std::chrono::duration<double>(*budget_seconds);
  options.seed = m_seed;
  options.scratch_dir = m_dir;
  m_sampler = std::make_unique<Sampler>(m_executor, *m_store, std::move(options));
  return *m_sampler;
}

Subject FakeRig::subject(const std::string& commit, const std::string& artifact_id) {
  const auto artifact = artifact_id.empty() ? "artifact-" + commit : artifact_id;
  return {commit, commit, "key-" + commit, artifact, "/nonexistent/" + artifact};
}

FakeCase fake_case(const std::string& name, double median, double sigma, Direction direction) {
  FakeCase c;
  c.name = name;
  c.median = median;
  c.sigma = sigma;
  c.direction = direction;
  if (direction == Direction::higher_is_better) {
    c.metric = "bytes_per_second";
    c.unit = "B/s";
  }
  return c;
}

} // namespace culprit::testing
