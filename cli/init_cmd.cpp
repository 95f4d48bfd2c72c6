#include "cli/command.hpp"

namespace culprit::cli {
std::unique_ptr<Command> make_init_command() {
  return make_not_yet_command("init", "issue #2");
}
} // namespace culprit::cli
