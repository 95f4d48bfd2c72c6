#pragma once
// RAII for libgit2: every handle is a unique_ptr whose deleter calls the matching git_*_free, and
// git_check() turns a negative return code into an Error carrying libgit2's own message.

#include <memory>
#include <string>
#include <string_view>

#include <git2.h>

#include "core/util/error.hpp"

namespace culprit::git {

template <class T, void (*Free)(T*)> struct Deleter {
  void operator()(T* handle) const { Free(handle); }
};

using RepositoryPtr = std::unique_ptr<git_repository, Deleter<git_repository, git_repository_free>>;
using ObjectPtr = std::unique_ptr<git_object, Deleter<git_object, git_object_free>>;
using CommitPtr = std::unique_ptr<git_commit, Deleter<git_commit, git_commit_free>>;
using TreePtr = std::unique_ptr<git_tree, Deleter<git_tree, git_tree_free>>;
using BlobPtr = std::unique_ptr<git_blob, Deleter<git_blob, git_blob_free>>;
using IndexPtr = std::unique_ptr<git_index, Deleter<git_index, git_index_free>>;
using DiffPtr = std::unique_ptr<git_diff, Deleter<git_diff, git_diff_free>>;
using RevwalkPtr = std::unique_ptr<git_revwalk, Deleter<git_revwalk, git_revwalk_free>>;
using SubmodulePtr = std::unique_ptr<git_submodule, Deleter<git_submodule, git_submodule_free>>;
using ConfigPtr = std::unique_ptr<git_config, Deleter<git_config, git_config_free>>;

// libgit2's message for the last error on this thread, or `fallback`.
std::string last_error_message(std::string_view fallback = "unknown libgit2 error");

// Ok when rc >= 0; otherwise an Error whose message is `what` followed by libgit2's reason.
Status git_check(int rc, std::string_view what, ExitCode code = ExitCode::infrastructure);

std::string oid_to_hex(const git_oid& oid);

} // namespace culprit::git
