#include "core/git/hash.hpp"

#include <fstream>
#include <iterator>

#include <git2.h>

#include "core/git/library.hpp"

namespace culprit::git {
namespace {

std::string oid_hex(const git_oid& oid) {
  char text[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(text, sizeof text, &oid);
  return text;
}

} // namespace

std::string hash_bytes(std::string_view bytes) {
  GitLibrary::ensure();
  git_oid oid{};
  git_odb_hash(&oid, bytes.data(), bytes.size(), GIT_OBJECT_BLOB);
  return oid_hex(oid);
}

Result<std::string> hash_file(const std::filesystem::path& file) {
  GitLibrary::ensure();
  git_oid oid{};
  if (git_odb_hashfile(&oid, file.c_str(), GIT_OBJECT_BLOB) < 0)
    return infra_error("cannot read {} to hash it; check that it exists and is readable",
                       file.string());
  return oid_hex(oid);
}

Hasher& Hasher::add(std::string_view part) {
  m_buffer += std::to_string(part.size());
  m_buffer += ':';
  m_buffer += part;
  return *this;
}

} // namespace culprit::git
