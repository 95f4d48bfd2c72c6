#include "cli/command.hpp"
#include "cli/output.hpp"

namespace culprit::cli {
namespace {

class NotYetCommand final : public Command {
public:
  NotYetCommand(const char* name, const char* what) : m_name(name), m_what(what) {}
  void add_flags(CLI::App& sub) override { sub.allow_extras(); }
  int run(const GlobalOptions& /*global*/) override {
    print_error(
        fmt::format("'culprit {}' is not yet implemented ({}); see the README for what works "
                    "today",
                    m_name, m_what));
    return static_cast<int>(ExitCode::usage);
  }

private:
  const char* m_name;
  const char* m_what;
};

} // namespace

std::unique_ptr<Command> make_not_yet_command(const char* name, const char* what) {
  return std::make_unique<NotYetCommand>(name, what);
}

} // namespace culprit::cli
