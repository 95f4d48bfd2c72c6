#pragma once
// Confidence intervals from a bootstrap distribution (Efron & Tibshirani, "An Introduction to
// the Bootstrap", 1993).
//
// percentile: the (1-c)/2 and (1+c)/2 quantiles of the replicates (chapter 13).
// BCa, bias-corrected and accelerated (chapter 14, eq. 14.10; the acceleration from the
// jackknife, eq. 14.15, summed over samples for several independent samples as in scipy's
// `bootstrap`): the replicates' quantiles at
//   alpha_1 = Phi(z0 + (z0 + z_a) / (1 - a (z0 + z_a))),  alpha_2 likewise with z_(1-a),
// where z0 = Phi^-1(share of replicates below the estimate, ties counted half) and
// a = sum(U^3) / (6 (sum(U^2))^(3/2)) over the jackknife influence values U.
// Quantiles of the replicates use numpy's linear definition, as scipy does, so results agree
// with scipy.stats.bootstrap up to Monte Carlo error.
//
// Where the data leave BCa undefined, the limits are taken rather than producing NaN: a share
// of 0 or 1 is moved half a replicate inward; a zero jackknife spread gives a = 0; a
// denominator 1 - a z <= 0 (an extreme level with a strongly skewed statistic) gives the
// extreme replicate.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "stats/error.hpp"
#include "stats/types.hpp"

namespace culprit::stats {

enum class IntervalMethod : std::uint8_t { percentile, bca };

std::string_view to_string(IntervalMethod method);

// replicates: not empty, finite; sorted in place. confidence in (0, 1).
Interval percentile_interval(std::vector<double>& replicates, double estimate, double confidence);

// jackknives: for each independent sample, the statistic with each of its units left out in
// turn (each with at least two values).
Interval bca_interval(std::vector<double>& replicates, double estimate,
                      std::span<const std::vector<double>> jackknives, double confidence);

// An error unless the estimate, every replicate and every jackknife value are finite.
Status check_finite(double estimate, std::span<const double> replicates,
                    std::span<const std::vector<double>> jackknives = {});

Interval make_interval(IntervalMethod method, std::vector<double>& replicates, double estimate,
                       std::span<const std::vector<double>> jackknives, double confidence);

} // namespace culprit::stats
