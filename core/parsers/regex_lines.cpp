#include "core/parsers/regex_lines.hpp"

#include <re2/re2.h>

#include <vector>

#include <fmt/format.h>

#include "core/parsers/parse_support.hpp"

namespace culprit::parsers {
namespace {

constexpr std::string_view k_regex_format = "regex";

// RE2 of 2022 spells named groups (?P<name>...) only; people also write Perl's (?<name>...).
std::string with_python_named_groups(std::string_view pattern) {
  std::string result;
  std::size_t backslashes = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    const bool escaped = backslashes % 2 == 1;
    backslashes = c == '\\' ? backslashes + 1 : 0;
    result += c;
    if (c == '(' && !escaped && pattern.substr(i + 1, 2) == "?<" && i + 3 < pattern.size() &&
        pattern[i + 3] != '=' && pattern[i + 3] != '!') {
      result += "?P<";
      i += 2;
    }
  }
  return result;
}

struct Groups {
  int value = 0;
  int case_name = -1; // none
};

Result<Groups> find_groups(const re2::RE2& regex, std::string_view pattern) {
  const auto& named = regex.NamedCapturingGroups();
  Groups groups;
  if (const auto value = named.find("value"); value != named.end()) {
    groups.value = value->second;
    if (const auto case_group = named.find("case"); case_group != named.end())
      groups.case_name = case_group->second;
    return groups;
  }
  if (regex.NumberOfCapturingGroups() == 1) {
    groups.value = 1;
    return groups;
  }
  return usage_error("the regex '{}' has {} capture groups; give it one (the value), or name them "
                     "(?P<case>...) and (?P<value>...)",
                     pattern, regex.NumberOfCapturingGroups());
}

} // namespace

Result<ParsedOutput> parse_regex_lines(std::string_view text, const RegexOptions& options) {
  if (options.pattern.empty())
    return usage_error("the regex format needs a pattern");
  re2::RE2::Options regex_options;
  regex_options.set_log_errors(false);
  const re2::RE2 regex(with_python_named_groups(options.pattern), regex_options);
  if (!regex.ok())
    return usage_error("the regex '{}' is invalid: {}", options.pattern, regex.error());
  CULPRIT_TRY_ASSIGN(const Groups groups, find_groups(regex, options.pattern));
  const std::string metric =
      !options.metric.empty() ? options.metric : (seconds_per(options.unit) ? "time" : "value");

  std::vector<re2::StringPiece> captures(static_cast<std::size_t>(regex.NumberOfCapturingGroups()) +
                                         1);
  SampleTable table;
  LineReader lines(text);
  while (const auto line = lines.next()) {
    const re2::StringPiece piece(line->data(), line->size());
    if (!regex.Match(piece, 0, piece.size(), re2::RE2::UNANCHORED, captures.data(),
                     static_cast<int>(captures.size())))
      continue;
    const auto& value_text = captures[static_cast<std::size_t>(groups.value)];
    const auto column = value_text.data() == nullptr
                            ? std::size_t{1}
                            : static_cast<std::size_t>(value_text.data() - line->data()) + 1;
    const auto where = fmt::format("line {}, column {}", lines.number(), column);
    const auto value = parse_number(std::string_view(value_text.data(), value_text.size()));
    if (!value)
      return output_error(
          k_regex_format, where,
          fmt::format("the value group captured \"{}\"; expected a number",
                      printable(std::string_view(value_text.data(), value_text.size()))));
    std::string case_name = options.case_name;
    if (groups.case_name >= 0) {
      const auto& captured = captures[static_cast<std::size_t>(groups.case_name)];
      case_name.assign(captured.data() == nullptr ? "" : captured.data(), captured.size());
    }
    if (case_name.empty())
      return output_error(k_regex_format, where, "the case group captured nothing");
    if (auto added = table.add(case_name, metric, options.unit, options.direction, *value); !added)
      return output_error(k_regex_format, where, added.error().message);
  }
  if (table.empty())
    return output_error(k_regex_format, fmt::format("{} lines", lines.number()),
                        fmt::format("no line matches '{}'", printable(options.pattern, 200)));
  ParsedOutput output;
  output.samples = table.take();
  return output;
}

} // namespace culprit::parsers
