// SPDX-License-Identifier: GPL-3.0-or-later
// OverflowRisk: the lattice law of one session's KV bytes, the choice of method for the exact
// tail (closed forms, direct convolution, the truncated convolution powers, the tilted
// inversion) and the figures built on it. The methods, each with its source and error bound:
// tiltedinversion.cpp, roundedconvolution.cpp, saddlepoint.cpp (and the Chernoff bound);
// the count's search: riskcount.cpp. What they share: overflowrisk_p.h.
#include "lengths/overflowrisk_p.h"
#include "core/inputerror.h"
#include "lengths/fftwisdom.h"

#include <QHash>
#include <QMutexLocker>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

namespace Headroom {

QVector<qint64> OverflowRisk::sessionBytes(const LengthDistribution &lengths, const KvCost &cost, qint64 cap)
{
    QVector<qint64> out;
    out.reserve(lengths.lengths.size());
    const QString field = QStringLiteral("--distribution");
    const qint64 block = std::max(1, cost.blockSize());
    qint64 previousKey = -1, previousBytes = 0;
    for (const qint64 length : lengths.lengths) {
        const qint64 tokens = cap > 0 ? std::min(length, cap) : length;
        const qint64 key = tokens >= 0 && cost.lookahead() >= 0 && tokens <= LengthDistribution::maxTokens
                && cost.lookahead() <= LengthDistribution::maxTokens
            ? (tokens + cost.lookahead() + block - 1) / block
            : -1; // out of range: sessionBytes refuses it, naming the field
        const qint64 size = key >= 0 && key == previousKey ? previousBytes : cost.sessionBytes(tokens, true, field);
        previousKey = key;
        previousBytes = size;
        out << size;
    }
    return out;
}

OverflowRisk::OverflowRisk(const LengthDistribution &d, const KvCost &cost, qint64 cap)
    : m_whole(std::make_shared<WholeWindows>())
{
    // (bytes, probability) per distinct size, sorted by bytes, equal sizes merged.
    // KvCost::heldTokens pages every attention layer to ceil((min(L, window) +
    // lookahead) / block) blocks, so a session's bytes depend on its length only
    // through k = ceil((L + lookahead) / block): lengths with the same k (a
    // trace's 2,788 lengths fall on 354 of them) take the bytes of the first.
    std::vector<std::pair<qint64, double>> bytes;
    bytes.reserve(size_t(d.lengths.size()));
    const QVector<qint64> sizes = sessionBytes(d, cost, cap);
    for (int i = 0; i < d.lengths.size(); ++i) {
        const qint64 size = sizes.at(i);
        if (!bytes.empty() && bytes.back().first == size)
            bytes.back().second += d.probabilities.at(i);
        else
            bytes.emplace_back(size, d.probabilities.at(i));
    }
    const auto bySize = [](const auto &x, const auto &y) { return x.first < y.first; };
    if (!std::is_sorted(bytes.begin(), bytes.end(), bySize)) // sorted already when bytes grow with the length
        std::stable_sort(bytes.begin(), bytes.end(), bySize);
    if (bytes.empty() || bytes.back().first <= 0)
        throw InputError(QStringLiteral("--distribution"), QStringLiteral("sessions hold no KV cache (a model without attention layers?)"));
    m_offset = bytes.front().first;
    qint64 g = 0;
    for (const auto &b : bytes)
        g = std::gcd(g, b.first - m_offset);
    m_unit = g > 0 ? g : 1;
    m_units.reserve(qsizetype(bytes.size()));
    m_probs.reserve(qsizetype(bytes.size()));
    for (const auto &[size, p] : bytes) {
        const qint64 units = (size - m_offset) / m_unit;
        if (!m_units.isEmpty() && m_units.last() == units)
            m_probs.last() += p;
        else {
            m_units << units;
            m_probs << p;
        }
        m_meanBytes += double(size) * p;
        m_meanUnits += double(units) * p;
    }
    double variance = 0;
    for (int j = 0; j < m_units.size(); ++j)
        variance += (double(m_units.at(j)) - m_meanUnits) * (double(m_units.at(j)) - m_meanUnits) * m_probs.at(j);
    m_varBytes = variance * double(m_unit) * double(m_unit);
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

fftw_plan realPlan(int n, bool backward)
{
    static QMutex mutex;
    static QHash<int, fftw_plan> plans[2];
    QMutexLocker lock(&mutex);
    static const bool wisdom = importBuiltInFftwWisdom();
    Q_UNUSED(wisdom)
    QHash<int, fftw_plan> &made = plans[backward ? 1 : 0];
    if (const auto it = made.constFind(n); it != made.constEnd())
        return *it;
    double *real = fftw_alloc_real(size_t(n));
    fftw_complex *complex = fftw_alloc_complex(size_t(n / 2 + 1));
    // ESTIMATE leaves the arrays alone.
    const fftw_plan plan = backward ? fftw_plan_dft_c2r_1d(n, complex, real, FFTW_ESTIMATE) : fftw_plan_dft_r2c_1d(n, real, complex, FFTW_ESTIMATE);
    fftw_free(complex);
    fftw_free(real);
    made.insert(n, plan);
    return plan;
}

fftw_plan r2cPlan(int n)
{
    return realPlan(n, false);
}

qint64 transformSize(double n)
{
    qint64 m = 256;
    while (double(m) < n && m < (qint64(1) << 62))
        m <<= 1;
    return m;
}

std::optional<BoundedTail> OverflowRisk::directTail(qint64 sessions, qint64 budget, qint64 s, RiskCount::Method &method, bool convolution) const
{
    if (const auto known = trivial(sessions, s)) {
        method = RiskCount::Method::ClosedForm;
        return BoundedTail{*known, 0.0};
    }
    if (sessions == 1) {
        // One session overflows when it alone reaches the threshold: a sum of its probabilities.
        method = RiskCount::Method::ClosedForm;
        const double p = singleSessionBound(1, s);
        return BoundedTail{p, double(m_units.size() + 4) * kRound * p};
    }
    if (sessions == 2 && convolution) {
        // Two sessions: P(X1 + X2 >= s) = sum_j p_j P(X >= s - x_j), the inner
        // tails by one sweep down the sizes (s - x_j falls as j rises). Sums of
        // non-negative terms: within 2 (sizes + 2) eps of the exact value, relatively.
        method = RiskCount::Method::Convolution;
        double p = 0, above = 0;
        qsizetype l = m_units.size();
        for (qsizetype j = 0; j < m_units.size(); ++j) {
            for (; l > 0 && m_units.at(l - 1) >= s - m_units.at(j); --l)
                above += m_probs.at(l - 1);
            p += m_probs.at(j) * above;
        }
        p = std::min(p, 1.0);
        return BoundedTail{p, 2.0 * double(m_units.size() + 2) * kRound * p};
    }
    // Direct convolution for tiny cases: sums of non-negative terms, each
    // probability within (N x sizes + s) eps of the exact one.
    const double work = double(sessions) * double(s) * double(m_units.size());
    if (convolution && work <= 2e5) {
        method = RiskCount::Method::Convolution;
        return BoundedTail{exactOverflow(sessions, budget), (double(sessions) * double(m_units.size() + 1) + double(s)) * kRound};
    }
    return std::nullopt;
}

std::optional<BoundedTail> OverflowRisk::tail(qint64 sessions, qint64 budget, std::shared_ptr<Transform> &transform,
                                              RiskCount::Method &method, qint64 maxPoints, bool convolution, double tolerance) const
{
    const qint64 s = threshold(sessions, budget);
    if (const auto r = directTail(sessions, budget, s, method, convolution))
        return r;
    // One inversion at a time on this law: transforms (and the powers they keep) are shared through m_whole.
    QMutexLocker lock(&m_whole->mutex);
    // A few sessions under a threshold of up to 2,048 units: the truncated law's powers
    // (truncatedTail), at most 2 x 6 products of at most 4,096 points, where the inversion's
    // windows span 4,096-8,192 points too but keep nearly every frequency and need their tilts
    // solved (measured by callgrind on bench_risk's conversation trace: 2-5 sessions in 2-4 GB
    // in 30-55% fewer instructions; at 8,192 points and 13-32 sessions in 5-8 GB, 2-4 times more).
    // Truncated at the threshold of N - 2, so it serves the count's N - 2 .. N + 3 as a transform does.
    if (const qint64 length = threshold(std::max<qint64>(1, sessions - 2), budget);
        convolution && sessions <= 64 && transformSize(2.0 * double(length) - 1.0) <= 4096) {
        // Its round-off is absolute (about 3e-12): for a figure, taken where that is within 1e-6 of
        // the tail, else the inversion, relative to C, resolves it (2.5e-15 came out as 1.9e-15).
        if (const auto r = truncatedTail(sessions, s, length); r && r->error <= (tolerance > 0 ? tolerance : 1e-6 * r->value)) {
            method = RiskCount::Method::Convolution;
            return r;
        }
    }
    method = RiskCount::Method::Inversion;
    return invertedTail(sessions, budget, s, transform, maxPoints);
}

std::optional<BoundedTail> OverflowRisk::invertedOverflow(qint64 sessions, qint64 budget, qint64 maxPoints) const
{
    std::shared_ptr<Transform> transform;
    RiskCount::Method method = RiskCount::Method::Inversion;
    return tail(sessions, budget, transform, method, maxPoints, false);
}

double OverflowRisk::overflowProbability(qint64 sessions, qint64 budget) const
{
    std::shared_ptr<Transform> transform;
    RiskCount::Method method = RiskCount::Method::Inversion;
    // A figure to show, not a count to settle. With the threshold at or below
    // the mean of the sum (overflow about even or likelier) the saddlepoint,
    // accurate there to well under 1% of the figure (the tilt is near 0 and the
    // inversion's window would be wide); else the inversion up to 2^17 points.
    const qint64 s = threshold(sessions, budget);
    double chernoff = 1.0; // the Chernoff bound at the saddlepoint, once computed
    if (!trivial(sessions, s) && sessions > 1) {
        double k0 = 0, mean = 0, k2 = 0;
        cumulants(0, double(s), k0, mean, k2);
        if (double(s) <= double(sessions) * mean)
            return saddlepointOverflow(sessions, budget);
        // Far in the tail: the Chernoff bound at the saddlepoint (any t > 0 gives one) below 1e-15.
        Tilt used;
        const double estimate = saddlepointOverflow(sessions, budget, std::numeric_limits<double>::quiet_NaN(), false, used);
        if (used.t > 0) {
            chernoff = std::min(1.0, std::exp(double(sessions) * used.k0 - used.t * double(s)));
            if (chernoff <= 1e-15)
                return std::min(estimate, chernoff);
        }
    }
    // The inversion up to 2^17 points, then (rarely: 652 sessions of the conversation trace in
    // 118 GB, a figure near 0.43) up to the count's 2^23.
    for (const qint64 points : {qint64(1) << 17, qint64(1) << 23})
        if (const auto r = tail(sessions, budget, transform, method, points, true))
            return r->value;
    // Past the inversion: the upper bounds the count settles on there (sessionsAtRisk), the
    // smaller of the rounded sizes' convolution and the Chernoff bound, never below the tail. The
    // saddlepoint printed 5.5e-7 for an exact 9.99e-7 (a log-normal with no max, 149 sessions in
    // 2,000 GB at TP 4) beside a count that 149 exceeded the 1e-6 risk, and 2.66e-4 beside the
    // count's own 9.97e-5 (attacker's report).
    qint64 grain = 1;
    if (const auto r = roundedTail(sessions, budget, grain))
        return std::min(chernoff, std::clamp(r->value + r->error, 0.0, 1.0));
    return chernoff;
}

qint64 OverflowRisk::sessionsWorstCase(qint64 budget) const
{
    return budget > 0 ? budget / maxBytes() : 0;
}

qint64 OverflowRisk::sessionsAtMean(qint64 budget) const
{
    return budget > 0 && m_meanBytes > 0 ? qint64(std::floor(double(budget) / m_meanBytes)) : 0;
}

} // namespace Headroom
