#include "core/git/library.hpp"

#include <git2.h>

namespace culprit::git {
namespace {

struct Holder {
  Holder() { git_libgit2_init(); }
  ~Holder() { git_libgit2_shutdown(); }
  Holder(const Holder&) = delete;
  Holder& operator=(const Holder&) = delete;
};

} // namespace

void GitLibrary::ensure() {
  static const Holder holder;
  (void)holder;
}

} // namespace culprit::git
