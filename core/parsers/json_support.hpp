#pragma once
// Reading benchmark JSON with nlohmann-json: whole documents with errors that name a line and a
// column, and typed access to members with errors that name the key path
// (`benchmarks[3].real_time`).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/parsers/parse_support.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

using Json = nlohmann::json;

// Deeper nesting than any benchmark writes; refusing it keeps memory bounded on hostile input.
inline constexpr std::size_t k_max_json_depth = 128;

// Parses `text` as one JSON value. Errors: "<format>: line L, column C: <what>", with
// ExitCode::infrastructure; nesting deeper than k_max_json_depth is one of them. `origin` is where
// `text` starts in the whole output, so that positions are the output's.
[[nodiscard]] Result<Json> parse_json(std::string_view text, std::string_view format,
                                      TextPosition origin = {});

// One JSON object in a run's output, which may have log lines before and after it (nvbench
// prints its Markdown log to the same stream when told to write JSON to /dev/stdout). When the
// output does not start with '{', the object is taken from the first line that does to the last
// line that starts with '}', and a warning says how many lines were skipped.
[[nodiscard]] Result<Json> parse_json_document(std::string_view text, std::string_view format,
                                               std::vector<std::string>& warnings);

// "a string", "a number", "an object", ...: what a value is, for messages.
[[nodiscard]] std::string_view json_kind(const Json& value);

// `path` + "." + key, or key alone at the top.
[[nodiscard]] std::string json_path(std::string_view path, std::string_view key);
[[nodiscard]] std::string json_path(std::string_view path, std::size_t index);

// Typed members of a JSON object for one format. A missing required member, or a member of the
// wrong kind, is an error naming its key path.
class JsonFields {
public:
  // Whether a string that holds a number counts as a number (nvbench writes numbers so).
  enum class QuotedNumbers { refused, accepted };

  explicit JsonFields(std::string_view format, QuotedNumbers quoted = QuotedNumbers::refused)
      : m_format(format), m_quoted(quoted) {}

  // The member, or nullptr when it is absent (or null).
  [[nodiscard]] static const Json* find(const Json& object, std::string_view key);

  Result<const Json*> object(const Json& parent, std::string_view key, std::string_view path) const;
  Result<const Json*> array(const Json& parent, std::string_view key, std::string_view path) const;
  Result<std::string> string(const Json& parent, std::string_view key, std::string_view path) const;
  // A finite number (or a string holding one, when QuotedNumbers::accepted).
  Result<double> number(const Json& parent, std::string_view key, std::string_view path) const;
  // Optional variants: nullopt when absent or null, an error when of the wrong kind.
  Result<std::optional<std::string>> optional_string(const Json& parent, std::string_view key,
                                                     std::string_view path) const;
  Result<std::optional<double>> optional_number(const Json& parent, std::string_view key,
                                                std::string_view path) const;
  Result<std::optional<bool>> optional_bool(const Json& parent, std::string_view key,
                                            std::string_view path) const;

  // The line of the output that the JSON being read came from, for formats with one document
  // per line; errors then start with "line 7: ".
  void locate_line(std::size_t line) { m_line = line; }

  // "<format>: [line <n>: ]<path>: <what>".
  [[nodiscard]] std::unexpected<Error> error(std::string_view path, std::string_view what) const;

private:
  Result<const Json*> required(const Json& parent, std::string_view key,
                               std::string_view path) const;
  std::string_view m_format;
  QuotedNumbers m_quoted;
  std::size_t m_line = 0;
};

} // namespace culprit::parsers
