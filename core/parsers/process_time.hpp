#pragma once
// The `time` format, as hyperfine measures: the whole process is the sample. From the run's
// ExecResult, one case with metrics wall_time, user_time and sys_time (s, lower is better) and
// max_rss (KiB, lower is better).

#include <string>

#include "core/exec/executor.hpp"
#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

struct TimeOptions {
  std::string case_name; // the command's name (command_name()) unless given
};

// Errors: no case name (ExitCode::usage); a run that did not succeed, whose time measures a
// failure rather than the benchmark.
[[nodiscard]] Result<ParsedOutput> parse_process_time(const exec::ExecResult& result,
                                                      const TimeOptions& options);

} // namespace culprit::parsers
