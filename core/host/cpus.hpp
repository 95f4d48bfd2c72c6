#pragma once
// Which CPUs a duet runs on: two sets, one per revision, so that both revisions run at once
// without taking turns on one CPU.
//
// From the recipe's `cpus` when it lists some: its first half and its second half (a benchmark
// that runs several threads keeps as many CPUs on each side). Otherwise two CPUs this process may
// run on (sched_getaffinity), on different cores where there are: hyper-threads of one core
// share its execution units and would slow each other down, which is interference of culprit's
// own making. Cores are read from /sys/devices/system/cpu/cpuN/topology under `root`.

#include <array>
#include <filesystem>
#include <vector>

#include "core/util/error.hpp"

namespace culprit::host {

// The CPUs this process may run on, ascending.
std::vector<int> allowed_cpus();

// A usage error that says why when there are not two CPUs (or CPU sets) to use.
Result<std::array<std::vector<int>, 2>> duet_cpus(const std::vector<int>& recipe_cpus,
                                                  const std::vector<int>& allowed,
                                                  const std::filesystem::path& root = "/");

} // namespace culprit::host
