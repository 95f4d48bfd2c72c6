// kernels_bench_cuda: the CUDA reference kernels, measured with the harness's CUDA-event timer.
// Every case is checked against the double-precision reference once before it is timed.

#include <cstddef>
#include <cstdint>

#include <culprit/harness.hpp>
#include <culprit/harness/cuda.cuh>

#include "kernels/bench/cases.hpp"
#include "kernels/cuda/layernorm.cuh"
#include "kernels/cuda/reduce.cuh"
#include "kernels/cuda/saxpy.cuh"
#include "kernels/cuda/sgemm.cuh"
#include "kernels/cuda/softmax.cuh"
#include "kernels/reference/check.hpp"

namespace {

using culprit::harness::State;
using culprit::harness::cuda::check;
using culprit::harness::cuda::DeviceBuffer;
using kernels::bench::require;
namespace reference = kernels::reference;

// One untimed call whose output is checked: the copy back to the host runs on the default stream,
// which does not wait for ours.
template <class Launch> void call_once(const Launch& launch, cudaStream_t stream) {
  launch(stream);
  check(cudaStreamSynchronize(stream), "the first call");
}

void bench_saxpy(State& state) {
  const auto c = kernels::bench::prepare_saxpy(state);
  const DeviceBuffer<float> x(c.x);
  const DeviceBuffer<float> y(c.y);
  const auto stream = culprit::harness::cuda::make_stream();
  const auto n = static_cast<std::int64_t>(c.n);
  const float a = kernels::bench::k_saxpy_a;
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::saxpy(n, a, x.data(), y.data(), on), "saxpy");
  };
  call_once(launch, stream.get());
  require(reference::check_saxpy(c.n, a, c.x.data(), c.y.data(), y.to_host().data()), "saxpy");
  culprit::harness::cuda::exec(state, stream.get(), launch);
}

void bench_reduce(State& state) {
  const auto c = kernels::bench::prepare_reduce(state);
  const auto n = static_cast<std::int64_t>(c.n);
  const DeviceBuffer<float> x(c.x);
  const DeviceBuffer<float> partials(static_cast<std::size_t>(kernels::cuda::reduce_blocks(n)));
  const DeviceBuffer<float> sum(1);
  const auto stream = culprit::harness::cuda::make_stream();
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::reduce_sum(x.data(), n, partials.data(), sum.data(), on), "reduce");
  };
  call_once(launch, stream.get());
  require(reference::check_reduce(c.x.data(), c.n, sum.to_host()[0],
                                  kernels::cuda::reduce_sum_depth(n)),
          "reduce");
  culprit::harness::cuda::exec(state, stream.get(), launch);
}

void bench_sgemm(State& state) {
  const auto c = kernels::bench::prepare_sgemm(state);
  const DeviceBuffer<float> a(c.a);
  const DeviceBuffer<float> b(c.b);
  const DeviceBuffer<float> product(c.c);
  const auto stream = culprit::harness::cuda::make_stream();
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::sgemm(static_cast<int>(c.m), static_cast<int>(c.n), static_cast<int>(c.k),
                               1.0F, a.data(), b.data(), 0.0F, product.data(), on),
          "sgemm");
  };
  call_once(launch, stream.get());
  require(reference::check_sgemm(c.m, c.n, c.k, 1.0F, c.a.data(), c.b.data(), 0.0F, nullptr,
                                 product.to_host().data()),
          "sgemm");
  culprit::harness::cuda::exec(state, stream.get(), launch);
}

void bench_softmax(State& state) {
  const auto c = kernels::bench::prepare_softmax(state);
  const DeviceBuffer<float> x(c.x);
  const DeviceBuffer<float> y(c.x.size());
  const auto stream = culprit::harness::cuda::make_stream();
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::softmax_rows(static_cast<std::int64_t>(c.rows), static_cast<int>(c.cols),
                                      x.data(), y.data(), on),
          "softmax");
  };
  call_once(launch, stream.get());
  require(reference::check_softmax(c.rows, c.cols, c.x.data(), y.to_host().data()), "softmax");
  culprit::harness::cuda::exec(state, stream.get(), launch);
}

void bench_layernorm(State& state) {
  const auto c = kernels::bench::prepare_layernorm(state);
  const DeviceBuffer<float> x(c.x);
  const DeviceBuffer<float> gamma(c.gamma);
  const DeviceBuffer<float> beta(c.beta);
  const DeviceBuffer<float> y(c.x.size());
  const auto stream = culprit::harness::cuda::make_stream();
  const float epsilon = kernels::bench::k_layernorm_epsilon;
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::layernorm_rows(static_cast<std::int64_t>(c.rows), static_cast<int>(c.cols),
                                        x.data(), gamma.data(), beta.data(), epsilon, y.data(), on),
          "layernorm");
  };
  call_once(launch, stream.get());
  require(reference::check_layernorm(c.rows, c.cols, c.x.data(), c.gamma.data(), c.beta.data(),
                                     epsilon, y.to_host().data()),
          "layernorm");
  culprit::harness::cuda::exec(state, stream.get(), launch);
}

} // namespace

int main(int argc, char** argv) {
  kernels::bench::register_kernel_benchmarks(
      culprit::harness::default_registry(),
      {bench_saxpy, bench_reduce, bench_sgemm, bench_softmax, bench_layernorm});
  return culprit::harness::main(argc, argv, culprit::harness::cuda::backend());
}
