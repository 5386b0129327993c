// SPDX-License-Identifier: GPL-3.0-or-later
// OverflowRisk's count's search: the largest N with P(KV of N sessions > budget) <= eps.
// Method: a bracket by the saddlepoint (saddlepoint.cpp; microseconds per step), secant steps
// on log P(N) - log eps from the normal approximation's count; then the count settled by the
// exact tails at the boundary (tilted inversion, truncated or direct convolution), galloping to
// a safe count below and an unsafe one above and bisecting between them; past the inversion's
// largest transform, by upper bounds: the smaller of the rounded sizes' convolution and the
// Chernoff bound.
// Source: the tails' own (see tiltedinversion.cpp, roundedconvolution.cpp, saddlepoint.cpp).
// Error bound: N is kept only when P(N) + its error bound <= eps, and N + 1 refused when
// P(N + 1) > eps or within its error bound of it, so the count is never above the exact one
// for this lattice law, and at most one below it (below only when a tail lies within its
// error bound of eps); RiskCount::errorBound is the larger of the two tails' bounds.
#include "lengths/overflowrisk_p.h"
#include "lengths/normaldistribution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace Headroom {

QString RiskCount::methodName(Method method)
{
    switch (method) {
    case Method::ClosedForm:
        return QStringLiteral("closed-form");
    case Method::Convolution:
        return QStringLiteral("convolution");
    case Method::Inversion:
        return QStringLiteral("tilted-inversion");
    case Method::RoundedConvolution:
        return QStringLiteral("rounded-convolution");
    case Method::ChernoffBound:
        return QStringLiteral("chernoff-bound");
    }
    return QString();
}

// The count's search at one budget and risk (sessionsAtRisk), and the state its exact tails
// share: the transform of the last inversion and the fewest sessions the inversion refused.
class OverflowRisk::CountSearch
{
public:
    /// budget > 0 bytes per GPU; eps in (0, 1).
    CountSearch(const OverflowRisk &risk, qint64 budget, double eps);
    /// The count, with the tails that settled it.
    RiskCount count();

private:
    // A count's tail as the search takes it: the tail with its error bound and method, whether
    // the count is safe (tail + error <= eps) and RoundedConvolution's grain, in units.
    struct Tail
    {
        BoundedTail tail;
        RiskCount::Method method;
        bool safe;
        qint64 grain; // RoundedConvolution's, in units
    };
    // log P of a tail (-inf at 0).
    static double logTail(const Tail &e) { return e.tail.value > 0 ? std::log(e.tail.value) : -INFINITY; }
    // The largest count the saddlepoint puts at or below the risk (from the worst case up).
    qint64 bracket() const;
    // The tail at `n` sessions: exact where the methods reach, else the upper bounds.
    Tail evaluate(qint64 n);
    // The count from the bracket's `lo`, settled by the exact tails.
    RiskCount settle(qint64 lo);

    const OverflowRisk &m_risk;
    const qint64 m_budget;
    const double m_eps;
    // Every count up to the worst case is safe (its tail is 0); past
    // budget / smallest session overflow is certain.
    const qint64 m_worst, m_most;
    std::shared_ptr<Transform> m_transform;
    // The fewest sessions the inversion refused (its windows widen with N): larger counts skip it,
    // where each refusal cost transforms of up to 2^23 points (40% of a heavy tail's count).
    qint64 m_refused = std::numeric_limits<qint64>::max();
};

OverflowRisk::CountSearch::CountSearch(const OverflowRisk &risk, qint64 budget, double eps)
    : m_risk(risk)
    , m_budget(budget)
    , m_eps(eps)
    , m_worst(risk.sessionsWorstCase(budget))
    , m_most(budget / risk.m_offset)
{
}

RiskCount OverflowRisk::CountSearch::count()
{
    return settle(bracket());
}

qint64 OverflowRisk::CountSearch::bracket() const
{
    // Bracket with the saddlepoint (microseconds per step): secant steps on
    // log P(N) - log eps from the normal approximation's count, kept inside the
    // bracket [a, b] with P(a) <= eps < P(b). While an end of the bracket is
    // still its initial bound (or P underflows to 0), steps gallop from the last
    // count (doubling) instead of halving the whole bracket; once both ends are
    // evaluated, a stalled secant halves the bracket.
    qint64 a = m_worst, b = m_most + 1;
    double fa = -INFINITY, fb = INFINITY;
    const double z = -Normal::quantile(m_eps);
    const double sd = std::sqrt(m_risk.m_varBytes), mean = m_risk.m_meanBytes;
    qint64 g = qint64(std::floor(std::pow((-z * sd + std::sqrt(z * z * m_risk.m_varBytes + 4.0 * mean * double(m_budget))) / (2.0 * mean), 2)));
    qint64 previous = -1;
    double fPrevious = 0;
    double gallop = std::max(1.0, std::ceil(z * sd / mean * std::sqrt(std::max(1.0, double(g))) / 8.0));
    int stalls = 0;
    // Each saddlepoint from the last one's tilt (the counts tried are near each other).
    double tilt = std::numeric_limits<double>::quiet_NaN();
    for (int i = 0; b - a > 1 && i < 100; ++i) {
        g = std::clamp(g, a + 1, b - 1);
        Tilt used;
        const double p = m_risk.saddlepointOverflow(g, m_budget, tilt, true, used);
        if (used.t != 0)
            tilt = used.t;
        const double f = p > 0 ? std::log(p) - std::log(m_eps) : -INFINITY;
        const qint64 width = b - a;
        if (p <= m_eps) {
            a = g;
            fa = f;
        } else {
            b = g;
            fb = f;
        }
        const bool evaluatedEnds = std::isfinite(fa) && std::isfinite(fb);
        // Next: the secant through the last two points, else through the bracket, else a gallop or the middle.
        double next = NAN;
        if (previous >= 0 && std::isfinite(f) && std::isfinite(fPrevious) && f != fPrevious)
            next = double(g) - f * double(g - previous) / (f - fPrevious);
        else if (evaluatedEnds)
            next = double(a) + -fa * double(b - a) / (fb - fa);
        previous = g;
        fPrevious = f;
        stalls = evaluatedEnds && 2 * (b - a) > width + 1 ? stalls + 1 : 0;
        if (!std::isfinite(next) || next <= double(a) || next >= double(b)) {
            if (evaluatedEnds || stalls >= 2) {
                next = double(a) + 0.5 * double(b - a);
            } else {
                next = p <= m_eps ? double(g) + gallop : double(g) - gallop;
                gallop *= 2;
            }
        } else if (stalls >= 2) {
            next = double(a) + 0.5 * double(b - a);
        }
        // Round towards the boundary's other side so the bracket closes on both ends.
        g = p <= m_eps ? qint64(std::ceil(next)) : qint64(std::floor(next));
    }
    return a;
}

OverflowRisk::CountSearch::Tail OverflowRisk::CountSearch::evaluate(qint64 n)
{
    const qint64 maxPoints = qint64(1) << 23;
    Tail e{};
    std::optional<BoundedTail> exact;
    // The truncated powers' bound (about 3e-12 for 3-12 sessions) taken up to 1e-5 of the risk.
    if (n < m_refused && (exact = m_risk.tail(n, m_budget, m_transform, e.method, maxPoints, true, 1e-5 * m_eps))) {
        e.tail = *exact;
    } else if (const auto known = m_risk.trivial(n, m_risk.threshold(n, m_budget))) {
        e.tail = BoundedTail{*known, 0.0};
        e.method = RiskCount::Method::ClosedForm;
    } else {
        m_refused = std::min(m_refused, n);
        // Past the largest transform: upper bounds ("safe" is certain, "unsafe" is not), the
        // smaller of the rounded sizes' convolution and the Chernoff bound exp(N K(t) - t s)
        // at the saddlepoint.
        e.method = RiskCount::Method::ChernoffBound;
        e.tail = BoundedTail{m_risk.chernoffBound(n, m_risk.threshold(n, m_budget)), 0.0};
        if (const auto r = m_risk.roundedTail(n, m_budget, e.grain); r && r->value + r->error < e.tail.value) {
            e.tail = *r;
            e.method = e.grain > 1 ? RiskCount::Method::RoundedConvolution : RiskCount::Method::Convolution;
        }
    }
    e.safe = e.tail.value + e.tail.error <= m_eps;
    return e;
}

RiskCount OverflowRisk::CountSearch::settle(qint64 lo)
{
    // Settled with the exact tails at the boundary: N is kept only when P(N) + its error
    // bound <= eps, N + 1 refused when P(N + 1) > eps or within its error bound of it (so the
    // count is never above the exact one).
    // Usually the bracket's count or one of its neighbours; else gallop to a safe count below
    // and an unsafe one above, and bisect between them. Upwards, steps follow the secant of
    // log P through the last two safe counts (where the saddlepoint's bracket is far off:
    // 697 for 913 sessions of a heavy tail), doubling where it predicts nothing; the bisection
    // tries the secant's count through the bracket's ends every other step, the middle between.
    qint64 good = lo, bad = lo + 1;
    Tail atGood = evaluate(good);
    for (qint64 step = 1; !atGood.safe; step *= 2) {
        bad = good;
        good = std::max(m_worst, good - step);
        atGood = evaluate(good);
    }
    Tail atBad = evaluate(bad);
    for (qint64 step = 1; atBad.safe; step *= 2) {
        const double slope = (logTail(atBad) - logTail(atGood)) / double(bad - good);
        const double ahead = (std::log(m_eps) - logTail(atBad)) / slope;
        const qint64 next = std::isfinite(ahead) && ahead > 0 && ahead < double(m_most) ? bad + 1 + qint64(1.05 * ahead) : bad + step;
        good = bad;
        atGood = atBad;
        bad = std::min(m_most + 1, next);
        atBad = evaluate(bad);
    }
    for (int i = 0; bad - good > 1; ++i) {
        qint64 mid = good + (bad - good) / 2;
        const double guess = double(good) + (std::log(m_eps) - logTail(atGood)) * double(bad - good) / (logTail(atBad) - logTail(atGood));
        if (i % 2 == 0 && std::isfinite(guess))
            mid = std::clamp(qint64(std::floor(guess)), good + 1, bad - 1);
        const Tail e = evaluate(mid);
        if (e.safe) {
            good = mid;
            atGood = e;
        } else {
            bad = mid;
            atBad = e;
        }
    }
    const qint64 n = good;
    const Tail &at = atGood, &above = atBad;
    RiskCount count;
    count.sessions = n;
    count.method = std::max(at.method, above.method); // the weaker of the two
    count.tailAt = at.tail.value;
    count.tailAbove = above.tail.value;
    count.errorBound = std::max(at.tail.error, above.tail.error);
    if (count.method == RiskCount::Method::RoundedConvolution)
        count.roundingBytes = m_risk.m_unit * std::max(at.method == count.method ? at.grain : 1, above.method == count.method ? above.grain : 1);
    return count;
}

RiskCount OverflowRisk::sessionsAtRisk(qint64 budget, double eps) const
{
    if (budget <= 0)
        return RiskCount(); // not even one session: 1 > budget, overflow is certain
    return CountSearch(*this, budget, eps).count();
}

} // namespace Headroom
