#pragma once
// A real single-node Slurm cluster on loopback for tests and benchmarks, started and stopped by
// scripts/slurm-cluster.sh (munged, slurmctld and slurmd on random free ports, one partition,
// no cgroups). Needs root and Debian's slurm-wlm and munge packages.
//
// Client commands (salloc, srun, squeue, scancel, sinfo) reach the cluster with env() added to
// their environment; nothing else is needed (slurm.conf names the munge socket).

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace culprit::testing {

class SlurmCluster {
public:
  // Starts a cluster in a fresh temporary directory (about half a second; at most about 30 s
  // when a daemon does not come up). Returns nullptr and sets *why_not to one line when it
  // cannot: not root, the packages missing, a daemon that failed.
  static std::unique_ptr<SlurmCluster> start(std::string* why_not);

  // Cancels the jobs, stops the daemons and removes the directory.
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;
  SlurmCluster(SlurmCluster&&) = delete;
  SlurmCluster& operator=(SlurmCluster&&) = delete;

  // What a client process needs in its environment: SLURM_CONF=<dir>/slurm.conf.
  [[nodiscard]] const std::map<std::string, std::string>& env() const { return m_env; }
  [[nodiscard]] const std::string& partition() const { return m_partition; }
  // The one node's name (this machine's short host name) and its CPUs (nproc).
  [[nodiscard]] const std::string& node() const { return m_node; }
  [[nodiscard]] int cpus() const { return m_cpus; }
  // Holds slurm.conf, the munge key and socket, state, spool, pid files and the daemons' logs
  // (log/slurmctld.log, log/slurmd.log, log/munged.log).
  [[nodiscard]] const std::filesystem::path& dir() const { return m_dir.path(); }

private:
  SlurmCluster() = default;

  TempDir m_dir{"culprit-slurm"};
  std::map<std::string, std::string> m_env;
  std::string m_partition = "culprit";
  std::string m_node;
  int m_cpus = 0;
};

// True when CULPRIT_REQUIRE_SLURM=1 is in the environment: a missing cluster is then a failure.
[[nodiscard]] bool slurm_required();

} // namespace culprit::testing

// In a test (or SetUp): skips with `why` when `cluster_ptr` is null, or fails instead when
// CULPRIT_REQUIRE_SLURM=1.
#define CULPRIT_SLURM_OR_SKIP(cluster_ptr, why)                                                    \
  do {                                                                                             \
    if ((cluster_ptr) == nullptr) {                                                                \
      if (::culprit::testing::slurm_required())                                                    \
        GTEST_FAIL() << "CULPRIT_REQUIRE_SLURM=1 but no Slurm cluster: " << (why);                 \
      GTEST_SKIP() << "no Slurm cluster: " << (why);                                               \
    }                                                                                              \
  } while (false)
