#pragma once
// The project of the end-to-end tests of --instrument: a compiled loop whose instruction count
// WORK sets, and a note that changes the binary without changing what it executes; and tools
// stood in for on PATH.

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/git_repo.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::testing {

// A stand-in for a tool on PATH.
inline void write_executable(const std::filesystem::path& file, std::string_view text) {
  std::ofstream(file) << text;
  std::filesystem::permissions(file, std::filesystem::perms(0755));
}

// A loop of WORK iterations, its result printed so that it cannot be optimised away; WORK lives in
// work.h, and note.h changes the binary without changing what it executes.
class InstrumentProject : public ::testing::Test {
protected:
  void SetUp() override {
    repo.write("bench.c", R"(#include <stdio.h>
#include "note.h"
#include "work.h"
int main(void) {
  volatile long sum = 0;
  for (long i = 0; i < WORK; ++i)
    sum += i;
  printf("%ld %s\n", (long)sum, NOTE);
  return 0;
}
)");
    repo.write("work.h", "#define WORK 200000\n");
    repo.write("note.h", "#define NOTE \"first\"\n");
    repo.write("culprit.toml", "[build]\ncommand = \"cc -O1 -o {build}/bench {src}/bench.c\"\n"
                               "[run]\ncommand = \"{build}/bench\"\nformat = \"time\"\n");
    base = repo.commit("the loop");
    repo.write("note.h", "#define NOTE \"second\"\n");
    same = repo.commit("another binary, the same work");
    repo.write("work.h", "#define WORK 210000\n");
    slower = repo.commit("5% more iterations");
  }

  ProcessOutput culprit_cli(std::vector<std::string> args,
                            const std::map<std::string, std::string>& env = {}) {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return run_culprit(args, repo.dir(), env);
  }

  TempDir temp{"culprit-instrument"};
  ScratchRepo repo{temp / "project"};
  std::string base, same, slower;
};

} // namespace culprit::testing
