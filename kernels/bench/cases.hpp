#pragma once
// The reference kernels' benchmarks as both backends declare them: the same names and axes, so
// that one suite file drives kernels_bench_cpu and kernels_bench_cuda alike, and the same model
// of the work one call does. Default values are small (a run of every default case takes a few
// seconds on a CPU); big shapes come from suites (examples/suites/).

#include <cstddef>
#include <cstdint>
#include <string>

#include <culprit/harness.hpp>

#include "kernels/reference/check.hpp"

namespace kernels::bench {

using culprit::harness::BenchmarkFunction;
using culprit::harness::Registry;
using culprit::harness::State;

// The largest matrix side and row length a suite may ask for: beyond these, 32-bit indices
// inside the CUDA kernels' tiles and grids would overflow.
constexpr std::int64_t k_max_side = std::int64_t{1} << 20;
constexpr std::int64_t k_max_rows = (std::int64_t{1} << 31) - 1;
constexpr std::int64_t k_max_cols = std::int64_t{1} << 24;

// The values each backend's benchmark functions measure the kernels with.
constexpr float k_saxpy_a = 1.5F;
constexpr float k_layernorm_epsilon = 1e-5F;

struct KernelBenchmarks {
  BenchmarkFunction saxpy;
  BenchmarkFunction reduce;
  BenchmarkFunction sgemm;
  BenchmarkFunction softmax;
  BenchmarkFunction layernorm;
};

inline void register_kernel_benchmarks(Registry& registry, const KernelBenchmarks& functions) {
  registry.add("saxpy", functions.saxpy).add_int_axis("N", {1 << 16, 1 << 20});
  registry.add("reduce", functions.reduce).add_int_axis("N", {1 << 16, 1 << 20});
  registry.add("sgemm", functions.sgemm)
      .add_int_axis("M", {128, 256}, 1, k_max_side)
      .add_int_axis("N", {128, 256}, 1, k_max_side)
      .add_int_axis("K", {128, 256}, 1, k_max_side)
      .zip_axes();
  registry.add("softmax", functions.softmax)
      .add_int_axis("rows", {256}, 1, k_max_rows)
      .add_int_axis("cols", {128, 1024}, 1, k_max_cols);
  registry.add("layernorm", functions.layernorm)
      .add_int_axis("rows", {256}, 1, k_max_rows)
      .add_int_axis("cols", {768, 4096}, 1, k_max_cols);
}

inline std::size_t size_axis(const State& state, const std::string& axis) {
  return static_cast<std::size_t>(state.get_int(axis));
}

// Throws CaseError when a check against the reference failed.
inline void require(const reference::Check& check, const std::string& kernel) {
  if (!check.ok)
    throw culprit::harness::CaseError(kernel + " differs from the reference: " + check.detail);
}

// FLOPs and compulsory bytes of one call, as each kernel's header states them.
inline void set_saxpy_work(State& state, double n) {
  state.set_flops(2 * n);
  state.set_bytes(12 * n);
}
inline void set_reduce_work(State& state, double n) {
  state.set_flops(n);
  state.set_bytes(4 * n);
}
inline void set_sgemm_work(State& state, double m, double n, double k) {
  state.set_flops(2 * m * n * k);
  state.set_bytes(4 * (m * k + k * n + m * n)); // beta = 0: C is written, not read
}
inline void set_softmax_work(State& state, double rows, double cols) {
  state.set_flops(5 * rows * cols);
  state.set_bytes(8 * rows * cols);
}
inline void set_layernorm_work(State& state, double rows, double cols) {
  state.set_flops(8 * rows * cols);
  state.set_bytes(8 * rows * cols + 8 * cols);
}

} // namespace kernels::bench
