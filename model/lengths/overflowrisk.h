// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kv/kvcost.h"
#include "lengths/lengthdistribution.h"

#include <QString>
#include <QVector>
#include <limits>
#include <memory>
#include <optional>

namespace Headroom {

/// A tail probability and a bound on its error: the exact value lies in
/// [value - error, value + error].
struct BoundedTail
{
    double value = 0;
    double error = 0;
};

/// How the risk-based count was settled: the exact tails at the count and one
/// past it, the method that computed them and the larger of their error bounds.
struct RiskCount
{
    enum class Method {
        ClosedForm,  ///< no sum to compute: 0 sessions, or even the smallest sessions overflow
        Convolution, ///< direct convolution of the one-session law (small cases)
        Inversion,   ///< tilted lattice Fourier inversion with a bounded error
        /// past the largest transform: convolution of the sizes rounded up to multiples of
        /// `roundingBytes` (an upper bound, tight to N x roundingBytes of the budget)
        RoundedConvolution,
        ChernoffBound ///< where even that fails: P <= exp(N K(t) - t s), conservative
    };
    qint64 sessions = 0;
    Method method = Method::ClosedForm;
    double tailAt = 0;     ///< P(overflow) at `sessions`
    double tailAbove = 1;  ///< P(overflow) at `sessions` + 1
    double errorBound = 0; ///< absolute, on either tail
    /// RoundedConvolution: the step, bytes per GPU, each session's size was rounded up to
    /// (one lattice unit times the grain); else 0.
    qint64 roundingBytes = 0;

    /// "closed-form", "convolution", "tilted-inversion", "rounded-convolution" or
    /// "chernoff-bound" (plan --json risk_method).
    static QString methodName(Method method);
};

/// The law of the KV bytes N concurrent sessions hold on one GPU, each an
/// independent draw of bytes(min(L, cap)) with L from a LengthDistribution
/// (paged rounding, windows and recurrent state as in KvCost), and its tail.
///
/// Session bytes lie on a lattice: offset + k x unit, with offset the
/// smallest session and unit the gcd of the differences. The tail
/// P(S_N > budget) = P(sum of N lattice sizes >= s) is computed
/// - by direct convolution when N x s x (distinct sizes) is small;
/// - for up to 64 sessions and s up to 2,048 units, by convolution of the law
///   truncated to [0, L), L the threshold of N - 2 (sizes of L units or more
///   overflow alone): the truncated powers p^{*2^i} by FFT on 2^k >= 2L - 1 points
///   (no wrap-around), their product over N's binary digits truncated after each
///   product, which is the law of the sum on [0, L) exactly; round-off bounded in
///   the 2-norm through each product (Higham's FFT bound, Young's inequality),
///   about 3e-12 for 3-12 sessions, taken for a count where within 1e-5 of its
///   risk and for a figure where within 1e-6 of the tail; and otherwise
/// - by exponentially tilted Fourier inversion on the lattice: the one-session
///   law, capped at s (a session of s units overflows alone, so the tail is
///   unchanged) and tilted by e^{t k} at the saddlepoint t, is transformed by
///   one real FFT of M points (FFTW); the N-th power of the transform and a
///   closed-form geometric sum give sum_{v >= s} P(S = v) exactly, but for
///   wrap-around (aliasing) of the tilted law outside a window of M points.
///   The aliasing is bounded by Chernoff bounds of the sum and of the tilted
///   sum and by e^{-t M} (the weight of mass wrapping up from below), FFT
///   round-off by Higham's bound (Accuracy and Stability of Numerical
///   Algorithms, 2nd ed., 2002, Theorem 24.2) carried through the power and
///   the sum; the window widens until the aliasing bound is below 1e-8 of the
///   tail (a window predicted too narrow is skipped before its transform), up
///   to 2^23 points; two sessions are summed directly. Past 2^23 points (a heavy
///   tail: one long session spreads the tilted sum over millions of units) a
///   count rests on the truncated convolution above with every size rounded up
///   to a multiple of g units, g the least that brings the truncation below
///   2^18 units (2^19-point FFTs): rounding up only adds bytes, so its tail is an
///   upper bound, and N sessions add at most N (g - 1) units by it (its count is
///   at least the exact count for a budget that much smaller). The Chernoff bound,
///   conservative and several sessions low on heavy tails, is the last resort. Past 8,192-point windows
///   the M-point FFT is left out when cheaper: a P-point FFT (P | M) of the law
///   wrapped modulo P gives |Q| exactly on a coarse grid, and since
///   1 - |Q(theta)|^2 = E[1 - cos(theta D)] (D the difference of two tilted
///   sessions) has a second derivative of at most 2 Var in size, every frequency
///   of a grid interval where the interpolation bound proves |Q_k|^N below the
///   cut-off is left out; the few others (near 0, and near any coarser lattice the
///   sizes nearly sit on) are summed directly over the sizes. A law's last 4
///   transforms are kept (with the powers Q_k^N of their last 4 counts) and serve
///   its other counts and budgets when their aliasing bound passes, so one
///   recompute's count, admission limit and overflow figures share them. The method is Abate and
///   Whitt's ("Numerical inversion of probability generating functions",
///   Oper. Res. Letters 12, 1992) with the tilt of Gruebel and Hermesmeier
///   ("Computation of compound distributions I: aliasing errors and
///   exponential tilting", ASTIN Bulletin 29, 1999).
/// The Lugannani-Rice saddlepoint approximation with Daniels' (1987) lattice
/// continuity correction, u = (1 - e^-t) sqrt(N K''(t)), on the cumulant
/// generating function of one session (Daniels, "Tail probability
/// approximations", Int. Stat. Review 55, 1987; Butler, "Saddlepoint
/// Approximations with Applications", 2007, section 1.2.3) brackets the count
/// in microseconds; the count itself is settled by the exact tails.
class OverflowRisk
{
public:
    /// lengths: resident tokens per session; cost: the model's KV cost (per GPU
    /// figures are used); cap: retained-context cap in tokens (0 = none).
    OverflowRisk(const LengthDistribution &lengths, const KvCost &cost, qint64 cap);

    /// The bytes of one session at each of `lengths`' lengths (held to `cap` when > 0), in
    /// their order, as the constructor prices them: KvCost::sessionBytes(tokens, paged),
    /// taken once per paged block count k = ceil((tokens + lookahead) / block), the only way
    /// a length moves a session's bytes (KvCost::heldTokens). Throws InputError naming
    /// --distribution where sessionBytes refuses a length (past 64 bits).
    static QVector<qint64> sessionBytes(const LengthDistribution &lengths, const KvCost &cost, qint64 cap);

    /// P(KV bytes of `sessions` sessions > budget), per GPU: the exact tail
    /// (convolution, or inversion up to 2^17 points) when the budget is above
    /// the sessions' mean bytes, else the saddlepoint; past 2^17 points the inversion
    /// up to the count's 2^23, and past that the smaller of two upper bounds, the
    /// convolution of the sizes rounded up (roundedTail) and the Chernoff bound, as
    /// sessionsAtRisk takes them (never below the tail); the
    /// saddlepoint too (held within the bound) where the Chernoff bound exp(N K(t) - t s)
    /// puts the tail below 1e-15, a figure shown as "below 1 in 10^12" (Units::formatRisk)
    /// that the inversion took up to 16 M instructions to reach (4e-318 for 100 sessions in
    /// 152 GB of the conversation trace).
    double overflowProbability(qint64 sessions, qint64 budgetBytes) const;
    /// The largest N with P(KV of N sessions > budget) <= eps (eps in (0, 1)),
    /// never above the exact answer for this lattice law and at most one below
    /// it (below only when a tail lies within its error bound of eps), with the
    /// tails that settled it.
    RiskCount sessionsAtRisk(qint64 budgetBytes, double eps) const;
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
    /// P(sum > budget) by tilted lattice inversion with its error bound, or
    /// nullopt when the bound needs a transform above `maxPoints`.
    std::optional<BoundedTail> invertedOverflow(qint64 sessions, qint64 budgetBytes, qint64 maxPoints = qint64(1) << 23) const;
    /// The saddlepoint estimate alone.
    double saddlepointOverflow(qint64 sessions, qint64 budgetBytes) const;

private:
    struct Transform;
    // The law truncated below a length and its powers p^{*2^i}, kept for other counts (truncatedTail).
    struct Truncated;
    // The last 4 transforms made, kept for other counts and budgets, and the lock under
    // which inversions run (shared by copies of this object).
    struct WholeWindows;
    // The count's search at one budget and risk (sessionsAtRisk).
    class CountSearch;
    // The answer without computing (0 sessions; even the smallest overflow; even the largest fit).
    std::optional<double> trivial(qint64 sessions, qint64 s) const;
    // P(at least one of `sessions` sizes >= s units): a lower bound on the overflow.
    double singleSessionBound(qint64 sessions, qint64 s) const;
    // Threshold in lattice units: P(sum of units >= s), s = floor((B - N offset) / unit) + 1.
    qint64 threshold(qint64 sessions, qint64 budgetBytes) const;
    // log E exp(t min(X, cap)) and its first two derivatives (X in units).
    void cumulants(double t, double cap, double &k0, double &k1, double &k2) const;
    // A tilt t with K(t), K'(t) and K''(t) there (sizes capped at a cap, in units).
    struct Tilt
    {
        double t = 0, k0 = 0, k1 = 0, k2 = 0;
    };
    // The saddlepoint: K'(t) = x for sizes capped at `cap`, by safeguarded Newton from `guess`
    // (NaN: the normal approximation's), with the cumulants at the t returned. `sessions` = 0
    // solves to round-off; else Newton stops once N (K'(t) - x)^2 / (2 K''(t)) <= 1e-6, the
    // Newton estimate of how far N (K(t) - t x) stands above its least (a Chernoff bound's
    // log, a Lugannani-Rice exponent): for tilts where any t is valid and only the bound's
    // tightness depends on it.
    Tilt saddlepoint(double x, double cap, double guess = std::numeric_limits<double>::quiet_NaN(), qint64 sessions = 0) const;
    // saddlepointOverflow from the tilt `guess` (NaN: the normal approximation's), solved as
    // saddlepoint does for `sessions` > 0 when `near` (for a bracket), with the tilt it used and
    // the cumulants there (t = 0 when none was solved for).
    double saddlepointOverflow(qint64 sessions, qint64 budgetBytes, double guess, bool near, Tilt &used) const;
    // The Chernoff bound exp(N K(t) - t s), at most 1, on P(sum >= s) at `sessions`, with the
    // saddlepoint t (solved as saddlepoint does for `sessions`, held at 0 or above) for sizes
    // capped at s: an upper bound on the tail.
    double chernoffBound(qint64 sessions, qint64 s) const;
    // The exact tail at `sessions` with the method used: convolution when cheap
    // (and allowed), else inversion with `transform`, rebuilt when it does not
    // serve `sessions`; nullopt past `maxPoints`. The truncated powers' result is
    // taken when its error bound is at most `tolerance` (a count's: 1e-5 of its risk),
    // or, with 0, 1e-6 of the tail itself (a figure to show).
    std::optional<BoundedTail> tail(qint64 sessions, qint64 budgetBytes, std::shared_ptr<Transform> &transform,
                                    RiskCount::Method &method, qint64 maxPoints, bool convolution, double tolerance = 0) const;
    // tail's answers that need no transform, at threshold s: the closed forms (nothing to sum,
    // one session), two sessions summed directly and, when `convolution`, the direct convolution
    // of tiny cases; nullopt otherwise (`method` then untouched).
    std::optional<BoundedTail> directTail(qint64 sessions, qint64 budgetBytes, qint64 s, RiskCount::Method &method, bool convolution) const;
    // tail's inversion at threshold s: `transform` when it serves, else a kept one (keptTail),
    // else a new one, wider until its aliasing bound passes; nullopt past `maxPoints`.
    // Call under m_whole's lock.
    std::optional<BoundedTail> invertedTail(qint64 sessions, qint64 budgetBytes, qint64 s, std::shared_ptr<Transform> &transform,
                                            qint64 maxPoints) const;
    // The tail at threshold s from a transform kept for another count or budget of this law
    // (set into `transform`), or nullopt when none serves. Call under m_whole's lock.
    std::optional<BoundedTail> keptTail(qint64 sessions, qint64 s, std::shared_ptr<Transform> &transform, qint64 maxPoints) const;
    // The tilt of the transform serving N - 2 .. N + 3 sessions at this budget (its fewest, cap,
    // top, t, K(t) and K''(t); no window yet), or nullopt when the capped law has one size only.
    std::optional<Transform> tiltFor(qint64 sessions, qint64 budgetBytes) const;
    // That transform (from tiltFor's `tilted`), its window h tilted standard deviations wide.
    std::optional<Transform> transformFor(const Transform &tilted, qint64 sessions, qint64 budgetBytes, double h, qint64 maxPoints) const;
    // Narrows the transform's window (h standard deviations `sd` of the tilted sum wide, at
    // threshold s) to the least whose wrap-around weight e^{-t M} P(S < lo) is within
    // e^{-wrapWeight}, P(S < lo) by a Chernoff bound kept in tauLow and kLow; left as it is
    // when the window holds every sum or none narrower serves.
    void narrowWindow(Transform &tr, qint64 sessions, qint64 s, double sd, double h, double wrapWeight) const;
    // Fills the transform's Q_k with |Q_k|^2 > keep by one FFT of M points.
    void fftTransform(Transform &tr, double keep) const;
    // Fills the transform's Q_k at the frequencies that pass the cut-off `keep` (|Q_k|^2 > keep)
    // without the M-point FFT, when that is cheaper: false (nothing filled) when it is not.
    bool directTransform(Transform &transform, double keep) const;
    // The Chernoff tilts of the transform's bounds on truncation and wrap-around solved for
    // `sessions` at threshold s, kept in its slot 0 (the N it is made for) or 1 (another N).
    void boundTilts(Transform &transform, qint64 sessions, qint64 s, int slot) const;
    // The bound on truncation and aliasing of the transform's tail P(sum >= s) at `sessions`.
    static double aliasBound(const Transform &transform, qint64 sessions, qint64 s);
    // P(sum >= s) at `sessions` by convolution of the law truncated to [0, length) units
    // (length >= s), with a bound on its round-off: the product of the truncated powers
    // p^{*2^i} of N's binary digits, by FFT on the smallest power of 2 of at least
    // 2 length - 1 points, the powers kept (the last 2 lengths) for other counts and budgets.
    // With `grain` g > 1, every size rounded up to a multiple of g units first (sizes ceil(x / g),
    // threshold ceil(s / g)): an upper bound on the tail, since g ceil(x / g) >= x.
    // Call under m_whole's lock. nullopt when length < s.
    std::optional<BoundedTail> truncatedTail(qint64 sessions, qint64 s, qint64 length, qint64 grain = 1) const;
    // Past the largest transform: P(sum >= s) at `sessions` from truncatedTail with sizes rounded
    // up to `grain` units (set here: the least that holds the truncation, the threshold of N - 2,
    // to 2^18 grains), an upper bound on the tail but for its error bound (exact for grain 1).
    // Takes m_whole's lock.
    std::optional<BoundedTail> roundedTail(qint64 sessions, qint64 budgetBytes, qint64 &grain) const;
    // P(sum >= s) from a transform, or nullopt when it does not serve (s, N) or aliases too much.
    std::optional<BoundedTail> invert(const Transform &transform, qint64 sessions, qint64 s) const;

    std::shared_ptr<WholeWindows> m_whole;
    qint64 m_offset = 0;
    qint64 m_unit = 1;
    QVector<qint64> m_units;   // distinct session sizes above the offset, in lattice units, ascending
    QVector<double> m_probs;
    double m_meanBytes = 0;
    double m_varBytes = 0;
    double m_meanUnits = 0;
};

} // namespace Headroom
