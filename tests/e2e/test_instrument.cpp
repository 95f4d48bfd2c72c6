// End to end: --instrument valgrind. A compiled program whose instruction count two commits set
// apart is compared by its counts, which agree exactly from run to run; bad input is one line and
// exit 2 before anything is built.

#include <filesystem>
#include <optional>
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
  EXPECT_THAT(compare.out, HasSubstr("slower (exact (2 runs a side, identical counts))"));
  const auto evidence = load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  EXPECT_EQ(evidence->settings.instrument, "valgrind");
  EXPECT_EQ(evidence->settings.metric, "instructions");
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

// A history of 16 commits whose instruction count steps up at the commits given: bisect by counts
// places every probe with two runs of its own, and a level between the ends splits the range
// exactly, so both culprits are found with their shares.
class InstrumentBisect : public InstrumentCli {
protected:
  // Commits 1..16 after `slower`; the work grows by a tenth of its start at each of `steps`.
  std::vector<std::string> history(const std::vector<int>& steps) {
    std::vector<std::string> commits;
    long work = 210000; // as `slower` left it
    for (int i = 1; i <= 16; ++i) {
      if (std::ranges::find(steps, i) != steps.end()) {
        work += 21000;
        repo.write("work.h", "#define WORK " + std::to_string(work) + "\n");
      } else {
        repo.write("note.h", "#define NOTE \"n" + std::to_string(i) + "\"\n");
      }
      commits.push_back(repo.commit("commit " + std::to_string(i)));
    }
    return commits;
  }

  // culprit bisect by counts from `slower` to `bad`: its exit 0, and the evidence.
  std::optional<Evidence> bisect_by_counts(const std::string& bad) {
    const auto json = temp / "bisect.json";
    output = culprit_cli({"bisect", "--good", slower, "--bad", bad, "--instrument", "valgrind",
                          "--json", json.string()});
    EXPECT_EQ(output.exit_code, 0) << output.out << output.err;
    auto evidence = load_evidence(json);
    if (!evidence || !evidence->bisect)
      return std::nullopt;
    return std::move(*evidence);
  }

  testing::ProcessOutput output;
};

TEST_F(InstrumentBisect, LocatesTheCulpritWithTwoRunsAProbe) {
  const auto commits = history({11});
  const auto evidence = bisect_by_counts(commits.back());
  ASSERT_TRUE(evidence) << output.err;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
  EXPECT_EQ(evidence->bisect->culprits[0].commit, commits[10]);
  std::size_t runs = 0;
  for (const auto& m : evidence->measurements)
    runs += m.runs.size();
  for (const auto& step : evidence->bisect->steps) {
    EXPECT_EQ(step.runs, 2) << step.commit;
    EXPECT_THAT(step.note, HasSubstr("exact: two runs with identical counts")) << step.commit;
  }
  // The ends' first look (two runs a side, exact) and two runs a probe: nothing more.
  EXPECT_EQ(runs, 4 + 2 * evidence->bisect->steps.size());
  const auto& change = evidence->bisect->culprits[0].cases.at(0);
  EXPECT_EQ(change.ci[0], change.ratio) << "exact: a zero-width interval";
  EXPECT_EQ(change.ci[1], change.ratio);
  EXPECT_GT(change.ratio, 1.02);
}

TEST_F(InstrumentBisect, ALevelBetweenTheEndsSplitsTheRangeExactly) {
  const auto commits = history({5, 12});
  const auto evidence = bisect_by_counts(commits.back());
  ASSERT_TRUE(evidence) << output.err;
  ASSERT_EQ(evidence->bisect->culprits.size(), 2U) << output.out;
  std::vector<std::string> found;
  for (const auto& culprit : evidence->bisect->culprits)
    found.push_back(culprit.commit);
  EXPECT_THAT(found, ::testing::UnorderedElementsAre(commits[4], commits[11]));
  EXPECT_THAT(output.out, HasSubstr("of the whole change"));
}

} // namespace
} // namespace culprit
