#include "check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace kernels::reference {

namespace {

// Evenly spaced indices of [0, total), the last one always included; all of them when there
// are at most `limit`.
std::vector<std::size_t> sample_indices(std::size_t total, std::size_t limit) {
  std::vector<std::size_t> indices;
  if (total == 0)
    return indices;
  const std::size_t count = std::min(total, std::max<std::size_t>(limit, 1));
  for (std::size_t i = 0; i < count; ++i)
    indices.push_back(static_cast<std::size_t>(static_cast<double>(i) * static_cast<double>(total) /
                                               static_cast<double>(count)));
  if (indices.back() != total - 1)
    indices.push_back(total - 1);
  return indices;
}

// Compares one output with its reference value and tolerance, recording the first failure.
void compare(Check& check, const char* what, std::size_t index, double got, double expected,
             double tolerance) {
  ++check.checked;
  const double error = std::fabs(got - expected);
  const double ratio = tolerance > 0 ? error / tolerance : (error > 0 ? HUGE_VAL : 0.0);
  if (!(ratio <= 1.0) && check.ok) {
    char text[256];
    std::snprintf(text, sizeof text, "%s[%zu] = %.9g but the reference is %.9g (error %.3g > %.3g)",
                  what, index, got, expected, error, tolerance);
    check.ok = false;
    check.detail = text;
  }
  check.worst = std::max(check.worst, std::isnan(ratio) ? HUGE_VAL : ratio);
}

} // namespace

Check check_saxpy(std::size_t n, float a, const float* x, const float* y_before,
                  const float* y_after) {
  Check check;
  for (std::size_t i = 0; i < n; ++i) {
    const double product = static_cast<double>(a) * x[i];
    const double tolerance = 3 * k_unit_roundoff * (std::fabs(product) + std::fabs(y_before[i]));
    compare(check, "y", i, y_after[i], product + y_before[i], tolerance);
  }
  return check;
}

Check check_reduce(const float* x, std::size_t n, float result, std::size_t depth) {
  double sum = 0;
  double magnitude = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += x[i];
    magnitude += std::fabs(x[i]);
  }
  Check check;
  const double tolerance = k_lambda *
                           std::sqrt(static_cast<double>(std::max<std::size_t>(depth, 1))) *
                           k_unit_roundoff * magnitude;
  compare(check, "sum", 0, result, sum, tolerance);
  return check;
}

Check check_sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
                  const float* b, float beta, const float* c_before, const float* c_after,
                  std::size_t max_checked) {
  Check check;
  const double chain = k_lambda * std::sqrt(static_cast<double>(k + 2)) * k_unit_roundoff;
  for (const std::size_t index : sample_indices(m * n, max_checked)) {
    const std::size_t i = index / n;
    const std::size_t j = index % n;
    double dot = 0;
    double magnitude = 0;
    for (std::size_t p = 0; p < k; ++p) {
      const double product = static_cast<double>(a[i * k + p]) * b[p * n + j];
      dot += product;
      magnitude += std::fabs(product);
    }
    const double before = beta == 0.0F ? 0.0 : static_cast<double>(beta) * c_before[index];
    const double expected = alpha * dot + before;
    const double tolerance = chain * (std::fabs(alpha) * magnitude + std::fabs(before));
    compare(check, "C", index, c_after[index], expected, tolerance);
  }
  return check;
}

Check check_softmax(std::size_t rows, std::size_t cols, const float* x, const float* y,
                    std::size_t max_checked) {
  Check check;
  for (const std::size_t r : sample_indices(rows, max_checked)) {
    const float* in = x + r * cols;
    const double maximum = *std::max_element(in, in + cols);
    const double range = maximum - *std::min_element(in, in + cols);
    double sum = 0;
    for (std::size_t j = 0; j < cols; ++j)
      sum += std::exp(in[j] - maximum);
    const double relative =
        k_unit_roundoff * (2 * range + k_lambda * std::sqrt(static_cast<double>(cols)) + 12);
    for (std::size_t j = 0; j < cols; ++j) {
      const double expected = std::exp(in[j] - maximum) / sum;
      compare(check, "y", r * cols + j, y[r * cols + j], expected, relative * expected + 1e-37);
    }
  }
  return check;
}

Check check_layernorm(std::size_t rows, std::size_t cols, const float* x, const float* gamma,
                      const float* beta, float epsilon, const float* y, std::size_t max_checked) {
  Check check;
  const double chain = k_unit_roundoff * (k_lambda * std::sqrt(static_cast<double>(cols)) + 16);
  for (const std::size_t r : sample_indices(rows, max_checked)) {
    const float* in = x + r * cols;
    double mean = 0;
    for (std::size_t j = 0; j < cols; ++j)
      mean += in[j];
    mean /= static_cast<double>(cols);
    double variance = 0;
    for (std::size_t j = 0; j < cols; ++j)
      variance += (in[j] - mean) * (in[j] - mean);
    variance /= static_cast<double>(cols);
    const double inverse_std = 1.0 / std::sqrt(variance + epsilon);
    for (std::size_t j = 0; j < cols; ++j) {
      const double normalized = (in[j] - mean) * inverse_std;
      const double expected = normalized * gamma[j] + beta[j];
      const double tolerance = chain * (1 + std::fabs(mean) * inverse_std) * std::fabs(gamma[j]) *
                                   (1 + std::fabs(normalized)) +
                               2 * k_unit_roundoff * std::fabs(beta[j]);
      compare(check, "y", r * cols + j, y[r * cols + j], expected, tolerance);
    }
  }
  return check;
}

} // namespace kernels::reference
