#include "tests/support/slurm_cluster.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "core/exec/local_executor.hpp"
#include "tests/support/source_tree.hpp"
#include "tests/support/support_script.hpp"

namespace culprit::testing {
namespace {

std::filesystem::path script_path() {
  return source_dir() / "scripts" / "slurm-cluster.sh";
}

// The timeout only guards against a hang the script's own bounded waits would not catch (three
// start attempts of 30 s at most).
Result<exec::ExecResult> run_slurm_script(const std::string& command,
                                          const std::filesystem::path& dir) {
  return run_support_script("slurm-cluster.sh", command, dir, exec::Seconds{150});
}

std::string why_failed(const exec::ExecResult& result, const exec::ExecRequest& request) {
  std::string line = last_line(result.err);
  return line.empty() ? exec::command_line(request) + " " + exec::describe_outcome(result, request)
                      : line;
}

} // namespace

std::unique_ptr<SlurmCluster> SlurmCluster::start(std::string* why_not) {
  const auto refuse = [why_not](std::string reason) -> std::unique_ptr<SlurmCluster> {
    *why_not = std::move(reason);
    return nullptr;
  };
  if (::geteuid() != 0)
    return refuse("not root: slurmd and munged run as root in the test cluster");
  if (!std::filesystem::exists(script_path()))
    return refuse("no " + script_path().string());

  std::unique_ptr<SlurmCluster> cluster(new SlurmCluster);
  auto started = run_slurm_script("start", cluster->dir());
  if (!started)
    return refuse(started.error().message);
  if (!started->succeeded()) {
    exec::ExecRequest request;
    request.command = std::vector<std::string>{script_path().string(), "start"};
    return refuse(why_failed(*started, request));
  }
  std::istringstream lines(started->out);
  for (std::string line; std::getline(lines, line);) {
    const auto equals = line.find('=');
    if (equals != std::string::npos)
      cluster->m_env[line.substr(0, equals)] = line.substr(equals + 1);
  }
  if (!cluster->m_env.contains("SLURM_CONF"))
    return refuse("slurm-cluster.sh start printed no SLURM_CONF line");

  exec::ExecRequest sinfo;
  sinfo.command =
      std::vector<std::string>{"sinfo", "-h", "-p", cluster->m_partition, "-o", "%N %c"};
  sinfo.env = cluster->m_env;
  sinfo.timeout = exec::Seconds{30};
  exec::LocalExecutor executor;
  auto listed = executor.run(sinfo);
  if (!listed)
    return refuse(listed.error().message);
  std::istringstream fields(listed->out);
  if (!listed->succeeded() || !(fields >> cluster->m_node >> cluster->m_cpus))
    return refuse("sinfo did not list the node: " + why_failed(*listed, sinfo));
  return cluster;
}

SlurmCluster::~SlurmCluster() {
  // A failed stop is worth a line (daemons may be left behind); the directory goes regardless.
  const auto stopped = run_slurm_script("stop", dir());
  if (!stopped || !stopped->succeeded())
    std::fprintf(stderr, "slurm-cluster: stop %s failed: %s\n", dir().c_str(),
                 stopped ? last_line(stopped->err).c_str() : stopped.error().message.c_str());
}

bool slurm_required() {
  const char* value = std::getenv("CULPRIT_REQUIRE_SLURM");
  return value != nullptr && std::string_view(value) == "1";
}

} // namespace culprit::testing
