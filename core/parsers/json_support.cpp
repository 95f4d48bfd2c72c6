#include "core/parsers/json_support.hpp"

#include <cmath>

#include <fmt/format.h>

namespace culprit::parsers {
namespace {

// The offset of the first bracket that nests deeper than k_max_json_depth, if any. Strings are
// skipped, escapes included; the JSON parser judges everything else.
std::optional<std::size_t> too_deep_at(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > k_max_json_depth)
        return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

// nlohmann's message without its "[json.exception...] parse error at line 1, column 2: " prefix.
std::string parse_error_reason(std::string_view message) {
  const auto column = message.find("column ");
  const auto colon = column == std::string_view::npos ? column : message.find(": ", column);
  if (colon != std::string_view::npos)
    message.remove_prefix(colon + 2);
  return printable(message, 200);
}

} // namespace

Result<Json> parse_json(std::string_view text, std::string_view format, TextPosition origin) {
  const auto where = [&](std::size_t offset) {
    const auto position = position_of(text, offset);
    const auto column = position.line == 1 ? origin.column + position.column - 1 : position.column;
    return fmt::format("line {}, column {}", origin.line + position.line - 1, column);
  };
  if (const auto offset = too_deep_at(text))
    return output_error(format, where(*offset),
                        fmt::format("JSON nested deeper than {} levels", k_max_json_depth));
  try {
    return Json::parse(text.data(), text.data() + text.size());
  } catch (const Json::parse_error& error) {
    return output_error(format, where(error.byte > 0 ? error.byte - 1 : 0),
                        parse_error_reason(error.what()));
  } catch (const Json::exception& error) {
    // Out-of-range numbers ("1e400") carry no position; the line is still worth naming.
    const bool one_line = text.find('\n') == std::string_view::npos;
    const std::string_view message = error.what();
    const auto bracket = message.find("] ");
    return output_error(
        format, one_line ? fmt::format("line {}", origin.line) : "JSON",
        printable(bracket == std::string_view::npos ? message : message.substr(bracket + 2), 200));
  }
}

Result<Json> parse_json_document(std::string_view text, std::string_view format,
                                 std::vector<std::string>& warnings) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return output_error(format, "line 1", "the output is empty; expected a JSON object");
  if (text[first] == '{' || text[first] == '[')
    return parse_json(text, format);

  std::size_t begin = std::string_view::npos;
  std::size_t end = std::string_view::npos;
  std::size_t begin_line = 0;
  LineReader lines(text);
  while (const auto line = lines.next()) {
    const auto blank = line->find_first_not_of(" \t");
    if (blank == std::string_view::npos)
      continue;
    if ((*line)[blank] == '{' && begin == std::string_view::npos) {
      begin = lines.offset();
      begin_line = lines.number();
    } else if ((*line)[blank] == '}' && begin != std::string_view::npos) {
      end = lines.offset() + line->size();
    }
  }
  if (begin == std::string_view::npos) {
    LineReader first_line(text);
    return output_error(format, "line 1",
                        fmt::format("no JSON object in the output (it starts with \"{}\")",
                                    printable(first_line.next().value_or(""))));
  }
  if (end == std::string_view::npos)
    end = text.size();
  warnings.push_back(fmt::format("{}: skipped {} lines of other output before the JSON object",
                                 format, begin_line - 1));
  return parse_json(text.substr(begin, end - begin), format, {begin_line, 1});
}

std::string_view json_kind(const Json& value) {
  switch (value.type()) {
  case Json::value_t::null:
    return "null";
  case Json::value_t::object:
    return "an object";
  case Json::value_t::array:
    return "an array";
  case Json::value_t::string:
    return "a string";
  case Json::value_t::boolean:
    return "a boolean";
  case Json::value_t::number_integer:
  case Json::value_t::number_unsigned:
  case Json::value_t::number_float:
    return "a number";
  default:
    return "a binary value";
  }
}

std::string json_path(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

std::string json_path(std::string_view path, std::size_t index) {
  return fmt::format("{}[{}]", path, index);
}

const Json* JsonFields::find(const Json& object, std::string_view key) {
  if (!object.is_object())
    return nullptr;
  const auto member = object.find(key);
  if (member == object.end() || member->is_null())
    return nullptr;
  return &*member;
}

std::unexpected<Error> JsonFields::error(std::string_view path, std::string_view what) const {
  if (m_line == 0)
    return output_error(m_format, path, what);
  return output_error(m_format, fmt::format("line {}: {}", m_line, path), what);
}

Result<const Json*> JsonFields::required(const Json& parent, std::string_view key,
                                         std::string_view path) const {
  const Json* member = find(parent, key);
  if (member == nullptr) {
    const bool present = parent.is_object() && parent.contains(key);
    return error(json_path(path, key), present ? "expected a value, found null" : "missing");
  }
  return member;
}

namespace {

std::string found(const Json& value) {
  if (value.is_string())
    return fmt::format("{} (\"{}\")", json_kind(value),
                       printable(value.get_ref<const std::string&>()));
  return std::string(json_kind(value));
}

} // namespace

Result<const Json*> JsonFields::object(const Json& parent, std::string_view key,
                                       std::string_view path) const {
  CULPRIT_TRY_ASSIGN(const Json* member, required(parent, key, path));
  if (!member->is_object())
    return error(json_path(path, key), "expected an object, found " + found(*member));
  return member;
}

Result<const Json*> JsonFields::array(const Json& parent, std::string_view key,
                                      std::string_view path) const {
  CULPRIT_TRY_ASSIGN(const Json* member, required(parent, key, path));
  if (!member->is_array())
    return error(json_path(path, key), "expected an array, found " + found(*member));
  return member;
}

Result<std::string> JsonFields::string(const Json& parent, std::string_view key,
                                       std::string_view path) const {
  CULPRIT_TRY_ASSIGN(const Json* member, required(parent, key, path));
  if (!member->is_string())
    return error(json_path(path, key), "expected a string, found " + found(*member));
  return member->get<std::string>();
}

Result<double> JsonFields::number(const Json& parent, std::string_view key,
                                  std::string_view path) const {
  CULPRIT_TRY(required(parent, key, path));
  CULPRIT_TRY_ASSIGN(const auto value, optional_number(parent, key, path));
  return *value;
}

Result<std::optional<std::string>>
JsonFields::optional_string(const Json& parent, std::string_view key, std::string_view path) const {
  const Json* member = find(parent, key);
  if (member == nullptr)
    return std::optional<std::string>();
  if (!member->is_string())
    return error(json_path(path, key), "expected a string, found " + found(*member));
  return std::optional<std::string>(member->get<std::string>());
}

Result<std::optional<double>> JsonFields::optional_number(const Json& parent, std::string_view key,
                                                          std::string_view path) const {
  const Json* member = find(parent, key);
  if (member == nullptr)
    return std::optional<double>();
  std::optional<double> value;
  if (member->is_number())
    value = member->get<double>();
  else if (member->is_string() && m_quoted == QuotedNumbers::accepted)
    value = parse_number(member->get_ref<const std::string&>());
  else
    return error(json_path(path, key), "expected a number, found " + found(*member));
  if (!value || !std::isfinite(*value))
    return error(json_path(path, key), "expected a finite number, found " + found(*member));
  return value;
}

Result<std::optional<bool>> JsonFields::optional_bool(const Json& parent, std::string_view key,
                                                      std::string_view path) const {
  const Json* member = find(parent, key);
  if (member == nullptr)
    return std::optional<bool>();
  if (!member->is_boolean())
    return error(json_path(path, key), "expected true or false, found " + found(*member));
  return std::optional<bool>(member->get<bool>());
}

} // namespace culprit::parsers
