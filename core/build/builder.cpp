#include "core/build/builder.hpp"

#include <chrono>
#include <cstdlib>

#include "core/git/handles.hpp"
#include "core/git/hash.hpp"
#include "core/recipe/command_template.hpp"
#include "core/util/fs.hpp"

namespace culprit::build {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// nvcc reads NVCC_APPEND_FLAGS; -Xptxas -v makes ptxas print each kernel's resources.
void add_ptxas_report(std::map<std::string, std::string>& env) {
  std::string flags;
  if (const auto it = env.find("NVCC_APPEND_FLAGS"); it != env.end())
    flags = it->second;
  else if (const char* inherited = std::getenv("NVCC_APPEND_FLAGS"))
    flags = inherited;
  if (flags.find("-Xptxas") == std::string::npos)
    flags += flags.empty() ? "-Xptxas -v" : " -Xptxas -v";
  env["NVCC_APPEND_FLAGS"] = flags;
}

using TreeEntryPtr =
    std::unique_ptr<git_tree_entry, git::Deleter<git_tree_entry, git_tree_entry_free>>;

// What the tree of a commit tracks, for in-source artifacts: a path that is one of its files or
// links, or lies inside one of its submodules (whose own trees are not looked into: what is there
// stays), and the slot's .git. A tree that cannot be read tracks everything, so that nothing is
// removed on a guess.
class TrackedPaths {
public:
  TrackedPaths(git_repository* repo, const std::string& tree_id) {
    git_oid oid;
    git_tree* tree = nullptr;
    if (git_oid_fromstr(&oid, tree_id.c_str()) == 0 && git_tree_lookup(&tree, repo, &oid) == 0)
      m_tree.reset(tree);
  }

  [[nodiscard]] bool tracks(const std::filesystem::path& relative) const {
    if (!m_tree || relative == ".git")
      return true; // the slot's own link to its git directory stays too
    std::filesystem::path prefix;
    for (const auto& part : relative) {
      prefix /= part;
      git_tree_entry* raw = nullptr;
      if (git_tree_entry_bypath(&raw, m_tree.get(), prefix.generic_string().c_str()) != 0)
        return false;
      const TreeEntryPtr entry(raw);
      if (git_tree_entry_type(entry.get()) != GIT_OBJECT_TREE)
        return true; // the file or link itself, or a submodule on the way
    }
    return false; // a directory of the tree is no file of it
  }

private:
  git::TreePtr m_tree;
};

} // namespace

std::string_view to_string(BuildStatus status) {
  switch (status) {
  case BuildStatus::built:
    return "built";
  case BuildStatus::cached:
    return "cached";
  case BuildStatus::failed:
    return "failed";
  case BuildStatus::cached_failure:
    return "failed (cached)";
  }
  return "?";
}

Builder::Builder(const git::Repository& repo, recipe::BuildRecipe recipe,
                 std::filesystem::path repo_cache, exec::Executor& executor)
    : m_repo(repo), m_recipe(std::move(recipe)), m_recipe_hash(recipe::build_recipe_hash(m_recipe)),
      m_repo_cache(std::move(repo_cache)), m_cache(m_repo_cache), m_executor(executor),
      m_workspace(m_repo_cache) {}

std::string Builder::build_key(const git::CommitInfo& commit) const {
  return git::Hasher().add("culprit.build/1").add(commit.tree).add(m_recipe_hash).hex();
}

Result<BuildResult> Builder::build(std::string_view commit_id, std::string_view rev,
                                   const BuildOptions& options) {
  const auto start = Clock::now();
  CULPRIT_TRY_ASSIGN(const auto commit, m_repo.commit_info(commit_id));
  BuildResult result;
  result.commit = commit.id;
  result.rev = rev.empty() ? commit.id : std::string(rev);
  result.key = build_key(commit);
  result.log = m_cache.log_path(result.key);

  if (options.rebuild) {
    CULPRIT_TRY(m_cache.forget(result.key));
  } else if (const auto record = m_cache.lookup(result.key)) {
    result.status = record->ok ? BuildStatus::cached : BuildStatus::cached_failure;
    result.seconds = record->seconds;
    result.artifact_id = record->artifact_id;
    if (record->ok)
      result.artifact_dir = m_cache.artifact_dir(record->artifact_id);
    result.log = record->log;
    result.message = record->message;
    result.own_seconds = seconds_since(start);
    return result;
  }
  CULPRIT_TRY_ASSIGN(result, run_build(commit, std::move(result), options));
  result.own_seconds = seconds_since(start) - result.seconds;
  return result;
}

Result<BuildResult> Builder::run_build(const git::CommitInfo& commit, BuildResult result,
                                       const BuildOptions& options) {
  if (!m_slot) {
    CULPRIT_TRY_ASSIGN(auto slot, m_workspace.acquire(options.on_message));
    m_slot.emplace(std::move(slot));
  }
  CULPRIT_TRY(m_slot->checkout(m_repo, commit));
  CULPRIT_TRY(ensure_writable_dir(m_slot->build_dir(), "cache directory"));
  CULPRIT_TRY(ensure_writable_dir(result.log.parent_path(), "cache directory"));
  // The build directory persists from one commit to the next, so that builds stay incremental;
  // the artifacts themselves are made anew by every build (cache.hpp), so that none holds what a
  // build of another commit left in the slot.
  const ArtifactSources sources{m_slot->build_dir(), m_slot->source_dir(), m_recipe.artifacts};
  const TrackedPaths tracked(m_repo.raw(), commit.tree);
  CULPRIT_TRY(clear_artifact_outputs(
      sources, [&](const std::filesystem::path& path) { return tracked.tracks(path); }));

  const recipe::TemplateValues values{m_slot->source_dir().string(), m_slot->build_dir().string(),
                                      commit.id, result.rev};
  CULPRIT_TRY_ASSIGN(const auto command,
                     recipe::expand_template(m_recipe.command, values, recipe::Quoting::shell));
  exec::ExecRequest request;
  // One stream in the log, in the order the build wrote it.
  request.command = "exec 2>&1\n" + command;
  request.cwd = m_slot->source_dir();
  request.env = m_recipe.env;
  // A git command in the build finds the slot's own .git, and never looks above the cache for
  // the user's repository (the cache may live inside the user's working tree).
  request.env.try_emplace("GIT_CEILING_DIRECTORIES", m_repo_cache.string());
  for (auto& [name, value] : recipe::template_environment(values))
    request.env[name] = value;
  if (m_recipe.ptxas_report)
    add_ptxas_report(request.env);
  request.timeout = m_recipe.timeout;
  request.output_limit = std::size_t{256} << 20;

  const auto started = Clock::now();
  auto ran = m_executor.run(request);
  result.seconds = seconds_since(started);
  if (!ran) {
    if (ran.error().code == ExitCode::interrupted)
      return std::unexpected(ran.error()); // not recorded: the next attempt builds again
    result.status = BuildStatus::failed;
    result.message = ran.error().message;
  } else {
    std::string log =
        fmt::format("# culprit build of {} ({})\n# {}\n", commit.id, result.rev, command);
    log += ran->out;
    if (ran->out_truncated)
      log += fmt::format("\n# [log truncated: {} bytes in all]\n", ran->out_bytes);
    CULPRIT_TRY(write_file_atomic(result.log, log));
    if (ran->succeeded()) {
      auto stored = m_cache.store_artifacts(sources);
      if (stored) {
        result.status = BuildStatus::built;
        result.artifact_id = *stored;
        result.artifact_dir = m_cache.artifact_dir(*stored);
      } else if (stored.error().code == ExitCode::usage) {
        result.status = BuildStatus::failed; // this commit did not produce the artifacts
        result.message = stored.error().message;
      } else {
        return std::unexpected(stored.error()); // the cache itself failed: nothing recorded
      }
    } else {
      result.status = BuildStatus::failed;
      const bool not_found = ran->signal == 0 && !ran->timed_out && ran->exit_code == 127;
      result.message = fmt::format(
          "the build command {}{}; see {}", exec::describe_outcome(*ran, request),
          not_found ? " (command not found: check [build] command)" : "", result.log.string());
    }
  }
  BuildRecord record{result.key,         commit.id,  commit.tree,    result.ok(), result.seconds,
                     result.artifact_id, result.log, result.message, ""};
  CULPRIT_TRY(m_cache.record(record));
  return result;
}

} // namespace culprit::build
