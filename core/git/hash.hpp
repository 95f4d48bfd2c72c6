#pragma once
// Content hashes: build keys, artifact ids, recipe and host fingerprints. SHA-1 through libgit2's
// object hashing, so that the same bytes hash the same way git would hash a blob of them.

#include <filesystem>
#include <string>
#include <string_view>

#include "core/util/error.hpp"

namespace culprit::git {

// 40 lowercase hex digits.
std::string hash_bytes(std::string_view bytes);
Result<std::string> hash_file(const std::filesystem::path& file);

// Accumulates named parts into one hash; the order of add() calls matters, and each part is
// length-prefixed so that ("ab","c") and ("a","bc") differ.
class Hasher {
public:
  Hasher& add(std::string_view part);
  [[nodiscard]] std::string hex() const { return hash_bytes(m_buffer); }

private:
  std::string m_buffer;
};

} // namespace culprit::git
