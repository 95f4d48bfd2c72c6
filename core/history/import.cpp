#include "core/history/import.hpp"

#include <set>

#include "core/exec/executor.hpp"
#include "core/git/hash.hpp"
#include "core/util/fs.hpp"

namespace culprit::history {
namespace {

// An import is a benchmark's output made elsewhere, so it is bounded as a run's output is.
Result<std::string> read_text(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    return usage_error("cannot read {}; check the path", file.string());
  auto text = read_file(file, exec::k_default_output_limit);
  if (!text)
    return fail(ExitCode::usage, text.error().message);
  return text;
}

Result<parsers::OutputFormat> import_format(std::string_view text,
                                            const std::filesystem::path& file,
                                            parsers::OutputFormat asked) {
  if (asked == parsers::OutputFormat::auto_detect) {
    auto detected = parsers::detect_output_format(text);
    if (!detected)
      return usage_error("{}: not Google Benchmark JSON, nvbench JSON or culprit JSON lines; "
                         "give --format if it is one of them",
                         file.string());
    return *detected;
  }
  if (asked != parsers::OutputFormat::gbench && asked != parsers::OutputFormat::nvbench &&
      asked != parsers::OutputFormat::culprit)
    return usage_error("--format {}: import takes gbench, nvbench or culprit results",
                       to_string(asked));
  return asked;
}

} // namespace

Result<ImportOutcome> import_results(store::Store& store, Ledger& ledger,
                                     const ImportRequest& request) {
  CULPRIT_TRY_ASSIGN(const auto text, read_text(request.file));
  ImportOutcome outcome;
  CULPRIT_TRY_ASSIGN(outcome.format, import_format(text, request.file, request.parse.format));
  parsers::ParseOptions parse = request.parse;
  parse.format = outcome.format;
  auto parsed = parsers::parse_output_text(text, parse);
  if (!parsed)
    return usage_error("{}: {}", request.file.string(), parsed.error().message);
  if (parsed->samples.empty())
    return usage_error("{} holds no samples to import", request.file.string());
  outcome.warnings = parsed->warnings;
  std::set<std::string> cases;
  for (const auto& samples : parsed->samples) {
    cases.insert(samples.case_name);
    outcome.samples += samples.values.size();
  }
  outcome.cases = cases.size();

  const auto content_hash = git::hash_bytes(text);
  const auto& host_id = request.host.host_id;
  CULPRIT_TRY_ASSIGN(outcome.already_imported,
                     ledger.was_imported(request.commit, host_id, content_hash));
  if (outcome.already_imported)
    return outcome;
  CULPRIT_TRY(store.record_host(request.host));
  const auto name = request.file.filename().string();
  store::RunRecord run;
  run.artifact_id = import_artifact_id(request.commit);
  run.build_key = run.artifact_id;
  run.commit_id = request.commit;
  run.recipe_hash = k_import_recipe;
  run.host_id = host_id;
  run.started = store::now();
  run.exit_code = 0;
  run.message = "imported from " + name;
  run.session = "import:" + content_hash;
  run.samples = std::move(parsed->samples);
  CULPRIT_TRY(store.record_run(run));
  CULPRIT_TRY(ledger.record_tracked({.commit = request.commit,
                                     .host_id = host_id,
                                     .recipe_hash = std::string(k_import_recipe),
                                     .artifact_id = run.artifact_id,
                                     .source = "import",
                                     .file = name,
                                     .commit_time = request.commit_time,
                                     .tracked_at = run.started,
                                     .sessions = {}}));
  CULPRIT_TRY(ledger.record_import(request.commit, host_id, content_hash, name));
  return outcome;
}

} // namespace culprit::history
