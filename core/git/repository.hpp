#pragma once
// A read-only view of the user's git repository. Nothing here writes to the repository: not the
// working tree, the index, HEAD, refs, config or the object database.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/git/handles.hpp"
#include "core/util/error.hpp"

namespace culprit::git {

struct Signature {
  std::string name;
  std::string email;
  std::int64_t time = 0;                     // seconds since the epoch
  int offset_minutes = 0;                    // the author's time zone
  [[nodiscard]] std::string iso8601() const; // 2026-01-31T12:00:00+01:00
};

struct CommitInfo {
  std::string id;   // 40 hex digits
  std::string tree; // tree id
  std::vector<std::string> parents;
  Signature author;
  Signature committer;
  std::string subject; // first line of the message
  std::string message;
};

// One path a commit changed against its first parent (against the empty tree for a root commit).
struct ChangedPath {
  enum class Kind { added, modified, deleted, renamed, type_changed };
  Kind kind = Kind::modified;
  std::string path;     // the path after the commit
  std::string old_path; // differs from path for renames
};

enum class History { first_parent, full_dag };

class Repository {
public:
  // Opens the repository that contains `path` (any directory inside a working tree, a linked
  // worktree, or a bare repository).
  static Result<Repository> open(const std::filesystem::path& path);

  // The top of the working tree; empty for a bare repository.
  [[nodiscard]] std::filesystem::path workdir() const;
  // The directory shared by all worktrees (the main .git, or the bare repository).
  [[nodiscard]] std::filesystem::path common_dir() const;
  [[nodiscard]] bool is_bare() const;
  [[nodiscard]] bool is_shallow() const;
  // A stable identifier of this repository on this machine, for the cache directory.
  [[nodiscard]] std::string id() const;

  // Resolves a rev-spec (branch, tag, short id, HEAD~3, v1.2^{commit}) to a commit id. Unknown,
  // ambiguous and non-commit revisions are usage errors that say so.
  [[nodiscard]] Result<std::string> resolve(std::string_view revision) const;
  [[nodiscard]] Result<CommitInfo> commit_info(std::string_view commit_id) const;
  [[nodiscard]] Result<std::vector<ChangedPath>> changed_paths(std::string_view commit_id) const;
  // True when `ancestor` is `descendant` or one of its ancestors.
  [[nodiscard]] Result<bool> is_ancestor(std::string_view ancestor,
                                         std::string_view descendant) const;
  // The best common ancestor of two commits (git merge-base), or an error when they share none.
  [[nodiscard]] Result<std::string> merge_base(std::string_view a, std::string_view b) const;
  // The commits of `good..bad` as git bisect considers them, oldest first, `bad` last and `good`
  // excluded. With History::first_parent only the first-parent chain from `bad` is followed.
  [[nodiscard]] Result<std::vector<std::string>> range(std::string_view good, std::string_view bad,
                                                       History history) const;
  // Every tag: its full name (refs/tags/v1.4) and the id of the object it points at.
  [[nodiscard]] Result<std::vector<std::pair<std::string, std::string>>> tags() const;
  // The contents of `path` in the tree of `commit_id`, or an error when it is not there.
  [[nodiscard]] Result<std::string> read_file_at(std::string_view commit_id,
                                                 std::string_view path) const;

  [[nodiscard]] git_repository* raw() const { return m_repo.get(); }

private:
  explicit Repository(RepositoryPtr repo) : m_repo(std::move(repo)) {}
  [[nodiscard]] Result<CommitPtr> lookup_commit(std::string_view commit_id) const;

  RepositoryPtr m_repo;
};

} // namespace culprit::git
