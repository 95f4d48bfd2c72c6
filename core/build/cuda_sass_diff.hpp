#pragma once
// Two builds' CUDA machine code compared kernel by kernel: what changed in each kernel's
// instructions, resources and theoretical occupancy, which kernels one side alone has, and how
// many are the same. A kernel is the same when its opcode counts and its resources are: the
// operands may differ (a constant, a register's number), what it executes does not.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/build/cuda_sass.hpp"
#include "core/roofline/occupancy.hpp"

namespace culprit::build {

struct SassKernelDiff {
  std::string name; // short demangled name
  std::string mangled;
  std::string arch;
  std::optional<SassKernel> base; // nullopt: the kernel is head's alone
  std::optional<SassKernel> head; // nullopt: the kernel is base's alone
  // At the diff's block size, when it is known, the arch has limits and resources were read.
  std::optional<roofline::Occupancy> base_occupancy;
  std::optional<roofline::Occupancy> head_occupancy;
};

struct SassDiff {
  int threads_per_block = 0;           // 0: occupancy not computed
  std::vector<SassKernelDiff> changed; // both sides, something differs; largest change first
  std::vector<SassKernelDiff> added;   // head alone
  std::vector<SassKernelDiff> removed; // base alone
  std::size_t unchanged = 0;

  // Every kernel both sides have is the same, and neither has one the other lacks.
  [[nodiscard]] bool machine_code_unchanged() const {
    return changed.empty() && added.empty() && removed.empty();
  }
};

// Matches kernels by mangled name and arch. `threads_per_block` is the block size at which
// occupancy is computed (the case's launch, or the kernel's launch bounds); 0 leaves it out.
SassDiff diff_sass(const CudaBinary& base, const CudaBinary& head, int threads_per_block);

// One line a kernel, e.g.
//   "sgemm_kernel sm_90: 412 → 436 instructions (+16 LDG, +8 FFMA), registers 40 → 72,
//    occupancy 75% → 50% at 256 threads"
// naming the three opcodes whose counts moved most, and only the resources that changed.
std::string describe_sass_change(const SassKernelDiff& kernel, int threads_per_block);

// The diff as lines: changed kernels (largest instruction change first), then new and removed
// ones, at most `max_lines` of them and then "and K more kernels"; "machine code of every kernel
// unchanged (N kernels)" when nothing changed.
std::vector<std::string> render_sass_diff(const SassDiff& diff, std::size_t max_lines);

} // namespace culprit::build
