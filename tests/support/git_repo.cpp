#include "tests/support/git_repo.hpp"

#include <fstream>
#include <stdexcept>

#include <sys/stat.h>

#include "core/git/hash.hpp"
#include "tests/support/process.hpp"

namespace culprit::testing {

ScratchRepo::ScratchRepo(std::filesystem::path dir, bool bare) : m_dir(std::move(dir)) {
  std::filesystem::create_directories(m_dir);
  if (bare)
    git({"init", "-q", "--bare", "-b", "main"});
  else
    git({"init", "-q", "-b", "main"});
}

std::map<std::string, std::string> ScratchRepo::git_env(std::string_view author) const {
  std::string email(author);
  for (auto& c : email)
    c = c == ' ' ? '.' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  email += "@example.com";
  const std::string date = std::to_string(1767225600 + m_commits * 3600) + " +0000";
  return {{"GIT_CONFIG_NOSYSTEM", "1"},
          {"GIT_CONFIG_GLOBAL", "/dev/null"},
          {"GIT_AUTHOR_NAME", std::string(author)},
          {"GIT_AUTHOR_EMAIL", email},
          {"GIT_AUTHOR_DATE", date},
          {"GIT_COMMITTER_NAME", std::string(author)},
          {"GIT_COMMITTER_EMAIL", email},
          {"GIT_COMMITTER_DATE", date},
          {"LC_ALL", "C"}};
}

std::string ScratchRepo::git(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"git", "-c", "protocol.file.allow=always", "-c",
                                "advice.detachedHead=false"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto output = run_process(argv, m_dir, git_env());
  if (output.exit_code != 0)
    throw std::runtime_error("git " + (args.empty() ? std::string() : args.front()) +
                             " failed: " + output.err);
  return output.out;
}

void ScratchRepo::write(std::string_view path, std::string_view contents, bool executable) {
  const auto file = m_dir / path;
  std::filesystem::create_directories(file.parent_path());
  std::filesystem::remove(file);
  std::ofstream(file, std::ios::binary) << contents;
  std::filesystem::permissions(file, executable ? std::filesystem::perms(0755)
                                                : std::filesystem::perms(0644));
}

void ScratchRepo::symlink(std::string_view target, std::string_view path) {
  const auto link = m_dir / path;
  std::filesystem::create_directories(link.parent_path());
  std::filesystem::remove(link);
  std::filesystem::create_symlink(target, link);
}

void ScratchRepo::remove(std::string_view path) {
  std::filesystem::remove_all(m_dir / path);
}

std::string ScratchRepo::commit(std::string_view message, std::string_view author) {
  git({"add", "-A"});
  std::vector<std::string> argv{"git", "commit", "-q", "--allow-empty", "-m", std::string(message)};
  auto output = run_process(argv, m_dir, git_env(author));
  if (output.exit_code != 0)
    throw std::runtime_error("git commit failed: " + output.err);
  ++m_commits;
  auto id = git({"rev-parse", "HEAD"});
  id.erase(id.find_last_not_of('\n') + 1);
  return id;
}

std::map<std::string, std::string> snapshot(const std::filesystem::path& root) {
  std::map<std::string, std::string> files;
  for (auto it = std::filesystem::recursive_directory_iterator(root);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    const auto relative = std::filesystem::relative(it->path(), root).string();
    struct stat info = {};
    lstat(it->path().c_str(), &info);
    std::string entry = std::to_string(info.st_mode) + " ";
    if (it->is_symlink())
      entry += "-> " + std::filesystem::read_symlink(it->path()).string();
    else if (it->is_regular_file())
      entry += git::hash_file(it->path()).value_or("unreadable") + " mtime " +
               std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec);
    files[relative] = entry;
  }
  return files;
}

} // namespace culprit::testing
