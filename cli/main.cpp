// culprit: which commit made this kernel slower, and how sure are we?
// main parses the global flags, dispatches to one subcommand from the table below, and maps
// anything that escapes to a one-line message and an exit code.

#include <array>
#include <cstdlib>
#include <exception>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "core/util/interrupt.hpp"
#include "core/util/version.hpp"

namespace culprit::cli {
namespace {

const std::array k_commands = {
    CommandEntry{"init", "write a commented culprit.toml for the repo in hand", make_init_command},
    CommandEntry{"build", "build revisions into the cache; print build keys", make_build_command},
    CommandEntry{"run", "measure one revision; per-case summary with CIs", make_run_command},
    CommandEntry{"compare", "interleaved A/B; per-case ratio, CI, verdict", make_compare_command},
    CommandEntry{"bisect", "find the commit(s) that changed performance", make_bisect_command},
    CommandEntry{"report", "render evidence as text, markdown or html", make_report_command},
    CommandEntry{"env", "host fingerprint and noise warnings", make_env_command},
    CommandEntry{"track", "measure a series of commits into the store (nightly use)",
                 make_track_command},
    CommandEntry{"history", "per-case series with CIs and change points", make_history_command},
    CommandEntry{"triage", "confirm and bisect every new change point; group by culprit",
                 make_triage_command},
    CommandEntry{"regressions", "the regressions triage found: list, show, ack, wontfix, reopen",
                 make_regressions_command},
    CommandEntry{"import", "take results made elsewhere into the store", make_import_command},
    CommandEntry{"store", "copy a history between the local store and a shared one",
                 make_store_command},
    CommandEntry{"worker", "(internal) run a measurement batch on a cluster node",
                 make_worker_command},
};

int run_main(int argc, char** argv) {
  // From the first moment: a signal that arrives while the command line is read is kept, and a
  // measuring command then exits 130 at once, never with the signal's default death.
  install_interrupt_handlers();
  GlobalOptions global;
  global.argv.assign(argv, argv + argc);

  CLI::App app{"culprit: find the commit that made a kernel slower, with evidence", "culprit"};
  app.set_version_flag("--version", fmt::format("culprit {}", k_version));
  app.require_subcommand(1);
  // A flag given twice takes its last value, as in git and the GNU tools: a script appends its
  // overrides to a command line. Subcommands inherit this; list options still collect every value.
  app.option_defaults()->always_capture_default()->multi_option_policy(
      CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--repo", global.repo, "the git repository (any path inside it)");
  app.add_option("--config", global.config,
                 "the recipe file (default: culprit.toml at the top of the working tree)");
  app.add_option("--cache-dir", global.cache_dir,
                 "where slots, builds and the store live (default: $XDG_CACHE_HOME/culprit)");
  app.add_option("--store", global.store,
                 "a shared results store, postgresql://USER@HOST:PORT/DB (default: $CULPRIT_STORE, "
                 "the recipe's [store] url, else SQLite in the cache dir)");
  const auto quiet = [&global] { global.verbosity = Verbosity::quiet; };
  const auto verbose = [&global] { global.verbosity = Verbosity::verbose; };
  app.add_flag_callback("-q,--quiet", quiet, "only results and errors");
  app.add_flag_callback("-v,--verbose", verbose, "say more about each step");
  const auto color = [&global](const std::string& when) {
    global.color = when == "always"  ? ColorWhen::always
                   : when == "never" ? ColorWhen::never
                                     : ColorWhen::automatic;
  };
  app.add_option_function<std::string>("--color", color,
                                       "colour on the terminal: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  std::vector<std::unique_ptr<Command>> commands;
  std::vector<std::string> names;
  names.reserve(k_commands.size());
  for (const auto& entry : k_commands)
    names.emplace_back(entry.name);
  Command* chosen = nullptr;
  const auto add = [&](const char* name, const char* summary, std::unique_ptr<Command> made) {
    auto* sub = app.add_subcommand(name, summary);
    auto& command = commands.emplace_back(std::move(made));
    command->add_flags(*sub);
    // The global options are taken after the command too (`culprit compare A B -q`): what the
    // command does not know falls through to them.
    sub->fallthrough();
    sub->callback([&chosen, raw = command.get()] { chosen = raw; });
  };
  for (const auto& entry : k_commands)
    add(entry.name, entry.summary, entry.make());
  add("help", "show the manual page of a command or topic", make_help_command(names));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error(fmt::format("{}; run 'culprit --help' for usage", e.what()));
    return static_cast<int>(ExitCode::usage);
  }
  if (chosen == nullptr) {
    print_error("no command given; run 'culprit --help' for the list");
    return static_cast<int>(ExitCode::usage);
  }
  if (!chosen->handles_interrupts())
    restore_default_interrupt_handlers();
  else if (interrupt_requested()) {
    print_error("interrupted before anything was built or measured");
    return static_cast<int>(ExitCode::interrupted);
  }
  const int code = chosen->run(global);
  // Results that never reached standard output are no results: say so, unless the command
  // already failed and said why.
  const bool said_why = code == static_cast<int>(ExitCode::usage) ||
                        code == static_cast<int>(ExitCode::infrastructure) ||
                        code == static_cast<int>(ExitCode::interrupted);
  if (auto flushed = finish_stdout(); !flushed && !said_why)
    return print_failure(flushed.error());
  return code;
}

} // namespace
} // namespace culprit::cli

int main(int argc, char** argv) {
  try {
    return culprit::cli::run_main(argc, argv);
  } catch (const std::exception& e) {
    culprit::cli::print_error(fmt::format(
        "{} (this is a bug in culprit; please report it with the command line)", e.what()));
    return static_cast<int>(culprit::ExitCode::infrastructure);
  }
}
