// SPDX-License-Identifier: GPL-3.0-or-later
// OverflowRisk's saddlepoint approximation and Chernoff bounds, on the cumulant generating
// function K(t) = log E exp(t min(X, cap)) of one session's lattice size X (capped at the
// threshold: a session that reaches it overflows alone, so the tail is unchanged and K exists
// even for heavy tails).
// Method and source: the Lugannani-Rice approximation with Daniels' lattice continuity
// correction u = (1 - e^-t) sqrt(N K''(t)) (Daniels, "Tail probability approximations",
// Int. Stat. Review 55, 1987; Butler, "Saddlepoint Approximations with Applications", 2007,
// section 1.2.3), the saddlepoint K'(t) = s / N by safeguarded Newton; the Chernoff bound
// P(S >= s) <= exp(N K(t) - t s) for any t > 0, least at the saddlepoint.
// Error bound: the saddlepoint has none (an approximation, used to bracket the count and
// for figures at or above even odds, where it is within well under 1% of the tail); it is
// held at or above the exact lower bound P(some session alone reaches s). The Chernoff bound
// is a true upper bound, conservative (several sessions low on heavy tails).
#include "lengths/overflowrisk_p.h"
#include "lengths/normaldistribution.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace Headroom {

OverflowRisk::Tilt OverflowRisk::saddlepoint(double x, double cap, double guess, qint64 sessions) const
{
    // Solve K'(t) = x by safeguarded Newton from `guess` (NaN: the normal
    // approximation's tilt); any tilt is safe in the weights' scaled form.
    Tilt at;
    double lo = -50.0, hi = 50.0;
    double t = guess;
    if (!std::isfinite(t)) {
        cumulants(0, cap, at.k0, at.k1, at.k2);
        t = at.k2 > 0 ? (x - at.k1) / at.k2 : 0.0;
    }
    t = std::clamp(t, lo, hi);
    for (int i = 0; i < 200; ++i) {
        cumulants(t, cap, at.k0, at.k1, at.k2);
        at.t = t;
        const double f = at.k1 - x;
        if (f > 0)
            hi = t;
        else
            lo = t;
        if (std::abs(f) < 1e-12 * std::max(1.0, x) || (sessions > 0 && double(sessions) * f * f <= 2e-6 * at.k2))
            break;
        double next = at.k2 > 0 ? t - f / at.k2 : 0.5 * (lo + hi);
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (std::abs(next - t) < 1e-15)
            break;
        t = next;
    }
    return at;
}

void OverflowRisk::cumulants(double t, double cap, double &k0, double &k1, double &k2) const
{
    // Weights p_j e^{t (k_j - ref)}, ref the largest capped size for t > 0 and 0
    // otherwise, so every factor is at most 1 and the largest (smallest) size's
    // weight is its probability: no overflow, no total underflow. A size at most
    // 8 units past the previous takes its factor times e^{t g} (powers of e^t
    // by products, within 8 x 2^-52 each), re-based with exp every 16 sizes
    // (relative drift below 16 x 9 x 2^-52); the rest take exp. The inversion
    // does not rest on this accuracy: it uses the transform's own total mass.
    const double top = std::min(double(m_units.last()), cap);
    const double ref = t > 0 ? top : 0.0;
    double powers[9];
    powers[0] = 1;
    powers[1] = std::exp(t);
    for (int g = 2; g <= 8; ++g)
        powers[g] = powers[g - 1] * powers[1];
    double s0 = 0, s1 = 0, s2 = 0, previous = -100, e = 0;
    for (int j = 0; j < m_units.size(); ++j) {
        const double k = std::min(double(m_units.at(j)), cap);
        const double gap = k - previous;
        if (gap <= 8 && (j & 15) != 0)
            e *= powers[int(gap)];
        else if (gap != 0)
            e = std::exp(t * (k - ref));
        previous = k;
        const double w = m_probs.at(j) * e;
        s0 += w;
        s1 += w * k;
        s2 += w * k * k;
    }
    k0 = t * ref + std::log(s0);
    k1 = s1 / s0;
    k2 = std::max(0.0, s2 / s0 - k1 * k1);
}

double OverflowRisk::singleSessionBound(qint64 sessions, qint64 s) const
{
    // The pool overflows whenever any one session alone reaches the threshold:
    // a true lower bound that the saddlepoint can miss for heavy tails.
    double q = 0;
    for (int j = int(m_units.size()) - 1; j >= 0 && m_units.at(j) >= s; --j)
        q += m_probs.at(j);
    return q > 0 ? -std::expm1(double(sessions) * std::log1p(-std::min(q, 1.0 - 1e-16))) : 0.0;
}

double OverflowRisk::saddlepointOverflow(qint64 sessions, qint64 budget) const
{
    Tilt used;
    return saddlepointOverflow(sessions, budget, std::numeric_limits<double>::quiet_NaN(), false, used);
}

double OverflowRisk::saddlepointOverflow(qint64 sessions, qint64 budget, double guess, bool near, Tilt &used) const
{
    used = Tilt{};
    const qint64 s = threshold(sessions, budget);
    if (const auto known = trivial(sessions, s))
        return *known;
    if (s == 0)
        return 1;
    if (sessions == 1)
        return singleSessionBound(1, s); // exact: the one session reaches the threshold
    const double n = double(sessions);
    const double x = double(s) / n; // mean per session at the threshold, in units
    // Sizes capped at the threshold: a session of s units or more overflows the
    // pool by itself, so P(sum >= s) is the same for min(size, s); the capped
    // law is bounded, so its cumulants exist and the approximation holds even
    // when the lengths are heavy-tailed.
    const double cap = double(s);
    double k0 = 0, k1 = 0, k2 = 0;
    cumulants(0, cap, k0, k1, k2);
    const double mean = k1, variance = k2;
    auto normal = [&] { return Normal::upperTail((double(s) - 0.5 - n * mean) / std::sqrt(n * variance)); };
    if (variance <= 0) // one size only: the sum is fixed
        return double(s) <= n * mean ? 1.0 : 0.0;
    // Near the mean the saddlepoint formula is 0/0: a continuity-corrected normal is exact enough there.
    if (std::abs(x - mean) * std::sqrt(n / variance) < 1e-3)
        return normal();
    // From the normal approximation's tilt (the cumulants at 0 are those above) unless given one.
    const Tilt at = saddlepoint(x, cap, std::isfinite(guess) ? guess : (x - mean) / variance, near ? sessions : 0);
    const double t = at.t;
    used = at;
    const double w2 = 2.0 * n * (t * x - at.k0);
    const double w = (t > 0 ? 1.0 : -1.0) * std::sqrt(std::max(0.0, w2));
    const double u = (1.0 - std::exp(-t)) * std::sqrt(n * at.k2);
    const double p = (u == 0 || w == 0) ? normal() : Normal::upperTail(w) + Normal::pdf(w) * (1.0 / u - 1.0 / w);
    return std::clamp(std::max(p, singleSessionBound(sessions, s)), 0.0, 1.0);
}

double OverflowRisk::chernoffBound(qint64 sessions, qint64 s) const
{
    const qint64 n = sessions;
    const Tilt at = saddlepoint(double(s) / double(n), double(s), std::numeric_limits<double>::quiet_NaN(), n);
    const double t = std::max(0.0, at.t);
    double k0 = at.k0, k1 = 0, k2 = 0;
    if (t != at.t)
        cumulants(t, double(s), k0, k1, k2);
    return std::min(1.0, std::exp(double(n) * k0 - t * double(s)));
}

} // namespace Headroom
