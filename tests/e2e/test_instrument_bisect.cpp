// End to end: bisect under --instrument valgrind. Probes are placed by counts, one run each; each
// culprit is compared with its parent in time; cases whose counts do not show the change their
// time does are bisected by time; and every culprit card carries its counter diff.

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/evidence.hpp"
#include "core/util/fs.hpp"
#include "tests/e2e/instrument_test_support.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;

class InstrumentBisectCli : public testing::InstrumentProject {};

// A history of 16 commits whose instruction count steps up at the commits given: bisect by counts
// places every probe with one run of its own, and a level between the ends splits the range
// exactly, so both culprits are found with their shares.
class InstrumentBisect : public InstrumentBisectCli {
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
  std::optional<evidence::Evidence> bisect_by_counts(const std::string& bad) {
    const auto json = temp / "bisect.json";
    output = culprit_cli({"bisect", "--good", slower, "--bad", bad, "--instrument", "valgrind",
                          "--json", json.string()});
    EXPECT_EQ(output.exit_code, 0) << output.out << output.err;
    auto evidence = evidence::load_evidence(json);
    if (!evidence || !evidence->bisect)
      return std::nullopt;
    return std::move(*evidence);
  }

  testing::ProcessOutput output;
};

TEST_F(InstrumentBisect, LocatesTheCulpritWithOneRunAProbe) {
  const auto commits = history({11});
  const auto evidence = bisect_by_counts(commits.back());
  ASSERT_TRUE(evidence) << output.err;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
  EXPECT_EQ(evidence->bisect->culprits[0].commit, commits[10]);
  std::size_t runs = 0;
  for (const auto& m : evidence->measurements)
    runs += m.metric == "instructions" ? m.runs.size() : 0;
  for (const auto& step : evidence->bisect->steps) {
    EXPECT_EQ(step.runs, 1) << step.commit;
    EXPECT_THAT(step.note, HasSubstr("exact: counts that do not vary")) << step.commit;
  }
  // The ends' first look (two runs a side, exact), one run a probe, and a second run of the
  // culprit and of its parent (each was a probe, or an end) before the change is named.
  const auto probes = evidence->bisect->steps.size();
  EXPECT_GE(runs, 4 + probes);
  EXPECT_LE(runs, 4 + probes + 2);
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

// Counts and time set apart: WORK sets what the program executes, SLEEP_US how long it sleeps
// (which executes next to nothing). Under --instrument valgrind, bisect locates by counts and
// compares each culprit with its parent in time; when the ends' counts agree and their times do
// not, it bisects by time.
class InstrumentConfirm : public InstrumentBisectCli {
protected:
  void SetUp() override {
    InstrumentBisectCli::SetUp();
    repo.write("bench.c", R"(#include <stdio.h>
#include <unistd.h>
#include "note.h"
#include "sleep.h"
#include "work.h"
int main(void) {
  volatile long sum = 0;
  for (long i = 0; i < WORK; ++i)
    sum += i;
  usleep(SLEEP_US);
  printf("%ld %s\n", (long)sum, NOTE);
  return 0;
}
)");
    repo.write("work.h", "#define WORK 100000\n");
    repo.write("sleep.h", "#define SLEEP_US 40000\n");
    start = repo.commit("a loop, then a sleep");
  }

  // Eight commits after `start`: at `counted`, the work grows by a fifth; at `timed`, the sleep
  // doubles. 0: never.
  std::vector<std::string> history(int counted, int timed) {
    std::vector<std::string> commits;
    for (int i = 1; i <= 8; ++i) {
      repo.write("note.h", "#define NOTE \"n" + std::to_string(i) + "\"\n");
      if (i == counted)
        repo.write("work.h", "#define WORK 120000\n");
      if (i == timed)
        repo.write("sleep.h", "#define SLEEP_US 80000\n");
      commits.push_back(repo.commit("commit " + std::to_string(i)));
    }
    return commits;
  }

  std::optional<evidence::Evidence> bisect(const std::string& bad, int expected_exit = 0) {
    const auto json = temp / "confirm.json";
    output = culprit_cli({"bisect", "--good", start, "--bad", bad, "--instrument", "valgrind",
                          "--json", json.string()});
    EXPECT_EQ(output.exit_code, expected_exit) << output.out << output.err;
    auto evidence = evidence::load_evidence(json);
    if (!evidence || !evidence->bisect)
      return std::nullopt;
    return std::move(*evidence);
  }

  std::string start;
  testing::ProcessOutput output;
};

TEST_F(InstrumentConfirm, ACulpritThatCountsLocatedIsComparedWithItsParentInTime) {
  const auto commits = history(5, 5);
  const auto evidence = bisect(commits.back());
  ASSERT_TRUE(evidence) << output.err;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U) << output.out;
  const auto& culprit = evidence->bisect->culprits[0];
  EXPECT_EQ(culprit.commit, commits[4]);
  const auto& moved = culprit.cases.at(0);
  EXPECT_EQ(moved.metric, "instructions");
  EXPECT_TRUE(moved.exact);
  ASSERT_EQ(moved.in_time.size(), 1U);
  const auto& timed = moved.in_time[0];
  EXPECT_EQ(timed.case_name, "bench");
  EXPECT_EQ(timed.base, culprit.parent);
  EXPECT_EQ(timed.head, culprit.commit);
  EXPECT_EQ(timed.verdict, "slower");
  EXPECT_GT(timed.ratio, 1.3) << "40 ms more sleep on top of 40";
  EXPECT_GE(timed.base_runs, 5);
  ASSERT_TRUE(moved.counters) << "the counts it was located by";
  EXPECT_FALSE(moved.counters->changes.empty());
  EXPECT_THAT(output.out, HasSubstr("case bench: instructions +"));
  EXPECT_THAT(output.out, HasSubstr("(exact, identical counts)"));
  EXPECT_THAT(output.out, HasSubstr("in time: "));
  EXPECT_THAT(output.out, HasSubstr(": slower ("));
  // Its timed runs are in the evidence beside its counts.
  bool timed_runs = false;
  for (const auto& m : evidence->measurements)
    timed_runs = timed_runs || (m.commit == culprit.commit && m.metric == timed.metric);
  EXPECT_TRUE(timed_runs);
  EXPECT_NE(timed.metric, "instructions");
}

// A bisection by time counts each culprit and its parent under Valgrind once, for the counter
// diff in its card: the console, Markdown, HTML and the evidence.
TEST_F(InstrumentConfirm, ATimeBisectionShowsEachCulpritsCounterDiff) {
  const auto commits = history(4, 4);
  const auto json = temp / "time.json";
  const auto markdown = temp / "time.md";
  const auto html = temp / "time.html";
  output = culprit_cli({"bisect", "--good", start, "--bad", commits.back(), "--json", json.string(),
                        "--markdown", markdown.string(), "--html", html.string()});
  ASSERT_EQ(output.exit_code, 0) << output.out << output.err;
  const auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U) << output.out;
  EXPECT_EQ(evidence->bisect->culprits[0].commit, commits[3]);
  const auto& moved = evidence->bisect->culprits[0].cases.at(0);
  EXPECT_FALSE(moved.exact);
  EXPECT_TRUE(moved.in_time.empty()) << "located by time: nothing to confirm";
  ASSERT_TRUE(moved.counters) << output.out;
  EXPECT_EQ(moved.counters->case_name, "bench");
  const auto instructions = std::ranges::find(moved.counters->changes, std::string("instructions"),
                                              &evidence::EvidenceCounterChange::metric);
  ASSERT_NE(instructions, moved.counters->changes.end());
  // A fifth more iterations of the loop, which is most of what the program executes.
  EXPECT_GT(instructions->culprit / instructions->parent, 1.05);
  EXPECT_LT(instructions->culprit / instructions->parent, 1.25);
  EXPECT_THAT(output.out, HasSubstr("    counts: instructions +"));
  EXPECT_THAT(output.out, HasSubstr("estimated cycles "));
  EXPECT_THAT(read_file(markdown).value_or(""), HasSubstr("counts: instructions +"));
  EXPECT_THAT(read_file(html).value_or(""), HasSubstr("<table class=\"counters\">"));
  EXPECT_THAT(read_file(html).value_or(""), HasSubstr("<td>LL data misses</td>"));

  // --no-counters: no Valgrind runs, no counts.
  const auto quiet_json = temp / "quiet.json";
  output = culprit_cli({"bisect", "--good", start, "--bad", commits.back(), "--no-counters",
                        "--json", quiet_json.string()});
  ASSERT_EQ(output.exit_code, 0) << output.out << output.err;
  const auto quiet = evidence::load_evidence(quiet_json);
  ASSERT_TRUE(quiet) << quiet.error().message;
  ASSERT_EQ(quiet->bisect->culprits.size(), 1U);
  EXPECT_FALSE(quiet->bisect->culprits[0].cases.at(0).counters);
  EXPECT_THAT(output.out, ::testing::Not(HasSubstr("counts: ")));
}

TEST_F(InstrumentConfirm, ACountedChangeThatCostsNoTimeIsNotCalledSlowerInTime) {
  const auto commits = history(3, 0);
  const auto evidence = bisect(commits.back());
  ASSERT_TRUE(evidence) << output.err;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U) << output.out;
  EXPECT_EQ(evidence->bisect->culprits[0].commit, commits[2]);
  const auto& moved = evidence->bisect->culprits[0].cases.at(0);
  EXPECT_GT(moved.ratio, 1.1) << "a fifth more work";
  ASSERT_EQ(moved.in_time.size(), 1U);
  // 20,000 more iterations next to a 40 ms sleep: far under the threshold in time.
  EXPECT_NE(moved.in_time[0].verdict, "slower") << output.out;
  // Sleeps oversleep by a few percent on a loaded machine: the interval says it is no slower
  // than the threshold.
  EXPECT_LT(moved.in_time[0].ci[0], 1.05) << output.out;
}

TEST_F(InstrumentConfirm, EndsWhoseCountsAgreeAreBisectedByTime) {
  const auto commits = history(0, 6);
  const auto evidence = bisect(commits.back());
  ASSERT_TRUE(evidence) << output.err;
  EXPECT_THAT(output.out,
              HasSubstr("note: the ends' counts of bench do not show the change their times "
                        "do: bisected by time"));
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U) << output.out;
  const auto& culprit = evidence->bisect->culprits[0];
  EXPECT_EQ(culprit.commit, commits[5]);
  EXPECT_NE(culprit.cases.at(0).metric, "instructions");
  EXPECT_FALSE(culprit.cases.at(0).exact);
  EXPECT_TRUE(culprit.cases.at(0).in_time.empty());
  // The probes were timed: their runs are in the evidence.
  EXPECT_FALSE(evidence->measurements.empty());
  for (const auto& step : evidence->bisect->steps)
    EXPECT_GE(step.runs, 2) << step.commit;
}

TEST_F(InstrumentConfirm, EndsThatAgreeInCountsAndTimeAreNotReproduced) {
  const auto commits = history(0, 0);
  const auto evidence = bisect(commits.back(), 5);
  ASSERT_TRUE(evidence) << output.err;
  EXPECT_EQ(evidence->status, "not_reproduced");
  EXPECT_TRUE(evidence->bisect->culprits.empty());
}

} // namespace
} // namespace culprit
