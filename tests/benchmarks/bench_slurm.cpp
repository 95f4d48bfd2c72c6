// What a loopback Slurm cluster costs: starting and stopping one, salloc, and an empty
// `srun --jobid` step against the same command run locally. Prints figures; asserts nothing.
// Needs root and Debian's slurm-wlm and munge; says why and exits 0 without them.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/exec/local_executor.hpp"
#include "tests/support/slurm_cluster.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int k_steps = 20;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::ranges::sort(values);
  return values[values.size() / 2];
}

// Wall seconds of each of k_steps runs of `argv`, or empty when one of them failed.
std::vector<double> wall_per_run(const std::vector<std::string>& argv,
                                 const culprit::testing::SlurmCluster& cluster) {
  culprit::exec::LocalExecutor executor;
  culprit::exec::ExecRequest request;
  request.command = argv;
  request.env = cluster.env();
  request.timeout = culprit::exec::Seconds{60};
  std::vector<double> walls;
  for (int i = 0; i < k_steps; ++i) {
    const auto start = Clock::now();
    const auto result = executor.run(request);
    if (!result || !result->succeeded()) {
      std::fprintf(stderr, "%s failed: %s\n", argv.front().c_str(),
                   result ? result->err.c_str() : result.error().message.c_str());
      return {};
    }
    walls.push_back(seconds_since(start));
  }
  return walls;
}

} // namespace

int main() {
  std::string why_not;
  const auto start = Clock::now();
  auto cluster = culprit::testing::SlurmCluster::start(&why_not);
  const double start_seconds = seconds_since(start);
  if (!cluster) {
    fmt::print("slurm: no cluster ({}); nothing measured\n", why_not);
    return 0;
  }
  fmt::print("cluster start (munged, slurmctld, slurmd, node idle): {:.3f} s\n", start_seconds);

  culprit::exec::LocalExecutor executor;
  culprit::exec::ExecRequest salloc;
  salloc.command = std::vector<std::string>{"salloc", "--no-shell", "-p",   cluster->partition(),
                                            "-N1",    "-J",         "bench"};
  salloc.env = cluster->env();
  salloc.timeout = culprit::exec::Seconds{60};
  const auto allocated = executor.run(salloc);
  const std::string granted = "salloc: Granted job allocation ";
  const auto at = allocated ? allocated->err.find(granted) : std::string::npos;
  if (at == std::string::npos) {
    fmt::print("salloc failed: {}\n", allocated ? allocated->err : allocated.error().message);
    return 1;
  }
  const std::string job = allocated->err.substr(at + granted.size(), allocated->err.find('\n', at) -
                                                                         at - granted.size());
  fmt::print("salloc --no-shell: {:.3f} s\n", allocated->wall.count());

  const auto steps = wall_per_run({"srun", "--jobid=" + job, "-N1", "-n1", "true"}, *cluster);
  const auto local = wall_per_run({"true"}, *cluster);
  if (steps.empty() || local.empty())
    return 1;
  double total = 0;
  for (const double wall : steps)
    total += wall;
  fmt::print("srun --jobid step of `true`: median {:.1f} ms, mean {:.1f} ms, max {:.1f} ms over {} "
             "steps\n",
             median(steps) * 1e3, total / k_steps * 1e3, std::ranges::max(steps) * 1e3, k_steps);
  fmt::print("local `true`: median {:.2f} ms; a step costs {:.0f}x a local run\n",
             median(local) * 1e3, median(steps) / median(local));

  const auto stop = Clock::now();
  cluster.reset();
  fmt::print("cluster stop (jobs cancelled, daemons gone, directory removed): {:.3f} s\n",
             seconds_since(stop));
  return 0;
}
