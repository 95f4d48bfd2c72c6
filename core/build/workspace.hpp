#pragma once
// Workspace slots: directories of culprit's own where revisions are checked out and built.
// A slot persists across revisions: checking out the next commit rewrites only the files that
// differ and deletes the ones that are gone, so make/ninja/CMake builds in it stay incremental.
// A slot is locked while in use, so two culprit processes never share one.

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/git/checkout.hpp"
#include "core/git/repository.hpp"
#include "core/util/error.hpp"
#include "core/util/fs.hpp"

namespace culprit::build {

// What a slot holds now; persisted next to it.
struct SlotState {
  std::string commit;
  std::string tree;
  std::map<std::string, std::string> submodule_trees; // path in the slot -> tree checked out
};

struct SlotCheckout {
  std::size_t written = 0;
  std::size_t removed = 0;
  bool fresh = false; // the slot was empty or unusable and was checked out from scratch
};

class Slot {
public:
  [[nodiscard]] int number() const { return m_number; }
  [[nodiscard]] const std::filesystem::path& root() const { return m_root; }
  [[nodiscard]] std::filesystem::path source_dir() const { return m_root / "src"; }
  [[nodiscard]] std::filesystem::path build_dir() const { return m_root / "build"; }
  [[nodiscard]] const std::optional<SlotState>& state() const { return m_state; }

  // Makes source_dir() hold `commit` (and its submodules at their recorded commits, from the
  // repository's local module store: no network), with a .git of the slot's own: a repository
  // whose HEAD is `commit`, whose index matches the checkout and whose objects and tags are read
  // from the user's repository (objects/info/alternates), so that a build that runs git sees the
  // commit it builds and writes only to the slot.
  Result<SlotCheckout> checkout(const git::Repository& repo, const git::CommitInfo& commit);
  // The slot's own git directory, which source_dir()/.git names.
  [[nodiscard]] std::filesystem::path git_dir() const { return m_root / "git"; }

private:
  friend class Workspace;
  Slot(int number, std::filesystem::path root, FileLock lock);
  Status save_state() const;
  Status write_git_dir(const git::Repository& repo, const git::CommitInfo& commit) const;
  Result<SlotCheckout> checkout_submodules(const std::filesystem::path& repository_dir,
                                           const std::filesystem::path& dir,
                                           const std::string& tree,
                                           std::map<std::string, std::string>& trees,
                                           const std::string& prefix);

  int m_number;
  std::filesystem::path m_root;
  FileLock m_lock;
  std::optional<SlotState> m_state;
};

class Workspace {
public:
  // `repo_cache` is the per-repository cache directory; slots live in its slots/ subdirectory.
  explicit Workspace(const std::filesystem::path& repo_cache, int max_slots = 4)
      : m_slots_dir(repo_cache / "slots"), m_max_slots(max_slots) {}

  // Takes the first free slot. When all are taken by other processes, calls `on_wait` once with
  // a message and waits for slot 0.
  Result<Slot> acquire(const std::function<void(std::string_view)>& on_wait = {});

private:
  std::filesystem::path m_slots_dir;
  int m_max_slots;
};

} // namespace culprit::build
