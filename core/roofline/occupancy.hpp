#pragma once
// Theoretical occupancy of a CUDA kernel: the warps an SM can keep resident for it, over the most
// it can hold. Pure arithmetic on the architecture's limits, as NVIDIA's CUDA Occupancy
// Calculator (cuda_occupancy.h, shipped with the toolkit) does it, with the limits of the CUDA C++
// Programming Guide's "Compute Capabilities" table ("Technical Specifications per Compute
// Capability") and the Tuning Guides of Volta, Turing, Ampere, Ada and Hopper.
//
// With w = ceil(threads per block / 32) warps a block:
//   by warps      B_w = floor(max warps per SM / w)
//   by blocks     B_b = max blocks per SM
//   by registers  regs per warp R = roundup(registers per thread * 32, 256); an SM's registers are
//                 split among its 4 sub-partitions (16384 each), a warp living in one:
//                 B_r = floor(4 * floor(16384 / R) / w)       (no limit when registers are 0)
//   by shared     S = roundup(shared bytes per block + the arch's per-block reservation
//                 (1 KiB from sm_80 on), the arch's allocation unit);
//                 B_s = floor(shared memory per SM / S), the SM configured for the most shared
//                 memory it can give (the driver's choice when a kernel needs it)
//   blocks = min(B_w, B_b, B_r, B_s); occupancy = blocks * w / max warps per SM.
// What it leaves out: dynamic shared memory the launch asks for (add it to the static bytes),
// and the carve-out a program may prefer (cudaFuncAttributePreferredSharedMemoryCarveout).

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/util/error.hpp"

namespace culprit::roofline {

struct OccupancyLimits {
  std::string_view arch;    // "sm_90"
  int max_warps_per_sm = 0; // 64, or 32 (sm_75), 48 (sm_86, sm_89)
  int max_blocks_per_sm = 0;
  int registers_per_sm = 65536;
  int register_unit = 256; // registers are allocated per warp in units of this many
  int max_registers_per_thread = 255;
  int sub_partitions = 4;
  std::int64_t shared_per_sm = 0;             // bytes, at the largest carve-out
  std::int64_t shared_per_block = 0;          // the most one block may use, bytes
  std::int64_t shared_unit = 0;               // allocation granularity, bytes
  std::int64_t shared_reserved_per_block = 0; // the system's share of each block's allocation
  int max_threads_per_block = 1024;
};

// The limits of sm_70, sm_75, sm_80, sm_86, sm_89 and sm_90 ("sm_90a" reads as sm_90); nullopt
// for any other architecture.
std::optional<OccupancyLimits> occupancy_limits(std::string_view arch);

enum class OccupancyLimiter : std::uint8_t { warps, blocks, registers, shared };

std::string_view to_string(OccupancyLimiter limiter);

struct OccupancyInput {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  std::int64_t shared_bytes_per_block = 0; // static and dynamic together
};

struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  int max_warps_per_sm = 0;
  double fraction = 0; // warps_per_sm / max_warps_per_sm
  // The smallest of the four limits; of equal ones, the first in the order warps, blocks,
  // registers, shared memory.
  OccupancyLimiter limiter = OccupancyLimiter::warps;
};

// The occupancy formula above. A block the SM cannot run at all (more threads, registers per
// thread or shared memory than the arch allows, or no threads) is a usage error saying which.
Result<Occupancy> theoretical_occupancy(const OccupancyLimits& limits, const OccupancyInput& input);

} // namespace culprit::roofline
