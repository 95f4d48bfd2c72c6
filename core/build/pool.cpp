#include "core/build/pool.hpp"

#include <algorithm>
#include <thread>

namespace culprit::build {

BuildPool::BuildPool(Builder& main, BuildOptions options, std::filesystem::path repo_path,
                     recipe::BuildRecipe recipe, std::filesystem::path repo_cache, int parallel)
    : m_main(main), m_options(std::move(options)), m_repo_path(std::move(repo_path)),
      m_recipe(std::move(recipe)), m_repo_cache(std::move(repo_cache)),
      m_threads(std::clamp(parallel, 1, k_max_parallel_builds)) {}

BuildPool::~BuildPool() = default;

Result<BuildPool::Worker*> BuildPool::worker(std::size_t index) {
  auto& worker = m_workers[index];
  if (!worker.builder) {
    CULPRIT_TRY_ASSIGN(auto repo, git::Repository::open(m_repo_path));
    worker.repo = std::make_unique<git::Repository>(std::move(repo));
    worker.builder = std::make_unique<Builder>(*worker.repo, m_recipe, m_repo_cache, m_executor);
  }
  return &worker;
}

Result<BuildResult> BuildPool::build(const std::string& commit, const std::string& rev) {
  {
    const std::scoped_lock lock(m_mutex);
    if (const auto it = m_prepared.find(commit); it != m_prepared.end())
      return it->second;
  }
  return m_main.build(commit, rev, m_options);
}

Status BuildPool::prepare(std::span<const std::pair<std::string, std::string>> commits) {
  // Each commit once, and not again: two threads must never build the same commit at once.
  std::vector<std::pair<std::string, std::string>> unique;
  for (const auto& commit : commits) {
    const bool seen =
        std::ranges::any_of(unique, [&](const auto& other) { return other.first == commit.first; });
    if (!seen && !m_prepared.contains(commit.first))
      unique.push_back(commit);
  }
  return build_all(unique);
}

Status BuildPool::build_all(const std::vector<std::pair<std::string, std::string>>& commits) {
  if (m_threads <= 1 || commits.size() <= 1)
    return {};
  const auto threads = std::min<std::size_t>(static_cast<std::size_t>(m_threads), commits.size());
  m_workers.resize(std::max(m_workers.size(), threads));
  std::vector<Worker*> workers;
  for (std::size_t i = 0; i < threads; ++i) {
    CULPRIT_TRY_ASSIGN(auto* worker, worker(i));
    workers.push_back(worker);
  }
  std::vector<Status> outcomes(threads);
  {
    std::vector<std::jthread> running;
    running.reserve(threads);
    for (std::size_t t = 0; t < threads; ++t)
      running.emplace_back([&, t] {
        // Round robin: thread t builds commits t, t + threads, ...
        for (std::size_t i = t; i < commits.size(); i += threads) {
          auto built = workers[t]->builder->build(commits[i].first, commits[i].second, m_options);
          if (!built) {
            outcomes[t] = std::unexpected(built.error());
            return;
          }
          const std::scoped_lock lock(m_mutex);
          m_prepared[commits[i].first] = std::move(*built);
        }
      });
  }
  for (auto& outcome : outcomes)
    CULPRIT_TRY(outcome);
  return {};
}

} // namespace culprit::build
