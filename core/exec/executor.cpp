#include "core/exec/executor.hpp"

#include <cstring>
#include <latch>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "core/util/escape.hpp"

namespace culprit::exec {
namespace {

std::string base_name(std::string_view path) {
  const auto slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

} // namespace

std::string describe_outcome(const ExecResult& result, const ExecRequest& request) {
  if (result.timed_out)
    return fmt::format("timed out after {:g} s", request.timeout.count());
  if (result.signal != 0) {
    const char* description = strsignal(result.signal); // NOLINT(concurrency-mt-unsafe)
    return fmt::format("killed by signal {} ({})", result.signal,
                       description != nullptr ? description : "unknown");
  }
  return fmt::format("exited with status {}", result.exit_code);
}

std::string command_line(const ExecRequest& request) {
  if (const auto* shell = std::get_if<std::string>(&request.command))
    return *shell;
  return shell_command(std::get<std::vector<std::string>>(request.command));
}

std::string command_name(const ExecRequest& request) {
  if (const auto* shell = std::get_if<std::string>(&request.command)) {
    const auto begin = shell->find_first_not_of(" \t\n");
    if (begin == std::string::npos)
      return "sh";
    const std::string_view text(*shell);
    auto from = begin;
    // A quoted program path: the text within its quotes (an unclosed quote is left out).
    if (const char quote = text[begin]; quote == '\'' || quote == '"') {
      const auto close = text.find(quote, begin + 1);
      if (close != std::string_view::npos && close > begin + 1)
        return base_name(text.substr(begin + 1, close - begin - 1));
      from = begin + 1;
    }
    const auto end = text.find_first_of(" \t\n;&|<>()", from);
    return base_name(text.substr(from, end - from));
  }
  const auto& argv = std::get<std::vector<std::string>>(request.command);
  return argv.empty() ? std::string("command") : base_name(argv.front());
}

std::vector<Result<ExecResult>> Executor::run_batch(std::span<const ExecRequest> requests) {
  std::vector<Result<ExecResult>> outcomes;
  outcomes.reserve(requests.size());
  for (const auto& request : requests) {
    const bool interrupted = !outcomes.empty() && !outcomes.back() &&
                             outcomes.back().error().code == ExitCode::interrupted;
    if (interrupted)
      outcomes.emplace_back(std::unexpected(outcomes.back().error()));
    else
      outcomes.push_back(run(request));
  }
  return outcomes;
}

std::vector<Result<ExecResult>> Executor::run_together(std::span<const ExecRequest> requests) {
  std::vector<std::optional<Result<ExecResult>>> outcomes(requests.size());
  {
    std::latch start(static_cast<std::ptrdiff_t>(requests.size()));
    std::vector<std::jthread> threads;
    threads.reserve(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i)
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        outcomes[i] = run(requests[i]);
      });
  }
  std::vector<Result<ExecResult>> results;
  results.reserve(requests.size());
  for (auto& outcome : outcomes)
    results.push_back(std::move(*outcome));
  return results;
}

} // namespace culprit::exec
