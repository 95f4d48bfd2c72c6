// culprit env: the host fingerprint and noise warnings, for people on stdout and as JSON; with
// --noise, also the interference profile a calibration loop measures; with --peaks, the CPU's
// peaks for the roofline, measured again and kept in the repository's store.
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/context.hpp"
#include "cli/flag_checks.hpp"
#include "cli/output.hpp"
#include "cli/report_outputs.hpp"
#include "core/host/fingerprint.hpp"
#include "core/host/json.hpp"
#include "core/host/noise.hpp"
#include "core/host/noise_probe.hpp"
#include "core/report/host_text.hpp"
#include "core/roofline/peaks.hpp"
#include "core/util/error.hpp"
#include "core/util/fs.hpp"
#include "core/util/json_text.hpp"

namespace culprit::cli {
namespace {

struct EnvOptions {
  std::string json_file; // "-" for stdout
  double noise_seconds = 5.0;
  std::vector<int> cpus;
  bool peaks = false;
};

class EnvCommand final : public Command {
public:
  void add_flags(CLI::App& sub) override {
    sub.add_option("--json", m_options.json_file,
                   "also write the fingerprint and warnings as JSON to FILE ('-': only JSON, on "
                   "stdout)")
        ->option_text("FILE");
    m_noise = sub.add_option("--noise", m_options.noise_seconds,
                             "also run a calibration loop for SECONDS (default 5) and print the "
                             "machine's interference profile with advice")
                  ->expected(0, 1)
                  ->default_str("5")
                  ->option_text("[SECONDS]");
    sub.add_flag("--peaks", m_options.peaks,
                 "measure the CPU's peaks for the roofline again (an FMA loop and a streaming "
                 "copy) and keep them for this host in the repository's store");
    sub.add_option("--cpus", m_options.cpus,
                   "the CPUs of the calibration loop and of the peaks (default: the recipe's "
                   "cpus, else chosen)")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->check(whole_number(0, recipe::k_max_cpu));
  }

  int run(const GlobalOptions& global) override {
    // A FILE that cannot be written is said before seconds of measuring.
    const std::array<NamedOutput, 1> outputs = {NamedOutput{"--json", m_options.json_file}};
    if (auto writable = check_outputs(outputs); !writable)
      return print_failure(writable.error());
    std::optional<host::NoiseProfile> noise;
    if (m_noise->count() > 0) {
      host::NoiseProbeOptions probe;
      probe.seconds = std::chrono::duration<double>(m_options.noise_seconds);
      probe.cpus = m_options.cpus.empty() ? recipe_cpus(global) : m_options.cpus;
      auto profile = host::probe_noise(probe);
      if (!profile)
        return print_failure(profile.error());
      noise = std::move(*profile);
    }
    const auto host = host::probe_host();
    const auto warnings = host::noise_warnings(host);
    std::optional<roofline::Peaks> peaks;
    std::string kept;
    if (m_options.peaks) {
      auto measured = measure_peaks(global, host);
      if (!measured)
        return print_failure(measured.error());
      std::tie(peaks, kept) = std::move(*measured);
    }
    if (m_options.json_file != "-") {
      std::fputs(report::render_host_text(host, warnings).c_str(), stdout);
      if (noise)
        std::fputs(report::render_noise_profile(*noise).c_str(), stdout);
      if (peaks)
        fmt::print("peaks           {}: {:.1f} GFLOP/s FP32, {:.2f} GB/s\n                {}\n"
                   "                {}\n",
                   terminal_safe(peaks->device), peaks->flops_per_second / 1e9,
                   peaks->bytes_per_second / 1e9, terminal_safe(peaks->source),
                   terminal_safe(kept));
    }
    if (!m_options.json_file.empty()) {
      auto document = host::render_json(host, warnings);
      if (noise)
        document["noise"] = host::noise_json(*noise);
      if (peaks)
        document["peaks"] = {{"device", peaks->device},
                             {"flops_per_second", peaks->flops_per_second},
                             {"bytes_per_second", peaks->bytes_per_second},
                             {"source", peaks->source}};
      if (auto written = write_output(m_options.json_file, json_text(document, 2) + "\n"); !written)
        return print_failure(written.error());
    }
    return static_cast<int>(ExitCode::success);
  }

private:
  // The recipe, when there is a repository with a readable one.
  static std::optional<recipe::Recipe> repository_recipe(const GlobalOptions& global) {
    auto repo = open_repository(global);
    if (!repo)
      return std::nullopt;
    const auto path = recipe_path(global, *repo);
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec))
      return std::nullopt;
    auto recipe = culprit::recipe::load_recipe(path);
    return recipe ? std::optional(std::move(*recipe)) : std::nullopt;
  }

  // The recipe's [run] cpus when there is a repository with a readable recipe; else none.
  static std::vector<int> recipe_cpus(const GlobalOptions& global) {
    const auto recipe = repository_recipe(global);
    return recipe ? recipe->run.cpus : std::vector<int>{};
  }

  // The CPU's peaks measured now (pinned as the runs are, on the recipe's [roofline] threads),
  // kept in the repository's store when there is one; and where they were kept, in words.
  Result<std::pair<roofline::Peaks, std::string>>
  measure_peaks(const GlobalOptions& global, const host::HostFingerprint& host) const {
    const auto recipe = repository_recipe(global);
    const auto cpus = !m_options.cpus.empty() ? m_options.cpus
                      : recipe                ? recipe->run.cpus
                                              : std::vector<int>{};
    const auto threads = recipe ? recipe->roofline.threads : std::nullopt;
    auto repo = open_repository(global);
    if (!repo) {
      roofline::CpuPeakOptions options;
      options.cpus = cpus;
      if (threads)
        options.threads = static_cast<unsigned>(*threads);
      CULPRIT_TRY_ASSIGN(auto peaks, roofline::measure_cpu_peaks(options));
      return std::pair{std::move(peaks),
                       std::string("not kept: culprit keeps peaks in a repository's store; run "
                                   "this in the repository")};
    }
    CULPRIT_TRY_ASSIGN(const auto where, store_location(global, *repo));
    CULPRIT_TRY_ASSIGN(auto store, store::Store::open_at(where));
    const auto id = host::host_id(host);
    CULPRIT_TRY(
        store.record_host({id, json_text(host::to_json(host)), store::now(), store::now()}));
    CULPRIT_TRY_ASSIGN(auto peaks, roofline::measure_and_keep_cpu_peaks(store, id, cpus, threads));
    return std::pair{std::move(peaks),
                     fmt::format("kept for this host ({}) in {}", id.substr(0, 12), store.name())};
  }

  EnvOptions m_options;
  CLI::Option* m_noise = nullptr;
};

} // namespace

std::unique_ptr<Command> make_env_command() {
  return std::make_unique<EnvCommand>();
}

} // namespace culprit::cli
