#include "core/roofline/occupancy.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace culprit::roofline {
namespace {

constexpr std::int64_t k_kib = 1024;

// CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"; shared memory
// units and reservations as cuda_occupancy.h has them.
constexpr std::array k_occupancy_limits{
    OccupancyLimits{.arch = "sm_70",
                    .max_warps_per_sm = 64,
                    .max_blocks_per_sm = 32,
                    .shared_per_sm = 96 * k_kib,
                    .shared_per_block = 96 * k_kib,
                    .shared_unit = 256,
                    .shared_reserved_per_block = 0},
    OccupancyLimits{.arch = "sm_75",
                    .max_warps_per_sm = 32,
                    .max_blocks_per_sm = 16,
                    .shared_per_sm = 64 * k_kib,
                    .shared_per_block = 64 * k_kib,
                    .shared_unit = 256,
                    .shared_reserved_per_block = 0},
    OccupancyLimits{.arch = "sm_80",
                    .max_warps_per_sm = 64,
                    .max_blocks_per_sm = 32,
                    .shared_per_sm = 164 * k_kib,
                    .shared_per_block = 163 * k_kib,
                    .shared_unit = 128,
                    .shared_reserved_per_block = k_kib},
    OccupancyLimits{.arch = "sm_86",
                    .max_warps_per_sm = 48,
                    .max_blocks_per_sm = 16,
                    .shared_per_sm = 100 * k_kib,
                    .shared_per_block = 99 * k_kib,
                    .shared_unit = 128,
                    .shared_reserved_per_block = k_kib},
    OccupancyLimits{.arch = "sm_89",
                    .max_warps_per_sm = 48,
                    .max_blocks_per_sm = 24,
                    .shared_per_sm = 100 * k_kib,
                    .shared_per_block = 99 * k_kib,
                    .shared_unit = 128,
                    .shared_reserved_per_block = k_kib},
    OccupancyLimits{.arch = "sm_90",
                    .max_warps_per_sm = 64,
                    .max_blocks_per_sm = 32,
                    .shared_per_sm = 228 * k_kib,
                    .shared_per_block = 227 * k_kib,
                    .shared_unit = 128,
                    .shared_reserved_per_block = k_kib},
};

constexpr std::int64_t round_up(std::int64_t value, std::int64_t unit) {
  return (value + unit - 1) / unit * unit;
}

} // namespace

std::optional<OccupancyLimits> occupancy_limits(std::string_view arch) {
  // "sm_90a" is sm_90 with architecture-specific features: the same limits.
  if (arch.size() > 5 && (arch.back() == 'a' || arch.back() == 'f'))
    arch.remove_suffix(1);
  const auto* found = std::ranges::find(k_occupancy_limits, arch, &OccupancyLimits::arch);
  if (found == k_occupancy_limits.end())
    return std::nullopt;
  return *found;
}

std::string_view to_string(OccupancyLimiter limiter) {
  switch (limiter) {
  case OccupancyLimiter::warps:
    return "warps";
  case OccupancyLimiter::blocks:
    return "blocks";
  case OccupancyLimiter::registers:
    return "registers";
  case OccupancyLimiter::shared:
    return "shared memory";
  }
  return "warps";
}

Result<Occupancy> theoretical_occupancy(const OccupancyLimits& limits,
                                        const OccupancyInput& input) {
  if (input.threads_per_block <= 0 || input.threads_per_block > limits.max_threads_per_block)
    return usage_error("{} threads a block: {} runs 1 to {}", input.threads_per_block, limits.arch,
                       limits.max_threads_per_block);
  if (input.registers_per_thread < 0 ||
      input.registers_per_thread > limits.max_registers_per_thread)
    return usage_error("{} registers a thread: {} allows at most {}", input.registers_per_thread,
                       limits.arch, limits.max_registers_per_thread);
  if (input.shared_bytes_per_block < 0 || input.shared_bytes_per_block > limits.shared_per_block)
    return usage_error("{} bytes of shared memory a block: {} allows at most {}",
                       input.shared_bytes_per_block, limits.arch, limits.shared_per_block);

  const int warps_per_block = (input.threads_per_block + 31) / 32;
  constexpr int k_unlimited = std::numeric_limits<int>::max();

  const int by_warps = limits.max_warps_per_sm / warps_per_block;
  const int by_blocks = limits.max_blocks_per_sm;
  int by_registers = k_unlimited;
  if (input.registers_per_thread > 0) {
    const auto per_warp =
        round_up(std::int64_t{input.registers_per_thread} * 32, limits.register_unit);
    const auto per_partition = limits.registers_per_sm / limits.sub_partitions;
    const auto warps = (per_partition / per_warp) * limits.sub_partitions;
    by_registers = static_cast<int>(warps / warps_per_block);
  }
  const auto shared =
      round_up(input.shared_bytes_per_block + limits.shared_reserved_per_block, limits.shared_unit);
  const int by_shared = shared > 0 ? static_cast<int>(limits.shared_per_sm / shared) : k_unlimited;

  Occupancy result;
  result.blocks_per_sm = by_warps;
  result.limiter = OccupancyLimiter::warps;
  const auto consider = [&](int blocks, OccupancyLimiter limiter) {
    if (blocks < result.blocks_per_sm) {
      result.blocks_per_sm = blocks;
      result.limiter = limiter;
    }
  };
  consider(by_blocks, OccupancyLimiter::blocks);
  consider(by_registers, OccupancyLimiter::registers);
  consider(by_shared, OccupancyLimiter::shared);
  result.warps_per_sm = result.blocks_per_sm * warps_per_block;
  result.max_warps_per_sm = limits.max_warps_per_sm;
  result.fraction = static_cast<double>(result.warps_per_sm) / limits.max_warps_per_sm;
  return result;
}

} // namespace culprit::roofline
