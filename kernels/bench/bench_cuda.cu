// kernels_bench_cuda: the CUDA reference kernels, measured with the harness's CUDA-event timer.
// Every case is checked against the double-precision reference once before it is timed; a case
// whose buffers do not fit in the device's free memory is skipped.

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
using culprit::harness::cuda::skip_unless_device_memory;
using kernels::bench::require;
using kernels::bench::size_axis;
namespace reference = kernels::reference;

// One untimed call whose output is checked, on a stream of its own: the copy back to the host
// runs on the default stream, which does not wait for it.
template <class Launch> void call_once(const Launch& launch) {
  const auto stream = culprit::harness::cuda::make_stream();
  launch(stream.get());
  check(cudaStreamSynchronize(stream.get()), "the first call");
}

// The bytes of a rows x cols input and an output of the same shape, in floats.
double rows_by_cols_bytes(const State& state) {
  return 8.0 * static_cast<double>(size_axis(state, "rows")) *
         static_cast<double>(size_axis(state, "cols"));
}

void bench_saxpy(State& state) {
  skip_unless_device_memory(state, 8.0 * static_cast<double>(size_axis(state, "N")));
  const auto c = kernels::bench::prepare_saxpy(state);
  const DeviceBuffer<float> x(c.x);
  const DeviceBuffer<float> y(c.y);
  const auto n = static_cast<std::int64_t>(c.n);
  const float a = kernels::bench::k_saxpy_a;
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::saxpy(n, a, x.data(), y.data(), on), "saxpy");
  };
  call_once(launch);
  require(reference::check_saxpy(c.n, a, c.x.data(), c.y.data(), y.to_host().data()), "saxpy");
  culprit::harness::cuda::exec(state, launch);
}

void bench_reduce(State& state) {
  const auto elements = static_cast<std::int64_t>(size_axis(state, "N"));
  skip_unless_device_memory(
      state, 4.0 * static_cast<double>(elements + kernels::cuda::reduce_blocks(elements) + 1));
  const auto c = kernels::bench::prepare_reduce(state);
  const auto n = static_cast<std::int64_t>(c.n);
  const DeviceBuffer<float> x(c.x);
  const DeviceBuffer<float> partials(static_cast<std::size_t>(kernels::cuda::reduce_blocks(n)));
  const DeviceBuffer<float> sum(1);
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::reduce_sum(x.data(), n, partials.data(), sum.data(), on), "reduce");
  };
  call_once(launch);
  require(reference::check_reduce(c.x.data(), c.n, sum.to_host()[0],
                                  kernels::cuda::reduce_sum_depth(n)),
          "reduce");
  culprit::harness::cuda::exec(state, launch);
}

void bench_sgemm(State& state) {
  const auto m = static_cast<double>(size_axis(state, "M"));
  const auto n = static_cast<double>(size_axis(state, "N"));
  const auto k = static_cast<double>(size_axis(state, "K"));
  skip_unless_device_memory(state, 4.0 * (m * k + k * n + m * n));
  const auto c = kernels::bench::prepare_sgemm(state);
  const DeviceBuffer<float> a(c.a);
  const DeviceBuffer<float> b(c.b);
  const DeviceBuffer<float> product(c.c);
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::sgemm(static_cast<int>(c.m), static_cast<int>(c.n), static_cast<int>(c.k),
                               1.0F, a.data(), b.data(), 0.0F, product.data(), on),
          "sgemm");
  };
  call_once(launch);
  require(reference::check_sgemm(c.m, c.n, c.k, 1.0F, c.a.data(), c.b.data(), 0.0F, nullptr,
                                 product.to_host().data()),
          "sgemm");
  culprit::harness::cuda::exec(state, launch);
}

void bench_softmax(State& state) {
  skip_unless_device_memory(state, rows_by_cols_bytes(state));
  const auto c = kernels::bench::prepare_softmax(state);
  const DeviceBuffer<float> x(c.x);
  const DeviceBuffer<float> y(c.x.size());
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::softmax_rows(static_cast<std::int64_t>(c.rows), static_cast<int>(c.cols),
                                      x.data(), y.data(), on),
          "softmax");
  };
  call_once(launch);
  require(reference::check_softmax(c.rows, c.cols, c.x.data(), y.to_host().data()), "softmax");
  culprit::harness::cuda::exec(state, launch);
}

void bench_layernorm(State& state) {
  skip_unless_device_memory(state, rows_by_cols_bytes(state) +
                                       8.0 * static_cast<double>(size_axis(state, "cols")));
  const auto c = kernels::bench::prepare_layernorm(state);
  const DeviceBuffer<float> x(c.x);
  const DeviceBuffer<float> gamma(c.gamma);
  const DeviceBuffer<float> beta(c.beta);
  const DeviceBuffer<float> y(c.x.size());
  const float epsilon = kernels::bench::k_layernorm_epsilon;
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::layernorm_rows(static_cast<std::int64_t>(c.rows), static_cast<int>(c.cols),
                                        x.data(), gamma.data(), beta.data(), epsilon, y.data(), on),
          "layernorm");
  };
  call_once(launch);
  require(reference::check_layernorm(c.rows, c.cols, c.x.data(), c.gamma.data(), c.beta.data(),
                                     epsilon, y.to_host().data()),
          "layernorm");
  culprit::harness::cuda::exec(state, launch);
}

} // namespace

int main(int argc, char** argv) {
  kernels::bench::register_kernel_benchmarks(
      culprit::harness::default_registry(),
      {bench_saxpy, bench_reduce, bench_sgemm, bench_softmax, bench_layernorm});
  return culprit::harness::main(argc, argv, culprit::harness::cuda::backend());
}
