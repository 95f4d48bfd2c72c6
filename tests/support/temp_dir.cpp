#include "tests/support/temp_dir.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <system_error>

namespace culprit::testing {

TempDir::TempDir(std::string_view prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / prefix).string() + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("mkdtemp failed for " + pattern);
  m_path = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  // Make everything writable first: tests create read-only directories on purpose.
  for (auto it = std::filesystem::recursive_directory_iterator(m_path, ignored);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ignored)) {
    if (!it->is_symlink(ignored))
      std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all,
                                   std::filesystem::perm_options::add, ignored);
  }
  std::filesystem::remove_all(m_path, ignored);
}

} // namespace culprit::testing
