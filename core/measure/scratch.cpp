#include "core/measure/scratch.hpp"

#include <cerrno>
#include <csignal>
#include <random>

#include <fmt/format.h>
#include <unistd.h>

namespace culprit::measure {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view k_new_prefix = ".new-";

bool process_alive(long pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

// The leading number of `text`, or 0.
long leading_pid(std::string_view text) {
  long pid = 0;
  for (const char c : text) {
    if (c < '0' || c > '9')
      break;
    pid = (pid * 10) + (c - '0');
    if (pid > 1'000'000'000)
      return 0;
  }
  return pid;
}

bool abandoned(const fs::path& dir) {
  const auto name = dir.filename().string();
  if (name.starts_with(k_new_prefix)) // being made: the maker's pid decides
    return !process_alive(leading_pid(std::string_view(name).substr(k_new_prefix.size())));
  const long pid = leading_pid(name);
  if (pid == 0 || std::to_string(pid) != name)
    return false; // not culprit's
  if (!process_alive(pid))
    return true;
  // The pid is alive: a culprit holds the lock of its directory; any other process does not.
  std::error_code ec;
  if (!fs::exists(dir / ".lock", ec))
    return false; // from a culprit that kept no lock: wait until its pid is gone
  auto lock = FileLock::acquire(dir / ".lock", FileLock::Wait::no);
  return lock && lock->has_value();
}

} // namespace

std::size_t remove_abandoned_scratch(const fs::path& root) {
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec) || !abandoned(it->path()))
      continue;
    std::error_code ignored;
    if (fs::remove_all(it->path(), ignored) > 0)
      ++removed;
  }
  return removed;
}

Result<ScratchDir> ScratchDir::open(const fs::path& root) {
  CULPRIT_TRY(ensure_writable_dir(root, "cache directory"));
  remove_abandoned_scratch(root);
  const auto path = root / std::to_string(::getpid());
  std::random_device random;
  const auto temp = root / fmt::format("{}{}-{:x}", k_new_prefix, ::getpid(), random());
  std::error_code ec;
  fs::create_directory(temp, ec);
  if (ec)
    return infra_error("cannot create the scratch directory {}: {}; check the permissions of "
                       "the cache directory or pass --cache-dir",
                       temp.string(), ec.message());
  auto lock = FileLock::acquire(temp / ".lock", FileLock::Wait::yes);
  if (!lock || !lock->has_value()) {
    fs::remove_all(temp, ec);
    return lock ? infra_error("cannot lock {}", (temp / ".lock").string())
                : std::unexpected(lock.error());
  }
  fs::remove_all(path, ec); // an earlier process of this pid, gone
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove_all(temp, ignored);
    return infra_error("cannot create the scratch directory {}: {}", path.string(), ec.message());
  }
  return ScratchDir(path, std::move(**lock));
}

ScratchDir::~ScratchDir() {
  if (m_path.empty())
    return;
  std::error_code ignored;
  fs::remove_all(m_path, ignored);
}

} // namespace culprit::measure
