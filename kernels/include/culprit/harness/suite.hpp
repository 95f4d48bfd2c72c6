#pragma once
// Workload suites: text files that choose a benchmark program's cases, e.g. the GEMM shapes of a
// transformer layer. One case line per line:
//
//   # Llama-3-8B, 2048 tokens: the QKV projection
//   sgemm M=2048 N=6144 K=4096
//   softmax rows=4096 cols=512,1024,2048      # a comma list: one case per value
//
// A line is a benchmark name followed by axis=value words separated by blanks; '#' starts a
// comment. Axes a line does not give take the benchmark's default values, and the line stands
// for the cartesian product of its values. Every name and value is checked against the
// benchmark's declaration: an unknown benchmark or axis, a value an axis refuses, or a suite
// without cases is an error naming the file and line.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "culprit/harness/benchmark.hpp"
#include "culprit/harness/host.hpp"

namespace culprit::harness {

struct SuiteLine {
  int number = 0;
  std::string benchmark;
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
};

namespace detail {

inline std::vector<std::string> split(const std::string& text, const char* separators) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find_first_of(separators, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      return parts;
    start = end + 1;
  }
}

inline SuiteLine parse_suite_line(const std::string& text, int number) {
  SuiteLine line;
  line.number = number;
  for (const auto& word : split(text, " \t")) {
    if (word.empty())
      continue;
    if (line.benchmark.empty()) {
      if (!is_plain_name(word))
        throw UsageError("'" + word + "' is not a benchmark name");
      line.benchmark = word;
      continue;
    }
    const std::size_t equals = word.find('=');
    if (equals == std::string::npos)
      throw UsageError("expected axis=value, got '" + word + "'");
    const std::string axis = word.substr(0, equals);
    if (axis.empty())
      throw UsageError("'" + word + "' has no axis name before '='");
    for (const auto& given : line.axes) {
      if (given.first == axis)
        throw UsageError("axis " + axis + " is given twice");
    }
    std::vector<std::string> values = split(word.substr(equals + 1), ",");
    for (const auto& value : values) {
      if (value.empty())
        throw UsageError("axis " + axis + " has an empty value in '" + word + "'");
    }
    line.axes.emplace_back(axis, std::move(values));
  }
  return line;
}

// Reads one line of a suite (its 1-based `number`) into `lines`; throws UsageError
// "SOURCE:LINE: what is wrong" on bad syntax.
inline void add_suite_line(std::vector<SuiteLine>& lines, std::string text, int number,
                           const std::string& source) {
  if (!text.empty() && text.back() == '\r')
    text.pop_back(); // a file written on Windows
  const std::size_t hash = text.find('#');
  if (hash != std::string::npos)
    text.erase(hash);
  try {
    SuiteLine line = detail::parse_suite_line(text, number);
    if (!line.benchmark.empty())
      lines.push_back(std::move(line));
  } catch (const UsageError& error) {
    throw UsageError(source + ":" + std::to_string(number) + ": " + error.what());
  }
}

} // namespace detail

// Reads the lines of a suite's text; throws UsageError "SOURCE:LINE: what is wrong" on bad
// syntax.
inline std::vector<SuiteLine> parse_suite(const std::string& text, const std::string& source) {
  std::vector<SuiteLine> lines;
  int number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::size_t stop = end == std::string::npos ? text.size() : end;
    detail::add_suite_line(lines, text.substr(start, stop - start), ++number, source);
    start = stop + 1;
  }
  return lines;
}

// The cases a suite chooses among `registry`'s benchmarks, in the suite's order, each case once.
// Throws UsageError "SOURCE:LINE: ..." for an unknown benchmark, an unknown axis or a refused
// value, and "SOURCE defines no cases" for a suite without case lines.
inline std::vector<Case> suite_cases(const Registry& registry, const std::vector<SuiteLine>& lines,
                                     const std::string& source) {
  std::vector<Case> cases;
  std::vector<std::string> seen; // sorted
  for (const auto& line : lines) {
    const std::string where = source + ":" + std::to_string(line.number) + ": ";
    const Benchmark* benchmark = registry.find(line.benchmark);
    if (benchmark == nullptr) {
      std::string names;
      for (const auto& known : registry.benchmarks())
        names += (names.empty() ? "" : ", ") + known->name();
      throw UsageError(where + "unknown benchmark '" + line.benchmark + "' (this program has " +
                       (names.empty() ? "none" : names) + ")");
    }
    try {
      for (auto& one : benchmark->cases_from(line.axes)) {
        const auto place = std::lower_bound(seen.begin(), seen.end(), one.name);
        if (place != seen.end() && *place == one.name)
          continue;
        seen.insert(place, one.name);
        cases.push_back(std::move(one));
      }
    } catch (const UsageError& error) {
      throw UsageError(where + error.what());
    }
  }
  if (cases.empty())
    throw UsageError(source + " defines no cases: add lines like 'BENCHMARK AXIS=VALUE ...'");
  return cases;
}

// Reads and resolves the suite file at `path` (see suite_cases).
inline std::vector<Case> load_suite(const Registry& registry, const std::string& path) {
  detail::InputFile file(path);
  if (!file.is_open())
    throw UsageError("cannot read suite file " + path + ": check the path given to --suite");
  std::vector<SuiteLine> lines;
  std::string text;
  int number = 0;
  while (file.read_line(text))
    detail::add_suite_line(lines, text, ++number, path);
  return suite_cases(registry, lines, path);
}

} // namespace culprit::harness
