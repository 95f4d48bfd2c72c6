#include "core/parsers/valgrind_counts.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "core/parsers/parse_support.hpp"
#include "core/util/text.hpp"

namespace culprit::parsers {
namespace {

constexpr std::string_view k_callgrind_format = "Valgrind";
constexpr std::string_view k_blanks = " \t";
constexpr std::string_view k_client_request_named = "Client Request:";

using Costs = std::vector<std::uint64_t>;

// The next blank-separated token of `text`, removed from it; empty at the end.
std::string_view next_token(std::string_view& text) {
  const auto begin = text.find_first_not_of(k_blanks);
  if (begin == std::string_view::npos) {
    text = {};
    return {};
  }
  text.remove_prefix(begin);
  const auto end = std::min(text.find_first_of(k_blanks), text.size());
  const auto token = text.substr(0, end);
  text.remove_prefix(end);
  return token;
}

std::optional<std::uint64_t> parse_count(std::string_view token, int base = 10) {
  std::uint64_t value = 0;
  const auto [stop, error] =
      std::from_chars(token.data(), token.data() + token.size(), value, base);
  if (error != std::errc() || stop != token.data() + token.size() || token.empty())
    return std::nullopt;
  return value;
}

// A subposition: a line or address ("14", "0x40163f"), one relative to the last ("+7", "-2"),
// or the last again ("*").
bool is_position(std::string_view token) {
  if (token == "*")
    return true;
  if (token.starts_with('+') || token.starts_with('-'))
    return parse_count(token.substr(1)).has_value();
  if (token.starts_with("0x"))
    return parse_count(token.substr(2), 16).has_value();
  return parse_count(token).has_value();
}

bool starts_cost_line(char c) {
  return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*';
}

bool is_key(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

struct FunctionSums {
  std::string name;
  Costs self;
  Costs inclusive;
};

// One part of a file as it is read.
struct PartState {
  std::optional<int> number;
  std::string trigger;
  std::vector<std::string> events;
  std::size_t positions = 1;
  Costs sum;
  std::optional<Costs> summary;
  std::optional<Costs> totals;
  std::size_t summary_line = 0;
  std::size_t totals_line = 0;
  bool has_costs = false;
  std::vector<FunctionSums> functions;
  std::unordered_map<std::string, std::size_t> function_index;
};

std::map<std::string, double> by_event(const std::vector<std::string>& events, const Costs& costs) {
  std::map<std::string, double> result;
  for (std::size_t i = 0; i < events.size(); ++i)
    result[events[i]] += static_cast<double>(i < costs.size() ? costs[i] : 0);
  return result;
}

// Reads a profile a line at a time: the same for text in memory and for a file streamed from disk.
class ProfileReader {
public:
  ProfileReader(std::string_view source, const ValgrindOptions& options)
      : m_source(source), m_options(options) {}

  Status line(std::string_view text) {
    ++m_number;
    if (text.ends_with('\r'))
      text.remove_suffix(1);
    if (m_number == 1 && trim(text, k_blanks) == "# callgrind format")
      m_callgrind = true;
    if (trim(text, k_blanks).empty() || text.starts_with('#'))
      return {};
    if (starts_cost_line(text.front()))
      return cost_line(text);
    if (m_call_cost_due)
      return error("a calls= line must be followed by the cost line of the call");
    const auto mark = text.find_first_of("=:");
    const auto key = text.substr(0, mark);
    if (mark == std::string_view::npos || !is_key(key))
      return error(fmt::format("\"{}\" is neither a header line, a name line nor a cost line",
                               printable(text)));
    const auto value = text.substr(mark + 1);
    return text[mark] == ':' ? header_line(key, trim(value, k_blanks)) : spec_line(key, value);
  }

  Result<std::vector<ValgrindCounts>> finish() {
    if (m_call_cost_due)
      return error("the file ends after a calls= line, before the cost of the call; it is cut "
                   "short");
    CULPRIT_TRY(finish_part());
    if (m_parts.empty())
      return output_error(k_callgrind_format, where(m_number),
                          "no events: line; this is not a Cachegrind or Callgrind profile");
    return std::move(m_parts);
  }

private:
  std::string where(std::size_t number) const {
    return m_source.empty() ? fmt::format("line {}", number)
                            : fmt::format("{}: line {}", m_source, number);
  }
  std::unexpected<Error> error(std::string_view what) const {
    return output_error(k_callgrind_format, where(m_number), what);
  }

  Result<Costs> parse_costs(std::string_view rest) const {
    Costs costs(m_part.events.size(), 0);
    std::size_t count = 0;
    for (auto token = next_token(rest); !token.empty(); token = next_token(rest), ++count) {
      if (count == costs.size())
        return error(
            fmt::format("more counts than the {} events of the events: line", costs.size()));
      const auto value = parse_count(token);
      if (!value)
        return error(
            fmt::format("the count \"{}\" is not a non-negative integer", printable(token)));
      costs[count] = *value;
    }
    return costs;
  }

  Status header_line(std::string_view key, std::string_view value) {
    if (key == "events") {
      if (m_part.has_costs)
        return error("an events: line after cost lines");
      m_part.events.clear();
      for (auto rest = value, name = next_token(rest); !name.empty(); name = next_token(rest))
        m_part.events.emplace_back(name);
      if (m_part.events.empty())
        return error("the events: line names no events");
      m_part.sum.assign(m_part.events.size(), 0);
    } else if (key == "positions") {
      m_part.positions = 0;
      for (auto rest = value; !next_token(rest).empty();)
        ++m_part.positions;
    } else if (key == "summary" || key == "totals") {
      if (m_part.events.empty())
        return error(fmt::format("a {}: line before the events: line", key));
      CULPRIT_TRY_ASSIGN(auto costs, parse_costs(value));
      (key == "summary" ? m_part.summary : m_part.totals) = std::move(costs);
      (key == "summary" ? m_part.summary_line : m_part.totals_line) = m_number;
    } else if (key == "desc") {
      if (value.starts_with("Trigger:"))
        m_part.trigger = trim(value.substr(8), k_blanks);
    } else if (key == "part") {
      const auto number = parse_count(value);
      if (!number || *number > 1'000'000'000)
        return error(fmt::format("part: \"{}\" is not a dump number", printable(value)));
      if (!m_part.events.empty() || m_part.number)
        CULPRIT_TRY(finish_part());
      m_part.number = static_cast<int>(*number);
    } else if (key == "version" || key == "creator") {
      m_callgrind = true;
      if (key == "creator" && value.starts_with("callgrind"))
        m_by_callgrind = true;
    }
    return {};
  }

  // The name of an "fn=" or "cfn=" line, with Callgrind's compression: "(12) name" defines 12,
  // "(12)" refers to it.
  Result<std::string_view> function_name(std::string_view value) {
    if (value.size() < 2 || value[0] != '(' || value[1] < '0' || value[1] > '9')
      return value;
    const auto close = value.find(')');
    const auto id = parse_count(value.substr(1, close == std::string_view::npos ? 0 : close - 1));
    if (!id)
      return error(fmt::format("\"{}\" is not a compressed name", printable(value)));
    const auto name = value.substr(close + 1);
    if (!name.empty()) {
      auto& slot = m_functions[*id];
      slot.assign(trim(name, k_blanks));
      return std::string_view(slot);
    }
    const auto known = m_functions.find(*id);
    if (known == m_functions.end())
      return error(fmt::format("({}) names no function defined before it", *id));
    return std::string_view(known->second);
  }

  Status spec_line(std::string_view key, std::string_view value) {
    if (key == "fn") {
      CULPRIT_TRY_ASSIGN(const auto name, function_name(value));
      m_function = std::string(name);
      m_sums = std::nullopt;
      if (!m_options.function_pattern.empty() &&
          valgrind_name_matches(m_options.function_pattern, name)) {
        auto [slot, added] = m_part.function_index.try_emplace(m_function, 0);
        if (added) {
          slot->second = m_part.functions.size();
          m_part.functions.push_back({m_function, {}, {}});
        }
        m_sums = slot->second;
      }
    } else if (key == "cfn") {
      CULPRIT_TRY_ASSIGN(const auto name, function_name(value));
      m_callee = std::string(name);
    } else if (key == "calls") {
      auto rest = value;
      if (!parse_count(next_token(rest)))
        return error(fmt::format("calls={} does not start with a call count", printable(value)));
      m_call_cost_due = true;
    }
    // ob, fl, fi, fe, cob, cfi, cfl, jump, jcnd and any other names say where costs arose, not
    // how much: the counts do not depend on them.
    return {};
  }

  Status cost_line(std::string_view text) {
    if (m_part.events.empty())
      return error("a cost line before the events: line");
    auto rest = text;
    for (std::size_t i = 0; i < m_part.positions; ++i) {
      const auto token = next_token(rest);
      if (!is_position(token))
        return error(fmt::format("\"{}\" is not a position (the positions: line names {})",
                                 printable(token), m_part.positions));
    }
    CULPRIT_TRY_ASSIGN(const Costs costs, parse_costs(rest));
    auto* sums = m_sums ? &m_part.functions[*m_sums] : nullptr;
    if (sums && sums->self.empty()) {
      sums->self.assign(costs.size(), 0);
      sums->inclusive.assign(costs.size(), 0);
    }
    if (m_call_cost_due) {
      // The inclusive cost of a call: already in the callee's own lines, so only the caller's
      // inclusive counts take it, and not for a call to itself.
      m_call_cost_due = false;
      if (sums && m_callee != m_function)
        add(sums->inclusive, costs);
      return {};
    }
    m_part.has_costs = true;
    add(m_part.sum, costs);
    if (sums) {
      add(sums->self, costs);
      add(sums->inclusive, costs);
    }
    return {};
  }

  static void add(Costs& into, const Costs& costs) {
    for (std::size_t i = 0; i < into.size() && i < costs.size(); ++i)
      into[i] += costs[i];
  }

  // The totals a part states, checked against its cost lines.
  Result<Costs> checked_totals(const PartState& part) const {
    const bool has_totals = part.totals.has_value();
    const auto& stated = has_totals ? part.totals : part.summary;
    if (!has_totals && m_by_callgrind)
      return output_error(k_callgrind_format, where(m_number),
                          "no totals: line at the end, which Callgrind always writes; the file is "
                          "cut short");
    if (!stated) {
      if (m_callgrind)
        return part.sum;
      return output_error(k_callgrind_format, where(m_number),
                          "no summary: line at the end, which Cachegrind always writes; the file "
                          "is cut short");
    }
    for (std::size_t i = 0; i < part.events.size(); ++i) {
      if ((*stated)[i] != part.sum[i])
        return output_error(
            k_callgrind_format, where(has_totals ? part.totals_line : part.summary_line),
            fmt::format("the cost lines add up to {} {} but the {}: line says {}; the file is cut "
                        "short or was not written by Valgrind",
                        part.sum[i], part.events[i], has_totals ? "totals" : "summary",
                        (*stated)[i]));
    }
    return *stated;
  }

  Status finish_part() {
    if (m_part.events.empty()) {
      if (m_part.has_costs || m_part.number)
        return error("a part without an events: line");
      return {};
    }
    CULPRIT_TRY_ASSIGN(const Costs totals, checked_totals(m_part));
    ValgrindCounts counts;
    counts.trigger = m_part.trigger;
    // CALLGRIND_DUMP_STATS_AT("name") writes "Client Request: name", CALLGRIND_DUMP_STATS
    // "Client Request"; the trigger is trimmed, so an empty name leaves "Client Request:".
    if (m_part.trigger.starts_with(k_client_request_named)) {
      counts.named = true;
      counts.name = trim(m_part.trigger.substr(k_client_request_named.size()), k_blanks);
    }
    counts.part = m_part.number;
    counts.events = by_event(m_part.events, totals);
    counts.counts = valgrind_metrics(counts.events);
    for (auto& sums : m_part.functions) {
      counts.functions.push_back({std::move(sums.name), by_event(m_part.events, sums.self),
                                  by_event(m_part.events, sums.inclusive)});
    }
    m_parts.push_back(std::move(counts));
    // A later part keeps the events and positions unless it states its own.
    PartState next;
    next.events = std::move(m_part.events);
    next.positions = m_part.positions;
    next.sum.assign(next.events.size(), 0);
    m_part = std::move(next);
    m_sums = std::nullopt;
    return {};
  }

  std::string m_source;
  const ValgrindOptions& m_options;
  std::size_t m_number = 0;
  bool m_callgrind = false;    // says it is Callgrind format
  bool m_by_callgrind = false; // written by Callgrind itself (creator: callgrind-3.19.0)
  PartState m_part;
  std::vector<ValgrindCounts> m_parts;
  std::unordered_map<std::uint64_t, std::string> m_functions; // compressed names, whole file
  std::string m_function;
  std::string m_callee;
  std::optional<std::size_t> m_sums; // m_function's entry in m_part.functions, when it matches
  bool m_call_cost_due = false;
};

} // namespace

Result<std::vector<ValgrindCounts>> parse_valgrind_counts(std::string_view text,
                                                          std::string_view source,
                                                          const ValgrindOptions& options) {
  ProfileReader reader(source, options);
  LineReader lines(text);
  while (const auto line = lines.next())
    CULPRIT_TRY(reader.line(*line));
  return reader.finish();
}

Result<std::vector<ValgrindCounts>> read_valgrind_counts(const std::filesystem::path& path,
                                                         const ValgrindOptions& options) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return infra_error("cannot open the Valgrind profile {}", path.string());
  ProfileReader reader(path.filename().string(), options);
  std::string line;
  while (std::getline(file, line))
    CULPRIT_TRY(reader.line(line));
  if (file.bad())
    return infra_error("cannot read the Valgrind profile {}", path.string());
  return reader.finish();
}

Result<std::vector<ValgrindCounts>> read_callgrind_dumps(const std::filesystem::path& out_file,
                                                         const ValgrindOptions& options) {
  namespace fs = std::filesystem;
  const auto directory = out_file.has_parent_path() ? out_file.parent_path() : fs::path(".");
  const auto prefix = out_file.filename().string() + ".";
  std::vector<std::pair<std::uint64_t, fs::path>> numbered;
  std::error_code error;
  for (fs::directory_iterator entry(directory, error), end; !error && entry != end;
       entry.increment(error)) {
    const auto name = entry->path().filename().string();
    if (!name.starts_with(prefix))
      continue;
    if (const auto number = parse_count(std::string_view(name).substr(prefix.size())))
      numbered.emplace_back(*number, entry->path());
  }
  if (error)
    return infra_error("cannot list {} for Callgrind's dumps: {}", directory.string(),
                       error.message());
  std::sort(numbered.begin(), numbered.end());
  std::vector<fs::path> files;
  files.reserve(numbered.size() + 1);
  for (auto& [number, path] : numbered)
    files.push_back(std::move(path));
  if (fs::exists(out_file, error))
    files.push_back(out_file);
  if (files.empty())
    return infra_error("Callgrind wrote no profile {} and no dumps {}N", out_file.string(),
                       (directory / prefix).string());
  std::vector<ValgrindCounts> dumps;
  for (const auto& file : files) {
    CULPRIT_TRY_ASSIGN(auto parts, read_valgrind_counts(file, options));
    std::move(parts.begin(), parts.end(), std::back_inserter(dumps));
  }
  return dumps;
}

bool valgrind_name_matches(std::string_view pattern, std::string_view name) {
  // Greedy matching that returns to the last '*' on a mismatch: linear in practice, and never
  // recursive, whatever the pattern.
  std::size_t p = 0;
  std::size_t n = 0;
  std::optional<std::size_t> star;
  std::size_t star_name = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = ++p;
      star_name = n;
      continue;
    }
    if (p < pattern.size()) {
      const bool escaped = pattern[p] == '\\' && p + 1 < pattern.size();
      const char want = escaped ? pattern[p + 1] : pattern[p];
      if ((!escaped && want == '?') || want == name[n]) {
        p += escaped ? 2 : 1;
        ++n;
        continue;
      }
    }
    if (!star)
      return false;
    p = *star;
    n = ++star_name;
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

} // namespace culprit::parsers
