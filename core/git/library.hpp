#pragma once
// libgit2 must be initialised once per process before any other call, and shut down at the end.

namespace culprit::git {

class GitLibrary {
public:
  // Initialises libgit2 on first use; safe to call from any thread, any number of times.
  static void ensure();
};

} // namespace culprit::git
