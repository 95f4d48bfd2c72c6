// End to end on a benchmark whose speed the test controls (tests/support/machine_bench.hpp): the
// verdicts of a shared machine. One-sided interference is judged by the fast side of each run and
// said in a noise line; drift that outlasts a block cancels in the pairing; a duet really runs the
// two revisions at once on CPUs of their own; a machine slower on the second night of tracking is
// no change point, because the sessions are aligned by their anchor.

#include <algorithm>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/evidence/evidence.hpp"
#include "core/host/cpus.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/machine_bench.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::run_culprit;
using testing::ScratchRepo;
using testing::TempDir;

class SharedMachine : public ::testing::Test {
protected:
  testing::ProcessOutput culprit_cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return run_culprit(args, scratch.dir());
  }

  const evidence::EvidenceComparison& only_comparison(const std::filesystem::path& file) {
    auto read = evidence::load_evidence(file);
    EXPECT_TRUE(read) << read.error().message;
    evidence = std::move(*read);
    EXPECT_EQ(evidence.comparisons.size(), 1U);
    return evidence.comparisons.at(0);
  }

  TempDir temp{"culprit-shared"};
  ScratchRepo scratch{temp / "project"};
  evidence::Evidence evidence;
};

double width(const evidence::EvidenceComparison& c) {
  return c.ci[1] - c.ci[0];
}

TEST_F(SharedMachine, OneSidedInterferenceIsJudgedByTheFastSideOfEachRunAndSaidInALine) {
  const testing::MachineHistory history(scratch, "states", 1000, 1050);
  auto compare = culprit_cli(
      {"compare", history.base, history.head, "--no-duet", "--json", (temp / "a.json").string()});
  ASSERT_EQ(compare.exit_code, 1) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("slower"));
  EXPECT_THAT(compare.out, HasSubstr("noise: k: two speed states"));
  EXPECT_THAT(compare.out, HasSubstr("judged by each run's min"));
  const auto fast = only_comparison(temp / "a.json");
  EXPECT_EQ(fast.verdict, "slower");
  ASSERT_TRUE(fast.estimator);
  EXPECT_EQ(fast.estimator->statistic, "min");
  EXPECT_EQ(fast.estimator->setting, "auto");
  EXPECT_THAT(fast.estimator->reason, HasSubstr("two speed states"));
  EXPECT_NEAR(fast.ratio, 1.05, 0.01);
  for (const auto& m : evidence.measurements) {
    ASSERT_TRUE(m.interference);
    EXPECT_TRUE(m.interference->one_sided);
    EXPECT_EQ(m.blocks.size(), m.runs.size());
    EXPECT_TRUE(std::ranges::none_of(m.duets, [](bool duet) { return duet; }));
  }

  // The same runs judged by each run's median: the slow state blurs it.
  auto median = culprit_cli({"compare", history.base, history.head, "--no-duet", "--statistic",
                             "median", "--json", (temp / "m.json").string()});
  ASSERT_NE(median.exit_code, 2) << median.err;
  const auto blurred = only_comparison(temp / "m.json");
  ASSERT_TRUE(blurred.estimator);
  EXPECT_EQ(blurred.estimator->statistic, "median");
  EXPECT_EQ(blurred.estimator->setting, "median");
  EXPECT_GT(width(blurred), 5 * width(fast)) << "median " << blurred.ci[0] << ".." << blurred.ci[1]
                                             << ", min " << fast.ci[0] << ".." << fast.ci[1];
}

// Slow stretches that outlast runs: about a third of the runs are slow from their first sample to
// their last, so their fast side is slow too. The blocks whose runs shared a state decide, the
// others are left out, and a noise line says so.
TEST_F(SharedMachine, WholeRunsSlowAreLeftOutOfTheComparisonAndSaidInALine) {
  const testing::MachineHistory history(scratch, "runs " + (temp / "state").string(), 1000, 1060,
                                        80);
  auto compare = culprit_cli(
      {"compare", history.base, history.head, "--no-duet", "--json", (temp / "r.json").string()});
  ASSERT_EQ(compare.exit_code, 1) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("noise: k: whole runs slow: "));
  EXPECT_THAT(compare.out, HasSubstr("were slow from start to end; judged by the "));
  const auto judged = only_comparison(temp / "r.json");
  EXPECT_EQ(judged.verdict, "slower");
  EXPECT_NEAR(judged.ratio, 1.06, 0.01);
  ASSERT_TRUE(judged.slow_runs);
  EXPECT_GT(judged.slow_runs->share, 0.15);
  EXPECT_GT(judged.slow_runs->mixed, 0) << "blocks with one run in each state";
  EXPECT_EQ(judged.slow_runs->compared,
            judged.slow_runs->fast + (judged.slow_runs->slow_used ? judged.slow_runs->slow : 0));
  EXPECT_LT(judged.ci[1] / judged.ci[0], 1.03) << judged.ci[0] << ".." << judged.ci[1];

  // A statistic named on the command line is taken as asked: every block is compared.
  auto asked = culprit_cli({"compare", history.base, history.head, "--no-duet", "--statistic",
                            "min", "--json", (temp / "min.json").string()});
  ASSERT_NE(asked.exit_code, 2) << asked.err;
  EXPECT_THAT(asked.out, Not(HasSubstr("whole runs slow")));
  EXPECT_FALSE(only_comparison(temp / "min.json").slow_runs);
}

// Runs of a single sample have no fast side within them: each run's sample decides, and the runs
// the machine slowed are told by their level among the side's runs.
TEST_F(SharedMachine, WholeRunsSlowWithOneSampleARun) {
  const testing::MachineHistory history(scratch, "runs " + (temp / "state").string() + " 1", 1000,
                                        1060, 80);
  // A stretch lasts about ten runs here: 40 blocks see several of them.
  auto compare = culprit_cli({"compare", history.base, history.head, "--no-duet", "--min-runs",
                              "40", "--json", (temp / "one.json").string()});
  ASSERT_EQ(compare.exit_code, 1) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("(one sample a run: each run's sample decides"));
  const auto judged = only_comparison(temp / "one.json");
  EXPECT_EQ(judged.verdict, "slower");
  ASSERT_TRUE(judged.slow_runs);
  EXPECT_GT(judged.slow_runs->share, 0.1);
}

TEST_F(SharedMachine, DriftThatOutlastsABlockCancelsInThePairing) {
  const testing::MachineHistory history(scratch, "drift " + (temp / "count").string(), 1000, 1000);
  auto compare = culprit_cli(
      {"compare", history.base, history.head, "--no-duet", "--json", (temp / "d.json").string()});
  ASSERT_EQ(compare.exit_code, 0) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("drift +"));
  const auto same = only_comparison(temp / "d.json");
  EXPECT_EQ(same.verdict, "same");
  ASSERT_TRUE(same.estimator);
  EXPECT_EQ(same.estimator->statistic, "median");
  // Each side's own level moved by more than the threshold while it was measured.
  for (const auto& m : evidence.measurements) {
    ASSERT_TRUE(m.interference);
    ASSERT_TRUE(m.interference->drift);
    EXPECT_GT(m.interference->drift->change, 0.05);
  }
}

struct LoggedRun {
  int cpu = -1;
  double start = 0;
  double end = 0;
};

std::vector<LoggedRun> read_log(const std::filesystem::path& file) {
  std::vector<LoggedRun> runs;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    long pid = 0;
    LoggedRun run;
    if (fields >> pid >> run.cpu >> run.start >> run.end)
      runs.push_back(run);
  }
  return runs;
}

// Pairs of runs that overlapped in time, and how many of those ran on different CPUs.
std::pair<int, int> overlaps(const std::vector<LoggedRun>& runs) {
  int together = 0;
  int apart = 0;
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = i + 1; j < runs.size(); ++j)
      if (runs[i].start < runs[j].end && runs[j].start < runs[i].end) {
        ++together;
        apart += runs[i].cpu != runs[j].cpu ? 1 : 0;
      }
  return {together, apart};
}

TEST_F(SharedMachine, ADuetRunsBothRevisionsAtOnceOnCpusOfTheirOwn) {
  if (host::allowed_cpus().size() < 2)
    GTEST_SKIP() << "a duet needs two CPUs";
  const auto log = temp / "runs.log";
  const testing::MachineHistory history(scratch, "log " + log.string(), 1000, 1000, 6);
  auto duet = culprit_cli({"compare", history.base, history.head, "--duet", "--min-runs", "6",
                           "--json", (temp / "duet.json").string()});
  ASSERT_NE(duet.exit_code, 2) << duet.err;
  ASSERT_NE(duet.exit_code, 4) << duet.err;
  EXPECT_THAT(duet.out, HasSubstr("duets: 6 of 6 blocks ran both revisions at once"));
  const auto compared = only_comparison(temp / "duet.json");
  ASSERT_TRUE(compared.estimator);
  EXPECT_EQ(compared.estimator->duets, 6);
  EXPECT_EQ(evidence.settings.duet, "on");
  for (const auto& m : evidence.measurements)
    EXPECT_EQ(std::ranges::count(m.duets, true), 6) << m.commit;
  const auto runs = read_log(log);
  ASSERT_GE(runs.size(), 12U);
  const auto [together, apart] = overlaps(runs);
  EXPECT_GE(together, 6);
  EXPECT_EQ(apart, together);

  // Without a duet no two runs are ever at the same time.
  std::filesystem::remove(log);
  auto apart_runs = culprit_cli({"compare", history.base, history.head, "--no-duet", "--fresh",
                                 "--min-runs", "6", "--json", (temp / "solo.json").string()});
  ASSERT_NE(apart_runs.exit_code, 2) << apart_runs.err;
  EXPECT_THAT(apart_runs.out, ::testing::Not(HasSubstr("duets:")));
  EXPECT_EQ(overlaps(read_log(log)).first, 0);
}

TEST_F(SharedMachine, TrackSaysWhichCasesTheMachineSlowedInBursts) {
  const testing::MachineHistory history(scratch, "states", 1000, 1000);
  auto track = culprit_cli({"track", history.base + ".." + history.head, "--runs", "4"});
  ASSERT_EQ(track.exit_code, 0) << track.err;
  EXPECT_THAT(track.out, HasSubstr("noise: k: two speed states"));
  EXPECT_THAT(track.out, HasSubstr("(in 1 of 1 commit)"));
}

// Two nights of `culprit track`: eight commits, then eight more, all of the machine bench at
// 1000 us, or the second eight at `later_level`; the second night on a machine `speed` times as
// slow. Returns what `culprit history` printed, and its JSON in `json`.
class HistorySessions : public SharedMachine {
protected:
  testing::ProcessOutput two_nights(int later_level, const std::string& speed,
                                    const std::filesystem::path& json) {
    scratch.write("bench.c", testing::k_machine_bench);
    scratch.write("culprit.toml", testing::machine_recipe("quiet"));
    scratch.write("level", "1000\n");
    int tag = 0;
    const auto next = [&](int level) {
      scratch.write("level", std::to_string(level) + "\n");
      scratch.write("tag", std::to_string(++tag) + "\n");
      return scratch.commit("version " + std::to_string(tag));
    };
    const auto root = next(1000);
    for (int i = 0; i < 8; ++i)
      commits.push_back(next(1000));
    auto first = culprit_cli({"track", root + "..HEAD", "--runs", "3"});
    EXPECT_EQ(first.exit_code, 0) << first.err;
    EXPECT_THAT(first.out, HasSubstr("tracked 8 of 8 commits"));
    for (int i = 0; i < 8; ++i)
      commits.push_back(next(later_level));
    auto second = run_culprit(
        {"--cache-dir", (temp / "cache").string(), "track", root + "..HEAD", "--runs", "3"},
        scratch.dir(), {{"CULPRIT_TEST_MACHINE_SPEED", speed}});
    EXPECT_EQ(second.exit_code, 0) << second.err;
    EXPECT_THAT(second.out, HasSubstr("tracked 8 of 16 commits"));
    EXPECT_THAT(second.out, HasSubstr("8 tracked before"));
    EXPECT_THAT(second.out, HasSubstr("anchored on " + commits[7].substr(0, 12)));
    auto history = culprit_cli({"history", "--ascii", "--json", json.string()});
    EXPECT_EQ(history.exit_code, 0) << history.err;
    return history;
  }

  std::vector<std::string> commits; // tracked, oldest first
};

TEST_F(HistorySessions, AMachineSlowerOnTheSecondNightIsNoChangePoint) {
  const auto json = temp / "history.json";
  const auto history = two_nights(1000, "1.08", json);
  EXPECT_THAT(history.out, HasSubstr("k [time]  16 points, 2 sessions"));
  EXPECT_THAT(history.out, HasSubstr("0 change points"));
  EXPECT_THAT(history.out,
              HasSubstr("% faster than the newest (anchor " + commits[7].substr(0, 12) + ")"));
  std::ifstream in(json);
  const auto document = nlohmann::json::parse(in);
  const auto& sessions = document.at("series")[0].at("sessions");
  ASSERT_EQ(sessions.size(), 2U);
  EXPECT_NEAR(sessions[0].at("factor").get<double>(), 1 / 1.08, 0.01);
  EXPECT_EQ(sessions[0].at("anchors")[0], commits[7]);
}

TEST_F(HistorySessions, ACodeChangeOnTheSecondNightIsAChangePointRestingOnBothSessions) {
  const auto json = temp / "history.json";
  const auto history = two_nights(1080, "1.0", json);
  EXPECT_THAT(history.out, HasSubstr("regression " + commits[7].substr(0, 12) + ".." +
                                     commits[8].substr(0, 12) + " +"));
  EXPECT_THAT(history.out, HasSubstr("from runs of 2 sessions"));
  std::ifstream in(json);
  const auto document = nlohmann::json::parse(in);
  ASSERT_EQ(document.at("change_points").size(), 1U);
  const auto& change = document.at("change_points")[0];
  EXPECT_NEAR(change.at("ratio").get<double>(), 1.08, 0.01);
  EXPECT_GT(change.at("ci")[0].get<double>(), 1.05);
  EXPECT_LT(change.at("ci")[1].get<double>(), 1.11);
  EXPECT_EQ(change.at("sessions").size(), 2U);
}

TEST_F(SharedMachine, RunSaysWhichCasesTheMachineSlowedInBursts) {
  const testing::MachineHistory history(scratch, "states", 1000, 1000);
  auto run = culprit_cli({"run", history.head, "--max-runs", "5"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("noise: k: two speed states"));
}

} // namespace
} // namespace culprit
