#pragma once
// Small file-system services: atomic writes, advisory locks, the cache directory.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/util/error.hpp"

namespace culprit {

// Writes `contents` to `path` so that readers see the old file or the whole new one, never a
// part: a temporary file in the same directory, fsync, then rename.
// A device or a pipe (/dev/stdout, a FIFO) is written in place instead. Every failure, a full disk
// included, is an infrastructure error that names the file.
Status write_file_atomic(const std::filesystem::path& path, std::string_view contents);
// The same for contents made a piece at a time (a document too large to hold whole): `next` gives
// each piece in turn, then nothing. A piece stays valid until the next call.
using NextPiece = std::function<std::optional<std::string_view>()>;
Status write_file_atomic(const std::filesystem::path& path, const NextPiece& next);

// The most read_file takes by default: far more than any file culprit reads (a recipe, evidence,
// build records, batch results), and a bound for a device that never ends (/dev/zero).
inline constexpr std::size_t k_max_read_bytes = std::size_t{256} << 20;
// The contents of `path`; a file that holds more than `max_bytes` is an error that says the limit.
Result<std::string> read_file(const std::filesystem::path& path,
                              std::size_t max_bytes = k_max_read_bytes);
// "64 MiB", "16 KiB", "100 bytes": a size for messages.
std::string byte_size(std::size_t bytes);

// Creates `dir` (and parents) and checks that culprit can write there.
Status ensure_writable_dir(const std::filesystem::path& dir, std::string_view what);

// The cache root: `override` when given, else $XDG_CACHE_HOME/culprit, else ~/.cache/culprit.
std::filesystem::path cache_root(const std::optional<std::filesystem::path>& override_dir);

// An exclusive advisory lock (flock) on a file, held for the object's lifetime. Locks die with
// the process, so a crashed culprit never leaves a stale lock behind.
class FileLock {
public:
  enum class Wait { no, yes };
  // Returns nullopt (without error) when Wait::no and another process holds the lock.
  static Result<std::optional<FileLock>> acquire(const std::filesystem::path& path, Wait wait);
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

private:
  explicit FileLock(int fd) : m_fd(fd) {}
  int m_fd = -1;
};

} // namespace culprit
