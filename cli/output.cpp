#include "cli/output.hpp"

#include <pthread.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "core/util/escape.hpp"

namespace culprit::cli {
namespace {

// Longer messages are cut in the middle: no error needs a screenful, and a value quoted in full
// (a megabyte of flag) would bury the advice at the end.
constexpr std::size_t k_max_message_bytes = 600;

std::string one_line(std::string_view message) {
  auto text = terminal_safe(message);
  if (text.size() <= k_max_message_bytes)
    return text;
  const auto head = character_boundary(text, k_max_message_bytes / 2);
  const auto tail = character_boundary(text, text.size() - k_max_message_bytes / 3);
  return fmt::format("{} [... {} bytes ...] {}", text.substr(0, head), tail - head,
                     text.substr(tail));
}

Status stdout_error() {
  const std::string reason = errno != 0 ? std::strerror(errno) : "an earlier write failed";
  return infra_error("cannot write to standard output: {}; free some space or write the output "
                     "to another file",
                     reason);
}

} // namespace

void write_stderr(std::string_view text) {
  // A pipe whose reader has gone (`2>&1 | head -1`, an SSH session that dropped) would end
  // culprit with SIGPIPE here, leaving the benchmark running and no evidence: the signal is held
  // back for the write and the one the write raised is taken, so that the write just fails.
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  sigset_t saved;
  sigemptyset(&saved);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &saved);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
  if (sigismember(&saved, SIGPIPE) == 0) { // a caller that blocks it itself keeps it
    constexpr timespec k_no_wait{};
    while (sigtimedwait(&pipe_signal, nullptr, &k_no_wait) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  }
}

void write_to(std::FILE* stream, std::string_view text) {
  if (stream == stderr)
    write_stderr(text);
  else
    std::fwrite(text.data(), 1, text.size(), stream);
}

void print_error(std::string_view message) {
  write_stderr(fmt::format("culprit: error: {}\n", one_line(message)));
}

void print_warning(std::string_view message) {
  write_stderr(fmt::format("culprit: warning: {}\n", one_line(message)));
}

int print_failure(const Error& error) {
  print_error(error.message);
  return static_cast<int>(error.code);
}

Status write_stdout(std::string_view text) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    return stdout_error();
  return {};
}

Status finish_stdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0)
    return stdout_error();
  return {};
}

} // namespace culprit::cli
