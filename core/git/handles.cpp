#include "core/git/handles.hpp"

namespace culprit::git {

std::string last_error_message(std::string_view fallback) {
  const git_error* error = git_error_last();
  if (error == nullptr || error->message == nullptr || *error->message == '\0')
    return std::string(fallback);
  return error->message;
}

Status git_check(int rc, std::string_view what, ExitCode code) {
  if (rc >= 0)
    return {};
  return fail(code, fmt::format("{}: {}", what, last_error_message()));
}

std::string oid_to_hex(const git_oid& oid) {
  char text[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(text, sizeof text, &oid);
  return text;
}

} // namespace culprit::git
