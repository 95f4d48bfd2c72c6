// culprit env: the host fingerprint and noise warnings, for people on stdout and as JSON.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/host/fingerprint.hpp"
#include "core/host/noise.hpp"
#include "core/host/render.hpp"

namespace culprit::cli {
namespace {

struct EnvOptions {
  std::string json_file; // "-" for stdout
};

Status write_json(const std::string& file, const nlohmann::json& document) {
  const auto text = document.dump(2) + "\n";
  if (file == "-")
    return write_stdout(text);
  const auto dir = std::filesystem::path(file).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    return usage_error("cannot write {}; check that its directory exists and is writable", file);
  return write_file_atomic(file, text);
}

class EnvCommand final : public Command {
public:
  void add_flags(CLI::App& sub) override {
    sub.add_option("--json", m_options.json_file,
                   "also write the fingerprint and warnings as JSON to FILE ('-': only JSON, on "
                   "stdout)")
        ->option_text("FILE");
  }

  int run(const GlobalOptions& /*global*/) override {
    const auto host = host::probe_host();
    const auto warnings = host::noise_warnings(host);
    if (m_options.json_file != "-")
      std::fputs(host::render_text(host, warnings).c_str(), stdout);
    if (!m_options.json_file.empty())
      if (auto written = write_json(m_options.json_file, host::render_json(host, warnings));
          !written)
        return report(written.error());
    return static_cast<int>(ExitCode::success);
  }

private:
  EnvOptions m_options;
};

} // namespace

std::unique_ptr<Command> make_env_command() {
  return std::make_unique<EnvCommand>();
}

} // namespace culprit::cli
