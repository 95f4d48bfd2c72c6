#pragma once
// Group-sequential boundaries with O'Brien-Fleming-type alpha spending (Lan & DeMets,
// "Discrete sequential boundaries for clinical trials", Biometrika 1983; O'Brien & Fleming,
// Biometrics 1979), two-sided and symmetric: each side spends alpha/2 by
//   alpha_side(t) = 2 - 2 Phi(z_(1 - alpha/4) / sqrt(t)),
// the convention of gsDesign's sfLDOF and of the published tables (Jennison & Turnbull,
// "Group Sequential Methods with Applications to Clinical Trials", 2000, chapter 7).
// For five equally spaced looks and alpha = 0.05 the boundaries are 4.877, 3.357, 2.680,
// 2.290, 2.031.
//
// Boundary k is the z such that a standardised statistic that is Brownian motion in the
// information time t (the canonical joint distribution, Jennison & Turnbull chapter 3) first
// leaves [-z_k, z_k] at look k with probability alpha(t_k) - alpha(t_(k-1)). The probabilities
// are computed by recursive numerical integration over the continuation region (Armitage,
// McPherson & Rowe, JRSS A 1969; Jennison & Turnbull chapter 19) with Simpson's rule.

#include <span>
#include <vector>

#include "stats/error.hpp"

namespace culprit::stats {

// Cumulative two-sided type I error spent by information fraction t in (0, 1].
double obrien_fleming_spending(double t, double alpha);

// information: strictly increasing fractions in (0, 1], the last one 1; alpha in (0, 1).
Result<std::vector<double>> obrien_fleming_boundaries(std::span<const double> information,
                                                      double alpha);

} // namespace culprit::stats
