#include "core/util/tree_state.hpp"

#include <sys/stat.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/util/json_text.hpp"

namespace culprit {
namespace fs = std::filesystem;

std::optional<TreeState> tree_state(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec)))
    return std::nullopt;
  TreeState state;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    struct stat info{};
    if (::lstat(it->path().c_str(), &info) != 0)
      return std::nullopt;
    const char kind = S_ISDIR(info.st_mode) ? 'd' : (S_ISLNK(info.st_mode) ? 'l' : 'f');
    const auto nanoseconds =
        (static_cast<long long>(info.st_mtim.tv_sec) * 1'000'000'000LL) + info.st_mtim.tv_nsec;
    // A directory's size and time change with its entries, which are compared one by one.
    state[it->path().lexically_relative(dir).generic_string()] =
        kind == 'd' ? "d"
                    : fmt::format("{} {} {:o} {} {}", kind, static_cast<long long>(info.st_size),
                                  info.st_mode & 07777U, nanoseconds,
                                  static_cast<unsigned long long>(info.st_ino));
  }
  if (ec)
    return std::nullopt;
  return state;
}

std::optional<std::string> first_difference(const TreeState& before, const TreeState& after) {
  auto a = before.begin();
  auto b = after.begin();
  while (a != before.end() || b != after.end()) {
    if (b == after.end() || (a != before.end() && a->first < b->first))
      return a->first; // removed
    if (a == before.end() || b->first < a->first)
      return b->first; // added
    if (a->second != b->second)
      return a->first; // changed
    ++a;
    ++b;
  }
  return std::nullopt;
}

std::string to_text(const TreeState& state) {
  return json_text(nlohmann::json(state));
}

std::optional<TreeState> tree_state_from_text(const std::string& text) {
  const auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object())
    return std::nullopt;
  TreeState state;
  for (const auto& [path, entry] : json.items()) {
    if (!entry.is_string())
      return std::nullopt;
    state.emplace(path, entry.get<std::string>());
  }
  return state;
}

} // namespace culprit
