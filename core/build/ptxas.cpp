#include "core/build/ptxas.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cxxabi.h>
#include <fmt/core.h>

#include "core/util/text.hpp"

namespace culprit::build {

namespace {

// "8+0" -> 8; the leading number of an item, with the older "a+b" form summed. Sets `rest` to
// what follows the number.
std::optional<std::int64_t> leading_number(std::string_view item, std::string_view& rest) {
  std::int64_t total = 0;
  std::size_t i = 0;
  bool any = false;
  while (true) {
    std::int64_t value = 0;
    const std::size_t start = i;
    while (i < item.size() && i - start < 18 &&
           std::isdigit(static_cast<unsigned char>(item[i])) != 0)
      value = value * 10 + (item[i++] - '0');
    if (i == start)
      break;
    any = true;
    total += value;
    if (i >= item.size() || item[i] != '+')
      break;
    ++i;
  }
  rest = trim(item.substr(i));
  return any ? std::optional(total) : std::nullopt;
}

// Applies "N registers", "used N barriers", "N bytes smem", ... to `kernel`; items it does not
// know (textures, samplers, newer additions) are skipped.
void apply_items(std::string_view items, PtxasKernel& kernel) {
  while (!items.empty()) {
    const std::size_t comma = items.find(',');
    std::string_view item = trim(items.substr(0, comma));
    items = comma == std::string_view::npos ? std::string_view() : items.substr(comma + 1);
    for (const std::string_view prefix : {"Used ", "used "}) {
      if (item.starts_with(prefix))
        item.remove_prefix(prefix.size());
    }
    std::string_view what;
    const auto value = leading_number(item, what);
    if (!value)
      continue;
    if (what == "registers")
      kernel.registers = static_cast<int>(*value);
    else if (what == "barriers")
      kernel.barriers = static_cast<int>(*value);
    else if (what == "bytes spill stores")
      kernel.spill_store_bytes = *value;
    else if (what == "bytes spill loads")
      kernel.spill_load_bytes = *value;
    else if (what == "bytes stack frame" || what == "bytes lmem" ||
             what == "bytes cumulative stack size")
      kernel.stack_bytes = std::max(kernel.stack_bytes, *value);
    else if (what == "bytes smem")
      kernel.shared_bytes = *value;
    else if (what.starts_with("bytes cmem["))
      kernel.constant_bytes += *value;
  }
}

// Reads a log line by line. ptxas reports one compilation (one arch of one translation unit)
// at a time; "N bytes gmem" opens each report.
class PtxasLogReader {
public:
  void read_line(std::string_view line) {
    const std::size_t info = line.find("ptxas info");
    if (info == std::string_view::npos) {
      if (line.find("bytes stack frame") != std::string_view::npos && m_properties)
        apply_items(line, m_kernels[*m_properties]);
      return;
    }
    const std::size_t colon = line.find(':', info);
    if (colon == std::string_view::npos)
      return;
    const std::string_view message = trim(line.substr(colon + 1));
    if (message.starts_with("Compiling entry function '")) {
      compiling_entry(message);
    } else if (message.starts_with("Function properties for ")) {
      function_properties(
          trim(message.substr(std::string_view("Function properties for ").size())));
    } else if (message.starts_with("Used ") && m_entry) {
      apply_items(message, m_kernels[*m_entry]);
    } else if (message.find("bytes gmem") != std::string_view::npos) {
      m_arch.clear();
      m_entry.reset();
      m_properties.reset();
      m_without_arch.clear();
    }
  }

  // The kernels, the last report of each (kernel, arch) kept at its first position.
  std::vector<PtxasKernel> finish() {
    std::vector<PtxasKernel> kernels;
    std::map<std::pair<std::string, std::string>, std::size_t> positions;
    for (auto& kernel : m_kernels) {
      kernel.signature = demangle(kernel.mangled);
      kernel.name = short_name(kernel.signature);
      const auto [where, inserted] =
          positions.try_emplace({kernel.mangled, kernel.arch}, kernels.size());
      if (inserted)
        kernels.push_back(std::move(kernel));
      else
        kernels[where->second] = std::move(kernel);
    }
    return kernels;
  }

private:
  void compiling_entry(std::string_view message) {
    message.remove_prefix(std::string_view("Compiling entry function '").size());
    const std::size_t quote = message.find('\'');
    if (quote == std::string_view::npos)
      return;
    PtxasKernel kernel;
    kernel.mangled = std::string(message.substr(0, quote));
    const std::size_t arch = message.find("for '", quote);
    if (arch != std::string_view::npos) {
      const std::string_view rest = message.substr(arch + 5);
      m_arch = std::string(rest.substr(0, rest.find('\'')));
    }
    kernel.arch = m_arch;
    for (const std::size_t index : m_without_arch)
      m_kernels[index].arch = m_arch;
    m_without_arch.clear();
    m_kernels.push_back(std::move(kernel));
    m_entry = m_kernels.size() - 1;
  }

  void function_properties(std::string_view name) {
    if (m_entry && m_kernels[*m_entry].mangled == name) {
      m_properties = m_entry;
      return;
    }
    PtxasKernel function;
    function.mangled = std::string(name);
    function.arch = m_arch;
    function.entry = false;
    m_kernels.push_back(std::move(function));
    m_properties = m_kernels.size() - 1;
    if (m_arch.empty())
      m_without_arch.push_back(*m_properties);
  }

  std::vector<PtxasKernel> m_kernels;
  std::string m_arch;
  std::optional<std::size_t> m_entry;      // the entry function of the last "Compiling" line
  std::optional<std::size_t> m_properties; // the function of the last "Function properties"
  std::vector<std::size_t> m_without_arch; // device functions reported before the arch was
};

} // namespace

bool PtxasKernel::same_resources(const PtxasKernel& other) const {
  return registers == other.registers && barriers == other.barriers &&
         spill_store_bytes == other.spill_store_bytes &&
         spill_load_bytes == other.spill_load_bytes && stack_bytes == other.stack_bytes &&
         shared_bytes == other.shared_bytes && constant_bytes == other.constant_bytes;
}

std::vector<PtxasKernel> parse_ptxas_log(std::string_view log) {
  PtxasLogReader reader;
  while (!log.empty()) {
    const std::size_t newline = log.find('\n');
    reader.read_line(log.substr(0, newline));
    log = newline == std::string_view::npos ? std::string_view() : log.substr(newline + 1);
  }
  return reader.finish();
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && text ? std::string(text.get()) : mangled;
}

std::string short_name(std::string_view signature) {
  std::size_t end = signature.size();
  if (signature.ends_with(')')) {
    int depth = 0;
    for (std::size_t i = signature.size(); i-- > 0;) {
      if (signature[i] == ')') {
        ++depth;
      } else if (signature[i] == '(' && --depth == 0) {
        end = i;
        break;
      }
    }
  }
  const std::string_view name = signature.substr(0, end);
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(' || c == '{' || c == '[')
      ++depth;
    else if (c == '>' || c == ')' || c == '}' || c == ']')
      --depth;
    else if (c == ' ' && depth == 0)
      start = i + 1; // a return type ("void ") precedes the name of a template's instance
  }
  return std::string(name.substr(start));
}

std::string_view to_string(PtxasChange change) {
  switch (change) {
  case PtxasChange::added:
    return "added";
  case PtxasChange::removed:
    return "removed";
  case PtxasChange::changed:
    return "changed";
  case PtxasChange::unchanged:
    break;
  }
  return "unchanged";
}

std::vector<PtxasDiffRow> diff_ptxas(const std::vector<PtxasKernel>& base,
                                     const std::vector<PtxasKernel>& head) {
  std::map<std::pair<std::string, std::string>, const PtxasKernel*> base_by_key;
  for (const auto& kernel : base)
    base_by_key[{kernel.mangled, kernel.arch}] = &kernel;
  std::vector<PtxasDiffRow> rows;
  for (const auto& kernel : head) {
    PtxasDiffRow row{.name = kernel.name,
                     .arch = kernel.arch,
                     .change = PtxasChange::added,
                     .base = std::nullopt,
                     .head = kernel};
    const auto found = base_by_key.find({kernel.mangled, kernel.arch});
    if (found != base_by_key.end()) {
      row.base = *found->second;
      row.change =
          kernel.same_resources(*found->second) ? PtxasChange::unchanged : PtxasChange::changed;
      base_by_key.erase(found);
    }
    rows.push_back(std::move(row));
  }
  for (const auto& kernel : base) {
    if (base_by_key.contains({kernel.mangled, kernel.arch}))
      rows.push_back({.name = kernel.name,
                      .arch = kernel.arch,
                      .change = PtxasChange::removed,
                      .base = kernel,
                      .head = std::nullopt});
  }
  return rows;
}

std::string describe_change(const PtxasDiffRow& row) {
  if (row.change == PtxasChange::added)
    return "new kernel";
  if (row.change == PtxasChange::removed)
    return "kernel removed";
  if (!row.base || !row.head)
    return {};
  std::string text;
  const auto field = [&](std::string_view what, std::int64_t before, std::int64_t after,
                         std::string_view unit) {
    if (before != after)
      text += fmt::format("{}{} {} -> {}{}", text.empty() ? "" : ", ", what, before, after, unit);
  };
  const PtxasKernel& base = *row.base;
  const PtxasKernel& head = *row.head;
  field("registers", base.registers, head.registers, "");
  field("barriers", base.barriers, head.barriers, "");
  field("spill stores", base.spill_store_bytes, head.spill_store_bytes, " B");
  field("spill loads", base.spill_load_bytes, head.spill_load_bytes, " B");
  field("stack", base.stack_bytes, head.stack_bytes, " B");
  field("shared", base.shared_bytes, head.shared_bytes, " B");
  field("constant", base.constant_bytes, head.constant_bytes, " B");
  return text;
}

} // namespace culprit::build
