#pragma once
// Running programs from tests: git to script repositories, and the culprit binary end to end.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace culprit::testing {

struct ProcessOutput {
  int exit_code = -1; // 128 + signal when killed by one
  std::string out;
  std::string err;
};

// Runs argv[0] (searched on PATH) in `cwd` with `env` added to the environment; stdin is
// /dev/null. Standard output is captured, or goes to `stdout_file` when that is given (a device
// such as /dev/full; `out` is then empty). Never throws for a non-zero exit.
ProcessOutput run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::map<std::string, std::string>& env = {},
                          const std::filesystem::path& stdout_file = {});

// Runs the culprit binary under test.
ProcessOutput run_culprit(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                          const std::map<std::string, std::string>& env = {},
                          const std::filesystem::path& stdout_file = {});

} // namespace culprit::testing
