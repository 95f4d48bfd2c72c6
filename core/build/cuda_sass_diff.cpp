#include "core/build/cuda_sass_diff.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>

namespace culprit::build {
namespace {

std::optional<roofline::Occupancy> occupancy_of(const SassKernel& kernel, int threads) {
  if (threads <= 0 || !kernel.resources)
    return std::nullopt;
  const auto limits = roofline::occupancy_limits(kernel.arch);
  if (!limits)
    return std::nullopt;
  const auto occupancy = roofline::theoretical_occupancy(
      *limits, {.threads_per_block = threads,
                .registers_per_thread = kernel.resources->registers,
                .shared_bytes_per_block = kernel.resources->shared_bytes});
  if (!occupancy)
    return std::nullopt;
  return *occupancy;
}

bool same_code(const SassKernel& a, const SassKernel& b) {
  return a.opcodes == b.opcodes && a.resources == b.resources;
}

std::string signed_count(std::int64_t delta) {
  return delta > 0 ? fmt::format("+{}", delta) : fmt::format("{}", delta);
}

std::string percent(double fraction) {
  return fmt::format("{}%", std::lround(fraction * 100));
}

std::int64_t instruction_change(const SassKernelDiff& k) {
  return std::abs((k.head ? k.head->instructions : 0) - (k.base ? k.base->instructions : 0));
}

} // namespace

SassDiff diff_sass(const CudaBinary& base, const CudaBinary& head, int threads_per_block) {
  SassDiff diff;
  diff.threads_per_block = threads_per_block;
  const auto make = [&](const SassKernel* b, const SassKernel* h) {
    const SassKernel& any = h != nullptr ? *h : *b;
    SassKernelDiff row;
    row.name = any.name;
    row.mangled = any.mangled;
    row.arch = any.arch;
    if (b != nullptr) {
      row.base = *b;
      row.base_occupancy = occupancy_of(*b, threads_per_block);
    }
    if (h != nullptr) {
      row.head = *h;
      row.head_occupancy = occupancy_of(*h, threads_per_block);
    }
    return row;
  };
  for (const auto& kernel : head.kernels) {
    const SassKernel* before = base.find(kernel.mangled, kernel.arch);
    if (before == nullptr)
      diff.added.push_back(make(nullptr, &kernel));
    else if (same_code(*before, kernel))
      ++diff.unchanged;
    else
      diff.changed.push_back(make(before, &kernel));
  }
  for (const auto& kernel : base.kernels)
    if (head.find(kernel.mangled, kernel.arch) == nullptr)
      diff.removed.push_back(make(&kernel, nullptr));
  // Largest change first; ties by name and arch, so the order never depends on the input's.
  std::ranges::sort(diff.changed, [](const auto& a, const auto& b) {
    return std::tuple(-instruction_change(a), a.name, a.arch) <
           std::tuple(-instruction_change(b), b.name, b.arch);
  });
  return diff;
}

std::string describe_sass_change(const SassKernelDiff& kernel, int threads_per_block) {
  const std::string who = fmt::format("{} {}", kernel.name, kernel.arch);
  if (!kernel.base)
    return fmt::format("{}: new kernel, {} instructions", who, kernel.head->instructions);
  if (!kernel.head)
    return fmt::format("{}: kernel removed ({} instructions)", who, kernel.base->instructions);
  const SassKernel& b = *kernel.base;
  const SassKernel& h = *kernel.head;
  std::vector<std::string> parts;

  std::vector<std::pair<std::string, std::int64_t>> moved;
  std::set<std::string> opcodes;
  for (const auto& [opcode, count] : b.opcodes)
    opcodes.insert(opcode);
  for (const auto& [opcode, count] : h.opcodes)
    opcodes.insert(opcode);
  for (const auto& opcode : opcodes) {
    if (opcode == "NOP")
      continue;
    const auto before = b.opcodes.contains(opcode) ? b.opcodes.at(opcode) : 0;
    const auto after = h.opcodes.contains(opcode) ? h.opcodes.at(opcode) : 0;
    if (before != after)
      moved.emplace_back(opcode, after - before);
  }
  // Largest move first; ties by opcode, so the line never depends on the input's order.
  std::ranges::sort(moved, [](const auto& x, const auto& y) {
    return std::tuple(-std::abs(x.second), x.first) < std::tuple(-std::abs(y.second), y.first);
  });
  std::string instructions = fmt::format("{} → {} instructions", b.instructions, h.instructions);
  if (!moved.empty()) {
    std::vector<std::string> top;
    for (std::size_t i = 0; i < moved.size() && i < 3; ++i)
      top.push_back(fmt::format("{} {}", signed_count(moved[i].second), moved[i].first));
    instructions += fmt::format(" ({})", fmt::join(top, ", "));
  }
  if (b.instructions != h.instructions || !moved.empty())
    parts.push_back(std::move(instructions));

  if (b.resources && h.resources) {
    const auto& rb = *b.resources;
    const auto& rh = *h.resources;
    if (rb.registers != rh.registers)
      parts.push_back(fmt::format("registers {} → {}", rb.registers, rh.registers));
    if (rb.local_bytes != rh.local_bytes)
      parts.push_back(fmt::format("local (spills) {} → {} B", rb.local_bytes, rh.local_bytes));
    if (rb.stack_bytes != rh.stack_bytes)
      parts.push_back(fmt::format("stack {} → {} B", rb.stack_bytes, rh.stack_bytes));
    if (rb.shared_bytes != rh.shared_bytes)
      parts.push_back(fmt::format("shared {} → {} B", rb.shared_bytes, rh.shared_bytes));
  }
  if (kernel.base_occupancy && kernel.head_occupancy &&
      kernel.base_occupancy->warps_per_sm != kernel.head_occupancy->warps_per_sm)
    parts.push_back(fmt::format("occupancy {} → {} at {} threads",
                                percent(kernel.base_occupancy->fraction),
                                percent(kernel.head_occupancy->fraction), threads_per_block));
  if (parts.empty())
    parts.emplace_back("resources changed");
  return fmt::format("{}: {}", who, fmt::join(parts, ", "));
}

std::vector<std::string> render_sass_diff(const SassDiff& diff, std::size_t max_lines) {
  if (diff.machine_code_unchanged())
    return {fmt::format("machine code of every kernel unchanged ({} kernels)", diff.unchanged)};
  std::vector<std::string> lines;
  std::size_t left = 0;
  for (const auto* group : {&diff.changed, &diff.added, &diff.removed}) {
    for (const auto& kernel : *group) {
      if (lines.size() < max_lines)
        lines.push_back(describe_sass_change(kernel, diff.threads_per_block));
      else
        ++left;
    }
  }
  if (left > 0)
    lines.push_back(fmt::format("and {} more kernel{}", left, left == 1 ? "" : "s"));
  return lines;
}

} // namespace culprit::build
