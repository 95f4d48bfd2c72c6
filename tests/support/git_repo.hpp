#pragma once
// Scripted git repositories for integration tests, made with the git command line so that the
// code under test (libgit2) is checked against real git.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::testing {

class ScratchRepo {
public:
  // `git init` in `dir` (created when missing); bare when asked.
  explicit ScratchRepo(std::filesystem::path dir, bool bare = false);

  [[nodiscard]] const std::filesystem::path& dir() const { return m_dir; }
  void write(std::string_view path, std::string_view contents, bool executable = false);
  void symlink(std::string_view target, std::string_view path);
  void remove(std::string_view path);
  // `git add -A && git commit`; returns the new commit id. Dates advance by one hour a commit.
  std::string commit(std::string_view message, std::string_view author = "Ada Lovelace");
  // Runs git in the repository; throws with git's stderr when it fails.
  std::string git(const std::vector<std::string>& args);
  // The environment every git call gets: no user or system config, fixed identities and dates.
  [[nodiscard]] std::map<std::string, std::string>
  git_env(std::string_view author = "Ada Lovelace") const;

private:
  std::filesystem::path m_dir;
  int m_commits = 0;
};

// Every file under `root` (including .git): relative path -> type, mode and content hash. Two
// equal snapshots mean nothing was written, created or deleted.
std::map<std::string, std::string> snapshot(const std::filesystem::path& root);

} // namespace culprit::testing
