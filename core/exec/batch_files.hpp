#pragma once
// The files through which a measurement batch crosses to a cluster node and back. The driver
// writes the batch into a directory of the shared cache; `culprit worker DIR` on the node runs
// it and writes the results beside it; the driver reads them back and imports them into its own
// store (SQLite never leaves the driver's machine).
//
//   batch.json     {"schema": "culprit.batch/1", "requests": [ExecRequest...]}      driver
//   node.json      where the batch ran: node, job and step ids, GPU UUIDs, the       worker
//                  node's host fingerprint and host id; written before the first run
//   results.jsonl  one line per finished request, in order, each flushed whole      worker
//   done.json      {"runs": N}, written last: the batch is complete                  worker
//
// Every file but results.jsonl is written atomically (temp file, then rename). A results line
// is written in one call and ends with a newline, so a reader can tell a whole line from a cut
// one after the worker was stopped.

#include <chrono>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/exec/executor.hpp"
#include "core/util/error.hpp"

namespace culprit::exec {

inline constexpr std::string_view k_batch_schema = "culprit.batch/1";

// Where a batch ran.
struct BatchNode {
  std::string node;              // the Slurm node name (SLURMD_NODENAME), else the hostname
  std::string job_id;            // SLURM_JOB_ID, empty outside Slurm
  std::string step_id;           // SLURM_STEP_ID
  std::vector<std::string> gpus; // UUIDs of the GPUs the batch could use
  std::string host_id;           // of the node's fingerprint, the key its runs are stored under
  nlohmann::json host;           // the node's fingerprint (host::to_json)
};

// One finished request: the outcome and when the run started (microseconds since the epoch).
struct BatchResult {
  ExecResult result;
  std::int64_t started_micros = 0;
};

nlohmann::json to_json(const ExecRequest& request);
Result<ExecRequest> request_from_json(const nlohmann::json& json);
nlohmann::json to_json(const BatchResult& result);
// One results.jsonl line, newline included; bytes that are not UTF-8 become U+FFFD.
std::string result_line(const BatchResult& result);
Result<BatchResult> batch_result_from_json(const nlohmann::json& json);
nlohmann::json to_json(const BatchNode& node);
Result<BatchNode> batch_node_from_json(const nlohmann::json& json);

// Driver side.
Status write_batch(const std::filesystem::path& dir, std::span<const ExecRequest> requests);

// What the driver finds after the worker stopped.
struct BatchReadback {
  std::optional<BatchNode> node;
  std::vector<BatchResult> results; // the whole lines, in order
  bool complete = false;            // done.json was there and agreed with the lines
};

// Reads what the worker left in `dir`. With `require_complete`, anything short of a complete batch
// of `expected` results (node.json or done.json missing, a cut or unreadable line, a count that
// disagrees) is an infrastructure error naming the file; without it, the whole lines are returned
// and a cut last line is dropped (the worker was stopped while writing it).
Result<BatchReadback> read_batch_results(const std::filesystem::path& dir, std::size_t expected,
                                         bool require_complete);

// Worker side.
Result<std::vector<ExecRequest>> read_batch(const std::filesystem::path& dir);

} // namespace culprit::exec
