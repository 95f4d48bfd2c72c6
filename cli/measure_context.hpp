#pragma once
// What run, compare and bisect share: the repository, the recipe, the cache, a builder, and a
// measurement session over the local executor.

#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/report_outputs.hpp"
#include "core/build.hpp"
#include "core/compare.hpp"
#include "core/exec/local_executor.hpp"
#include "core/git/repository.hpp"
#include "core/measure/session.hpp"
#include "core/recipe.hpp"

namespace culprit::cli {

struct MeasureFlags {
  RecipeOverrides overrides;
  bool fresh = false;
  bool rebuild = false;
  ReportOutputs outputs; // --json, --markdown, --html, --junit
};

// Adds --fresh, --rebuild, the output flags and the recipe flags to a measuring command.
void add_measure_flags(CLI::App& sub, MeasureFlags& flags);

class MeasureContext {
public:
  static Result<std::unique_ptr<MeasureContext>> open(const GlobalOptions& global,
                                                      const MeasureFlags& flags);

  // Resolves and builds `revision`; a failed build is an infrastructure error that says where
  // the log is.
  Result<Subject> build_subject(const std::string& revision);
  [[nodiscard]] CompareSettings compare_settings() const;

  git::Repository repo;
  Recipe recipe;
  std::filesystem::path cache;
  LocalExecutor executor;
  std::unique_ptr<Builder> builder;
  std::unique_ptr<MeasureSession> session;
  BuildOptions build_options;
  std::vector<BuildResult> builds;

private:
  explicit MeasureContext(git::Repository r) : repo(std::move(r)) {}
};

// Prints the host's noise warnings (unless quiet).
void print_host_warnings(const MeasureSession& session, int verbosity);

} // namespace culprit::cli
