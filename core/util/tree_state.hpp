#pragma once
// What a directory tree looks like from the outside: every entry's path, kind, size, mode,
// modification time and inode, without reading a byte of content. Two equal states mean that
// nothing was added, removed, replaced or written in between (a writer that puts back the size
// and the time to the nanosecond aside). The build cache keeps the state of each artifact when
// it assembles it and compares before the artifact is reused; the sampler compares the state of
// a run's artifacts before and after it.

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace culprit {

// Relative path (generic form) -> "kind size mode mtime_ns inode". Symbolic links are entries
// of their own, never followed.
using TreeState = std::map<std::string, std::string>;

// The state of `dir`; nullopt when it is not a directory or cannot be read.
std::optional<TreeState> tree_state(const std::filesystem::path& dir);

// The first path whose entry differs between `before` and `after` (added, removed or changed),
// or nullopt when they are equal.
std::optional<std::string> first_difference(const TreeState& before, const TreeState& after);

// A state as JSON text, for a file that keeps it; and back (nullopt for text that is not one).
std::string to_text(const TreeState& state);
std::optional<TreeState> tree_state_from_text(const std::string& text);

} // namespace culprit
