// culprit import FILE --commit REV: take results made elsewhere into the store.

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "core/history/import.hpp"
#include "core/host/fingerprint.hpp"
#include "core/util/format.hpp"
#include "core/util/json_text.hpp"

namespace culprit::cli {
namespace {

class ImportCommand final : public Command {
public:
  void add_flags(CLI::App& sub) override {
    sub.add_option("file", m_file, "Google Benchmark JSON, nvbench JSON or culprit JSON lines")
        ->required();
    sub.add_option("--commit", m_commit, "the revision the results were measured at")->required();
    sub.add_option("--format", m_format, "auto, gbench, nvbench or culprit")
        ->check(CLI::IsMember({"auto", "gbench", "nvbench", "culprit"}));
    sub.add_option("--host", m_host,
                   "the name of the machine that made the results (default: this host)");
  }

  int run(const GlobalOptions& global) override {
    auto repo = open_repository(global);
    if (!repo)
      return print_failure(repo.error());
    auto request = make_request(*repo);
    if (!request)
      return print_failure(request.error());
    auto cache = store_location(global, *repo);
    if (!cache)
      return print_failure(cache.error());
    auto store = store::Store::open_at(*cache);
    if (!store)
      return print_failure(store.error());
    auto ledger = history::Ledger::open_at(*cache);
    if (!ledger)
      return print_failure(ledger.error());
    auto outcome = history::import_results(*store, *ledger, *request);
    if (!outcome)
      return print_failure(outcome.error());
    for (const auto& warning : outcome->warnings)
      print_warning(warning);
    if (outcome->already_imported)
      fmt::print("{} was imported for {} before; nothing to do\n", terminal_safe(m_file),
                 request->commit.substr(0, 12));
    else
      fmt::print("imported {} ({}): {}, {} as one run of {} on host {}\n", terminal_safe(m_file),
                 to_string(outcome->format), counted(outcome->cases, "case", "cases"),
                 counted(outcome->samples, "sample", "samples"), request->commit.substr(0, 12),
                 terminal_safe(request->host.host_id, 12));
    return 0;
  }

private:
  Result<history::ImportRequest> make_request(const git::Repository& repo) const {
    history::ImportRequest request;
    request.file = m_file;
    CULPRIT_TRY_ASSIGN(request.commit, repo.resolve(m_commit));
    CULPRIT_TRY_ASSIGN(const auto info, repo.commit_info(request.commit));
    request.commit_time = info.committer.time;
    CULPRIT_TRY_ASSIGN(request.parse.format, parsers::parse_output_format(m_format));
    const auto now = store::now();
    if (m_host.empty()) {
      host::HostProbeOptions probe;
      probe.query_gpus = true;
      const auto fingerprint = host::probe_host(probe);
      request.host = {host::host_id(fingerprint), json_text(host::to_json(fingerprint)), now, now};
    } else {
      const nlohmann::json fingerprint{{"hostname", m_host}, {"imported", true}};
      request.host = {m_host, json_text(fingerprint), now, now};
    }
    return request;
  }

  std::string m_file;
  std::string m_commit;
  std::string m_format = "auto";
  std::string m_host;
};

} // namespace

std::unique_ptr<Command> make_import_command() {
  return std::make_unique<ImportCommand>();
}

} // namespace culprit::cli
