#include "core/util/interrupt.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <gtest/gtest.h>

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

TEST(Interrupt, ASignalWhileHandlersAreInstalledIsRecordedNotFatal) {
  const int status = in_child([] {
    install_interrupt_handlers();
    std::raise(SIGTERM);
    _exit(interrupt_signal() == SIGTERM ? 42 : 1);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

TEST(Interrupt, RestoringTheDefaultsDeliversAPendingSignalAgain) {
  const int status = in_child([] {
    install_interrupt_handlers();
    std::raise(SIGTERM);
    restore_default_interrupt_handlers(); // the process ends here, by SIGTERM
    _exit(1);
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
}

TEST(Interrupt, RestoringTheDefaultsWithNothingPendingLeavesTheProcessRunning) {
  const int status = in_child([] {
    install_interrupt_handlers();
    restore_default_interrupt_handlers();
    _exit(interrupt_requested() ? 1 : 42);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

// A hang-up ignored when culprit started (nohup) stays ignored: it neither interrupts a command
// nor, once the handlers are given back, ends one; Ctrl-C still interrupts.
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
