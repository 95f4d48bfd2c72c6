#pragma once
// The scratch directory a command's runs start in: <cache>/scratch/<pid>, made whole under a
// temporary name with its lock (an flock on .lock inside, held while the command lives) and then
// renamed into place, so that every visible one is locked by its process. A command killed with
// SIGKILL cannot remove its own; the next command that opens one removes those whose process is
// gone, and those whose pid now belongs to another process (their lock is free).

#include <filesystem>
#include <utility>

#include "core/util/error.hpp"
#include "core/util/fs.hpp"

namespace culprit::measure {

class ScratchDir {
public:
  // Removes the scratch directories of dead processes under `root`, then makes this one's.
  static Result<ScratchDir> open(const std::filesystem::path& root);
  ScratchDir(ScratchDir&& other) noexcept
      : m_path(std::exchange(other.m_path, {})), m_lock(std::move(other.m_lock)) {}
  ScratchDir& operator=(ScratchDir&&) = delete;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir(); // removes the directory, then lets the lock go

  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
  ScratchDir(std::filesystem::path path, FileLock lock)
      : m_path(std::move(path)), m_lock(std::move(lock)) {}
  std::filesystem::path m_path;
  FileLock m_lock;
};

// The scratch directories under `root` whose process is gone, removed; returns how many.
std::size_t remove_abandoned_scratch(const std::filesystem::path& root);

} // namespace culprit::measure
