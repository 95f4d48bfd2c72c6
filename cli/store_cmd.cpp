// culprit store copy FROM TO: move a history between the cache dir's SQLite files and a
// PostgreSQL store, in either direction (core/history/store_copy.hpp).

#include <filesystem>
#include <string>
#include <system_error>

#include <fmt/core.h>

#include "cli/command.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "core/history/store_copy.hpp"
#include "core/store/location.hpp"
#include "core/store/store.hpp"
#include "core/util/format.hpp"
#include "core/util/interrupt.hpp"

namespace culprit::cli {
namespace {

class StoreCommand final : public Command {
public:
  void add_flags(CLI::App& sub) override {
    sub.add_option("action", m_action, "copy")->required()->check(CLI::IsMember({"copy"}));
    sub.add_option("from", m_from,
                   "where the history is: local (this repository's cache dir), a cache dir of "
                   "a repository, or a postgresql:// URL")
        ->required();
    sub.add_option("to", m_to, "where it goes: the same kinds as FROM")->required();
  }

  [[nodiscard]] bool handles_interrupts() const override { return true; }

  int run(const GlobalOptions& global) override {
    auto from = locate(global, m_from, true);
    if (!from)
      return print_failure(from.error());
    auto to = locate(global, m_to, false);
    if (!to)
      return print_failure(to.error());
    history::CopyOptions options;
    options.on_batch = [&global](const history::CopyCounts& counts) {
      if (global.verbosity == Verbosity::verbose)
        fmt::print(stderr, "store copy: {} so far\n",
                   counted(static_cast<std::size_t>(counts.runs_copied + counts.runs_present),
                           "run", "runs"));
      return !interrupt_requested();
    };
    auto copied = history::copy_store(*from, *to, options);
    if (!copied)
      return print_failure(copied.error());
    fmt::print("{}\n", history::copy_summary(*copied, from->describe(), to->describe()));
    return 0;
  }

private:
  // "local", a postgresql:// URL, or a directory that holds (FROM) or will hold (TO) a store.
  static Result<store::Location> locate(const GlobalOptions& global, const std::string& where,
                                        bool source) {
    if (where == "local") {
      CULPRIT_TRY_ASSIGN(auto repo, open_repository(global));
      CULPRIT_TRY_ASSIGN(auto cache, repository_cache(global, repo));
      return store::Location{.cache_dir = std::move(cache), .url = {}};
    }
    if (where.find("://") != std::string::npos) {
      CULPRIT_TRY(store::check_store_url(where));
      return store::Location{.cache_dir = {}, .url = where};
    }
    std::error_code error;
    if (source &&
        !std::filesystem::exists(std::filesystem::path(where) / store::k_store_file_name, error))
      return usage_error("{} holds no results store ({}); name a repository's cache dir, "
                         "'local' or a postgresql:// URL",
                         where, store::k_store_file_name);
    return store::Location{.cache_dir = where, .url = {}};
  }

  std::string m_action;
  std::string m_from;
  std::string m_to;
};

} // namespace

std::unique_ptr<Command> make_store_command() {
  return std::make_unique<StoreCommand>();
}

} // namespace culprit::cli
