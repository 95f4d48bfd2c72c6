#include "core/exec/batch_files.hpp"

#include <fstream>

#include <fmt/format.h>

#include "core/util/fs.hpp"

namespace culprit::exec {
namespace {

using nlohmann::json;

// Benchmark output is text, but not always valid UTF-8; a stray byte becomes U+FFFD instead of
// failing the whole batch.
std::string dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

template <class T> Result<T> field(const json& object, const char* key) {
  try {
    return object.at(key).get<T>();
  } catch (const json::exception&) {
    return infra_error("field '{}' is missing or has the wrong type", key);
  }
}

template <class T> T field_or(const json& object, const char* key, T fallback) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null())
    return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

} // namespace

json to_json(const ExecRequest& request) {
  json out;
  if (const auto* shell = std::get_if<std::string>(&request.command))
    out["shell"] = *shell;
  else
    out["argv"] = std::get<std::vector<std::string>>(request.command);
  out["cwd"] = request.cwd.string();
  out["env"] = request.env;
  out["timeout"] = request.timeout.count();
  out["kill_grace"] = request.kill_grace.count();
  out["cpus"] = request.cpus;
  out["output_limit"] = request.output_limit;
  out["contain"] = request.contain;
  return out;
}

Result<ExecRequest> request_from_json(const json& in) {
  if (!in.is_object())
    return infra_error("a request is not a JSON object");
  ExecRequest request;
  if (in.contains("shell")) {
    CULPRIT_TRY_ASSIGN(auto shell, field<std::string>(in, "shell"));
    request.command = std::move(shell);
  } else {
    CULPRIT_TRY_ASSIGN(auto argv, (field<std::vector<std::string>>(in, "argv")));
    if (argv.empty())
      return infra_error("a request has an empty argv");
    request.command = std::move(argv);
  }
  request.cwd = field_or<std::string>(in, "cwd", "");
  request.env = field_or<std::map<std::string, std::string>>(in, "env", {});
  request.timeout = Seconds(field_or<double>(in, "timeout", 0));
  request.kill_grace = Seconds(field_or<double>(in, "kill_grace", 1));
  request.cpus = field_or<std::vector<int>>(in, "cpus", {});
  request.output_limit = field_or<std::size_t>(in, "output_limit", k_default_output_limit);
  request.contain = field_or<bool>(in, "contain", false);
  return request;
}

json to_json(const BatchResult& batch) {
  const auto& r = batch.result;
  return json{{"started", batch.started_micros},
              {"exit_code", r.exit_code},
              {"signal", r.signal},
              {"timed_out", r.timed_out},
              {"out", r.out},
              {"err", r.err},
              {"out_truncated", r.out_truncated},
              {"err_truncated", r.err_truncated},
              {"out_bytes", r.out_bytes},
              {"err_bytes", r.err_bytes},
              {"wall", r.wall.count()},
              {"user", r.user.count()},
              {"sys", r.sys.count()},
              {"max_rss_kb", r.max_rss_kb},
              {"notes", r.notes}};
}

std::string result_line(const BatchResult& result) {
  return dump(to_json(result)) + "\n";
}

Result<BatchResult> batch_result_from_json(const json& in) {
  if (!in.is_object())
    return infra_error("a result is not a JSON object");
  BatchResult batch;
  auto& r = batch.result;
  CULPRIT_TRY_ASSIGN(batch.started_micros, field<std::int64_t>(in, "started"));
  CULPRIT_TRY_ASSIGN(r.exit_code, field<int>(in, "exit_code"));
  CULPRIT_TRY_ASSIGN(r.signal, field<int>(in, "signal"));
  CULPRIT_TRY_ASSIGN(r.timed_out, field<bool>(in, "timed_out"));
  CULPRIT_TRY_ASSIGN(r.out, field<std::string>(in, "out"));
  CULPRIT_TRY_ASSIGN(r.err, field<std::string>(in, "err"));
  CULPRIT_TRY_ASSIGN(const double wall, field<double>(in, "wall"));
  r.wall = Seconds(wall);
  r.user = Seconds(field_or<double>(in, "user", 0));
  r.sys = Seconds(field_or<double>(in, "sys", 0));
  r.out_truncated = field_or<bool>(in, "out_truncated", false);
  r.err_truncated = field_or<bool>(in, "err_truncated", false);
  r.out_bytes = field_or<std::uint64_t>(in, "out_bytes", r.out.size());
  r.err_bytes = field_or<std::uint64_t>(in, "err_bytes", r.err.size());
  r.max_rss_kb = field_or<long>(in, "max_rss_kb", 0);
  r.notes = field_or<std::vector<std::string>>(in, "notes", {});
  return batch;
}

json to_json(const BatchNode& node) {
  return json{{"node", node.node}, {"job_id", node.job_id},   {"step_id", node.step_id},
              {"gpus", node.gpus}, {"host_id", node.host_id}, {"host", node.host}};
}

Result<BatchNode> batch_node_from_json(const json& in) {
  if (!in.is_object())
    return infra_error("node.json is not a JSON object");
  BatchNode node;
  CULPRIT_TRY_ASSIGN(node.node, field<std::string>(in, "node"));
  CULPRIT_TRY_ASSIGN(node.host_id, field<std::string>(in, "host_id"));
  if (node.node.empty() || node.host_id.empty())
    return infra_error("node.json names no node or host id");
  node.job_id = field_or<std::string>(in, "job_id", "");
  node.step_id = field_or<std::string>(in, "step_id", "");
  node.gpus = field_or<std::vector<std::string>>(in, "gpus", {});
  node.host = in.value("host", json::object());
  return node;
}

Status write_batch(const std::filesystem::path& dir, std::span<const ExecRequest> requests) {
  CULPRIT_TRY(ensure_writable_dir(dir, "batch directory"));
  json requests_json = json::array();
  for (const auto& request : requests)
    requests_json.push_back(to_json(request));
  return write_file_atomic(dir / "batch.json",
                           dump(json{{"schema", k_batch_schema}, {"requests", requests_json}}));
}

Result<std::vector<ExecRequest>> read_batch(const std::filesystem::path& dir) {
  const auto file = dir / "batch.json";
  CULPRIT_TRY_ASSIGN(const auto text, read_file(file));
  const auto parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object() ||
      parsed.value("schema", "") != k_batch_schema || !parsed.contains("requests") ||
      !parsed["requests"].is_array())
    return infra_error("{} is not a {} batch", file.string(), k_batch_schema);
  std::vector<ExecRequest> requests;
  requests.reserve(parsed["requests"].size());
  for (const auto& item : parsed["requests"]) {
    auto request = request_from_json(item);
    if (!request)
      return infra_error("{}: request {}: {}", file.string(), requests.size() + 1,
                         request.error().message);
    requests.push_back(std::move(*request));
  }
  return requests;
}

Result<BatchReadback> read_batch_results(const std::filesystem::path& dir, std::size_t expected,
                                         bool require_complete) {
  BatchReadback back;
  const auto node_file = dir / "node.json";
  if (std::filesystem::exists(node_file)) {
    CULPRIT_TRY_ASSIGN(const auto text, read_file(node_file));
    auto node = batch_node_from_json(json::parse(text, nullptr, false));
    if (!node)
      return infra_error("{}: {}", node_file.string(), node.error().message);
    back.node = std::move(*node);
  } else if (require_complete) {
    return infra_error("the worker left no {}; is the cache directory shared with the nodes?",
                       node_file.string());
  }

  const auto results_file = dir / "results.jsonl";
  std::ifstream in(results_file, std::ios::binary);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t begin = 0;
  while (begin < contents.size()) {
    const auto end = contents.find('\n', begin);
    if (end == std::string::npos) {
      if (require_complete)
        return infra_error("{} ends in a cut line after {} results; the worker stopped while "
                           "writing",
                           results_file.string(), back.results.size());
      break; // the worker was stopped while writing its last line
    }
    auto result = batch_result_from_json(
        json::parse(std::string_view(contents).substr(begin, end - begin), nullptr, false));
    if (!result)
      return infra_error("{}: line {}: {}", results_file.string(), back.results.size() + 1,
                         result.error().message);
    back.results.push_back(std::move(*result));
    begin = end + 1;
  }
  if (back.results.size() > expected)
    return infra_error("{} holds {} results for a batch of {}", results_file.string(),
                       back.results.size(), expected);

  const auto done_file = dir / "done.json";
  if (std::filesystem::exists(done_file)) {
    CULPRIT_TRY_ASSIGN(const auto text, read_file(done_file));
    const auto done = json::parse(text, nullptr, false);
    const auto runs = done.is_object() ? done.value("runs", std::int64_t{-1}) : -1;
    back.complete = runs >= 0 && static_cast<std::size_t>(runs) == back.results.size() &&
                    back.results.size() == expected;
    if (!back.complete && require_complete)
      return infra_error("{} says {} runs, {} holds {} of the {} asked for", done_file.string(),
                         runs, results_file.string(), back.results.size(), expected);
  } else if (require_complete) {
    return infra_error("the worker left {} of {} results and no {}; it did not finish",
                       back.results.size(), expected, done_file.string());
  }
  return back;
}

} // namespace culprit::exec
