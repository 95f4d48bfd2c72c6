// Interruptions and faults on a small real repository (tests/support/step_project: eight commits,
// a shell benchmark, one 30% step). Part 1 delivers SIGINT or SIGTERM (alternately) at a random
// moment of a bisection, then runs the same command again, and counts per trial:
//   exit     130 (interrupted), or 0 when the bisection had finished before the signal; a signal
//            that lands within milliseconds of the spawn, before culprit's main() has installed
//            its handlers (exec and dynamic loading), kills it the default way with nothing
//            written: counted apart as "before main"
//   stop     time from the signal to the exit
//   sound    PRAGMA integrity_check says ok, no counted run without samples, no orphan sample
//   kept     every counted run stored before the signal is still there after the resumed run
//   same     the resumed bisection names the culprit the uninterrupted one named
// Part 2 runs one measurement per fault (a segfault, a hang that ignores SIGTERM, a child that
// escapes the process group holding stdout, 1 GiB of output, failures in 30% of runs at random)
// and prints exit code, wall time and culprit's peak memory.
// Targets: every trial exits 130 or 0 (or is signalled before main), sound, kept and same; stop
// under 2 s.
// Usage: bench_faults [trials, default 100]

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "core/evidence/evidence.hpp"
#include "tests/support/step_project.hpp"
#include "tests/support/temp_dir.hpp"

using namespace culprit;
using namespace culprit::testing;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::string culprit_of(const std::filesystem::path& file) {
  auto evidence = evidence::load_evidence(file);
  if (!evidence || !evidence->bisect || evidence->bisect->culprits.size() != 1)
    return "(none)";
  return evidence->bisect->culprits.front().commit;
}

struct Tally {
  int trials = 0;
  int interrupted = 0;
  int finished_first = 0;
  int before_main = 0;
  int other_exit = 0;
  int unsound = 0;
  int lost = 0;
  int same = 0;
  std::vector<double> stop_seconds;
};

void interruptions(int trials) {
  TempDir temp("culprit-bench-faults");
  StepProject project(temp / "project");
  const auto json = temp / "bisect.json";
  auto bisect_args = [&](const std::filesystem::path& cache) {
    return std::vector<std::string>{"--cache-dir", cache.string(), "-q",    "bisect",
                                    "--good",      project.good(), "--bad", project.bad(),
                                    "--json",      json.string()};
  };

  const auto start = Clock::now();
  const auto baseline = run_culprit(bisect_args(temp / "baseline"), project.dir());
  const double full = seconds(Clock::now() - start);
  const auto answer = culprit_of(json);
  fmt::print("uninterrupted bisection: exit {}, {:.2f} s, culprit {} (planted {})\n",
             baseline.exit_code, full, answer.substr(0, 12), project.culprit().substr(0, 12));

  std::mt19937_64 rng(20261122);
  std::uniform_real_distribution<double> moment(0.0, full);
  Tally tally;
  double resume_seconds = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const auto cache = temp / fmt::format("cache-{}", trial);
    const int signal_number = trial % 2 == 0 ? SIGINT : SIGTERM;
    auto process = start_culprit(bisect_args(cache), project.dir());
    const double delay = moment(rng);
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    const auto signalled = Clock::now();
    process.signal(signal_number);
    const auto stopped = process.wait();
    tally.stop_seconds.push_back(seconds(Clock::now() - signalled));
    ++tally.trials;
    if (stopped.exit_code == 130)
      ++tally.interrupted;
    else if (stopped.exit_code == 0)
      ++tally.finished_first;
    else if (stopped.exit_code == 128 + signal_number && stopped.err.empty() &&
             !std::filesystem::exists(cache))
      ++tally.before_main;
    else {
      ++tally.other_exit;
      const auto line = stopped.err.substr(0, stopped.err.find('\n'));
      fmt::print("  trial {}: signal {} after {:.4f} s gave exit {}: {}\n", trial, signal_number,
                 delay, stopped.exit_code, line);
    }
    const auto kept = inspect_store(cache);
    const bool sound =
        kept.integrity == "missing" ||
        (kept.integrity == "ok" && kept.ok_runs_without_samples == 0 && kept.orphan_samples == 0);
    const auto resume_start = Clock::now();
    const auto resumed = run_culprit(bisect_args(cache), project.dir());
    resume_seconds += seconds(Clock::now() - resume_start);
    const auto after = inspect_store(cache);
    if (!sound || after.integrity != "ok" || after.ok_runs_without_samples != 0)
      ++tally.unsound;
    if (!std::ranges::includes(after.ok_run_ids, kept.ok_run_ids))
      ++tally.lost;
    if (resumed.exit_code == 0 && culprit_of(json) == answer)
      ++tally.same;
    std::filesystem::remove_all(cache);
  }
  std::ranges::sort(tally.stop_seconds);
  const auto& stops = tally.stop_seconds;
  fmt::print("{} trials (SIGINT and SIGTERM alternately at a uniform moment of the bisection)\n",
             tally.trials);
  fmt::print("  exit 130: {}   finished before the signal: {}   signalled before main: {}   "
             "other exits: {}\n",
             tally.interrupted, tally.finished_first, tally.before_main, tally.other_exit);
  fmt::print("  store unsound: {}   measured runs lost: {}   resumed to the same culprit: {}/{}\n",
             tally.unsound, tally.lost, tally.same, tally.trials);
  if (!stops.empty())
    fmt::print("  stop latency: median {:.3f} s, max {:.3f} s   resume: mean {:.2f} s against "
               "{:.2f} s for a whole bisection\n",
               stops[stops.size() / 2], stops.back(), resume_seconds / tally.trials, full);
}

void fault_battery() {
  TempDir temp("culprit-bench-battery");
  StepProject project(temp / "project", {.commits = 2, .step_at = 1});
  auto script = [&](const char* name, const std::string& text) {
    const auto file = temp / name;
    std::ofstream(file) << text;
    return "sh " + file.string() + " {build}/value";
  };
  const std::string samples = "sh \"$(dirname \"$1\")/bench.sh\" \"$1\"\n";
  struct Fault {
    const char* name;
    std::string run;
    std::vector<std::string> extra;
  };
  const std::vector<Fault> faults = {
      {"segfault", script("segv.sh", "kill -SEGV $$\n"), {}},
      {"hang, ignores SIGTERM",
       script("hang.sh", "trap '' TERM\nsleep 1000\n"),
       {"--timeout", "0.5"}},
      {"child escapes, holds stdout",
       script("escape.sh", "setsid sleep 3 &\n" + samples),
       {"--max-runs", "5"}},
      {"1 GiB of stdout",
       script("flood.sh", samples + "head -c 1073741824 /dev/zero\n"),
       {"--max-runs", "5"}},
      {"fails in 30% of runs",
       script("flaky.sh",
              "if [ $(od -An -N1 -tu1 /dev/urandom) -lt 77 ]; then exit 1; fi\n" + samples),
       {"--max-runs", "20"}},
  };
  fmt::print("\n{:<30} {:>5} {:>9} {:>12}  {}\n", "fault", "exit", "wall (s)", "peak RSS",
             "message");
  for (const auto& fault : faults) {
    std::vector<std::string> args = {
        "--cache-dir", (temp / "cache").string(), "-q", "run", "HEAD", "--min-runs", "5", "--run",
        fault.run};
    args.insert(args.end(), fault.extra.begin(), fault.extra.end());
    const auto start = Clock::now();
    auto process = start_culprit(args, project.dir());
    const auto result = process.wait();
    std::string message = result.err.substr(0, result.err.find('\n'));
    if (message.size() > 70)
      message = message.substr(0, 67) + "...";
    fmt::print("{:<30} {:>5} {:>9.2f} {:>9} KiB  {}\n", fault.name, result.exit_code,
               seconds(Clock::now() - start), process.max_rss_kb(), message);
  }
}

} // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 100;
  interruptions(trials);
  fault_battery();
  return 0;
}
