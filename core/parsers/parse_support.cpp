#include "core/parsers/parse_support.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace culprit::parsers {

std::optional<double> seconds_per(std::string_view unit) {
  if (unit == "s")
    return 1.0;
  if (unit == "ms")
    return 1e-3;
  if (unit == "us")
    return 1e-6;
  if (unit == "ns")
    return 1e-9;
  return std::nullopt;
}

std::optional<double> parse_number(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos)
    return std::nullopt;
  const auto end = text.find_last_not_of(" \t") + 1;
  text = text.substr(begin, end - begin);
  if (text.front() == '+')
    text.remove_prefix(1);
  double value = 0;
  const auto [stop, error] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
  if (error != std::errc() || stop != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

std::string printable(std::string_view text, std::size_t limit) {
  std::string result;
  for (const char c : text) {
    if (result.size() >= limit) {
      result += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f)
      result += fmt::format("\\x{:02x}", byte);
    else
      result += static_cast<char>(byte);
  }
  return result;
}

TextPosition position_of(std::string_view text, std::size_t offset) {
  TextPosition position;
  offset = std::min(offset, text.size());
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++position.line;
      position.column = 1;
    } else {
      ++position.column;
    }
  }
  return position;
}

std::unexpected<Error> output_error(std::string_view format, std::string_view where,
                                    std::string_view what) {
  return infra_error("{}: {}: {}", format, where, what);
}

std::optional<std::string_view> LineReader::next() {
  if (m_rest.empty())
    return std::nullopt;
  const auto newline = m_rest.find('\n');
  std::string_view line = m_rest.substr(0, newline);
  const std::size_t consumed = newline == std::string_view::npos ? m_rest.size() : newline + 1;
  m_rest.remove_prefix(consumed);
  m_offset = m_next_offset;
  m_next_offset += consumed;
  ++m_number;
  if (line.ends_with('\r'))
    line.remove_suffix(1);
  return line;
}

Status SampleTable::add(std::string_view case_name, std::string_view metric, std::string_view unit,
                        Direction direction, double value) {
  if (!std::isfinite(value))
    return infra_error("value {} of {} of case '{}' is not a finite number", value, metric,
                       case_name);
  const auto scale = seconds_per(unit);
  if (scale && value < 0)
    return infra_error("value {} of {} of case '{}' is a negative time; the benchmark's timer is "
                       "broken",
                       value, metric, case_name);
  if (scale)
    value *= *scale;
  const std::string_view stored_unit = scale ? std::string_view("s") : unit;
  const std::pair<std::string_view, std::string_view> key(case_name, metric);
  auto slot = m_index.find(key);
  if (slot == m_index.end()) {
    slot =
        m_index
            .emplace(std::make_pair(std::string(case_name), std::string(metric)), m_samples.size())
            .first;
    m_samples.push_back(CaseSamples{
        std::string(case_name), std::string(metric), std::string(stored_unit), direction, {}});
  }
  auto& samples = m_samples[slot->second];
  if (samples.unit != stored_unit)
    return infra_error("{} of case '{}' is in '{}' here but was in '{}' before", metric, case_name,
                       unit, samples.unit);
  if (samples.direction != direction)
    return infra_error("{} of case '{}' is {}-is-better here but was {}-is-better before", metric,
                       case_name, to_string(direction), to_string(samples.direction));
  samples.values.push_back(value);
  return {};
}

std::vector<CaseSamples> SampleTable::take() {
  m_index.clear();
  return std::exchange(m_samples, {});
}

} // namespace culprit::parsers
