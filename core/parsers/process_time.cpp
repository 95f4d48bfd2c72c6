#include "core/parsers/process_time.hpp"

#include <fmt/format.h>

#include "core/parsers/parse_support.hpp"

namespace culprit::parsers {

Result<ParsedOutput> parse_process_time(const exec::ExecResult& result,
                                        const TimeOptions& options) {
  if (options.case_name.empty())
    return usage_error("the time format needs a case name");
  if (!result.succeeded()) {
    const std::string outcome = result.timed_out ? std::string("timed out")
                                : result.signal != 0
                                    ? fmt::format("was killed by signal {}", result.signal)
                                    : fmt::format("exited with status {}", result.exit_code);
    return output_error("time", options.case_name,
                        fmt::format("the command {}; a failed run has no time to report", outcome));
  }
  SampleTable table;
  const auto lower = Direction::lower_is_better;
  CULPRIT_TRY(table.add(options.case_name, "wall_time", "s", lower, result.wall.count()));
  CULPRIT_TRY(table.add(options.case_name, "user_time", "s", lower, result.user.count()));
  CULPRIT_TRY(table.add(options.case_name, "sys_time", "s", lower, result.sys.count()));
  CULPRIT_TRY(table.add(options.case_name, "max_rss", "KiB", lower,
                        static_cast<double>(result.max_rss_kb)));
  ParsedOutput output;
  output.samples = table.take();
  return output;
}

} // namespace culprit::parsers
