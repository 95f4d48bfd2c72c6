#pragma once
// The output flags that every command which writes evidence shares (compare, bisect, ...):
// --json, --markdown, --html and --junit, each taking a FILE ('-' for standard output), and the
// GitHub annotations printed when GITHUB_ACTIONS is set.

#include <array>
#include <span>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/command.hpp"
#include "core/evidence/evidence.hpp"
#include "core/git/repository.hpp"
#include "core/report/view.hpp"
#include "core/util/error.hpp"
#include "core/util/fs.hpp"

namespace culprit::cli {

// One output a command was asked for: the flag, and its FILE ("" when not asked for, "-" for
// standard output).
struct NamedOutput {
  std::string_view flag;
  std::string_view file;
};

struct ReportOutputs {
  std::string json;     // the evidence document
  std::string markdown; // for a pull-request comment or a bug
  std::string html;     // a self-contained page with plots
  std::string junit;    // JUnit XML, one test case per benchmark case
  [[nodiscard]] bool any() const;
  // The four flags with their files (views of these strings).
  [[nodiscard]] std::array<NamedOutput, 4> named() const;
  // check_outputs over the four flags.
  [[nodiscard]] Status check() const;
};

// Adds --json, --markdown, --html and --junit to `sub` (group "Output"); the values land in
// `outputs`, which must outlive parsing.
void add_report_output_flags(CLI::App& sub, ReportOutputs& outputs);

// A usage error when FILE cannot be written because its directory does not exist or it is a
// directory; "" and "-" (stdout) are fine. `flag` names the option in the message.
Status check_output_path(const std::string& file, std::string_view flag);

// check_output_path for each, and a usage error when two of them name the same file or both
// standard output: the second would overwrite the first, or interleave with it.
Status check_outputs(std::span<const NamedOutput> outputs);

// Whether any of `outputs` goes to standard output ('-').
bool any_to_stdout(std::span<const NamedOutput> outputs);

// Writes one output, the one way every output flag of every command writes: FILE "-" on standard
// output (flushed; a failed write is an infrastructure error), any other FILE atomically (readers
// see the old file or the whole new one). check_outputs has refused two on standard output.
Status write_output(const std::string& file, std::string_view contents);
// The same for contents made a piece at a time (write_file_atomic's NextPiece).
Status write_output(const std::string& file, const NextPiece& next);

// How to render `evidence`: the commit order of a bisection from `repo` when it knows the
// commits (null or unknown commits: the order is inferred), colour when `color` is "always", or
// "auto" with `stream` on a terminal and no NO_COLOR in the environment.
report::RenderOptions render_options(const evidence::Evidence& evidence,
                                     const git::Repository* repo,
                                     ColorWhen color = ColorWhen::never,
                                     std::FILE* stream = stdout);

// The summary's options as a command prints it: its -q or -v, and where its evidence went
// (`json`: the --json FILE, '-' for standard output).
report::RenderOptions summary_options(Verbosity verbosity, const std::string& json = {});

// Where a command prints its summary for people: standard error when one of the outputs goes to
// standard output ('-'), so that `--json - | jq` reads JSON alone; standard output otherwise.
std::FILE* summary_stream(const ReportOutputs& outputs);

// Renders every requested output first, then writes each file atomically (readers see the old
// file or the whole new one); a FILE whose directory does not exist is a usage error before
// anything is written. When GITHUB_ACTIONS is set in the environment, also prints the GitHub
// annotations of the evidence on stdout (on stderr when an output goes to stdout).
Status write_report_outputs(const evidence::Evidence& evidence, const ReportOutputs& outputs,
                            const report::RenderOptions& options = {});

} // namespace culprit::cli
