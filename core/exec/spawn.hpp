#pragma once
// Starting a child for the local executor: everything that can be checked before the process
// exists is checked here, so that a bad request is a clear error rather than a child that dies
// with status 127.

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/exec/child_process.hpp"
#include "core/exec/executor.hpp"

namespace culprit {

struct LaunchPlan {
  std::string program;              // the path handed to execve
  std::vector<std::string> argv;    // argv[0] included
  std::vector<std::string> environ; // "NAME=value", the caller's environment with the request's
};

// Resolves the program (PATH of the child's environment for a bare name, /bin/sh for a string),
// builds the environment, and checks the working directory and the CPU list.
Result<LaunchPlan> plan_launch(const ExecRequest& request);

// Starts `plan` in a new process group with stdin on /dev/null, stdout and stderr on the given
// descriptors, signal dispositions and mask reset, in request.cwd, pinned to request.cpus.
Result<ChildProcess> spawn_child(const LaunchPlan& plan, const ExecRequest& request, int out_fd,
                                 int err_fd);

} // namespace culprit
