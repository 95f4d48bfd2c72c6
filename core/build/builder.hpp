#pragma once
// Building a commit under a recipe, once: the build key is a hash of the commit's tree and the
// recipe's build part, and a key that is already in the build cache costs no build at all.
// A build runs in a workspace slot with {src}, {build}, {commit} and {rev} expanded and CULPRIT_*
// in its environment; its output goes to a log file in the cache; its artifacts are copied into
// the content-addressed cache, where {build} names them at run time. A failed build is recorded
// with its log and not retried unless asked (rebuild).

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/build/cache.hpp"
#include "core/build/workspace.hpp"
#include "core/exec/executor.hpp"
#include "core/git/repository.hpp"
#include "core/recipe/recipe.hpp"
#include "core/util/error.hpp"

namespace culprit::build {

enum class BuildStatus { built, cached, failed, cached_failure };
std::string_view to_string(BuildStatus status);

struct BuildResult {
  std::string commit;
  std::string rev;
  std::string key;
  BuildStatus status = BuildStatus::failed;
  double seconds = 0;      // how long the build command ran (for a cached key: back then)
  double own_seconds = 0;  // culprit's own time in this call, checkout and caching included
  std::string artifact_id; // empty when failed
  std::filesystem::path artifact_dir;
  std::filesystem::path log;
  std::string message; // for failures: what went wrong, one line

  [[nodiscard]] bool ok() const {
    return status == BuildStatus::built || status == BuildStatus::cached;
  }
};

struct BuildOptions {
  bool rebuild = false; // forget a recorded failure (or success) of this key and build again
  std::function<void(std::string_view)> on_message; // waiting for a slot, and the like
};

class Builder {
public:
  Builder(const git::Repository& repo, recipe::BuildRecipe recipe, std::filesystem::path repo_cache,
          exec::Executor& executor);

  [[nodiscard]] std::string build_key(const git::CommitInfo& commit) const;
  [[nodiscard]] const BuildCache& cache() const { return m_cache; }

  // Builds `commit_id` (`rev` is what the user called it, for {rev}). A build that fails is a
  // BuildResult with status failed; an Error means culprit itself could not go on (unwritable
  // cache, unreadable repository, interrupted).
  Result<BuildResult> build(std::string_view commit_id, std::string_view rev,
                            const BuildOptions& options = {});

private:
  Result<BuildResult> run_build(const git::CommitInfo& commit, BuildResult result,
                                const BuildOptions& options);

  const git::Repository& m_repo;
  recipe::BuildRecipe m_recipe;
  std::string m_recipe_hash;
  std::filesystem::path m_repo_cache;
  BuildCache m_cache;
  exec::Executor& m_executor;
  Workspace m_workspace;
  std::optional<Slot> m_slot; // held across builds so that they stay incremental
};

} // namespace culprit::build
