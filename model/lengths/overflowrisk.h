// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kv/kvcost.h"
#include "lengths/lengthdistribution.h"

#include <QVector>
#include <optional>

namespace Headroom {

/// The law of the KV bytes N concurrent sessions hold on one GPU, each an
/// independent draw of bytes(min(L, cap)) with L from a LengthDistribution
/// (paged rounding, windows and recurrent state as in KvCost), and its tail.
///
/// Session bytes lie on a lattice: offset + k x unit, with offset the
/// smallest session and unit the gcd of the differences. The tail
/// P(S_N > budget) is computed
/// - exactly, by the N-th power of the one-session law's discrete Fourier
///   transform (FFTW, real-to-complex, zero-padded past N x the largest
///   session so nothing wraps), when that transform has at most 2^16 points (small N, where the saddlepoint is least accurate);
///   and otherwise
/// - by the Lugannani-Rice saddlepoint approximation with Daniels' (1987)
///   lattice continuity correction, u = (1 - e^-t) sqrt(N K''(t)), on the
///   cumulant generating function of one session (Daniels, "Tail probability
///   approximations", Int. Stat. Review 55, 1987; Butler, "Saddlepoint
///   Approximations with Applications", 2007, section 1.2.3).
/// Both are cross-checked against each other and against Monte Carlo in tst_risk.
class OverflowRisk
{
public:
    /// lengths: resident tokens per session; cost: the model's KV cost (per GPU
    /// figures are used); cap: retained-context cap in tokens (0 = none).
    OverflowRisk(const LengthDistribution &lengths, const KvCost &cost, qint64 cap);

    /// P(KV bytes of `sessions` sessions > budget), per GPU.
    double overflowProbability(qint64 sessions, qint64 budgetBytes) const;
    /// The largest N with overflowProbability(N, budget) <= eps (eps in (0, 1)).
    qint64 sessionsAtRisk(qint64 budgetBytes, double eps) const;
    /// floor(budget / largest session): every session at its maximum.
    qint64 sessionsWorstCase(qint64 budgetBytes) const;
    /// floor(budget / mean session bytes).
    qint64 sessionsAtMean(qint64 budgetBytes) const;
    /// Mean bytes of one session, per GPU.
    double meanBytes() const { return m_meanBytes; }
    /// Largest / smallest session, per GPU.
    qint64 maxBytes() const { return m_offset + m_units.last() * m_unit; }
    qint64 minBytes() const { return m_offset; }

    /// Exact P(sum > budget) by truncated convolution (any N; cost grows with N x lattice points).
    double exactOverflow(qint64 sessions, qint64 budgetBytes) const;
    /// Exact P(sum > budget) by FFT, or NaN when the transform would exceed `maxPoints`.
    double fftOverflow(qint64 sessions, qint64 budgetBytes, qint64 maxPoints = qint64(1) << 16) const;
    /// The saddlepoint estimate alone.
    double saddlepointOverflow(qint64 sessions, qint64 budgetBytes) const;

private:
    // The answer without computing (0 sessions; even the smallest overflow; even the largest fit).
    std::optional<double> trivial(qint64 sessions, qint64 s) const;
    // P(at least one of `sessions` sizes >= s units): a lower bound on the overflow.
    double singleSessionBound(qint64 sessions, qint64 s) const;
    // Threshold in lattice units: P(sum of units >= s), s = floor((B - N offset) / unit) + 1.
    qint64 threshold(qint64 sessions, qint64 budgetBytes) const;

    qint64 m_offset = 0;
    qint64 m_unit = 1;
    QVector<qint64> m_units;   // distinct session sizes above the offset, in lattice units, ascending
    QVector<double> m_probs;
    double m_meanBytes = 0;
    double m_meanUnits = 0;
};

} // namespace Headroom
