#pragma once
// A temporary directory that removes itself.

#include <filesystem>
#include <string_view>

namespace culprit::testing {

class TempDir {
public:
  explicit TempDir(std::string_view prefix = "culprit-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  [[nodiscard]] std::filesystem::path operator/(std::string_view child) const {
    return m_path / child;
  }

private:
  std::filesystem::path m_path;
};

} // namespace culprit::testing
