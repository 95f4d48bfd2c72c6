// kernels_bench_cpu: the CPU twins of the reference kernels, measured with the harness. Every
// case is checked against the double-precision reference once before it is timed.

#include <cstddef>
#include <vector>

#include <culprit/harness.hpp>

#include "kernels/bench/cases.hpp"
#include "kernels/cpu/layernorm.hpp"
#include "kernels/cpu/reduce.hpp"
#include "kernels/cpu/saxpy.hpp"
#include "kernels/cpu/sgemm.hpp"
#include "kernels/cpu/softmax.hpp"
#include "kernels/reference/check.hpp"

namespace {

using culprit::harness::State;
using culprit::harness::uniform_vector;
using kernels::bench::require;
using kernels::bench::size_axis;

void bench_saxpy(State& state) {
  const std::size_t n = size_axis(state, "N");
  state.require_host_memory(12.0 * static_cast<double>(n));
  const std::vector<float> x = uniform_vector(n, state.seed(), -1.0F, 1.0F);
  std::vector<float> y = uniform_vector(n, state.seed() + 1, -1.0F, 1.0F);
  const std::vector<float> y_before = y;
  const float a = kernels::bench::k_saxpy_a;
  kernels::saxpy(n, a, x.data(), y.data());
  require(kernels::reference::check_saxpy(n, a, x.data(), y_before.data(), y.data()), "saxpy");
  kernels::bench::set_saxpy_work(state, static_cast<double>(n));
  state.exec([&] { kernels::saxpy(n, a, x.data(), y.data()); });
}

void bench_reduce(State& state) {
  const std::size_t n = size_axis(state, "N");
  state.require_host_memory(4.0 * static_cast<double>(n));
  const std::vector<float> x = uniform_vector(n, state.seed(), -1.0F, 1.0F);
  const float sum = kernels::reduce_sum(x.data(), n);
  require(kernels::reference::check_reduce(x.data(), n, sum, kernels::reduce_sum_depth(n)),
          "reduce");
  kernels::bench::set_reduce_work(state, static_cast<double>(n));
  state.exec([&] { culprit::harness::do_not_optimize(kernels::reduce_sum(x.data(), n)); });
}

void bench_sgemm(State& state) {
  const std::size_t m = size_axis(state, "M");
  const std::size_t n = size_axis(state, "N");
  const std::size_t k = size_axis(state, "K");
  const double elements = static_cast<double>(m) * static_cast<double>(k) +
                          static_cast<double>(k) * static_cast<double>(n) +
                          static_cast<double>(m) * static_cast<double>(n);
  state.require_host_memory(4.0 * elements);
  const std::vector<float> a = uniform_vector(m * k, state.seed(), -1.0F, 1.0F);
  const std::vector<float> b = uniform_vector(k * n, state.seed() + 1, -1.0F, 1.0F);
  std::vector<float> c = uniform_vector(m * n, state.seed() + 2, -1.0F, 1.0F);
  kernels::sgemm(m, n, k, 1.0F, a.data(), b.data(), 0.0F, c.data());
  require(
      kernels::reference::check_sgemm(m, n, k, 1.0F, a.data(), b.data(), 0.0F, nullptr, c.data()),
      "sgemm");
  kernels::bench::set_sgemm_work(state, static_cast<double>(m), static_cast<double>(n),
                                 static_cast<double>(k));
  state.exec([&] { kernels::sgemm(m, n, k, 1.0F, a.data(), b.data(), 0.0F, c.data()); });
}

void bench_softmax(State& state) {
  const std::size_t rows = size_axis(state, "rows");
  const std::size_t cols = size_axis(state, "cols");
  const double elements = static_cast<double>(rows) * static_cast<double>(cols);
  state.require_host_memory(8.0 * elements);
  const std::vector<float> x = uniform_vector(rows * cols, state.seed(), -8.0F, 8.0F);
  std::vector<float> y(rows * cols);
  kernels::softmax_rows(rows, cols, x.data(), y.data());
  require(kernels::reference::check_softmax(rows, cols, x.data(), y.data()), "softmax");
  kernels::bench::set_softmax_work(state, static_cast<double>(rows), static_cast<double>(cols));
  state.exec([&] { kernels::softmax_rows(rows, cols, x.data(), y.data()); });
}

void bench_layernorm(State& state) {
  const std::size_t rows = size_axis(state, "rows");
  const std::size_t cols = size_axis(state, "cols");
  const double elements = static_cast<double>(rows) * static_cast<double>(cols);
  state.require_host_memory(8.0 * elements + 8.0 * static_cast<double>(cols));
  const std::vector<float> x = uniform_vector(rows * cols, state.seed(), -2.0F, 2.0F);
  const std::vector<float> gamma = uniform_vector(cols, state.seed() + 1, 0.5F, 1.5F);
  const std::vector<float> beta = uniform_vector(cols, state.seed() + 2, -0.5F, 0.5F);
  std::vector<float> y(rows * cols);
  const float epsilon = kernels::bench::k_layernorm_epsilon;
  kernels::layernorm_rows(rows, cols, x.data(), gamma.data(), beta.data(), epsilon, y.data());
  require(kernels::reference::check_layernorm(rows, cols, x.data(), gamma.data(), beta.data(),
                                              epsilon, y.data()),
          "layernorm");
  kernels::bench::set_layernorm_work(state, static_cast<double>(rows), static_cast<double>(cols));
  state.exec([&] {
    kernels::layernorm_rows(rows, cols, x.data(), gamma.data(), beta.data(), epsilon, y.data());
  });
}

} // namespace

int main(int argc, char** argv) {
  kernels::bench::register_kernel_benchmarks(
      culprit::harness::default_registry(),
      {bench_saxpy, bench_reduce, bench_sgemm, bench_softmax, bench_layernorm});
  return culprit::harness::main(argc, argv);
}
