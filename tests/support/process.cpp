#include "tests/support/process.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace culprit::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string temp_path(const char* tag) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "culprit-out-").string() + tag + "-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0)
    throw std::runtime_error("mkstemp failed");
  close(fd);
  return pattern;
}

} // namespace

ProcessOutput run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::map<std::string, std::string>& env,
                          const std::filesystem::path& stdout_file) {
  const std::string out_path = temp_path("stdout");
  const std::string err_path = temp_path("stderr");
  const pid_t pid = fork();
  if (pid < 0)
    throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int in = open("/dev/null", O_RDONLY);
    const int out =
        open(stdout_file.empty() ? out_path.c_str() : stdout_file.c_str(), O_WRONLY | O_TRUNC);
    const int err = open(err_path.c_str(), O_WRONLY | O_TRUNC);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (chdir(cwd.c_str()) != 0)
      _exit(126);
    for (const auto& [name, value] : env)
      setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& arg : argv)
      args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  ProcessOutput output;
  output.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  output.out = slurp(out_path);
  output.err = slurp(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return output;
}

ProcessOutput run_culprit(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                          const std::map<std::string, std::string>& env,
                          const std::filesystem::path& stdout_file) {
  std::vector<std::string> argv{CULPRIT_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, cwd, env, stdout_file);
}

} // namespace culprit::testing
