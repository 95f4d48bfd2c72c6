#include "core/recipe/cmake_scan.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "core/util/fs.hpp"

namespace culprit::recipe {
namespace {

// Enough for any real project; a tree that is deeper or wider is not read further.
constexpr int k_max_depth = 12;
constexpr int k_max_files = 2000;
constexpr std::uintmax_t k_max_file_bytes = 4U << 20U;
constexpr std::size_t k_max_source_bytes = 256U << 10U;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// At `i`, a bracket opening "[[", "[=[", "[==[", ...: the number of '=', or none.
std::optional<std::size_t> bracket_level(std::string_view text, std::size_t i) {
  if (i >= text.size() || text[i] != '[')
    return std::nullopt;
  std::size_t j = i + 1;
  while (j < text.size() && text[j] == '=')
    ++j;
  if (j < text.size() && text[j] == '[')
    return j - i - 1;
  return std::nullopt;
}

// From `i` at a bracket opening of `level`: the position after its closing, and its contents.
std::size_t skip_bracket(std::string_view text, std::size_t i, std::size_t level,
                         std::string* contents) {
  const std::size_t open = i + level + 2;
  const std::string close = "]" + std::string(level, '=') + "]";
  const auto end = text.find(close, open);
  if (end == std::string_view::npos) {
    if (contents != nullptr)
      *contents = text.substr(open);
    return text.size();
  }
  if (contents != nullptr)
    *contents = text.substr(open, end - open);
  return end + close.size();
}

// From `i` at '#': the position after the comment.
std::size_t skip_comment(std::string_view text, std::size_t i) {
  if (const auto level = bracket_level(text, i + 1))
    return skip_bracket(text, i + 1, *level, nullptr);
  const auto newline = text.find('\n', i);
  return newline == std::string_view::npos ? text.size() : newline + 1;
}

// The arguments of a command from just after its '('; `i` ends after the matching ')'.
std::vector<std::string> parse_arguments(std::string_view text, std::size_t& i) {
  std::vector<std::string> args;
  std::string current;
  bool in_argument = false;
  const auto flush = [&] {
    if (in_argument)
      args.push_back(std::move(current));
    current.clear();
    in_argument = false;
  };
  int depth = 1;
  while (i < text.size()) {
    const char c = text[i];
    if (is_space(c)) {
      flush();
      ++i;
    } else if (c == '#' && !in_argument) {
      i = skip_comment(text, i);
    } else if (c == '"' && !in_argument) {
      ++i;
      while (i < text.size() && text[i] != '"') {
        if (text[i] == '\\' && i + 1 < text.size())
          ++i;
        current += text[i++];
      }
      ++i;
      in_argument = true;
      flush();
    } else if (const auto level = in_argument ? std::nullopt : bracket_level(text, i)) {
      i = skip_bracket(text, i, *level, &current);
      in_argument = true;
      flush();
    } else if (c == '(') {
      flush();
      ++depth;
      args.emplace_back("(");
      ++i;
    } else if (c == ')') {
      flush();
      ++i;
      if (--depth == 0)
        return args;
      args.emplace_back(")");
    } else {
      current += c;
      in_argument = true;
      ++i;
    }
  }
  flush();
  return args;
}

bool is_true_constant(std::string_view value) {
  const auto v = lower(value);
  return v == "on" || v == "yes" || v == "true" || v == "y" || v == "1";
}

// Directories of other people's code: their benchmarks are not the project's.
bool is_vendored(const std::filesystem::path& relative) {
  static const std::set<std::string> k_vendored_names = {
      "third_party", "thirdparty", "3rdparty", "third-party", "external", "extern",
      "vendor",      "deps",       "_deps",    "submodules",  "contrib"};
  return std::ranges::any_of(
      relative, [](const auto& part) { return k_vendored_names.contains(lower(part.string())); });
}

struct Executable {
  std::string name;
  std::string directory;
  std::string binary_directory;      // relative to the build directory
  std::vector<std::string> required; // identifiers that must be true for it to be defined
  std::vector<std::string> sources;
};

class Scan {
public:
  explicit Scan(std::filesystem::path top) : m_top(std::move(top)) {}

  // Reads the CMakeLists.txt of `relative` (under the top) and, through add_subdirectory, those
  // below it, collecting the executables defined where `required` holds.
  void read_directory(const std::filesystem::path& relative, std::vector<std::string> required,
                      std::map<std::string, std::string> vars, int depth);

  [[nodiscard]] std::vector<BenchmarkTarget> targets() const;

private:
  [[nodiscard]] std::string library_of(const Executable& executable) const;

  std::filesystem::path m_top;
  int m_files = 0;
  std::set<std::string> m_visited;
  std::map<std::string, bool> m_options; // name -> on by default
  std::vector<Executable> m_executables;
  std::map<std::string, std::vector<std::string>> m_links;
};

// ${NAME} replaced from `vars`; none when a variable is unknown.
std::optional<std::string> expand(const std::string& text,
                                  const std::map<std::string, std::string>& vars) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 2, "${") == 0) {
      const auto close = text.find('}', i + 2);
      if (close == std::string::npos)
        return std::nullopt;
      const auto found = vars.find(text.substr(i + 2, close - i - 2));
      if (found == vars.end())
        return std::nullopt;
      out += found->second;
      i = close + 1;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// The identifiers an if() condition needs true: `X`, `X AND Y`, and the first of `X OR Y`.
// Anything else (NOT, comparisons, parentheses) says nothing.
std::vector<std::string> required_by(const std::vector<std::string>& args) {
  std::vector<std::string> names;
  bool any_or = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto arg = args[i];
    if (i % 2 == 1) {
      if (arg == "OR")
        any_or = true;
      else if (arg != "AND")
        return {};
      continue;
    }
    if (arg.starts_with("${") && arg.ends_with("}"))
      arg = arg.substr(2, arg.size() - 3);
    if (arg.empty() || !std::ranges::all_of(arg, is_identifier_char))
      return {};
    names.push_back(arg);
  }
  if (any_or && !names.empty())
    names.resize(1);
  return names;
}

void Scan::read_directory(const std::filesystem::path& relative, std::vector<std::string> required,
                          std::map<std::string, std::string> vars, int depth) {
  const auto file = m_top / relative / "CMakeLists.txt";
  std::error_code ec;
  if (depth > k_max_depth || ++m_files > k_max_files ||
      !m_visited.insert(relative.lexically_normal().string()).second ||
      !std::filesystem::is_regular_file(file, ec) ||
      std::filesystem::file_size(file, ec) > k_max_file_bytes)
    return;
  const auto text = read_file(file);
  if (!text)
    return;
  const std::string dir = relative.lexically_normal().generic_string() == "."
                              ? ""
                              : relative.lexically_normal().generic_string();
  vars["CMAKE_CURRENT_SOURCE_DIR"] = (m_top / relative).string();
  vars["CMAKE_CURRENT_BINARY_DIR"] = dir;
  std::vector<std::vector<std::string>> frames; // one per open if()
  const auto requirements = [&] {
    auto all = required;
    for (const auto& frame : frames)
      all.insert(all.end(), frame.begin(), frame.end());
    return all;
  };
  for (const auto& command : parse_cmake_commands(*text)) {
    const auto& args = command.args;
    const auto& name = command.name;
    if (name == "if") {
      frames.push_back(required_by(args));
    } else if (name == "elseif" || name == "else") {
      if (!frames.empty())
        frames.back() = name == "elseif" ? required_by(args) : std::vector<std::string>{};
    } else if (name == "endif") {
      if (!frames.empty())
        frames.pop_back();
    } else if (name == "project" && !args.empty()) {
      // Google Benchmark's or nvbench's own tree, added as a subdirectory: not the project's.
      const auto project = lower(args[0]);
      if (depth > 0 && (project == "benchmark" || project == "nvbench"))
        return;
      vars["PROJECT_NAME"] = args[0];
      vars.try_emplace("CMAKE_PROJECT_NAME", args[0]);
    } else if ((name == "option" || name == "cmake_dependent_option") && !args.empty()) {
      m_options.try_emplace(args[0], args.size() >= 3 && is_true_constant(args[2]));
    } else if (name == "set" && args.size() >= 2) {
      const auto cache = std::ranges::find(args, "CACHE");
      if (cache != args.end() && cache + 1 != args.end() && *(cache + 1) == "BOOL")
        m_options.try_emplace(args[0], is_true_constant(args[1]));
      else if (auto value = expand(args[1], vars))
        vars[args[0]] = *value;
    } else if (name == "add_subdirectory" && !args.empty()) {
      const auto sub = expand(args[0], vars);
      if (!sub || std::filesystem::path(*sub).is_absolute())
        continue;
      const auto child = (relative / *sub).lexically_normal();
      if (child.empty() || *child.begin() == ".." || is_vendored(child))
        continue;
      read_directory(child, requirements(), vars, depth + 1);
    } else if (name == "add_executable" && args.size() >= 2 && args[1] != "IMPORTED" &&
               args[1] != "ALIAS") {
      const auto target = expand(args[0], vars);
      if (!target)
        continue;
      Executable executable{*target, dir, dir, requirements(), {}};
      for (std::size_t i = 1; i < args.size(); ++i) {
        if (args[i] != "WIN32" && args[i] != "MACOSX_BUNDLE" && args[i] != "EXCLUDE_FROM_ALL")
          executable.sources.push_back(args[i]);
      }
      if (const auto output = vars.find("CMAKE_RUNTIME_OUTPUT_DIRECTORY"); output != vars.end()) {
        // ${CMAKE_BINARY_DIR}/bin: relative to the build directory, as the recipe names it.
        auto binary = output->second;
        if (binary.starts_with("<build>"))
          binary = binary.substr(7);
        while (binary.starts_with('/'))
          binary.erase(0, 1);
        executable.binary_directory = binary;
      }
      m_executables.push_back(std::move(executable));
    } else if (name == "target_link_libraries" && args.size() >= 2) {
      if (const auto target = expand(args[0], vars)) {
        auto& links = m_links[*target];
        links.insert(links.end(), args.begin() + 1, args.end());
      }
    }
  }
}

std::string Scan::library_of(const Executable& executable) const {
  if (const auto links = m_links.find(executable.name); links != m_links.end()) {
    for (const auto& link : links->second) {
      if (link == "benchmark::benchmark" || link == "benchmark::benchmark_main" ||
          link == "benchmark" || link == "benchmark_main")
        return "gbench";
      if (link == "nvbench::nvbench" || link == "nvbench::main" || link == "nvbench")
        return "nvbench";
    }
  }
  // Linked through a variable: the sources say which library they use.
  for (const auto& source : executable.sources) {
    if (source.find("${") != std::string::npos)
      continue;
    const auto path = m_top / executable.directory / source;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
      continue;
    auto text = read_file(path);
    if (!text)
      continue;
    text->resize(std::min(text->size(), k_max_source_bytes));
    if (text->find("benchmark/benchmark.h") != std::string::npos)
      return "gbench";
    if (text->find("nvbench/nvbench.cuh") != std::string::npos)
      return "nvbench";
  }
  return "";
}

std::vector<BenchmarkTarget> Scan::targets() const {
  std::vector<BenchmarkTarget> found;
  for (const auto& executable : m_executables) {
    auto library = library_of(executable);
    if (library.empty())
      continue;
    BenchmarkTarget target{executable.name, executable.binary_directory, std::move(library), {}};
    for (const auto& name : executable.required) {
      const auto option = m_options.find(name);
      if (option != m_options.end() && !option->second &&
          std::ranges::find(target.options, name) == target.options.end())
        target.options.push_back(name);
    }
    found.push_back(std::move(target));
  }
  return found;
}

} // namespace

std::vector<CMakeCommand> parse_cmake_commands(std::string_view text) {
  std::vector<CMakeCommand> commands;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '#') {
      i = skip_comment(text, i);
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) == 0 && c != '_') {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && is_identifier_char(text[i]))
      ++i;
    std::size_t j = i;
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t'))
      ++j;
    if (j < text.size() && text[j] == '(') {
      CMakeCommand command{lower(text.substr(start, i - start)), {}};
      i = j + 1;
      command.args = parse_arguments(text, i);
      commands.push_back(std::move(command));
    }
  }
  return commands;
}

std::vector<BenchmarkTarget> find_benchmark_targets(const std::filesystem::path& top) {
  Scan scan(top);
  scan.read_directory(".", {},
                      {{"CMAKE_BINARY_DIR", "<build>"},
                       {"PROJECT_BINARY_DIR", "<build>"},
                       {"CMAKE_SOURCE_DIR", top.string()},
                       {"PROJECT_SOURCE_DIR", top.string()}},
                      0);
  return scan.targets();
}

} // namespace culprit::recipe
