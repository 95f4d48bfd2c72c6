#include "cli/command.hpp"

namespace culprit::cli {
std::unique_ptr<Command> make_build_command() {
  return make_not_yet_command("build", "issue #2");
}
} // namespace culprit::cli
