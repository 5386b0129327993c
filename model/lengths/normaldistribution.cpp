// SPDX-License-Identifier: GPL-3.0-or-later
#include "lengths/normaldistribution.h"

#include <cmath>

namespace Headroom::Normal {

double pdf(double z)
{
    return std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
}

double cdf(double z)
{
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

double upperTail(double z)
{
    return 0.5 * std::erfc(z / std::sqrt(2.0));
}

double quantile(double p)
{
    if (!(p > 0.0 && p < 1.0))
        return p <= 0.0 ? -INFINITY : INFINITY;
    // Solve in the smaller tail for accuracy, then mirror.
    const bool upper = p > 0.5;
    const double q = upper ? 1.0 - p : p;
    // Logistic start: Phi(z) ~ 1 / (1 + exp(-1.702 z)).
    double z = std::log(q / (1.0 - q)) / 1.702;
    double lo = -40.0, hi = 0.0;
    for (int i = 0; i < 100; ++i) {
        const double f = cdf(z) - q;
        if (f > 0)
            hi = z;
        else
            lo = z;
        double next = z - f / pdf(z);
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi); // Newton left the bracket: bisect
        if (std::abs(next - z) < 1e-14 * (1.0 + std::abs(z))) {
            z = next;
            break;
        }
        z = next;
    }
    return upper ? -z : z;
}

} // namespace Headroom::Normal
