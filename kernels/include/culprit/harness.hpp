#pragma once
// The culprit benchmark harness: header-only C++17, no dependencies beyond the standard library
// and POSIX. A kernel project writes its benchmarks with it and gets a program that prints
// culprit JSON lines. For example:
//
//   #include <culprit/harness.hpp>
//
//   void bench_saxpy(culprit::harness::State& state) {
//     const auto n = static_cast<std::size_t>(state.get_int("N"));
//     state.require_host_memory(2.0 * n * sizeof(float));
//     auto x = culprit::harness::uniform_vector(n, state.seed(), -1.0f, 1.0f);
//     auto y = culprit::harness::uniform_vector(n, state.seed() + 1, -1.0f, 1.0f);
//     state.set_flops(2.0 * n);
//     state.set_bytes(3.0 * n * sizeof(float));
//     state.exec([&] { saxpy(n, 2.0f, x.data(), y.data()); });
//   }
//   CULPRIT_BENCHMARK("saxpy", bench_saxpy).add_int_axis("N", {1 << 16, 1 << 20});
//
//   int main(int argc, char** argv) { return culprit::harness::main(argc, argv); }
//
// CUDA benchmarks include <culprit/harness/cuda.cuh> as well and time with
// culprit::harness::cuda::exec (CUDA events, L2 flush, batch samples, throttled samples dropped).
// A case the device cannot run calls state.skip(reason); it is reported, not failed.

#include "culprit/harness/benchmark.hpp" // IWYU pragma: export
#include "culprit/harness/host.hpp"      // IWYU pragma: export
#include "culprit/harness/json.hpp"      // IWYU pragma: export
#include "culprit/harness/options.hpp"   // IWYU pragma: export
#include "culprit/harness/random.hpp"    // IWYU pragma: export
#include "culprit/harness/runner.hpp"    // IWYU pragma: export
#include "culprit/harness/state.hpp"     // IWYU pragma: export
#include "culprit/harness/suite.hpp"     // IWYU pragma: export
#include "culprit/harness/types.hpp"     // IWYU pragma: export

#define CULPRIT_HARNESS_CONCAT_INNER(a, b) a##b
#define CULPRIT_HARNESS_CONCAT(a, b) CULPRIT_HARNESS_CONCAT_INNER(a, b)

// Registers `function` (void(culprit::harness::State&)) as benchmark `name` in the default
// registry; chain axis declarations: CULPRIT_BENCHMARK("sgemm", f).add_int_axis("M", {256}).
#define CULPRIT_BENCHMARK(name, function)                                                          \
  [[maybe_unused]] static ::culprit::harness::Benchmark& CULPRIT_HARNESS_CONCAT(                   \
      culprit_benchmark_, __LINE__) = ::culprit::harness::default_registry().add(name, function)
