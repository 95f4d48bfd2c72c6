#include "core/build/cuobjdump.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

#include "core/host/capture.hpp"

namespace culprit::build {
namespace {

namespace fs = std::filesystem;

std::string first_line(std::string_view text) {
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos)
    return {};
  text.remove_prefix(start);
  return std::string(text.substr(0, std::min<std::size_t>(text.find('\n'), 200)));
}

// Runs `cuobjdump <option> <file>` and returns its standard output.
Result<std::string> run_cuobjdump(exec::Executor& executor, const fs::path& tool,
                                  std::string_view option, const fs::path& file,
                                  exec::Seconds timeout) {
  exec::ExecRequest request;
  request.command = std::vector<std::string>{tool.string(), std::string(option), file.string()};
  request.env["LC_ALL"] = "C";
  request.timeout = timeout;
  auto result = executor.run(request);
  if (!result) {
    if (result.error().code == ExitCode::interrupted)
      return std::unexpected(result.error());
    return infra_error("cuobjdump {} {}: {}", option, file.string(), result.error().message);
  }
  const std::string said = result->out + result->err;
  if (said.find("does not contain device code") != std::string::npos)
    return infra_error("{} holds no CUDA device code", file.string());
  if (!result->succeeded()) {
    const auto why =
        first_line(result->err).empty() ? first_line(result->out) : first_line(result->err);
    return infra_error("cuobjdump {} {} failed: {}", option, file.string(),
                       why.empty() ? exec::describe_outcome(*result, request) : why);
  }
  return std::move(result->out);
}

} // namespace

std::optional<fs::path> find_cuobjdump() {
  if (auto found = host::find_on_path("cuobjdump"))
    return found;
  std::vector<fs::path> dirs;
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0')
    dirs.emplace_back(fs::path(home) / "bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  dirs.emplace_back("/usr/local/lib/culprit-cuda-tools/bin");
  for (const auto& dir : dirs) {
    std::error_code ec;
    auto candidate = dir / "cuobjdump";
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

Result<CudaBinary> read_cuda_binary(exec::Executor& executor, const fs::path& file,
                                    exec::Seconds timeout) {
  const auto tool = find_cuobjdump();
  if (!tool)
    return infra_error("cuobjdump not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin): run "
                       "scripts/setup-debian.sh or install the CUDA toolkit's cuobjdump");
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    return infra_error("{}: no such file", file.string());
  CULPRIT_TRY_ASSIGN(auto sass, run_cuobjdump(executor, *tool, "-sass", file, timeout));
  CULPRIT_TRY_ASSIGN(auto binary, parse_cuobjdump_sass(sass));
  if (binary.ptx_only())
    return binary;
  CULPRIT_TRY_ASSIGN(auto usage_text, run_cuobjdump(executor, *tool, "-res-usage", file, timeout));
  CULPRIT_TRY_ASSIGN(auto usage, parse_res_usage(usage_text));
  attach_resources(binary, usage);
  return binary;
}

} // namespace culprit::build
