#include "core/util/fs.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/interrupt.hpp"

namespace culprit {
namespace {

std::string errno_text() {
  return std::strerror(errno);
}

// Writes all of `contents` to `fd`; false with errno set when the system refused.
bool write_all(int fd, std::string_view contents) {
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Writes every piece `next` gives to `fd`; false with errno set when the system refused.
bool write_pieces(int fd, const NextPiece& next) {
  for (auto piece = next(); piece; piece = next())
    if (!write_all(fd, *piece))
      return false;
  return true;
}

// A device or a pipe (/dev/stdout, /dev/full, a FIFO) is written where it is: a temporary file
// renamed over it would replace the device node with a regular file.
Status write_in_place(const std::filesystem::path& path, const NextPiece& next) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return infra_error("cannot write {}: {}", path.string(), errno_text());
  const bool written = write_pieces(fd, next);
  const std::string reason = written ? std::string() : errno_text();
  if (::close(fd) != 0 && written)
    return infra_error("cannot write {}: {}", path.string(), errno_text());
  if (!written)
    return infra_error("cannot write {}: {}; free some space or choose another path", path.string(),
                       reason);
  return {};
}

} // namespace

Status write_file_atomic(const std::filesystem::path& path, std::string_view contents) {
  bool given = false;
  return write_file_atomic(path, [&]() -> std::optional<std::string_view> {
    if (given)
      return std::nullopt;
    given = true;
    return contents;
  });
}

Status write_file_atomic(const std::filesystem::path& path, const NextPiece& next) {
  struct stat existing = {};
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode) &&
      !S_ISDIR(existing.st_mode))
    return write_in_place(path, next);
  const auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::string temp = (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = mkstemp(temp.data());
  if (fd < 0)
    return infra_error("cannot write {}: {}; check that the directory is writable", path.string(),
                       errno_text());
  if (!write_pieces(fd, next)) {
    const std::string reason = errno_text();
    ::close(fd);
    ::unlink(temp.c_str());
    return infra_error("cannot write {}: {}; free some space or choose another path", path.string(),
                       reason);
  }
  const bool synced = ::fsync(fd) == 0 && ::fchmod(fd, 0644) == 0;
  std::string reason = synced ? std::string() : errno_text();
  // close() is where some file systems (NFS, FUSE) report that the data did not make it.
  if (::close(fd) != 0 && synced)
    reason = errno_text();
  if (!reason.empty()) {
    ::unlink(temp.c_str());
    return infra_error("cannot write {}: {}", path.string(), reason);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    reason = errno_text();
    ::unlink(temp.c_str());
    return infra_error("cannot write {}: {}", path.string(), reason);
  }
  return {};
}

Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes) {
  // A FIFO is opened without waiting for a writer (a blocking open would wait for ever when
  // none comes); a writer that is there but has not written yet is then waited for.
  struct stat info{};
  const bool fifo = ::stat(path.c_str(), &info) == 0 && S_ISFIFO(info.st_mode);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | (fifo ? O_NONBLOCK : 0));
  if (fd < 0)
    return infra_error("cannot read {}: {}", path.string(), errno_text());
  std::string text;
  std::array<char, 1 << 16> chunk{};
  bool waiting = fifo;
  while (true) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (waiting && n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // A writer holds the FIFO open: read as from any pipe, waiting for what it writes.
      waiting = false;
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      continue;
    }
    if (waiting && n == 0) {
      ::close(fd);
      return usage_error("nothing was written to {}, a FIFO that no program holds open for "
                         "writing; start the program that writes it first, or give a file",
                         path.string());
    }
    waiting = false;
    if (n < 0) {
      const std::string reason = errno_text();
      ::close(fd);
      return infra_error("cannot read {}: {}", path.string(), reason);
    }
    if (n == 0)
      break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      return infra_error("{} holds more than {}, the most culprit reads from such a file; check "
                         "that it is the right file",
                         path.string(), byte_size(max_bytes));
    }
    text.append(chunk.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

std::string byte_size(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0)
    return fmt::format("{} MiB", bytes >> 20U);
  if (bytes >= (std::size_t{1} << 10) && bytes % (std::size_t{1} << 10) == 0)
    return fmt::format("{} KiB", bytes >> 10U);
  return fmt::format("{} bytes", bytes);
}

namespace {

// The nearest of `dir` and its parents that is a symbolic link to nothing, if any: mkdir says only
// "File exists" there.
std::optional<std::filesystem::path> dangling_link_on(const std::filesystem::path& dir) {
  std::error_code ec;
  for (auto at = dir; !at.empty(); at = at.parent_path()) {
    if (std::filesystem::is_symlink(at, ec) && !std::filesystem::exists(at, ec))
      return at;
    if (at == at.parent_path())
      break;
  }
  return std::nullopt;
}

} // namespace

Status ensure_writable_dir(const std::filesystem::path& dir, std::string_view what) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    if (const auto link = dangling_link_on(dir)) {
      std::error_code read_ec;
      const auto target = std::filesystem::read_symlink(*link, read_ec);
      return usage_error("cannot create the {} {}: {} is a symbolic link to {}, which does not "
                         "exist; create that directory, remove the link, or pass --cache-dir "
                         "with a writable directory",
                         what, dir.string(), link->string(), target.string());
    }
  }
  if (ec || ::access(dir.c_str(), W_OK | X_OK) != 0) {
    const std::string reason = ec ? ec.message() : errno_text();
    return usage_error("cannot write to the {} {}: {}; pass --cache-dir with a writable directory",
                       what, dir.string(), reason);
  }
  return {};
}

std::filesystem::path cache_root(const std::optional<std::filesystem::path>& override_dir) {
  if (override_dir && !override_dir->empty())
    return std::filesystem::absolute(*override_dir);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/')
    return std::filesystem::path(xdg) / "culprit";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::filesystem::path(home) / ".cache" / "culprit";
  return std::filesystem::temp_directory_path() / "culprit-cache";
}

Result<std::optional<FileLock>> FileLock::acquire(const std::filesystem::path& path, Wait wait) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return infra_error("cannot open the lock file {}: {}", path.string(), errno_text());
  const int operation = LOCK_EX | (wait == Wait::no ? LOCK_NB : 0);
  while (::flock(fd, operation) != 0) {
    if (errno == EINTR && wait == Wait::yes && !interrupt_requested())
      continue;
    const int saved = errno;
    ::close(fd);
    if (saved == EWOULDBLOCK)
      return std::optional<FileLock>();
    if (saved == EINTR)
      return fail(ExitCode::interrupted, "interrupted while waiting for " + path.string());
    return infra_error("cannot lock {}: {}", path.string(), std::strerror(saved));
  }
  return std::optional<FileLock>(FileLock(fd));
}

FileLock::FileLock(FileLock&& other) noexcept : m_fd(other.m_fd) {
  other.m_fd = -1;
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (m_fd >= 0)
      ::close(m_fd);
    m_fd = other.m_fd;
    other.m_fd = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (m_fd >= 0)
    ::close(m_fd);
}

} // namespace culprit
