#pragma once
// The CUDA resource report: what `ptxas -v` (nvcc -Xptxas -v, which culprit can add to builds
// through NVCC_APPEND_FLAGS) prints about each kernel, read from a build log, and compared
// between two builds (a culprit and its parent). Registers and spills decide occupancy and
// local-memory traffic, so a change in them often explains a change in speed.
//
// The lines read, as ptxas prints them (CUDA 11 to 13; older forms such as "8+0 bytes lmem" and
// "N+M bytes smem" are read too):
//   ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_80'
//   ptxas info    : Function properties for _Z6kernelPf
//       8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
//   ptxas info    : Used 32 registers, used 1 barriers, 8 bytes cumulative stack size,
//                   8192 bytes smem, 400 bytes cmem[0]
// Other lines of the log (compiler commands, warnings, "Compile time") are skipped.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::build {

struct PtxasKernel {
  std::string mangled; // as ptxas names it: "_ZN7kernels4cuda12saxpy_kernelElfPKfPf"
  std::string name; // demangled, without parameters or return type: "kernels::cuda::saxpy_kernel"
  std::string signature; // demangled in full: "kernels::cuda::saxpy_kernel(long, float, ...)"
  std::string arch;      // "sm_80"
  bool entry = true;     // false for a device function that ptxas kept out of line
  int registers = 0;     // per thread
  int barriers = 0;
  std::int64_t spill_store_bytes = 0;
  std::int64_t spill_load_bytes = 0;
  std::int64_t stack_bytes = 0;    // the stack frame (or the older "lmem")
  std::int64_t shared_bytes = 0;   // static shared memory per block
  std::int64_t constant_bytes = 0; // sum over the constant banks, cmem[0] being the parameters

  // Whether the resources (not the names) are the same.
  [[nodiscard]] bool same_resources(const PtxasKernel& other) const;
};

// The kernels of a build log in the order ptxas reported them; a kernel reported again for the
// same arch (a rebuild in the same log) replaces its earlier report.
std::vector<PtxasKernel> parse_ptxas_log(std::string_view log);

// "kernels::cuda::sgemm_kernel(int, int)" from "_ZN7kernels4cuda12sgemm_kernelEii"; the
// input itself when it is not a mangled C++ name (extern "C" kernels).
std::string demangle(const std::string& mangled);

// The name without return type and parameter list:
// "void kernels::tiled<16>(float*)" -> "kernels::tiled<16>".
std::string short_name(std::string_view signature);

enum class PtxasChange : std::uint8_t { added, removed, changed, unchanged };

std::string_view to_string(PtxasChange change);

struct PtxasDiffRow {
  std::string name; // the short name
  std::string arch;
  PtxasChange change = PtxasChange::unchanged;
  std::optional<PtxasKernel> base;
  std::optional<PtxasKernel> head;
};

// One row per (kernel, arch) of either table, matched by mangled name and arch: head's kernels
// in head's order, then the ones only base has.
std::vector<PtxasDiffRow> diff_ptxas(const std::vector<PtxasKernel>& base,
                                     const std::vector<PtxasKernel>& head);

// What changed, e.g. "registers 56 -> 32, spill stores 0 -> 52 B, stack 0 -> 32 B"; empty for
// an unchanged row, "new kernel" / "kernel removed" for the others.
std::string describe_change(const PtxasDiffRow& row);

} // namespace culprit::build
