#pragma once
// Checking a tree out into a directory of culprit's own (a workspace slot), never into the user's
// working tree. The slot has an index file of its own, so the user's index is never read for
// writing, and the repository's HEAD, refs and config are never touched.

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/git/repository.hpp"
#include "core/util/error.hpp"

namespace culprit::git {

struct CheckoutRequest {
  std::string tree_id;          // the tree to check out
  std::filesystem::path target; // the directory to make match it
  // The slot's private index (created when missing), used by no other process while this one
  // checks out: a lock left on it (index_file.lock) is removed.
  std::filesystem::path index_file;
  // The tree the target held after the previous checkout; nullopt for a fresh directory. Only
  // files that differ between the baseline and the new tree, or that were changed in the target
  // since, are written; files gone from the new tree are deleted; untracked files (in-source
  // build outputs) are kept.
  std::optional<std::string> baseline_tree;
};

struct CheckoutStats {
  std::size_t written = 0;
  std::size_t removed = 0;
};

// Opens its own handle on `repository_dir` (the common dir of the repository, or a submodule's
// module store) so that the private index stays private.
Result<CheckoutStats> checkout_tree(const std::filesystem::path& repository_dir,
                                    const CheckoutRequest& request);

// The gitlink entries (submodules) of a tree, recursively: path in the tree -> recorded commit.
struct GitlinkEntry {
  std::string path;
  std::string commit;
};
Result<std::vector<GitlinkEntry>> gitlinks(const std::filesystem::path& repository_dir,
                                           const std::string& tree_id);

} // namespace culprit::git

namespace culprit::git {

// The tree of `commit_id` in the repository at `repository_dir` (for submodules: their module
// store), or an error saying the commit is not there.
Result<std::string> tree_of_commit(const std::filesystem::path& repository_dir,
                                   const std::string& commit_id);

// path -> submodule name, from the .gitmodules file in `tree_id` (empty when there is none). A
// name that would lead out of the module store (with a ".." component, or absolute) is an error.
// `scratch` is a file culprit may write, because libgit2 parses config files from disk only.
Result<std::map<std::string, std::string>>
submodule_names(const std::filesystem::path& repository_dir, const std::string& tree_id,
                const std::filesystem::path& scratch);

} // namespace culprit::git
