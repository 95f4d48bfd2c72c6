#pragma once
// Checks a kernel's output against a simple reference computed in double precision, within a
// tolerance derived from the kernel's rounding errors. The tests check the CPU kernels with
// these; the benchmark programs check every case (CPU and CUDA) once before timing it, so that a
// wrong kernel is never reported as a fast one.
//
// Tolerances. u = 2^-24 is the unit roundoff of float. A sum of terms through a chain of d
// additions has a worst-case error of about d*u*sum|x| (Higham, "Accuracy and Stability of
// Numerical Algorithms", 2nd ed., 2002, ch. 3-4), far above what happens and useless for catching
// a dropped element. The probabilistic bound of Higham and Mary ("A New Approach to Probabilistic
// Rounding Error Analysis", SIAM J. Sci. Comput. 41(5), 2019, Thm. 3.1) replaces d by
// lambda*sqrt(d) and holds with probability at least 1 - 2*d*exp(-lambda^2/2) when rounding
// errors are independent; with lambda = 8 a false alarm is less likely than 3e-14 per addition.
// Each function below states its bound.
//
// Large outputs are checked on a sample: evenly spaced entries (or rows) plus the last one, at
// most `max_checked` of them, so that checking a 4096^3 SGEMM costs O(max_checked * k).

#include <cstddef>
#include <string>

namespace kernels::reference {

constexpr double k_unit_roundoff = 1.0 / 16777216.0; // 2^-24
constexpr double k_lambda = 8.0;

struct Check {
  bool ok = true;
  std::size_t checked = 0; // how many outputs were compared
  double worst = 0;        // the largest error / tolerance seen (at most 1 when ok)
  std::string detail;      // when !ok: the first output beyond its tolerance
};

// y_after = a*x + y_before. Bound: 3u(|a*x| + |y|): one rounding for the product and one for the
// sum (or a single one with a fused multiply-add), with room for the double reference's own.
Check check_saxpy(std::size_t n, float a, const float* x, const float* y_before,
                  const float* y_after);

// result = sum of x. Bound: lambda*sqrt(depth)*u*sum|x|, where depth is the longest chain of
// additions in the kernel's summation tree (each kernel states its own).
Check check_reduce(const float* x, std::size_t n, float result, std::size_t depth);

// c_after = alpha*a*b + beta*c_before (row-major, m x k times k x n; c_before may be null when
// beta is 0). Each entry is a dot product of length k accumulated in a chain. Bound per entry:
// lambda*sqrt(k + 2)*u*(|alpha|*sum_p |a_ip*b_pj| + |beta*c_ij|).
Check check_sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
                  const float* b, float beta, const float* c_before, const float* c_after,
                  std::size_t max_checked = 4096);

// y = softmax of each row of x. Relative bound per element: u*(2*range + lambda*sqrt(cols) + 12)
// where range is the row's max - min: rounding x - max by u becomes a relative error of
// |x - max|*u in exp; the sum adds lambda*sqrt(cols)*u; exp (at most 2 ulp on CUDA),
// the reciprocal and the product add the constant. Plus 1e-37 absolute for outputs that
// underflow in float.
Check check_softmax(std::size_t rows, std::size_t cols, const float* x, const float* y,
                    std::size_t max_checked = 64);

// y = layernorm of each row of x. Absolute bound per element, with xhat = (x - mean)/std:
// u*(lambda*sqrt(cols) + 16)*(1 + |mean|/std)*|gamma|*(1 + |xhat|) + 2u*|beta|. The mean's error
// (lambda*sqrt(cols)*u relative to mean|x| <= |mean| + std) moves xhat by that much times 1/std;
// the variance's error scales xhat; the constant covers the subtraction, rsqrt and the products.
Check check_layernorm(std::size_t rows, std::size_t cols, const float* x, const float* gamma,
                      const float* beta, float epsilon, const float* y,
                      std::size_t max_checked = 64);

} // namespace kernels::reference
