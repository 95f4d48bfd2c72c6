// End to end: --instrument valgrind. A compiled program whose instruction count two commits set
// apart is compared by its counts, which agree exactly from run to run; bad input is one line and
// exit 2 before anything is built.

#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/evidence.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using testing::run_culprit;
using testing::ScratchRepo;
using testing::TempDir;

// A loop of WORK iterations, its result printed so that it cannot be optimised away; WORK lives in
// work.h, and note.h changes the binary without changing what it executes.
class InstrumentCli : public ::testing::Test {
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

  testing::ProcessOutput culprit_cli(std::vector<std::string> args,
                                     const std::map<std::string, std::string>& env = {}) {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return run_culprit(args, repo.dir(), env);
  }

  TempDir temp{"culprit-instrument"};
  ScratchRepo repo{temp / "project"};
  std::string base, same, slower;
};

TEST_F(InstrumentCli, CountsCompareExactlyAndSayWhereTheyCameFrom) {
  const auto json = temp / "compare.json";
  const auto compare =
      culprit_cli({"compare", base, slower, "--instrument", "valgrind", "--json", json.string()});
  ASSERT_EQ(compare.exit_code, 1) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("slower (exact (5 runs a side, identical counts))"));
  const auto evidence = load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->comparisons.size(), 1U);
  const auto& c = evidence->comparisons[0];
  EXPECT_EQ(c.metric, "instructions");
  EXPECT_EQ(c.case_name, "bench") << "the whole program, one case named after it";
  EXPECT_EQ(c.ci[0], c.ratio);
  EXPECT_EQ(c.ci[1], c.ratio);
  // 10,000 more iterations of a handful of instructions: between 2% and 20% more in all.
  EXPECT_GT(c.ratio, 1.02);
  EXPECT_LT(c.ratio, 1.2);

  // Another binary that executes the same: the same, exactly.
  const auto unchanged = culprit_cli({"compare", base, same, "--instrument", "valgrind"});
  EXPECT_EQ(unchanged.exit_code, 0) << unchanged.out << unchanged.err;
  EXPECT_THAT(unchanged.out, HasSubstr("same (exact"));
}

TEST_F(InstrumentCli, BadInputIsOneLineAndNothingIsBuilt) {
  const auto one_line_usage = [&](const testing::ProcessOutput& out, const std::string& part) {
    EXPECT_EQ(out.exit_code, 2) << out.err;
    EXPECT_EQ(std::ranges::count(out.err, '\n'), 1) << out.err;
    EXPECT_THAT(out.err, HasSubstr(part));
  };
  // Valgrind missing: how to install it.
  const auto bin = temp / "bin";
  std::filesystem::create_directories(bin);
  one_line_usage(
      culprit_cli({"compare", base, slower, "--instrument", "valgrind"}, {{"PATH", bin.string()}}),
      "apt-get install valgrind");
  // A count asked of the time instrument.
  one_line_usage(culprit_cli({"compare", base, slower, "--metric", "instructions"}),
                 "only --instrument valgrind");
  // Counts need no duet.
  one_line_usage(culprit_cli({"compare", base, slower, "--instrument", "valgrind", "--duet"}),
                 "no duet");
  // An unknown instrument, by flag and in the recipe.
  one_line_usage(culprit_cli({"compare", base, slower, "--instrument", "perfect"}), "--instrument");
  EXPECT_FALSE(std::filesystem::exists(temp / "cache" / "artifacts"));
}

TEST_F(InstrumentCli, AProgramThatCrashesUnderValgrindSaysWhatItsLogSaid) {
  repo.write("bench.c", "#include <stdlib.h>\nint main(void) { abort(); }\n");
  const auto crashing = repo.commit("a benchmark that aborts");
  const auto run = culprit_cli(
      {"run", crashing, "--instrument", "valgrind", "--min-runs", "2", "--max-runs", "2"});
  EXPECT_EQ(run.exit_code, 4) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("under Valgrind"));
  EXPECT_THAT(run.err, HasSubstr("its log ends:"));
}

} // namespace
} // namespace culprit
