// Reading culprit.toml (culprit.toml(5)): every table and key typed, unknown ones
// named with their line; the flags over it are overrides.cpp, the spellings of its values and its
// hashes recipe_values.cpp.
#include "core/recipe/recipe.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <toml++/toml.h>

#include "core/recipe/checks.hpp"
#include "core/recipe/work_expression.hpp"
#include "core/util/escape.hpp"
#include "core/util/fs.hpp"
#include "core/util/text.hpp"

namespace culprit::recipe {

using detail::check_statistic;
using detail::one_line;

namespace {

// Reads one table of the file, remembering which keys were asked for so that the rest can be
// reported as unknown.
class TableReader {
public:
  TableReader(const toml::table* table, std::string section, std::string file)
      : m_table(table), m_section(std::move(section)), m_file(std::move(file)) {}

  template <class... Args>
  std::unexpected<Error> error_at(const toml::node& node, fmt::format_string<Args...> format,
                                  Args&&... args) const {
    return usage_error("{}:{}: {}", m_file, node.source().begin.line,
                       fmt::format(format, std::forward<Args>(args)...));
  }

  const toml::node* find(std::string_view key) {
    if (std::find(m_known.begin(), m_known.end(), key) == m_known.end())
      m_known.emplace_back(key);
    return m_table == nullptr ? nullptr : m_table->get(key);
  }

  // A key whose string must be one of a few words: `parse` gives the value, or nothing, and then
  // the error lists `words`.
  template <class E>
  Status read_choice(std::string_view key, E& out, std::optional<E> (*parse)(std::string_view),
                     std::string_view words) {
    const auto* node = find(key);
    if (node == nullptr)
      return {};
    const auto value = node->is_string() ? parse(**node->as_string()) : std::nullopt;
    if (!value)
      return error_at(*node, "[{}] {} must be {}", m_section, key, words);
    out = *value;
    return {};
  }

  Status read(std::string_view key, std::string& out) {
    const auto* node = find(key);
    if (node == nullptr)
      return {};
    if (!node->is_string())
      return error_at(*node, "[{}] {} must be a string", m_section, key);
    out = **node->as_string();
    return {};
  }

  Status read(std::string_view key, std::vector<std::string>& out) {
    const auto* node = find(key);
    if (node == nullptr)
      return {};
    const auto* array = node->as_array();
    if (array == nullptr)
      return error_at(*node, "[{}] {} must be an array of strings", m_section, key);
    out.clear();
    for (const auto& item : *array) {
      if (!item.is_string())
        return error_at(item, "[{}] {} must be an array of strings", m_section, key);
      out.push_back(**item.as_string());
    }
    return {};
  }

  Status read(std::string_view key, std::map<std::string, std::string>& out) {
    const auto* node = find(key);
    if (node == nullptr)
      return {};
    const auto* table = node->as_table();
    if (table == nullptr)
      return error_at(*node, "[{}] {} must be a table of strings, like {{ NAME = \"value\" }}",
                      m_section, key);
    for (const auto& [name, value] : *table) {
      if (!value.is_string())
        return error_at(value, "[{}] {}.{} must be a string", m_section, key, excerpt(name.str()));
      const std::string_view text = **value.as_string();
      // An environment holds C strings: a NUL would cut the value short without a word.
      if (text.find('\0') != std::string_view::npos)
        return error_at(value,
                        "[{}] {}.{}: the value holds a NUL character (\\u0000), which an "
                        "environment variable cannot carry; remove it",
                        m_section, key, excerpt(name.str()));
      out[std::string(name.str())] = text;
    }
    return {};
  }

  Status read_number(std::string_view key, std::optional<double>& out) {
    const auto* node = find(key);
    if (node == nullptr)
      return {};
    if (const auto* i = node->as_integer())
      out = static_cast<double>(**i);
    else if (const auto* f = node->as_floating_point())
      out = **f;
    else
      return error_at(*node, "[{}] {} must be a number", m_section, key);
    if (!std::isfinite(*out))
      return error_at(*node, "[{}] {} must be a finite number", m_section, key);
    return {};
  }

  Status read_integer(std::string_view key, std::optional<std::int64_t>& out) {
    const auto* node = find(key);
    if (node == nullptr)
      return {};
    const auto* i = node->as_integer();
    if (i == nullptr)
      return error_at(*node, "[{}] {} must be a whole number", m_section, key);
    out = **i;
    return {};
  }

  Status read(std::string_view key, bool& out) {
    const auto* node = find(key);
    if (node == nullptr)
      return {};
    if (!node->is_boolean())
      return error_at(*node, "[{}] {} must be true or false", m_section, key);
    out = **node->as_boolean();
    return {};
  }

  // Every key not asked for is an error naming the keys that exist.
  Status finish() const {
    if (m_table == nullptr)
      return {};
    for (const auto& [key, value] : *m_table) {
      if (std::find(m_known.begin(), m_known.end(), key.str()) == m_known.end())
        return usage_error("{}:{}: unknown key '{}' in [{}]; known keys: {}", m_file,
                           key.source().begin.line, excerpt(key.str()), m_section,
                           fmt::join(m_known, ", "));
    }
    return {};
  }

  [[nodiscard]] const std::string& file() const { return m_file; }

private:
  const toml::table* m_table;
  std::string m_section;
  std::string m_file;
  std::vector<std::string> m_known;
};

Status read_build(TableReader& reader, BuildRecipe& build) {
  CULPRIT_TRY(reader.read("command", build.command));
  CULPRIT_TRY(reader.read("artifacts", build.artifacts));
  CULPRIT_TRY(reader.read("env", build.env));
  std::optional<double> timeout;
  CULPRIT_TRY(reader.read_number("timeout", timeout));
  if (timeout) {
    if (!(*timeout > 0) || *timeout > k_max_seconds)
      return usage_error("{}: [build] timeout must be more than 0 and at most {:g} seconds (a "
                         "week)",
                         reader.file(), k_max_seconds);
    build.timeout = std::chrono::seconds(static_cast<std::int64_t>(std::ceil(*timeout)));
  }
  CULPRIT_TRY(reader.read("ptxas_report", build.ptxas_report));
  return reader.finish();
}

Status read_executor(TableReader& reader, ExecutorRecipe& executor) {
  CULPRIT_TRY(reader.read_choice("kind", executor.kind, &parse_executor_kind,
                                 R"("local" (the default) or "slurm")"));
  for (const auto& [key, out] : {std::pair{"srun_args", &executor.srun_args},
                                 std::pair{"sbatch_args", &executor.sbatch_args}}) {
    if (const auto* node = reader.find(key); node != nullptr && node->is_string())
      *out = split_arguments(**node->as_string());
    else
      CULPRIT_TRY(reader.read(key, *out));
  }
  CULPRIT_TRY(reader.read_choice("build_on", executor.build_on, &parse_executor_kind,
                                 R"("local" (the default) or "slurm")"));
  CULPRIT_TRY(reader.read("parallel_runs", executor.parallel_runs));
  std::optional<std::int64_t> number;
  for (const auto& [key, out] : {std::pair{"parallel", &executor.parallel},
                                 std::pair{"max_attempts", &executor.max_attempts}}) {
    number.reset();
    CULPRIT_TRY(reader.read_integer(key, number));
    if (number && (*number < 1 || *number > k_max_parallel))
      return usage_error("{}: [executor] {} must be a whole number from 1 to {}", reader.file(),
                         key, k_max_parallel);
    if (number)
      *out = static_cast<int>(*number);
  }
  std::optional<double> timeout;
  CULPRIT_TRY(reader.read_number("queue_timeout", timeout));
  if (timeout && (!(*timeout > 0) || *timeout > k_max_seconds))
    return usage_error("{}: [executor] queue_timeout must be more than 0 and at most {:g} seconds "
                       "(a week)",
                       reader.file(), k_max_seconds);
  if (timeout)
    executor.queue_timeout = std::chrono::duration<double>(*timeout);
  return reader.finish();
}

// One work expression of [roofline.cases]: a string, or a number (written as its expression).
Result<std::string> work_expression(const TableReader& reader, const toml::node& node,
                                    std::string_view glob, std::string_view what) {
  std::string text;
  if (const auto* s = node.as_string())
    text = **s;
  else if (const auto* i = node.as_integer())
    text = std::to_string(**i);
  else if (const auto* f = node.as_floating_point())
    text = fmt::format("{}", **f);
  else
    return reader.error_at(node,
                           "[roofline.cases] '{}' {} must be an expression in quotes, like "
                           "\"2*M*N*K\"",
                           excerpt(glob), what);
  if (auto parsed = WorkExpression::parse(text); !parsed)
    return reader.error_at(node, "[roofline.cases] '{}' {}: {}", excerpt(glob), what,
                           parsed.error().message);
  return text;
}

Status read_roofline(TableReader& reader, RooflineRecipe& roofline) {
  CULPRIT_TRY(reader.read_number("peak_gflops", roofline.peak_gflops));
  CULPRIT_TRY(reader.read_number("peak_tensor_gflops", roofline.peak_tensor_gflops));
  CULPRIT_TRY(reader.read_number("peak_gbps", roofline.peak_gbps));
  CULPRIT_TRY(reader.read("device", roofline.device));
  CULPRIT_TRY(reader.read("compute", roofline.compute));
  std::optional<std::int64_t> threads;
  CULPRIT_TRY(reader.read_integer("threads", threads));
  if (threads) {
    if (*threads < 1 || *threads > k_max_cpu + 1)
      return usage_error("{}: [roofline] threads must be a whole number from 1 to {}",
                         reader.file(), k_max_cpu + 1);
    roofline.threads = static_cast<int>(*threads);
  }
  if (const auto* node = reader.find("cases")) {
    const auto* table = node->as_table();
    if (table == nullptr)
      return reader.error_at(*node, "[roofline] cases must be a table: [roofline.cases] with "
                                    "lines like \"sgemm/*\" = {{ flops = \"2*M*N*K\", bytes = "
                                    "\"4*(M*K+K*N+M*N)\" }}");
    for (const auto& [glob, value] : *table) {
      const auto* work = value.as_table();
      if (work == nullptr)
        return reader.error_at(value,
                               "[roofline.cases] '{}' must be a table like {{ flops = "
                               "\"2*M*N*K\", bytes = \"4*(M*K+K*N+M*N)\" }}",
                               excerpt(glob.str()));
      RooflineCaseWork entry{.glob = std::string(glob.str()), .flops = {}, .bytes = {}};
      for (const auto& [key, expression] : *work) {
        if (key.str() == "flops") {
          CULPRIT_TRY_ASSIGN(entry.flops, work_expression(reader, expression, glob.str(), "flops"));
        } else if (key.str() == "bytes") {
          CULPRIT_TRY_ASSIGN(entry.bytes, work_expression(reader, expression, glob.str(), "bytes"));
        } else {
          return reader.error_at(expression,
                                 "unknown key '{}' in [roofline.cases] '{}'; known "
                                 "keys: flops, bytes",
                                 excerpt(key.str()), excerpt(glob.str()));
        }
      }
      if (entry.flops.empty() && entry.bytes.empty())
        return reader.error_at(value, "[roofline.cases] '{}' gives neither flops nor bytes",
                               excerpt(glob.str()));
      roofline.cases.push_back(std::move(entry));
    }
  }
  return reader.finish();
}

Status read_run(TableReader& reader, RunRecipe& run) {
  if (const auto* node = reader.find("command")) {
    if (node->is_string()) {
      run.command = std::string(**node->as_string());
    } else if (const auto* array = node->as_array()) {
      std::vector<std::string> argv;
      for (const auto& item : *array) {
        if (!item.is_string())
          return reader.error_at(item, "[run] command must be a string or an array of strings");
        argv.push_back(**item.as_string());
      }
      run.command = std::move(argv);
    } else {
      return reader.error_at(*node, "[run] command must be a string or an array of strings");
    }
  }
  CULPRIT_TRY(reader.read("format", run.format));
  CULPRIT_TRY(reader.read("metric", run.metric));
  CULPRIT_TRY(reader.read("cases", run.cases));
  if (std::ranges::find(run.cases, std::string()) != run.cases.end())
    return reader.error_at(*reader.find("cases"),
                           "[run] cases holds an empty pattern, which matches no case; give a "
                           "glob such as \"sgemm/*\", or leave cases out to take every case");
  std::optional<double> timeout;
  CULPRIT_TRY(reader.read_number("timeout", timeout));
  if (timeout)
    run.timeout = std::chrono::duration<double>(*timeout);
  CULPRIT_TRY(reader.read("env", run.env));
  if (const auto* node = reader.find("cpus")) {
    const auto* array = node->as_array();
    if (array == nullptr)
      return reader.error_at(*node, "[run] cpus must be an array of CPU numbers");
    run.cpus.clear();
    for (const auto& item : *array) {
      if (!item.is_integer() || **item.as_integer() < 0 || **item.as_integer() > k_max_cpu)
        return reader.error_at(item, "[run] cpus must be an array of CPU numbers from 0 to {}",
                               k_max_cpu);
      run.cpus.push_back(static_cast<int>(**item.as_integer()));
    }
  }
  if (const auto* node = reader.find("duet")) {
    if (node->is_boolean())
      run.duet = **node->as_boolean() ? DuetMode::on : DuetMode::off;
    else if (node->is_string() && **node->as_string() == "auto")
      run.duet = DuetMode::automatic;
    else
      return reader.error_at(*node, R"([run] duet must be true, false or "auto")");
  }
  CULPRIT_TRY(reader.read_choice("cwd", run.cwd, &parse_run_cwd,
                                 R"("scratch" (a directory of the run's own, the default) or )"
                                 R"("artifacts" (the cached build))"));
  CULPRIT_TRY(reader.read_choice("instrument", run.instrument, &parse_instrument,
                                 R"("time" (the default), "valgrind" (counts on a simulated )"
                                 R"(CPU), "perf" (hardware counters) or "ncu" (CUDA kernels))"));
  CULPRIT_TRY(reader.read("column", run.column));
  CULPRIT_TRY(reader.read("case_columns", run.case_columns));
  CULPRIT_TRY(reader.read("pattern", run.pattern));
  CULPRIT_TRY(reader.read("unit", run.unit));
  CULPRIT_TRY(reader.read("direction", run.direction));
  return reader.finish();
}

Status read_decide(TableReader& reader, DecideOptions& decide) {
  if (const auto* node = reader.find("threshold")) {
    Result<double> value = std::unexpected(Error{});
    if (node->is_string())
      value = parse_threshold(**node->as_string());
    else if (node->is_number())
      value = parse_threshold(fmt::format("{}", node->value<double>().value_or(-1)));
    else
      return reader.error_at(*node, "[decide] threshold must be a number like 0.02 or a string "
                                    "like \"2%\"");
    if (!value)
      return reader.error_at(*node, "[decide] {}", value.error().message);
    decide.threshold = *value;
  }
  std::optional<double> confidence;
  CULPRIT_TRY(reader.read_number("confidence", confidence));
  if (confidence)
    decide.confidence = *confidence;
  // The lowest value each count may take, as the flags' checks have it: an interval needs two
  // runs a side, and warm-up may be skipped.
  struct Count {
    const char* key;
    int* target;
    std::int64_t lowest;
  };
  std::optional<std::int64_t> integer;
  for (const auto& [key, target, lowest] :
       {Count{"min_runs", &decide.min_runs, 2}, Count{"max_runs", &decide.max_runs, 2},
        Count{"warmup", &decide.warmup, 0}}) {
    integer.reset();
    CULPRIT_TRY(reader.read_integer(key, integer));
    if (integer) {
      if (*integer < lowest || *integer > k_max_run_count)
        return usage_error("{}: [decide] {} must be a whole number from {} to {}", reader.file(),
                           key, lowest, k_max_run_count);
      *target = static_cast<int>(*integer);
    }
  }
  for (auto [key, target] : {std::pair{"classify_confidence", &decide.classify_confidence},
                             std::pair{"explained_share", &decide.explained_share}}) {
    std::optional<double> value;
    CULPRIT_TRY(reader.read_number(key, value));
    if (value)
      *target = *value;
  }
  std::optional<double> budget;
  CULPRIT_TRY(reader.read_number("budget", budget));
  if (budget)
    decide.budget = std::chrono::duration<double>(*budget);
  std::optional<std::int64_t> seed;
  CULPRIT_TRY(reader.read_integer("seed", seed));
  if (seed.has_value()) {
    if (seed.value() < 0)
      return usage_error("{}: [decide] seed must be a whole number from 0 to {}", reader.file(),
                         k_max_seed);
    decide.seed = static_cast<std::uint64_t>(seed.value());
  }
  if (const auto* node = reader.find("statistic")) {
    if (!node->is_string())
      return reader.error_at(*node,
                             R"([decide] statistic must be a string such as "auto" or "min")");
    decide.statistic = **node->as_string();
    if (auto statistic = check_statistic(decide.statistic); !statistic)
      return reader.error_at(*node, "[decide] {}", statistic.error().message);
  }
  return reader.finish();
}

} // namespace

namespace {

Result<Recipe> parse_recipe_text(std::string_view text, const std::filesystem::path& source) {
  const std::string file = source.empty() ? std::string(k_config_file_name) : source.string();
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    return usage_error("{}:{}:{}: {}", file, e.source().begin.line, e.source().begin.column,
                       excerpt(e.description(), 200));
  }
  Recipe recipe;
  recipe.source = source;
  for (const auto& [key, value] : root) {
    const auto name = key.str();
    if (name != "build" && name != "run" && name != "decide" && name != "executor" &&
        name != "roofline" && name != "store")
      return usage_error("{}:{}: unknown section or key '{}'; the sections are [build], [run], "
                         "[decide], [executor], [roofline] and [store]",
                         file, key.source().begin.line, excerpt(name));
    if (!value.is_table())
      return usage_error("{}:{}: '{}' must be a section ([{}])", file, key.source().begin.line,
                         name, name);
  }
  TableReader build(root["build"].as_table(), "build", file);
  CULPRIT_TRY(read_build(build, recipe.build));
  TableReader run(root["run"].as_table(), "run", file);
  CULPRIT_TRY(read_run(run, recipe.run));
  TableReader decide(root["decide"].as_table(), "decide", file);
  CULPRIT_TRY(read_decide(decide, recipe.decide));
  TableReader executor(root["executor"].as_table(), "executor", file);
  CULPRIT_TRY(read_executor(executor, recipe.executor));
  TableReader roofline(root["roofline"].as_table(), "roofline", file);
  CULPRIT_TRY(read_roofline(roofline, recipe.roofline));
  TableReader store(root["store"].as_table(), "store", file);
  CULPRIT_TRY(store.read("url", recipe.store.url));
  CULPRIT_TRY(store.finish());
  return recipe;
}

} // namespace

Result<Recipe> parse_recipe(std::string_view text, const std::filesystem::path& source) {
  return one_line(parse_recipe_text(text, source));
}

Result<Recipe> load_recipe(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    return usage_error("no recipe at {}; run 'culprit init' to write one, or pass --config FILE",
                       file.string());
  CULPRIT_TRY_ASSIGN(const auto text, read_file(file));
  return parse_recipe(text, file);
}

} // namespace culprit::recipe
