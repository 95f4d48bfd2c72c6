#pragma once
// Builds several commits at once in separate workspace slots (--parallel K with the local
// executor). Each worker thread has a Builder of its own, with its own slot and its own handle on
// the repository (libgit2 objects are not shared between threads), kept across calls so that its
// builds stay incremental. At most k_max_parallel_builds run at once: the workspace has four
// slots, and the driver's own builder may hold one.

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/build/builder.hpp"
#include "core/build/provider.hpp"
#include "core/exec/local_executor.hpp"
#include "core/git/repository.hpp"

namespace culprit::build {

inline constexpr int k_max_parallel_builds = 3;

class BuildPool final : public BuildProvider {
public:
  // `main` builds what was not prepared; `parallel` is K (capped as above).
  BuildPool(Builder& main, BuildOptions options, std::filesystem::path repo_path,
            recipe::BuildRecipe recipe, std::filesystem::path repo_cache, int parallel);
  ~BuildPool() override;
  BuildPool(const BuildPool&) = delete;
  BuildPool& operator=(const BuildPool&) = delete;
  BuildPool(BuildPool&&) = delete;
  BuildPool& operator=(BuildPool&&) = delete;

  // The result prepare() made for the commit, or a build by the main builder.
  Result<BuildResult> build(const std::string& commit, const std::string& rev) override;
  // Builds the commits on up to `parallel` threads. A commit that fails to build is a result that
  // says so; an Error (interrupted, the cache failing) stops the whole call.
  Status prepare(std::span<const std::pair<std::string, std::string>> commits) override;

  [[nodiscard]] int threads() const { return m_threads; }

private:
  struct Worker {
    std::unique_ptr<git::Repository> repo;
    std::unique_ptr<Builder> builder;
  };
  Result<Worker*> worker(std::size_t index);
  Status build_all(const std::vector<std::pair<std::string, std::string>>& commits);

  Builder& m_main;
  BuildOptions m_options;
  std::filesystem::path m_repo_path;
  recipe::BuildRecipe m_recipe;
  std::filesystem::path m_repo_cache;
  int m_threads;
  exec::LocalExecutor m_executor;
  std::vector<Worker> m_workers;
  std::mutex m_mutex; // guards m_prepared
  std::map<std::string, BuildResult> m_prepared;
};

} // namespace culprit::build
