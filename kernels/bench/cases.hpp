#pragma once
// The reference kernels' benchmarks as both backends declare them: the same names and axes, so
// that one suite file drives kernels_bench_cpu and kernels_bench_cuda alike, and the same model
// of the work one call does. Default values are small (a run of every default case takes a few
// seconds on a CPU); big shapes come from suites (examples/suites/).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

// The inputs of one case. prepare_*(state) reads the case's axes, states the work of one call
// (the FLOPs and compulsory bytes each kernel's header gives), checks that the case fits in host
// memory, and makes fresh random inputs: the same for both backends, so both check against the
// same reference data.
struct SaxpyCase {
  std::size_t n = 0;
  std::vector<float> x, y;
};
inline SaxpyCase prepare_saxpy(State& state) {
  SaxpyCase c;
  c.n = size_axis(state, "N");
  const auto n = static_cast<double>(c.n);
  state.set_flops(2 * n);
  state.set_bytes(12 * n);
  state.require_host_memory(12 * n); // x, y and a copy of y for the check
  c.x = culprit::harness::uniform_vector(c.n, state.seed(), -1.0F, 1.0F);
  c.y = culprit::harness::uniform_vector(c.n, state.seed() + 1, -1.0F, 1.0F);
  return c;
}

struct ReduceCase {
  std::size_t n = 0;
  std::vector<float> x;
};
inline ReduceCase prepare_reduce(State& state) {
  ReduceCase c;
  c.n = size_axis(state, "N");
  const auto n = static_cast<double>(c.n);
  state.set_flops(n);
  state.set_bytes(4 * n);
  state.require_host_memory(4 * n);
  c.x = culprit::harness::uniform_vector(c.n, state.seed(), -1.0F, 1.0F);
  return c;
}

struct SgemmCase {
  std::size_t m = 0, n = 0, k = 0;
  std::vector<float> a, b, c; // the benchmarks compute c = a*b (alpha 1, beta 0)
};
inline SgemmCase prepare_sgemm(State& state) {
  SgemmCase c;
  c.m = size_axis(state, "M");
  c.n = size_axis(state, "N");
  c.k = size_axis(state, "K");
  const auto m = static_cast<double>(c.m);
  const auto n = static_cast<double>(c.n);
  const auto k = static_cast<double>(c.k);
  state.set_flops(2 * m * n * k);
  state.set_bytes(4 * (m * k + k * n + m * n)); // beta = 0: C is written, not read
  state.require_host_memory(4 * (m * k + k * n + m * n));
  c.a = culprit::harness::uniform_vector(c.m * c.k, state.seed(), -1.0F, 1.0F);
  c.b = culprit::harness::uniform_vector(c.k * c.n, state.seed() + 1, -1.0F, 1.0F);
  c.c = culprit::harness::uniform_vector(c.m * c.n, state.seed() + 2, -1.0F, 1.0F);
  return c;
}

struct RowsCase {
  std::size_t rows = 0, cols = 0;
  std::vector<float> x, gamma, beta; // gamma and beta: layernorm only
};
// A row kernel's case: 8 bytes per element (read x, write y) plus `bytes_per_column`, inputs drawn
// from [low, high).
inline RowsCase prepare_rows(State& state, double flops_per_element, double bytes_per_column,
                             float low, float high) {
  RowsCase c;
  c.rows = size_axis(state, "rows");
  c.cols = size_axis(state, "cols");
  const double elements = static_cast<double>(c.rows) * static_cast<double>(c.cols);
  const double bytes = 8 * elements + bytes_per_column * static_cast<double>(c.cols);
  state.set_flops(flops_per_element * elements);
  state.set_bytes(bytes);
  state.require_host_memory(bytes);
  c.x = culprit::harness::uniform_vector(c.rows * c.cols, state.seed(), low, high);
  return c;
}
inline RowsCase prepare_softmax(State& state) {
  return prepare_rows(state, 5, 0, -8.0F, 8.0F);
}
inline RowsCase prepare_layernorm(State& state) {
  RowsCase c = prepare_rows(state, 8, 8, -2.0F, 2.0F);
  c.gamma = culprit::harness::uniform_vector(c.cols, state.seed() + 1, 0.5F, 1.5F);
  c.beta = culprit::harness::uniform_vector(c.cols, state.seed() + 2, -0.5F, 0.5F);
  return c;
}

} // namespace kernels::bench
