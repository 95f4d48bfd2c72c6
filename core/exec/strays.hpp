#pragma once
// Processes a run left behind outside its process group. A benchmark's process group is stopped
// at the timeout and when the command exits, but a process can leave the group (setpgid, setsid)
// and outlive both, loading the machine for every later run. Each run therefore carries a token
// in its environment, CULPRIT_RUN_TOKEN, which every process it starts inherits (the way CI
// servers find the processes a build left behind); the processes that carry it are found under
// /proc and killed, wherever they moved.

#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace culprit::exec {

inline constexpr std::string_view k_run_token_variable = "CULPRIT_RUN_TOKEN";

// A token no other run of this or any other culprit process carries, always of the same length.
std::string new_run_token();

// The processes other than this one whose environment holds CULPRIT_RUN_TOKEN=`token` (those of
// other users cannot be read, and are not ours).
std::vector<pid_t> processes_with_token(std::string_view token);

// SIGKILL to every process that carries `token`, pass after pass until none is left (a process
// may fork while it is killed), at most a few passes. Returns how many were killed.
std::size_t kill_strays(std::string_view token);

// The processes descended from `root` (its children, theirs, ...; not `root` itself), found by
// their parent links under /proc at this moment. A process that left the group and cleared its
// environment too carries no token, but is found this way while its parent still lives, so the
// tree is taken before the group is signalled (a killed parent hands its children to init).
std::vector<pid_t> descendants_of(pid_t root);

// Sends `signal_number` to each of `pids`; one already gone is fine.
void signal_each(const std::vector<pid_t>& pids, int signal_number);

} // namespace culprit::exec
