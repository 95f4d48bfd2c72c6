// The CPU twins against the double-precision references of kernels/reference/check.hpp, on fresh
// random data. The tolerances are the ones check.hpp states and justifies per kernel; these
// tests also show that the checks fail on outputs that are wrong by a plausible bug's amount.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <culprit/harness/random.hpp>
#include <gtest/gtest.h>

#include "kernels/cpu/layernorm.hpp"
#include "kernels/cpu/reduce.hpp"
#include "kernels/cpu/saxpy.hpp"
#include "kernels/cpu/sgemm.hpp"
#include "kernels/cpu/softmax.hpp"
#include "kernels/reference/check.hpp"

namespace {

using culprit::harness::uniform_vector;
namespace reference = kernels::reference;

TEST(CpuKernels, SaxpyAgreesWithTheReference) {
  for (const std::size_t n : {1UL, 17UL, 100003UL}) {
    const auto x = uniform_vector(n, 1, -1.0F, 1.0F);
    auto y = uniform_vector(n, 2, -1.0F, 1.0F);
    const auto before = y;
    kernels::saxpy(n, 1.5F, x.data(), y.data());
    const auto check = reference::check_saxpy(n, 1.5F, x.data(), before.data(), y.data());
    EXPECT_TRUE(check.ok) << "n=" << n << ": " << check.detail;
    EXPECT_EQ(check.checked, n);

    y[n / 2] += 1e-3F; // one wrong element is caught
    EXPECT_FALSE(reference::check_saxpy(n, 1.5F, x.data(), before.data(), y.data()).ok);
  }
}

TEST(CpuKernels, ReduceAgreesWithTheReference) {
  for (const std::size_t n : {1UL, 15UL, 4095UL, 4097UL, 1000003UL}) {
    const auto x = uniform_vector(n, n, -1.0F, 1.0F);
    const float sum = kernels::reduce_sum(x.data(), n);
    const auto check = reference::check_reduce(x.data(), n, sum, kernels::reduce_sum_depth(n));
    EXPECT_TRUE(check.ok) << "n=" << n << ": " << check.detail;
  }
  EXPECT_EQ(kernels::reduce_sum(nullptr, 0), 0.0F);
}

TEST(CpuKernels, ReduceCheckCatchesADroppedTail) {
  // A kernel that forgets the last partial group of lanes: the classic tail bug.
  const std::size_t n = 65536 + 13;
  const auto x = uniform_vector(n, 3, 0.5F, 1.0F);
  const float wrong = kernels::reduce_sum(x.data(), n - 13);
  EXPECT_FALSE(reference::check_reduce(x.data(), n, wrong, kernels::reduce_sum_depth(n)).ok);
}

TEST(CpuKernels, ReduceDepthCountsLanesBlocksAndTheTree) {
  EXPECT_EQ(kernels::reduce_sum_depth(1), 1U + 4U);
  // 4096 elements per block over 16 lanes, a 16-lane tree, a 2-block tree.
  EXPECT_EQ(kernels::reduce_sum_depth(8192), 256U + 4U + 1U);
}

struct GemmShape {
  std::size_t m, n, k;
};

TEST(CpuKernels, SgemmAgreesWithTheReferenceOnShapesThatAreNotTileMultiples) {
  for (const auto shape : {GemmShape{1, 1, 1}, GemmShape{1, 300, 129}, GemmShape{67, 45, 33},
                           GemmShape{130, 257, 300}}) {
    const auto a = uniform_vector(shape.m * shape.k, 1, -1.0F, 1.0F);
    const auto b = uniform_vector(shape.k * shape.n, 2, -1.0F, 1.0F);
    auto c = uniform_vector(shape.m * shape.n, 3, -1.0F, 1.0F);
    const auto before = c;
    kernels::sgemm(shape.m, shape.n, shape.k, 0.75F, a.data(), b.data(), 0.5F, c.data());
    const auto check = reference::check_sgemm(shape.m, shape.n, shape.k, 0.75F, a.data(), b.data(),
                                              0.5F, before.data(), c.data(), 1 << 20);
    EXPECT_TRUE(check.ok) << shape.m << "x" << shape.n << "x" << shape.k << ": " << check.detail;
    EXPECT_EQ(check.checked, shape.m * shape.n);
  }
}

TEST(CpuKernels, SgemmWithBetaZeroIgnoresWhatCHeld) {
  const std::size_t m = 9;
  const std::size_t n = 7;
  const std::size_t k = 5;
  const auto a = uniform_vector(m * k, 4, -1.0F, 1.0F);
  const auto b = uniform_vector(k * n, 5, -1.0F, 1.0F);
  std::vector<float> c(m * n, NAN);
  kernels::sgemm(m, n, k, 1.0F, a.data(), b.data(), 0.0F, c.data());
  EXPECT_TRUE(
      reference::check_sgemm(m, n, k, 1.0F, a.data(), b.data(), 0.0F, nullptr, c.data()).ok);
}

TEST(CpuKernels, SgemmCheckCatchesAWrongEntryAndSamplesLargeOutputs) {
  const std::size_t m = 64;
  const std::size_t n = 64;
  const std::size_t k = 256;
  const auto a = uniform_vector(m * k, 6, -1.0F, 1.0F);
  const auto b = uniform_vector(k * n, 7, -1.0F, 1.0F);
  std::vector<float> c(m * n);
  kernels::sgemm(m, n, k, 1.0F, a.data(), b.data(), 0.0F, c.data());
  const auto sampled =
      reference::check_sgemm(m, n, k, 1.0F, a.data(), b.data(), 0.0F, nullptr, c.data(), 100);
  EXPECT_TRUE(sampled.ok);
  EXPECT_EQ(sampled.checked, 100U); // evenly spaced entries; the last one is among them
  c.back() += 0.01F;                // the bound is about 5e-4 for k = 256
  EXPECT_FALSE(
      reference::check_sgemm(m, n, k, 1.0F, a.data(), b.data(), 0.0F, nullptr, c.data(), 100).ok);
}

TEST(CpuKernels, SoftmaxAgreesWithTheReference) {
  for (const std::size_t cols : {1UL, 15UL, 1000UL, 4096UL}) {
    const std::size_t rows = 7;
    const auto x = uniform_vector(rows * cols, cols, -8.0F, 8.0F);
    std::vector<float> y(rows * cols);
    kernels::softmax_rows(rows, cols, x.data(), y.data());
    const auto check = reference::check_softmax(rows, cols, x.data(), y.data());
    EXPECT_TRUE(check.ok) << "cols=" << cols << ": " << check.detail;
    EXPECT_EQ(check.checked, rows * cols);
  }
}

TEST(CpuKernels, SoftmaxIsStableWhereANaiveOneOverflows) {
  // exp(100) overflows a float: without subtracting the maximum every output would be NaN.
  const std::size_t rows = 4;
  const std::size_t cols = 333;
  const auto x = uniform_vector(rows * cols, 8, 80.0F, 100.0F);
  ASSERT_TRUE(std::isinf(std::exp(100.0F)));
  std::vector<float> y(rows * cols);
  kernels::softmax_rows(rows, cols, x.data(), y.data());
  const auto check = reference::check_softmax(rows, cols, x.data(), y.data());
  EXPECT_TRUE(check.ok) << check.detail;

  y[5] *= 1.001F; // a relative error of 1e-3 is far beyond the bound
  EXPECT_FALSE(reference::check_softmax(rows, cols, x.data(), y.data()).ok);
}

TEST(CpuKernels, LayernormAgreesWithTheReference) {
  const float epsilon = 1e-5F;
  for (const std::size_t cols : {1UL, 7UL, 768UL, 8192UL}) {
    const std::size_t rows = 5;
    const auto x = uniform_vector(rows * cols, cols, -2.0F, 2.0F);
    const auto gamma = uniform_vector(cols, 9, 0.5F, 1.5F);
    const auto beta = uniform_vector(cols, 10, -0.5F, 0.5F);
    std::vector<float> y(rows * cols);
    kernels::layernorm_rows(rows, cols, x.data(), gamma.data(), beta.data(), epsilon, y.data());
    const auto check = reference::check_layernorm(rows, cols, x.data(), gamma.data(), beta.data(),
                                                  epsilon, y.data());
    EXPECT_TRUE(check.ok) << "cols=" << cols << ": " << check.detail;
  }
}

// The one-pass variance E[x^2] - E[x]^2: the algorithm that layernorm.hpp explains it avoids.
std::vector<float> one_pass_layernorm(std::size_t rows, std::size_t cols, const float* x,
                                      float epsilon) {
  std::vector<float> y(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    float sum = 0;
    float squares = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      sum += x[r * cols + j];
      squares += x[r * cols + j] * x[r * cols + j];
    }
    const float mean = sum / static_cast<float>(cols);
    const float variance = squares / static_cast<float>(cols) - mean * mean;
    for (std::size_t j = 0; j < cols; ++j)
      y[r * cols + j] = (x[r * cols + j] - mean) / std::sqrt(variance + epsilon);
  }
  return y;
}

TEST(CpuKernels, LayernormStaysAccurateWhenTheMeanDwarfsTheSpread) {
  // Rows around 1000 with a spread of 1: the one-pass variance loses every digit here.
  const std::size_t rows = 3;
  const std::size_t cols = 4096;
  const float epsilon = 1e-5F;
  const auto x = uniform_vector(rows * cols, 11, 999.0F, 1001.0F);
  const std::vector<float> gamma(cols, 1.0F);
  const std::vector<float> beta(cols, 0.0F);
  std::vector<float> y(rows * cols);
  kernels::layernorm_rows(rows, cols, x.data(), gamma.data(), beta.data(), epsilon, y.data());
  const auto check = reference::check_layernorm(rows, cols, x.data(), gamma.data(), beta.data(),
                                                epsilon, y.data());
  EXPECT_TRUE(check.ok) << check.detail;

  const auto naive = one_pass_layernorm(rows, cols, x.data(), epsilon);
  EXPECT_FALSE(reference::check_layernorm(rows, cols, x.data(), gamma.data(), beta.data(), epsilon,
                                          naive.data())
                   .ok);
  y[100] += 1.0F;
  EXPECT_FALSE(
      reference::check_layernorm(rows, cols, x.data(), gamma.data(), beta.data(), epsilon, y.data())
          .ok);
}

TEST(CpuKernels, LayernormCheckCatchesASmallErrorOnCenteredRows) {
  const std::size_t rows = 2;
  const std::size_t cols = 1024;
  const float epsilon = 1e-5F;
  const auto x = uniform_vector(rows * cols, 12, -2.0F, 2.0F);
  const auto gamma = uniform_vector(cols, 13, 0.5F, 1.5F);
  const auto beta = uniform_vector(cols, 14, -0.5F, 0.5F);
  std::vector<float> y(rows * cols);
  kernels::layernorm_rows(rows, cols, x.data(), gamma.data(), beta.data(), epsilon, y.data());
  y[cols + 3] += 1e-3F; // the bound here is below 1e-4
  EXPECT_FALSE(
      reference::check_layernorm(rows, cols, x.data(), gamma.data(), beta.data(), epsilon, y.data())
          .ok);
}

TEST(CpuKernels, ChecksRejectNaN) {
  const std::vector<float> x = {1.0F, 2.0F};
  const std::vector<float> before = {0.0F, 0.0F};
  const std::vector<float> y = {1.0F, NAN};
  const auto check = reference::check_saxpy(2, 1.0F, x.data(), before.data(), y.data());
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.detail.find("y[1]"), std::string::npos) << check.detail;
}

} // namespace
