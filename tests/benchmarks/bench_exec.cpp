// The executor's cost per run against a bare posix_spawn, its memory when a benchmark floods
// stdout, and how fast the JSON parsers read large outputs. Prints figures; asserts nothing.

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/exec/local_executor.hpp"
#include "core/parsers/culprit_jsonl.hpp"
#include "core/parsers/gbench_json.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int k_spawns = 200;

extern "C" char** environ;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double executor_seconds_per_run() {
  culprit::exec::LocalExecutor executor;
  culprit::exec::ExecRequest request;
  request.command = std::vector<std::string>{"/bin/true"};
  const auto start = Clock::now();
  for (int i = 0; i < k_spawns; ++i) {
    if (!executor.run(request))
      std::fprintf(stderr, "run failed\n");
  }
  return seconds_since(start) / k_spawns;
}

double posix_spawn_seconds_per_run() {
  char program[] = "/bin/true";
  char* argv[] = {program, nullptr};
  const auto start = Clock::now();
  for (int i = 0; i < k_spawns; ++i) {
    pid_t pid = 0;
    if (posix_spawn(&pid, program, nullptr, nullptr, argv, environ) == 0)
      waitpid(pid, nullptr, 0);
  }
  return seconds_since(start) / k_spawns;
}

void flood() {
  culprit::exec::LocalExecutor executor;
  culprit::exec::ExecRequest request;
  request.command = std::string("head -c 1073741824 /dev/zero");
  request.output_limit = std::size_t{1} << 20;
  const auto start = Clock::now();
  const auto result = executor.run(request);
  const double seconds = seconds_since(start);
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  if (!result) {
    fmt::print("flood: {}\n", result.error().message);
    return;
  }
  fmt::print("1 GiB on stdout, 1 MiB kept: {:.2f} s ({:.0f} MB/s), kept {} bytes, counted {}, "
             "this process's max RSS {} MiB\n",
             seconds, static_cast<double>(result->out_bytes) / seconds / 1e6, result->out.size(),
             result->out_bytes, self.ru_maxrss / 1024);
}

std::string large_gbench_json(int rows) {
  std::string text = R"({"context":{"date":"2026-01-01","num_cpus":2},"benchmarks":[)";
  for (int i = 0; i < rows; ++i) {
    text += fmt::format(
        R"({}{{"name":"BM_Case/{}","family_index":0,"per_family_instance_index":{},)"
        R"("run_name":"BM_Case/{}","run_type":"iteration","repetitions":10,"repetition_index":{},)"
        R"("threads":1,"iterations":123456,"real_time":{:.17g},"cpu_time":{:.17g},)"
        R"("time_unit":"ns","bytes_per_second":{:.17g},"items_per_second":{:.17g}}})",
        i == 0 ? "" : ",\n", i / 10, i / 10, i / 10, i % 10, 1234.5 + i, 1233.25 + i, 1e9 + i,
        2e6 + i);
  }
  text += "]}\n";
  return text;
}

std::string large_jsonl(int lines) {
  std::string text =
      R"({"type":"header","format":"culprit-jsonl","version":1,"harness":"bench","backend":"cpu"})"
      "\n";
  for (int i = 0; i < lines; ++i)
    text += fmt::format(R"({{"type":"sample","case":"sgemm/M={},N=512,K=512","metric":"time",)"
                        R"("unit":"s","direction":"lower","value":{:.17g},"index":{}}})"
                        "\n",
                        i % 50, 0.004 + i * 1e-9, i);
  return text;
}

template <class Parse> void throughput(const char* name, const std::string& text, Parse parse) {
  double best = 1e9;
  for (int round = 0; round < 3; ++round) {
    const auto start = Clock::now();
    const auto parsed = parse(text);
    best = std::min(best, seconds_since(start));
    if (!parsed) {
      fmt::print("{}: {}\n", name, parsed.error().message);
      return;
    }
  }
  fmt::print("{}: {:.1f} MB in {:.3f} s: {:.0f} MB/s\n", name,
             static_cast<double>(text.size()) / 1e6, best,
             static_cast<double>(text.size()) / best / 1e6);
}

} // namespace

int main() {
  const double bare = posix_spawn_seconds_per_run();
  const double ours = executor_seconds_per_run();
  fmt::print("/bin/true x{}: posix_spawn+waitpid {:.0f} us per run, LocalExecutor {:.0f} us per "
             "run, ratio {:.2f}\n",
             k_spawns, bare * 1e6, ours * 1e6, ours / bare);
  flood();
  throughput("Google Benchmark JSON", large_gbench_json(50000),
             [](const std::string& text) { return culprit::parsers::parse_gbench_json(text); });
  throughput("culprit JSON lines", large_jsonl(150000),
             [](const std::string& text) { return culprit::parsers::parse_culprit_jsonl(text); });
  return 0;
}
