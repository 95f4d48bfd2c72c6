#pragma once
// Ctrl-C, SIGTERM and SIGHUP (a terminal or an SSH session that drops): the handler only records
// the request; long-running loops (the executor's wait, the measurement loop, bisection) poll
// interrupt_requested() and stop at a safe point, so that everything measured so far is already in
// the store when the process exits with 130.

namespace culprit {

// Installs handlers for SIGINT, SIGTERM and SIGHUP (without SA_RESTART, so blocking calls wake
// up). A SIGHUP ignored when they are first installed (under nohup) stays ignored.
void install_interrupt_handlers();
// Gives SIGINT, SIGTERM and SIGHUP their default action back (a SIGHUP ignored from the start
// stays ignored); a signal that arrived while the handlers were installed is delivered again, so
// the process ends as it would have.
void restore_default_interrupt_handlers();
[[nodiscard]] bool interrupt_requested();
// The signal that asked (SIGINT, SIGTERM or SIGHUP), or 0.
[[nodiscard]] int interrupt_signal();
// For tests, and for code that wants to stop the same way a signal would.
void request_interrupt(int signal_number);
void clear_interrupt();

} // namespace culprit
