// kernels_bench_cuda: the CUDA reference kernels, measured with the harness's CUDA-event timer.
// Every case is checked against the double-precision reference once before it is timed.

#include <cstddef>
#include <cstdint>
#include <vector>

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
using culprit::harness::uniform_vector;
using culprit::harness::cuda::check;
using culprit::harness::cuda::DeviceBuffer;
using kernels::bench::require;
using kernels::bench::size_axis;

// One untimed call whose output is checked: the copy back to the host runs on the default stream,
// which does not wait for ours.
template <class Launch> void call_once(const Launch& launch, cudaStream_t stream) {
  launch(stream);
  check(cudaStreamSynchronize(stream), "the first call");
}

void bench_saxpy(State& state) {
  const std::size_t n = size_axis(state, "N");
  state.require_host_memory(12.0 * static_cast<double>(n));
  const std::vector<float> x = uniform_vector(n, state.seed(), -1.0F, 1.0F);
  const std::vector<float> y = uniform_vector(n, state.seed() + 1, -1.0F, 1.0F);
  const DeviceBuffer<float> x_device(x);
  const DeviceBuffer<float> y_device(y);
  const auto stream = culprit::harness::cuda::make_stream();
  const auto count = static_cast<std::int64_t>(n);
  const float a = kernels::bench::k_saxpy_a;
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::saxpy(count, a, x_device.data(), y_device.data(), on), "saxpy");
  };
  call_once(launch, stream.get());
  require(kernels::reference::check_saxpy(n, a, x.data(), y.data(), y_device.to_host().data()),
          "saxpy");
  kernels::bench::set_saxpy_work(state, static_cast<double>(n));
  culprit::harness::cuda::exec(state, stream.get(), launch);
}

void bench_reduce(State& state) {
  const std::size_t n = size_axis(state, "N");
  state.require_host_memory(4.0 * static_cast<double>(n));
  const std::vector<float> x = uniform_vector(n, state.seed(), -1.0F, 1.0F);
  const auto count = static_cast<std::int64_t>(n);
  const DeviceBuffer<float> x_device(x);
  const DeviceBuffer<float> partials(static_cast<std::size_t>(kernels::cuda::reduce_blocks(count)));
  const DeviceBuffer<float> result(1);
  const auto stream = culprit::harness::cuda::make_stream();
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::reduce_sum(x_device.data(), count, partials.data(), result.data(), on),
          "reduce");
  };
  call_once(launch, stream.get());
  require(kernels::reference::check_reduce(x.data(), n, result.to_host()[0],
                                           kernels::cuda::reduce_sum_depth(count)),
          "reduce");
  kernels::bench::set_reduce_work(state, static_cast<double>(n));
  culprit::harness::cuda::exec(state, stream.get(), launch);
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
  const DeviceBuffer<float> a_device(a);
  const DeviceBuffer<float> b_device(b);
  const DeviceBuffer<float> c_device(uniform_vector(m * n, state.seed() + 2, -1.0F, 1.0F));
  const auto stream = culprit::harness::cuda::make_stream();
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::sgemm(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0F,
                               a_device.data(), b_device.data(), 0.0F, c_device.data(), on),
          "sgemm");
  };
  call_once(launch, stream.get());
  require(kernels::reference::check_sgemm(m, n, k, 1.0F, a.data(), b.data(), 0.0F, nullptr,
                                          c_device.to_host().data()),
          "sgemm");
  kernels::bench::set_sgemm_work(state, static_cast<double>(m), static_cast<double>(n),
                                 static_cast<double>(k));
  culprit::harness::cuda::exec(state, stream.get(), launch);
}

void bench_softmax(State& state) {
  const std::size_t rows = size_axis(state, "rows");
  const std::size_t cols = size_axis(state, "cols");
  state.require_host_memory(8.0 * static_cast<double>(rows) * static_cast<double>(cols));
  const std::vector<float> x = uniform_vector(rows * cols, state.seed(), -8.0F, 8.0F);
  const DeviceBuffer<float> x_device(x);
  const DeviceBuffer<float> y_device(rows * cols);
  const auto stream = culprit::harness::cuda::make_stream();
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::softmax_rows(static_cast<std::int64_t>(rows), static_cast<int>(cols),
                                      x_device.data(), y_device.data(), on),
          "softmax");
  };
  call_once(launch, stream.get());
  require(kernels::reference::check_softmax(rows, cols, x.data(), y_device.to_host().data()),
          "softmax");
  kernels::bench::set_softmax_work(state, static_cast<double>(rows), static_cast<double>(cols));
  culprit::harness::cuda::exec(state, stream.get(), launch);
}

void bench_layernorm(State& state) {
  const std::size_t rows = size_axis(state, "rows");
  const std::size_t cols = size_axis(state, "cols");
  state.require_host_memory(8.0 * static_cast<double>(rows) * static_cast<double>(cols) +
                            8.0 * static_cast<double>(cols));
  const std::vector<float> x = uniform_vector(rows * cols, state.seed(), -2.0F, 2.0F);
  const std::vector<float> gamma = uniform_vector(cols, state.seed() + 1, 0.5F, 1.5F);
  const std::vector<float> beta = uniform_vector(cols, state.seed() + 2, -0.5F, 0.5F);
  const DeviceBuffer<float> x_device(x);
  const DeviceBuffer<float> gamma_device(gamma);
  const DeviceBuffer<float> beta_device(beta);
  const DeviceBuffer<float> y_device(rows * cols);
  const auto stream = culprit::harness::cuda::make_stream();
  const float epsilon = kernels::bench::k_layernorm_epsilon;
  const auto launch = [&](cudaStream_t on) {
    check(kernels::cuda::layernorm_rows(static_cast<std::int64_t>(rows), static_cast<int>(cols),
                                        x_device.data(), gamma_device.data(), beta_device.data(),
                                        epsilon, y_device.data(), on),
          "layernorm");
  };
  call_once(launch, stream.get());
  require(kernels::reference::check_layernorm(rows, cols, x.data(), gamma.data(), beta.data(),
                                              epsilon, y_device.to_host().data()),
          "layernorm");
  kernels::bench::set_layernorm_work(state, static_cast<double>(rows), static_cast<double>(cols));
  culprit::harness::cuda::exec(state, stream.get(), launch);
}

} // namespace

int main(int argc, char** argv) {
  kernels::bench::register_kernel_benchmarks(
      culprit::harness::default_registry(),
      {bench_saxpy, bench_reduce, bench_sgemm, bench_softmax, bench_layernorm});
  return culprit::harness::main(argc, argv, culprit::harness::cuda::backend());
}
