// What a recipe's values are called and how a recipe is keyed: the spellings of its settings
// (the file's, the flags' and the evidence's), the threshold's, and the hashes that key builds
// and measurements in the store. Reading the file is recipe.cpp.
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/git/hash.hpp"
#include "core/recipe/recipe.hpp"
#include "core/util/escape.hpp"
#include "core/util/spelling.hpp"

namespace culprit::recipe {
namespace {

constexpr std::array<Spelling<DuetMode>, 3> k_duet_modes = {
    {{DuetMode::off, "off"}, {DuetMode::on, "on"}, {DuetMode::automatic, "auto"}}};
constexpr std::array<Spelling<RunCwd>, 2> k_run_cwds = {
    {{RunCwd::scratch, "scratch"}, {RunCwd::artifacts, "artifacts"}}};
constexpr std::array<Spelling<Instrument>, 4> k_instruments = {{{Instrument::time, "time"},
                                                                {Instrument::valgrind, "valgrind"},
                                                                {Instrument::perf, "perf"},
                                                                {Instrument::ncu, "ncu"}}};

constexpr std::array<Spelling<ExecutorKind>, 2> k_executor_kinds = {
    {{ExecutorKind::local, "local"}, {ExecutorKind::slurm, "slurm"}}};

} // namespace

std::string_view to_string(ExecutorKind kind) {
  return name_in(k_executor_kinds, kind);
}

std::optional<ExecutorKind> parse_executor_kind(std::string_view text) {
  return value_in(k_executor_kinds, text);
}

std::string_view to_string(DuetMode mode) {
  return name_in(k_duet_modes, mode);
}

std::string_view to_string(RunCwd cwd) {
  return name_in(k_run_cwds, cwd);
}

std::optional<RunCwd> parse_run_cwd(std::string_view text) {
  return value_in(k_run_cwds, text);
}

std::string_view to_string(Instrument instrument) {
  return name_in(k_instruments, instrument);
}

std::optional<Instrument> parse_instrument(std::string_view text) {
  return value_in(k_instruments, text);
}

std::vector<std::string> instrument_names() {
  std::vector<std::string> names;
  names.reserve(k_instruments.size());
  for (const auto& spelling : k_instruments)
    names.emplace_back(spelling.name);
  return names;
}

Result<double> parse_threshold(std::string_view text) {
  std::string_view number = text;
  const bool percent = !number.empty() && number.back() == '%';
  if (percent)
    number.remove_suffix(1);
  double value = 0;
  const std::string digits(number);
  const char* end = digits.c_str() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.c_str(), end, value);
  if (digits.empty() || ec != std::errc() || ptr != end || !std::isfinite(value))
    return usage_error("threshold '{}' is not a number; write 2% or 0.02", excerpt(text));
  if (percent)
    value /= 100;
  if (value <= 0 || value >= 1)
    return usage_error("threshold {} is out of range: give more than 0 and less than 1 (100%), "
                       "e.g. 2% or 0.02",
                       excerpt(text));
  return value;
}

std::string build_recipe_hash(const BuildRecipe& build) {
  const nlohmann::json part = {{"command", build.command},
                               {"artifacts", build.artifacts},
                               {"env", build.env},
                               {"ptxas_report", build.ptxas_report}};
  return git::hash_bytes(part.dump());
}

// Raised whenever what an instrument counts of the same run changes, so that counts stored the
// earlier way are not compared with new ones as if they were the same measurement.
constexpr int k_counting_revision = 3;

std::string run_recipe_hash(const RunRecipe& run) {
  nlohmann::json command;
  std::visit([&](const auto& c) { command = c; }, run.command);
  nlohmann::json part = {
      {"command", command},     {"format", run.format}, {"env", run.env},
      {"cpus", run.cpus},       {"column", run.column}, {"case_columns", run.case_columns},
      {"pattern", run.pattern}, {"unit", run.unit},     {"direction", run.direction}};
  // Only when it is not the default, so that the measurements of earlier recipes stay theirs.
  if (run.cwd != RunCwd::scratch)
    part["cwd"] = to_string(run.cwd);
  if (run.instrument != Instrument::time) {
    part["instrument"] = to_string(run.instrument);
    // What a counted run counts, by revision: 2 starts a simple string command's program without
    // a shell under the instrument (the shell's own counts are no longer in the whole program's);
    // 3 pads the paths of the cache in the run's arguments and environment under Valgrind to one
    // length (what the loader and libc execute no longer depends on where the cache is).
    part["counting"] = k_counting_revision;
  }
  return git::hash_bytes(part.dump());
}

} // namespace culprit::recipe
