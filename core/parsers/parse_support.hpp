#pragma once
// What every parser of benchmark output needs: strict numbers, units, positions in the text,
// messages that stay on one line, and a table that collects samples in order.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

// Seconds in one `unit` for the time units benchmarks print ("s", "ms", "us", "ns"); nullopt for
// any other unit.
[[nodiscard]] std::optional<double> seconds_per(std::string_view unit);

// The whole of `text`, blanks around it aside, as a finite number in the syntax of strtod
// ("1.5e-3", "-2", "0x1p3" is refused: decimal only); nullopt otherwise (empty, "nan", "inf",
// out of range, trailing characters).
[[nodiscard]] std::optional<double> parse_number(std::string_view text);

// `text` made safe for a one-line message: control characters and bytes outside ASCII escaped as
// \xNN, cut to `limit` bytes with "..." after.
[[nodiscard]] std::string printable(std::string_view text, std::size_t limit = 60);

struct TextPosition {
  std::size_t line = 1;   // 1-based
  std::size_t column = 1; // 1-based, in bytes
};
[[nodiscard]] TextPosition position_of(std::string_view text, std::size_t offset);

// An error in a benchmark's output: "<format>: <where>: <what>", ExitCode::infrastructure.
[[nodiscard]] std::unexpected<Error> output_error(std::string_view format, std::string_view where,
                                                  std::string_view what);

// Splits text into lines on '\n', dropping a '\r' before it; the last line may lack a '\n'.
class LineReader {
public:
  explicit LineReader(std::string_view text) : m_rest(text) {}
  // The next line, or nullopt at the end.
  std::optional<std::string_view> next();
  // 1-based number of the line last returned.
  [[nodiscard]] std::size_t number() const { return m_number; }
  // Offset of the line last returned from the start of the text.
  [[nodiscard]] std::size_t offset() const { return m_offset; }
  // Offset just past the line last returned and its line break: where the rest begins.
  [[nodiscard]] std::size_t end_offset() const { return m_next_offset; }

private:
  std::string_view m_rest;
  std::size_t m_number = 0;
  std::size_t m_offset = 0;
  std::size_t m_next_offset = 0;
};

// Collects samples for ParsedOutput: one CaseSamples per (case, metric), in the order each first
// appeared, values in the order they came. Times are converted to seconds on the way in.
class SampleTable {
public:
  // Adds one sample. Fails (a message without location) when the metric of that case was seen
  // before with another unit or direction, when value is not finite, or when it is a negative
  // time.
  Status add(std::string_view case_name, std::string_view metric, std::string_view unit,
             Direction direction, double value);
  // The samples so far, leaving the table empty.
  std::vector<CaseSamples> take();
  [[nodiscard]] bool empty() const { return m_samples.empty(); }

private:
  // Orders (case, metric) keys, stored as strings, against views without building strings.
  struct KeyLess {
    using is_transparent = void;
    template <class A, class B> bool operator()(const A& a, const B& b) const {
      return std::pair<std::string_view, std::string_view>(a.first, a.second) <
             std::pair<std::string_view, std::string_view>(b.first, b.second);
    }
  };

  std::vector<CaseSamples> m_samples;
  std::map<std::pair<std::string, std::string>, std::size_t, KeyLess> m_index;
};

} // namespace culprit::parsers
