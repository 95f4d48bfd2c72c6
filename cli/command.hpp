#pragma once
// The contract between cli/main.cpp and the one-file-per-subcommand implementations.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace culprit::cli {

// How much a command says beside its results: -q, nothing but results and errors; -v, more about
// each step.
enum class Verbosity : std::uint8_t { quiet, normal, verbose };
// --color: colour on the terminal when it is one (and NO_COLOR is unset), always, or never.
enum class ColorWhen : std::uint8_t { automatic, always, never };

// The global flags of the command line (culprit(1), GLOBAL OPTIONS).
struct GlobalOptions {
  std::string repo = ".";
  std::string config;
  std::string cache_dir;
  std::optional<std::string> store; // --store URL
  Verbosity verbosity = Verbosity::normal;
  ColorWhen color = ColorWhen::automatic;
  std::vector<std::string> argv; // the whole command line, for evidence and reproduction
};

class Command {
public:
  virtual ~Command() = default;
  // Adds this command's flags to its CLI11 subcommand.
  virtual void add_flags(CLI::App& sub) = 0;
  // Runs the command after parsing; returns the process exit code.
  virtual int run(const GlobalOptions& global) = 0;
  // Whether the command stops at a safe point on SIGINT, SIGTERM and SIGHUP and exits 130 (commands
  // that build or measure). Others get the signals' default action.
  [[nodiscard]] virtual bool handles_interrupts() const { return false; }
};

struct CommandEntry {
  const char* name;
  const char* summary;
  std::unique_ptr<Command> (*make)();
};

// Defined in each command's file.
std::unique_ptr<Command> make_init_command();
std::unique_ptr<Command> make_report_command();
std::unique_ptr<Command> make_build_command();
std::unique_ptr<Command> make_run_command();
std::unique_ptr<Command> make_compare_command();
std::unique_ptr<Command> make_bisect_command();
std::unique_ptr<Command> make_env_command();
std::unique_ptr<Command> make_track_command();
std::unique_ptr<Command> make_history_command();
std::unique_ptr<Command> make_triage_command();
std::unique_ptr<Command> make_regressions_command();
std::unique_ptr<Command> make_import_command();
std::unique_ptr<Command> make_store_command();
std::unique_ptr<Command> make_worker_command();
// `culprit help`, which shows the page of any of these commands.
std::unique_ptr<Command> make_help_command(std::vector<std::string> commands);

} // namespace culprit::cli
