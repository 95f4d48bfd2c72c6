#pragma once
// The scripts that start real servers for tests (scripts/slurm-cluster.sh,
// scripts/postgres-server.sh): running one, and the line of its output that says why it failed.

#include <filesystem>
#include <string>
#include <string_view>

#include "core/exec/executor.hpp"
#include "core/util/error.hpp"

namespace culprit::testing {

// Runs `bash scripts/NAME COMMAND DIR` from the source tree; the timeout only guards against a
// hang that the script's own bounded waits would not catch.
Result<exec::ExecResult> run_support_script(std::string_view name, std::string_view command,
                                            const std::filesystem::path& dir,
                                            exec::Seconds timeout);

// The last line of `text` that is not empty.
std::string last_line(std::string_view text);

} // namespace culprit::testing
