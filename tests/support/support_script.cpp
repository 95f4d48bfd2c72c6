#include "tests/support/support_script.hpp"

#include <string>
#include <vector>

#include "core/exec/local_executor.hpp"
#include "tests/support/source_tree.hpp"

namespace culprit::testing {

Result<exec::ExecResult> run_support_script(std::string_view name, std::string_view command,
                                            const std::filesystem::path& dir,
                                            exec::Seconds timeout) {
  exec::ExecRequest request;
  request.command = std::vector<std::string>{"bash", (source_dir() / "scripts" / name).string(),
                                             std::string(command), dir.string()};
  request.timeout = timeout;
  exec::LocalExecutor executor;
  return executor.run(request);
}

std::string last_line(std::string_view text) {
  while (!text.empty() && text.back() == '\n')
    text.remove_suffix(1);
  const auto newline = text.rfind('\n');
  return std::string(newline == std::string_view::npos ? text : text.substr(newline + 1));
}

} // namespace culprit::testing
