// kernels_bench_cpu: the CPU twins of the reference kernels, measured with the harness. Every
// case is checked against the double-precision reference once before it is timed.

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
using kernels::bench::require;
namespace reference = kernels::reference;

void bench_saxpy(State& state) {
  auto c = kernels::bench::prepare_saxpy(state);
  const std::vector<float> y_before = c.y;
  const float a = kernels::bench::k_saxpy_a;
  kernels::saxpy(c.n, a, c.x.data(), c.y.data());
  require(reference::check_saxpy(c.n, a, c.x.data(), y_before.data(), c.y.data()), "saxpy");
  state.exec([&] { kernels::saxpy(c.n, a, c.x.data(), c.y.data()); });
}

void bench_reduce(State& state) {
  const auto c = kernels::bench::prepare_reduce(state);
  const float sum = kernels::reduce_sum(c.x.data(), c.n);
  require(reference::check_reduce(c.x.data(), c.n, sum, kernels::reduce_sum_depth(c.n)), "reduce");
  state.exec([&] { culprit::harness::do_not_optimize(kernels::reduce_sum(c.x.data(), c.n)); });
}

void bench_sgemm(State& state) {
  auto c = kernels::bench::prepare_sgemm(state);
  kernels::sgemm(c.m, c.n, c.k, 1.0F, c.a.data(), c.b.data(), 0.0F, c.c.data());
  require(reference::check_sgemm(c.m, c.n, c.k, 1.0F, c.a.data(), c.b.data(), 0.0F, nullptr,
                                 c.c.data()),
          "sgemm");
  state.exec(
      [&] { kernels::sgemm(c.m, c.n, c.k, 1.0F, c.a.data(), c.b.data(), 0.0F, c.c.data()); });
}

void bench_softmax(State& state) {
  const auto c = kernels::bench::prepare_softmax(state);
  std::vector<float> y(c.x.size());
  kernels::softmax_rows(c.rows, c.cols, c.x.data(), y.data());
  require(reference::check_softmax(c.rows, c.cols, c.x.data(), y.data()), "softmax");
  state.exec([&] { kernels::softmax_rows(c.rows, c.cols, c.x.data(), y.data()); });
}

void bench_layernorm(State& state) {
  const auto c = kernels::bench::prepare_layernorm(state);
  const float epsilon = kernels::bench::k_layernorm_epsilon;
  std::vector<float> y(c.x.size());
  const auto call = [&] {
    kernels::layernorm_rows(c.rows, c.cols, c.x.data(), c.gamma.data(), c.beta.data(), epsilon,
                            y.data());
  };
  call();
  require(reference::check_layernorm(c.rows, c.cols, c.x.data(), c.gamma.data(), c.beta.data(),
                                     epsilon, y.data()),
          "layernorm");
  state.exec(call);
}

} // namespace

int main(int argc, char** argv) {
  kernels::bench::register_kernel_benchmarks(
      culprit::harness::default_registry(),
      {bench_saxpy, bench_reduce, bench_sgemm, bench_softmax, bench_layernorm});
  return culprit::harness::main(argc, argv);
}
