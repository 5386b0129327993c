// SPDX-License-Identifier: GPL-3.0-or-later
#include "lengths/overflowrisk.h"
#include "core/inputerror.h"
#include "lengths/normaldistribution.h"

#include <QMap>
#include <QMutex>
#include <complex>
#include <fftw3.h>
#include <cmath>
#include <numeric>

namespace Headroom {

OverflowRisk::OverflowRisk(const LengthDistribution &d, const KvCost &cost, qint64 cap)
{
    QMap<qint64, double> bytes;
    for (int i = 0; i < d.lengths.size(); ++i) {
        const qint64 tokens = cap > 0 ? std::min(d.lengths.at(i), cap) : d.lengths.at(i);
        bytes[cost.sessionBytes(tokens, true, QStringLiteral("--distribution"))] += d.probabilities.at(i);
    }
    if (bytes.isEmpty() || bytes.lastKey() <= 0)
        throw InputError(QStringLiteral("--distribution"), QStringLiteral("sessions hold no KV cache (a model without attention layers?)"));
    m_offset = bytes.firstKey();
    qint64 g = 0;
    for (auto it = bytes.cbegin(); it != bytes.cend(); ++it)
        g = std::gcd(g, it.key() - m_offset);
    m_unit = g > 0 ? g : 1;
    for (auto it = bytes.cbegin(); it != bytes.cend(); ++it) {
        m_units << (it.key() - m_offset) / m_unit;
        m_probs << it.value();
        m_meanBytes += double(it.key()) * it.value();
        m_meanUnits += double((it.key() - m_offset) / m_unit) * it.value();
    }
}

qint64 OverflowRisk::threshold(qint64 sessions, qint64 budget) const
{
    const long double room = (long double)budget - (long double)sessions * (long double)m_offset;
    if (room < 0)
        return -1; // even the smallest sessions overflow
    return qint64(std::floor(room / (long double)m_unit)) + 1;
}

std::optional<double> OverflowRisk::trivial(qint64 sessions, qint64 s) const
{
    if (sessions <= 0)
        return 0.0;
    if (s < 0)
        return 1.0; // even the smallest sessions overflow
    if (double(s) > double(sessions) * double(m_units.last()))
        return 0.0; // even the largest ones fit
    return std::nullopt;
}

double OverflowRisk::exactOverflow(qint64 sessions, qint64 budget) const
{
    const qint64 s = threshold(sessions, budget);
    if (const auto known = trivial(sessions, s))
        return *known;
    // pmf of the unit sum on [0, s - 1]; mass beyond s - 1 is the overflow.
    QVector<double> pmf(int(std::min<qint64>(s, qint64(1) << 26)), 0.0);
    pmf[0] = 1.0;
    QVector<double> next(pmf.size());
    for (qint64 n = 0; n < sessions; ++n) {
        std::fill(next.begin(), next.end(), 0.0);
        for (int v = 0; v < pmf.size(); ++v) {
            const double p = pmf.at(v);
            if (p == 0)
                continue;
            for (int j = 0; j < m_units.size(); ++j) {
                const qint64 w = v + m_units.at(j);
                if (w >= pmf.size())
                    break; // ascending: the rest overflow too
                next[int(w)] += p * m_probs.at(j);
            }
        }
        pmf.swap(next);
    }
    double below = 0;
    for (double p : pmf)
        below += p;
    return std::clamp(1.0 - below, 0.0, 1.0);
}

namespace {
// FFTW's planner is not thread-safe (the transforms are): one lock for every plan made or destroyed.
QMutex &fftwPlanner()
{
    static QMutex mutex;
    return mutex;
}
} // namespace

double OverflowRisk::fftOverflow(qint64 sessions, qint64 budget, qint64 maxPoints) const
{
    const qint64 s = threshold(sessions, budget);
    if (const auto known = trivial(sessions, s))
        return *known;
    const qint64 top = m_units.last();
    const qint64 span = sessions * top + 1;
    qint64 size = 1;
    while (size < span)
        size <<= 1;
    if (size > maxPoints)
        return std::numeric_limits<double>::quiet_NaN();
    const int n = int(size);
    double *in = fftw_alloc_real(size_t(n));
    fftw_complex *spectrum = fftw_alloc_complex(size_t(n / 2 + 1));
    fftw_plan forward, backward;
    {
        QMutexLocker lock(&fftwPlanner());
        forward = fftw_plan_dft_r2c_1d(n, in, spectrum, FFTW_ESTIMATE);
        backward = fftw_plan_dft_c2r_1d(n, spectrum, in, FFTW_ESTIMATE);
    }
    std::fill(in, in + n, 0.0);
    for (int j = 0; j < m_units.size(); ++j)
        in[m_units.at(j)] += m_probs.at(j);
    fftw_execute(forward);
    for (int k = 0; k < n / 2 + 1; ++k) {
        // z^N by repeated squaring: log2(N) products, exact in form (no complex log).
        std::complex<double> base(spectrum[k][0], spectrum[k][1]), z(1.0, 0.0);
        for (qint64 e = sessions; e > 0; e >>= 1) {
            if (e & 1)
                z *= base;
            base *= base;
        }
        spectrum[k][0] = z.real();
        spectrum[k][1] = z.imag();
    }
    fftw_execute(backward);
    double tail = 0;
    for (qint64 v = s; v < span; ++v)
        tail += std::max(0.0, in[v] / double(n));
    {
        QMutexLocker lock(&fftwPlanner());
        fftw_destroy_plan(forward);
        fftw_destroy_plan(backward);
    }
    fftw_free(in);
    fftw_free(spectrum);
    return std::clamp(tail, 0.0, 1.0);
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
    auto size = [&](int j) { return std::min(double(m_units.at(j)), cap); };
    // Cumulants of one capped session at tilt t, in log-sum-exp form.
    auto cumulants = [&](double t, double &k0, double &k1, double &k2) {
        double m = -INFINITY;
        for (int j = 0; j < m_units.size(); ++j)
            m = std::max(m, std::log(m_probs.at(j)) + t * size(j));
        double s0 = 0, s1 = 0, s2 = 0;
        for (int j = 0; j < m_units.size(); ++j) {
            const double e = std::exp(std::log(m_probs.at(j)) + t * size(j) - m);
            const double k = size(j);
            s0 += e;
            s1 += e * k;
            s2 += e * k * k;
        }
        k0 = m + std::log(s0);
        k1 = s1 / s0;
        k2 = std::max(0.0, s2 / s0 - k1 * k1);
    };
    double k0 = 0, k1 = 0, k2 = 0;
    cumulants(0, k0, k1, k2);
    const double mean = k1, variance = k2;
    auto normal = [&] { return Normal::upperTail((double(s) - 0.5 - n * mean) / std::sqrt(n * variance)); };
    if (variance <= 0) // one size only: the sum is fixed
        return double(s) <= n * mean ? 1.0 : 0.0;
    // Near the mean the saddlepoint formula is 0/0: a continuity-corrected normal is exact enough there.
    if (std::abs(x - mean) * std::sqrt(n / variance) < 1e-3)
        return normal();
    // Solve K'(t) = x by safeguarded Newton; sizes are >= 0, so any tilt is safe in log-sum-exp form.
    double lo = -50.0, hi = 50.0;
    double t = std::clamp((x - mean) / variance, lo, hi);
    for (int i = 0; i < 200; ++i) {
        cumulants(t, k0, k1, k2);
        const double f = k1 - x;
        if (f > 0)
            hi = t;
        else
            lo = t;
        if (std::abs(f) < 1e-12 * std::max(1.0, x))
            break;
        double next = k2 > 0 ? t - f / k2 : 0.5 * (lo + hi);
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (std::abs(next - t) < 1e-15)
            break;
        t = next;
    }
    cumulants(t, k0, k1, k2);
    const double w2 = 2.0 * n * (t * x - k0);
    const double w = (t > 0 ? 1.0 : -1.0) * std::sqrt(std::max(0.0, w2));
    const double u = (1.0 - std::exp(-t)) * std::sqrt(n * k2);
    const double p = (u == 0 || w == 0) ? normal() : Normal::upperTail(w) + Normal::pdf(w) * (1.0 / u - 1.0 / w);
    return std::clamp(std::max(p, singleSessionBound(sessions, s)), 0.0, 1.0);
}

double OverflowRisk::overflowProbability(qint64 sessions, qint64 budget) const
{
    const qint64 s = threshold(sessions, budget);
    if (const auto known = trivial(sessions, s))
        return *known;
    // Exact when cheap: direct convolution for tiny cases, else the FFT up to 2^16 points.
    const double work = double(sessions) * double(s) * double(m_units.size());
    if (work <= 2e5)
        return exactOverflow(sessions, budget);
    const double viaFft = fftOverflow(sessions, budget);
    return std::isnan(viaFft) ? saddlepointOverflow(sessions, budget) : viaFft;
}

qint64 OverflowRisk::sessionsWorstCase(qint64 budget) const
{
    return budget > 0 ? budget / maxBytes() : 0;
}

qint64 OverflowRisk::sessionsAtMean(qint64 budget) const
{
    return budget > 0 && m_meanBytes > 0 ? qint64(std::floor(double(budget) / m_meanBytes)) : 0;
}

qint64 OverflowRisk::sessionsAtRisk(qint64 budget, double eps) const
{
    if (budget <= 0)
        return 0;
    // Every count up to the worst case is safe; past budget / smallest session it is certain to overflow.
    qint64 lo = sessionsWorstCase(budget);
    qint64 hi = budget / m_offset + 1;
    if (overflowProbability(hi - 1, budget) <= eps)
        return hi - 1;
    // Bracket with the saddlepoint (microseconds per step), then settle the
    // last session with the exact tail where the transform is small enough.
    while (hi - lo > 1) {
        const qint64 mid = lo + (hi - lo) / 2;
        if (saddlepointOverflow(mid, budget) <= eps)
            lo = mid;
        else
            hi = mid;
    }
    qint64 n = lo;
    while (n + 1 < budget / m_offset + 1 && overflowProbability(n + 1, budget) <= eps)
        ++n;
    while (n > sessionsWorstCase(budget) && overflowProbability(n, budget) > eps)
        --n;
    return n;
}

} // namespace Headroom
