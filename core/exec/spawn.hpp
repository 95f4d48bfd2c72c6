#pragma once
// Starting a child for the local executor: everything that can be checked before the process
// exists is checked here, so that a bad request is a clear error rather than a child that dies
// with status 127.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/exec/child_process.hpp"
#include "core/exec/executor.hpp"
#include "core/util/error.hpp"

namespace culprit::exec {

struct LaunchPlan {
  std::string program;              // the path handed to execve
  std::vector<std::string> argv;    // argv[0] included
  std::vector<std::string> environ; // "NAME=value", the caller's environment with the request's
};

// Git's variables that point a git command at a repository (`git rev-parse --local-env-vars`).
// No child inherits them from culprit's environment, so that a build or a benchmark that runs
// git cannot reach the user's repository through them; a request may still set them.
inline constexpr std::string_view k_git_repository_variables[] = {
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
};

// Resolves the program (PATH of the child's environment for a bare name, /bin/sh for a string),
// builds the environment (without k_git_repository_variables), and checks the working directory
// and the CPU list.
Result<LaunchPlan> plan_launch(const ExecRequest& request);

// Whether the child is started under a keeper that holds every process of the run, orphans
// included (child_process.hpp): for contained runs, whose leftovers are killed. A build's
// daemons (a compiler server) are meant to outlive it, so builds are not kept.
enum class Keeping { no, yes };

// Whether close_other_descriptors may use close_range (Linux 5.9); tests take the fallback.
enum class CloseRange { use, skip };

// Closes every descriptor from 3 up but those in `kept`. Async-signal-safe: it is called in a
// child between fork and exec. Without close_range, the open descriptors are read from
// /proc/self/fd with raw system calls (open, getdents64) and only those are closed; where /proc
// cannot be read, every number below `open_max` is closed.
void close_other_descriptors(std::span<const int> kept, long open_max,
                             CloseRange close_range = CloseRange::use);

// Starts `plan` in a new process group with stdin on /dev/null, stdout and stderr on the given
// descriptors, signal dispositions and mask reset, in request.cwd, pinned to request.cpus.
Result<ChildProcess> spawn_child(const LaunchPlan& plan, const ExecRequest& request, int out_fd,
                                 int err_fd, Keeping keeping = Keeping::no);

} // namespace culprit::exec
