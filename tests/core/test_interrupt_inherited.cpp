// A hang-up ignored when culprit started (nohup) stays ignored: it neither interrupts a command
// nor, once the handlers are given back, ends one; Ctrl-C still interrupts.

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <gtest/gtest.h>

#include "core/util/interrupt.hpp"

namespace culprit {
namespace {

// Runs `body` in a child process and returns its wait status.
template <class Body> int in_child(Body body) {
  const pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(InterruptInherited, AHangupIgnoredAsUnderNohupDoesNotInterrupt) {
  const int status = in_child([] {
    std::signal(SIGHUP, SIG_IGN);
    install_interrupt_handlers();
    std::raise(SIGHUP);
    _exit(interrupt_requested() ? 1 : 42);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

TEST(InterruptInherited, AHangupIgnoredAsUnderNohupStaysIgnoredOnceTheHandlersAreGivenBack) {
  const int status = in_child([] {
    std::signal(SIGHUP, SIG_IGN);
    install_interrupt_handlers();
    install_interrupt_handlers(); // a command installs them again
    restore_default_interrupt_handlers();
    std::raise(SIGHUP);
    _exit(42);
  });
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

TEST(InterruptInherited, AnInterruptNotIgnoredIsStillRecorded) {
  const int status = in_child([] {
    std::signal(SIGHUP, SIG_IGN);
    install_interrupt_handlers();
    std::raise(SIGINT);
    _exit(interrupt_signal() == SIGINT ? 42 : 1);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

} // namespace
} // namespace culprit
