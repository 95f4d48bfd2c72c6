// culprit worker DIR: runs a measurement batch on a cluster node (core/exec/batch_files.hpp).
// Started by the Slurm executor inside an allocation; not meant to be typed by people.
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "core/exec/batch_files.hpp"
#include "core/exec/local_executor.hpp"
#include "core/host/fingerprint.hpp"
#include "core/store/records.hpp"
#include "core/util/fs.hpp"
#include "core/util/interrupt.hpp"
#include "core/util/json_text.hpp"

namespace culprit::cli {
namespace {

std::string env_or(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : std::move(fallback);
}

// The GPUs this batch may use: CUDA_VISIBLE_DEVICES, when Slurm set it to indices, narrows what
// nvidia-smi lists (it shows every GPU of the node unless cgroups hide the others).
void keep_visible_gpus(host::HostFingerprint& host) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr)
    return;
  std::set<int> indices;
  std::string_view rest(visible);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const auto item = rest.substr(0, comma);
    int index = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), index);
    if (ec != std::errc{} || end != item.data() + item.size())
      return; // UUIDs or MIG names: nvidia-smi already shows what the batch may use
    indices.insert(index);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  std::erase_if(host.gpu.gpus,
                [&](const host::GpuFacts& gpu) { return !indices.contains(gpu.index); });
}

exec::BatchNode describe_node() {
  auto host = host::probe_host();
  keep_visible_gpus(host);
  // On a cluster the node's name is its identity (and normally its hostname too).
  host.hostname = env_or("SLURMD_NODENAME", host.hostname);
  exec::BatchNode node;
  node.node = host.hostname;
  node.job_id = env_or("SLURM_JOB_ID", "");
  node.step_id = env_or("SLURM_STEP_ID", "");
  for (const auto& gpu : host.gpu.gpus)
    node.gpus.push_back(gpu.uuid);
  node.host_id = host::host_id(host);
  node.host = host::to_json(host);
  return node;
}

Status run_batch_dir(const std::filesystem::path& dir) {
  CULPRIT_TRY_ASSIGN(const auto requests, exec::read_batch(dir));
  for (const char* stale : {"results.jsonl", "done.json"})
    std::filesystem::remove(dir / stale);
  CULPRIT_TRY(write_file_atomic(dir / "node.json", json_text(to_json(describe_node()))));
  const auto results_file = dir / "results.jsonl";
  std::FILE* out = std::fopen(results_file.c_str(), "wb");
  if (out == nullptr)
    return infra_error("cannot write {}; is the cache directory writable from this node?",
                       results_file.string());
  exec::LocalExecutor executor;
  std::size_t written = 0;
  Status status;
  for (const auto& request : requests) {
    exec::BatchResult batch;
    batch.started_micros = store::to_micros(store::now());
    auto ran = executor.run(request);
    if (!ran) {
      status = std::unexpected(ran.error());
      break;
    }
    batch.result = std::move(*ran);
    const auto line = exec::result_line(batch);
    // One write per line, flushed at once: a reader sees whole lines, or a cut last one.
    if (std::fwrite(line.data(), 1, line.size(), out) != line.size() || std::fflush(out) != 0) {
      status = infra_error("cannot write {}: the disk may be full", results_file.string());
      break;
    }
    ++written;
  }
  if (std::fclose(out) != 0 && status)
    status = infra_error("cannot write {}", results_file.string());
  CULPRIT_TRY(status);
  return write_file_atomic(dir / "done.json", fmt::format("{{\"runs\": {}}}", written));
}

class WorkerCommand final : public Command {
public:
  void add_flags(CLI::App& sub) override {
    sub.add_option("dir", m_dir, "the batch directory (batch.json), in the shared cache")
        ->required();
  }
  [[nodiscard]] bool handles_interrupts() const override { return true; }

  int run(const GlobalOptions& /*global*/) override {
    if (auto done = run_batch_dir(m_dir); !done)
      return print_failure(done.error());
    return static_cast<int>(ExitCode::success);
  }

private:
  std::string m_dir;
};

} // namespace

std::unique_ptr<Command> make_worker_command() {
  return std::make_unique<WorkerCommand>();
}

} // namespace culprit::cli
