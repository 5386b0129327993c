// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace Headroom::Normal {

/// Standard normal density phi(z).
double pdf(double z);
/// Standard normal CDF Phi(z) = erfc(-z / sqrt 2) / 2 (std::erfc, accurate in both tails).
double cdf(double z);
/// Upper tail 1 - Phi(z), computed as erfc(z / sqrt 2) / 2 so that it keeps
/// its relative accuracy far in the tail (1e-300 and below).
double upperTail(double z);
/// Inverse CDF: the z with Phi(z) = p, for 0 < p < 1, by safeguarded Newton
/// iteration on cdf() from a logistic starting point (full double precision).
double quantile(double p);

} // namespace Headroom::Normal
