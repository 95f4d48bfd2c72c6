#include "core/util/interrupt.hpp"

#include <atomic>
#include <csignal>

namespace culprit {
namespace {

std::atomic<int> g_signal{0};

extern "C" void on_interrupt(int signal_number) {
  g_signal.store(signal_number);
}

// nohup ignores SIGHUP so that a command outlives its terminal: a hang-up ignored when the
// handlers were first installed (at the start of main) stays ignored.
std::atomic<bool> g_hangup_read{false};
std::atomic<bool> g_hangup_ignored{false};

bool handles_hangup() {
  if (!g_hangup_read.exchange(true)) {
    struct sigaction inherited = {};
    sigaction(SIGHUP, nullptr, &inherited);
    g_hangup_ignored.store(inherited.sa_handler == SIG_IGN);
  }
  return !g_hangup_ignored.load();
}

} // namespace

void install_interrupt_handlers() {
  struct sigaction action = {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0; // no SA_RESTART: poll() and waitpid() return EINTR
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  if (handles_hangup())
    sigaction(SIGHUP, &action, nullptr);
}

void restore_default_interrupt_handlers() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (handles_hangup())
    std::signal(SIGHUP, SIG_DFL);
  if (const int pending = g_signal.exchange(0); pending != 0)
    std::raise(pending);
}

bool interrupt_requested() {
  return g_signal.load() != 0;
}
int interrupt_signal() {
  return g_signal.load();
}
void request_interrupt(int signal_number) {
  g_signal.store(signal_number);
}
void clear_interrupt() {
  g_signal.store(0);
}

} // namespace culprit
