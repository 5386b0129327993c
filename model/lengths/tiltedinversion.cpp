// SPDX-License-Identifier: GPL-3.0-or-later
// OverflowRisk's tilted lattice Fourier inversion: P(S >= s) for S the sum of N sessions'
// lattice sizes. The one-session law, capped at the threshold of the fewest sessions served
// and tilted by e^{t k} at the saddlepoint t, is transformed on a window of M points (one
// real FFT, or, past 8,192 points, only the frequencies that can matter, summed directly);
// the N-th power of the transform and a closed-form geometric sum give sum_{v >= s} P(S = v)
// but for wrap-around of the tilted law outside the window.
// Source: Abate and Whitt, "Numerical inversion of probability generating functions",
// Oper. Res. Letters 12, 1992, with the tilt of Gruebel and Hermesmeier, "Computation of
// compound distributions I: aliasing errors and exponential tilting", ASTIN Bulletin 29, 1999.
// Error bound (invert): the value lies within C x roundOff + alias of the exact tail,
// C = exp(N K(t) - t s). alias (aliasBound) bounds truncation and aliasing by Chernoff bounds
// of the sum and of the tilted sum and by e^{-t M} P(S < lo), and a window is refused when it
// exceeds kAliasShare (1e-8) of the tail; roundOff carries the FFT's round-off (Higham,
// Accuracy and Stability of Numerical Algorithms, 2nd ed., 2002, Theorem 24.2:
// 10 log2(M) eps ||Q||_2) or, Q summed directly, N (qError + 10 eps) per frequency, through the
// N-th power and the sum (Cauchy-Schwarz), plus the sum's own rounding and at most
// 2 delta / (1 - e^-t) for the frequencies under the cut-off delta (cutOff).
#include "lengths/overflowrisk_p.h"

#include <QMutexLocker>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

namespace Headroom {

namespace {

// z^n by repeated squaring, in real arithmetic (std::complex's operator*
// checks for infinities on every product).
void power(double re, double im, qint64 n, double &outRe, double &outIm)
{
    double zr = 1, zi = 0;
    for (qint64 e = n; e > 0; e >>= 1) {
        if (e & 1) {
            const double r = zr * re - zi * im;
            zi = zr * im + zi * re;
            zr = r;
        }
        if (e > 1) {
            const double r = re * re - im * im;
            im = 2 * re * im;
            re = r;
        }
    }
    outRe = zr;
    outIm = zi;
}

// The window [lo, lo + M) for the tilted sum of N sessions (mean about s,
// standard deviation sd): at least h standard deviations wide and `wrap` / t
// wide (mass wrapping up from below then weighs e^{-t M} <= e^{-wrap}),
// reaching 0.7 h of them above s (the untilted tail beyond lo + M is left out),
// within [0, N x largest size].
struct Window
{
    qint64 lo = 0;
    int points = 0;
};

// Where a window of m points starts: `above` past s, and at 0 when it covers the largest sum (nothing wraps).
qint64 placeWindow(qint64 m, double above, qint64 s, double largest)
{
    return double(m) > largest ? 0 : std::clamp<qint64>(qint64(std::ceil(double(s) + above)) - m, 0, s);
}

std::optional<Window> windowFor(double sd, double t, double wrap, qint64 s, double largest, double h, qint64 maxPoints)
{
    const double above = 0.7 * h * sd;
    qint64 m = transformSize(std::min(std::max({h * sd, wrap / t, above + 3.0 * sd}), largest + 1.0));
    if (m > maxPoints)
        return std::nullopt;
    Window w;
    w.points = int(m);
    w.lo = placeWindow(m, above, s, largest);
    return w;
}

// The cut-off: frequencies with |Q_k|^N <= delta are left out, delta x 2 / (1 - e^-t) at most in all,
// relative to C = exp(N K(t) - t s) (at most 1): 2e-13 C, within 2e-11 of the tail where the
// saddlepoint's share of C is 1% (the least a window is sized for). From 1e-18 C: 4-18% fewer
// instructions per recompute for 11-117 sessions of the conversation trace (callgrind, bench_risk),
// the frequencies between the two being most of a small count's. (1e-12 C saved more but left
// tst_risk's inversion bound above 1e-9 of a 1e-6 risk.)
double cutOff(double t)
{
    return 1e-13 * -std::expm1(-t);
}

// The one-session law as directTransform sums it: sizes x_j = min(k_j, cap) in units, tilted
// weights w_j = p_j e^{t x_j - K(t)}, their total (the mass, 1 but for rounding) and their
// variance V with a margin far above its rounding.
struct TiltedSizes
{
    std::vector<double> xs, ws;
    double mass = 0, variance = 0;
};

// The sizes `units` with probabilities `probs`, capped at `cap` units and tilted by t, with K(t) = k0.
TiltedSizes tiltedSizes(const QVector<qint64> &units, const QVector<double> &probs, double cap, double t, double k0)
{
    TiltedSizes law;
    law.xs.reserve(size_t(units.size()));
    law.ws.reserve(size_t(units.size()));
    double first = 0;
    for (int j = 0; j < units.size(); ++j) {
        const double x = std::min(double(units.at(j)), cap);
        const double w = probs.at(j) * std::exp(t * x - k0);
        law.xs.push_back(x);
        law.ws.push_back(w);
        law.mass += w;
        first += w * x;
    }
    const double mean = first / law.mass;
    double v = 0;
    for (size_t j = 0; j < law.xs.size(); ++j)
        v += law.ws[j] * (law.xs[j] - mean) * (law.xs[j] - mean);
    // V with a margin far above its rounding (sums of non-negative terms, relative error < sizes x eps).
    law.variance = v / law.mass * (1.0 + 1e-6) + 1e-12;
    return law;
}

// Whether summing `candidates` frequencies directly over `sizes` sizes costs no more than the
// FFT of M = `m` points: about 8 instructions per size and candidate against 3 M log2 M.
bool directIsCheaper(double candidates, size_t sizes, int m)
{
    return candidates * double(sizes) * 8.0 <= 3.0 * double(m) * std::log2(double(m));
}

// f(theta_i) = 1 - |Q(theta_i)|^2 / mass^2 at the P = `p` grid points theta_i = 2 pi i / P,
// i = 0 .. P / 2, less the bound on its rounding: exactly from the law wrapped modulo P (a
// P-point FFT).
std::vector<double> gridFloor(const TiltedSizes &law, qint64 p)
{
    const std::unique_ptr<fftw_complex[], FftwFree> grid(fftw_alloc_complex(size_t(p / 2 + 1)));
    const std::unique_ptr<double[], FftwFree> in(fftw_alloc_real(size_t(p)));
    std::fill(in.get(), in.get() + p, 0.0);
    double norm2 = 0;
    for (size_t j = 0; j < law.xs.size(); ++j) {
        in[qint64(law.xs[j]) % p] += law.ws[j];
        norm2 += law.ws[j] * law.ws[j];
    }
    fftw_execute_dft_r2c(r2cPlan(int(p)), in.get(), grid.get());
    // Each grid value within 10 log2(P) eps ||Q||_2 of the exact (Higham 2002, Theorem 24.2, with
    // margin), ||Q||_2 = sqrt(P) ||in||_2, the input's own rounding (sizes x eps x mass) added.
    const double gridError = 10.0 * std::log2(double(p)) * kRound * std::sqrt(double(p) * norm2) + double(law.xs.size() + 2) * kRound * law.mass;
    const double m2 = law.mass * law.mass;
    // f at the grid points, less the bound on its rounding: f_i = 1 - |Q_i|^2 / mass^2.
    std::vector<double> f(size_t(p / 2 + 1));
    for (qint64 i = 0; i <= p / 2; ++i) {
        // (|Q_i| <= mass <= 1 + 1e-9: no overflow; the square root's rounding is in the margin.)
        const double a = std::sqrt(grid[i][0] * grid[i][0] + grid[i][1] * grid[i][1]) * (1.0 + 4.0 * kRound);
        f[size_t(i)] = 1.0 - (a + gridError) * (a + gridError) / m2 - 4.0 * kRound;
    }
    return f;
}

// The frequencies k of M = `m` that may pass the cut-off |Q_k|^2 > `keep`: every k of a grid
// interval (P = `p` points) where linear interpolation of f, less its error V w^2 / 4, does not
// prove |Q_k|^2 <= keep; nullopt once summing them directly costs more than the M-point FFT.
std::optional<std::vector<int>> candidateFrequencies(const TiltedSizes &law, int m, qint64 p, double keep)
{
    const std::vector<double> f = gridFloor(law, p);
    const double m2 = law.mass * law.mass;
    const double w = 2.0 * M_PI / double(p);
    const double bend = law.variance * w * w / 4.0 + 4.0 * kRound;
    const qint64 per = m / p; // frequencies k of M per grid interval
    // |Q_k|^2 <= mass^2 (1 - f): left out when that is at most keep.
    const double ceiling = 1.0 - keep / m2;
    std::vector<int> candidates;
    for (qint64 i = 0; i < p / 2; ++i) {
        if (std::min(f[size_t(i)], f[size_t(i + 1)]) - bend >= ceiling)
            continue;
        for (qint64 k = std::max<qint64>(1, i * per); k < (i + 1) * per; ++k)
            candidates.push_back(int(k));
        if (!directIsCheaper(double(candidates.size()), law.xs.size(), m))
            return std::nullopt;
    }
    if (f[size_t(p / 2)] < ceiling)
        candidates.push_back(m / 2); // theta = pi: a grid point
    if (!directIsCheaper(double(candidates.size()), law.xs.size(), m))
        return std::nullopt;
    return candidates;
}

} // namespace

std::optional<OverflowRisk::Transform> OverflowRisk::tiltFor(qint64 sessions, qint64 budget) const
{
    // Capped at the threshold of sessions - 2, so it serves sessions - 2 .. sessions + 3.
    const qint64 s = threshold(sessions, budget);
    Transform tr;
    tr.fewest = std::max<qint64>(1, sessions - 2);
    tr.cap = double(threshold(tr.fewest, budget));
    tr.top = std::min(double(m_units.last()), tr.cap);
    const double n = double(sessions);
    double k0 = 0, k1 = 0, k2 = 0;
    cumulants(0, tr.cap, k0, k1, k2);
    if (k2 <= 0)
        return std::nullopt; // one size only: convolution is trivial there
    // The saddlepoint of the threshold (there C = exp(N K(t) - t s) <= 1, its
    // least); at least a tenth of a standard deviation's worth of tilt when the
    // threshold is near or below the mean, so the geometric weights stay
    // bounded. From 1,000 sessions (the sum near normal) at least 3 standard
    // deviations' worth when the threshold is less than that above the mean
    // (risks of 1e-3 and more): C then grows by at most e^{4.5} over its least
    // (round-off grows with it, still far below 1e-12 of the tail), and the
    // weight e^{-t M} of mass wrapping up from below falls fast enough that a
    // window of 9-10 standard deviations serves, half of what the saddlepoint's
    // tilt needs there. (Any t > 0 is valid; fewer sessions with a heavy tail
    // spread too much under the larger tilt.)
    // The wider tilt only where that bound holds: under a heavy tail (a log-normal's sizes up to
    // the cap) e^{t x} over the largest sizes made C overflow to infinity at 3 standard
    // deviations' tilt, every tail from 1,000 sessions read as 1 (its bound infinite) and the
    // count stopped there; such a law keeps the tenth's tilt, as fewer sessions do.
    const Tilt at = saddlepoint(double(s) / n, tr.cap, std::numeric_limits<double>::quiet_NaN(), sessions);
    tr.t = std::max(at.t, 0.1 / std::sqrt(n * k2));
    k0 = at.k0, k2 = at.k2;
    if (tr.t != at.t)
        cumulants(tr.t, tr.cap, k0, k1, k2);
    if (const double wide = 3.0 / std::sqrt(n * k2); sessions >= 1000 && wide > tr.t) {
        double w0 = 0, w1 = 0, w2 = 0;
        cumulants(wide, tr.cap, w0, w1, w2);
        if (std::isfinite(w0) && (n * w0 - wide * double(s)) - (n * k0 - tr.t * double(s)) <= 4.5) {
            tr.t = wide;
            k0 = w0, k2 = w2;
        }
    }
    tr.k0 = k0;
    tr.k2 = k2;
    return tr;
}

std::optional<OverflowRisk::Transform> OverflowRisk::transformFor(const Transform &tilted, qint64 sessions, qint64 budget, double h,
                                                                   qint64 maxPoints) const
{
    const qint64 s = threshold(sessions, budget);
    Transform tr = tilted;
    const double n = double(sessions), k0 = tr.k0, k2 = tr.k2;
    // e^{-t M} within kAliasShare / 10 of the tail (the inversion refuses aliasing above
    // kAliasShare of it), the tail taken as C = exp(N K(t) - t s) times the saddlepoint's
    // share of it, 1 / ((1 - e^-t) sqrt(2 pi N K''(t))) (Daniels 1987), at most 1
    // and at least 1%; wider on each retry (should the share be optimistic).
    const double sd = std::sqrt(n * k2);
    const double share = std::clamp(1.0 / (-std::expm1(-tr.t) * std::sqrt(2.0 * M_PI) * sd), 1e-2, 1.0);
    const double wrapWeight = (h / 8.0) * (std::log(10.0 / (kAliasShare * share)) + std::max(0.0, -(n * k0 - tr.t * double(s))));
    const auto w = windowFor(sd, tr.t, wrapWeight, s, n * tr.top, h, maxPoints);
    if (!w)
        return std::nullopt;
    tr.lo = w->lo;
    tr.points = w->points;
    narrowWindow(tr, sessions, s, sd, h, wrapWeight);
    boundTilts(tr, sessions, s, 0);
    // Too narrow for `sessions` (invert would refuse it: aliasing above kAliasShare of the
    // tail, the tail taken as C times the share above, with a margin of 4 for the
    // share's error): the next, wider window, without the transform (the widest is made all the same).
    if (h * 1.5 < kWidest && aliasBound(tr, sessions, s) > 4.0 * kAliasShare * share * std::exp(n * tr.k0 - tr.t * double(s))) {
        tr.aliases = true;
        return tr;
    }
    // The frequencies that can matter for any N served (the cut-off rises with N): |Q_k|^2 > keep.
    const double keep = std::exp(2.0 * std::log(cutOff(tr.t)) / double(tr.fewest));
    if (!directTransform(tr, keep))
        fftTransform(tr, keep);
    return tr;
}

void OverflowRisk::narrowWindow(Transform &tr, qint64 sessions, qint64 s, double sd, double h, double wrapWeight) const
{
    const double n = double(sessions);
    // Narrower when little mass lies below its start: e^{-t M} P(S < lo) suffices, P(S < lo)
    // by a Chernoff bound of the untilted sum (a tilt tauLow < 0; 0 means the bound 1).
    const double above = 0.7 * h * sd;
    // (Not when the window holds every sum: that one never aliases.)
    for (qint64 m = transformSize(std::min(std::max(h * sd, above + 3.0 * sd), n * tr.top + 1.0));
         m < tr.points && double(tr.points) <= n * tr.top;) {
        const qint64 lo = placeWindow(m, above, s, n * tr.top);
        double tau = 0, kLow = 0, logBelow = 0;
        if (lo > 0) {
            const Tilt low = saddlepoint(double(lo) / n, tr.cap, -tr.t, sessions);
            tau = std::min(0.0, low.t);
            kLow = low.k0;
            logBelow = tau < 0 ? n * kLow - tau * double(lo) : 0.0;
        }
        if (tr.t * double(m) + 1e-9 >= wrapWeight + logBelow) {
            tr.points = int(m);
            tr.lo = lo;
            tr.tauLow = tau;
            tr.kLow = kLow;
            break;
        }
        m = transformSize((wrapWeight + logBelow) / tr.t);
    }
}

void OverflowRisk::fftTransform(Transform &tr, double keep) const
{
    const int m = tr.points;
    // The tilted law p_j e^{t k_j - K(t)}, mass 1, wrapped modulo M, transformed in place.
    const std::unique_ptr<fftw_complex[], FftwFree> q(fftw_alloc_complex(size_t(m / 2 + 1)));
    const std::unique_ptr<double[], FftwFree> in(fftw_alloc_real(size_t(m)));
    std::fill(in.get(), in.get() + m, 0.0);
    for (int j = 0; j < m_units.size(); ++j) {
        const double x = std::min(double(m_units.at(j)), tr.cap);
        in[qint64(x) % m] += m_probs.at(j) * std::exp(tr.t * x - tr.k0);
    }
    fftw_execute_dft_r2c(r2cPlan(m), in.get(), q.get());
    tr.q0 = q[0][0];
    for (int k = 1; k <= m / 2; ++k)
        if (q[k][0] * q[k][0] + q[k][1] * q[k][1] > keep) {
            tr.significant.push_back(k);
            tr.qRe.push_back(q[k][0]);
            tr.qIm.push_back(q[k][1]);
        }
}

bool OverflowRisk::directTransform(Transform &tr, double keep) const
{
    // Many sessions: the sum's law is smooth, and only the few Q_k near k = 0 (and
    // wherever the one-session law is near a sub-lattice, |Q_k| near 1) pass the
    // cut-off. Those are found without the M-point FFT, and summed directly.
    //
    // Which k can be left out: |Q(theta)|^2 / mass^2 = 1 - f(theta), with
    // f(theta) = E[1 - cos(theta D)], D = X - X' for two independent draws of the
    // tilted law; |f''| = |E[D^2 cos(theta D)]| <= E[D^2] = 2 V (V its variance). So
    // on [a, b] of width w, f >= min(f(a), f(b)) - 2 V w^2 / 8 (linear
    // interpolation's error). f at the P points theta_i = 2 pi i / P comes exactly
    // from the law wrapped modulo P (a P-point FFT, P | M, P chosen so that
    // V w^2 / 4 is half of 1 - keep); every k of an interval where the bound
    // (less the FFT's round-off) proves |Q_k|^2 <= keep is left out, the others
    // are candidates, their Q_k summed directly over the sizes.
    const int m = tr.points;
    const double need = -std::expm1(std::log(keep)); // f >= need proves |Q|^2 <= keep (for mass 1)
    if (m < 8192 || !(need > 0))
        return false;
    const TiltedSizes law = tiltedSizes(m_units, m_probs, tr.cap, tr.t, tr.k0);
    const double v = law.variance;
    // f(theta) <= V theta^2 (1 - cos x <= x^2 / 2): every k below M sqrt(need / V) / (2 pi) is a candidate.
    const qint64 p = transformSize(2.0 * M_PI * std::sqrt(v / need));
    if (p > m / 4 || !directIsCheaper(double(m) * std::sqrt(need / v) / (2.0 * M_PI), law.xs.size(), m))
        return false; // no cheaper than the FFT of M points
    const std::optional<std::vector<int>> candidates = candidateFrequencies(law, m, p, keep);
    if (!candidates)
        return false;
    // Q_k = sum_j w_j e^{-2 pi i k x_j / M}: for each run of up to 32 consecutive
    // candidates (from k0), e^{-2 pi i k0 x_j / M} from the unit circle's tables (the index
    // reduced modulo M exactly, in integers), then one product by e^{-2 pi i x_j / M}
    // per step. Each term within 1,000 eps of exact (the tables within 4 eps, 31
    // steps of a rotation within 17 eps), the sum's rounding within sizes x eps of
    // the sum of |terms| (mass).
    tr.qError = (1000.0 + double(law.xs.size())) * kRound * law.mass;
    tr.q0 = law.mass;
    tr.significant.reserve(candidates->size());
    tr.circle = UnitCircle::of(m);
    tr.sumDirectly(law.xs, law.ws, *candidates, keep);
    return true;
}

void OverflowRisk::Transform::sumDirectly(const std::vector<double> &xs, const std::vector<double> &ws, const std::vector<int> &candidates,
                                          double keep)
{
    const int m = points;
    const UnitCircle &circle = *this->circle;
    std::vector<double> stepC(xs.size()), stepS(xs.size()), re(32), im(32);
    std::vector<qint64> wrapped(xs.size());
    for (size_t j = 0; j < xs.size(); ++j) {
        wrapped[j] = qint64(xs[j]) % m;
        circle.at(wrapped[j], stepC[j], stepS[j]);
        stepS[j] = -stepS[j];
    }
    for (size_t c = 0; c < candidates.size();) {
        size_t run = 1;
        while (c + run < candidates.size() && run < 32 && candidates[c + run] == candidates[c] + int(run))
            ++run;
        const qint64 from = candidates[c];
        std::fill(re.begin(), re.end(), 0.0);
        std::fill(im.begin(), im.end(), 0.0);
        for (size_t j = 0; j < xs.size(); ++j) {
            double zc = 1, zs = 0;
            circle.at(from * wrapped[j], zc, zs); // from, wrapped[j] < M <= 2^23: no overflow
            zc *= ws[j];
            zs *= -ws[j];
            for (size_t r = 0; r < run; ++r) {
                re[r] += zc;
                im[r] += zs;
                const double nc = zc * stepC[j] - zs * stepS[j];
                zs = zc * stepS[j] + zs * stepC[j];
                zc = nc;
            }
        }
        for (size_t r = 0; r < run; ++r) {
            // Kept when it may pass the cut-off (its error taken in its favour).
            const double a = std::sqrt(re[r] * re[r] + im[r] * im[r]) * (1.0 + 4.0 * kRound) + qError;
            if (a * a > keep) {
                significant.push_back(candidates[c + r]);
                qRe.push_back(re[r]);
                qIm.push_back(im[r]);
            }
        }
        c += run;
    }
}

void OverflowRisk::boundTilts(Transform &tr, qint64 sessions, qint64 s, int slot) const
{
    const double n = double(sessions), top = double(tr.lo + tr.points), wrap = double(s + tr.points);
    const Tilt atTop = saddlepoint(std::min(top / n, tr.top * (1 - 1e-9)), tr.cap, tr.t, sessions);
    tr.tauTop[slot] = atTop.t;
    tr.kTop[slot] = atTop.k0;
    const Tilt atWrap = saddlepoint(std::min(wrap / n, tr.top * (1 - 1e-9)), tr.cap, atTop.t, sessions);
    tr.tauWrap[slot] = atWrap.t;
    tr.kWrap[slot] = atWrap.k0;
    tr.boundsFor[slot] = sessions;
}

double OverflowRisk::aliasBound(const Transform &tr, qint64 sessions, qint64 s)
{
    // Truncation and aliasing (S the sum, P_t its tilted law, C = exp(N K(t) - t s)):
    // - terms v >= lo + M are left out: P(S >= lo + M) of the tail;
    // - mass of S >= s + M wraps onto summed terms with weight <= 1: C P_t(S >= s + M)
    //   (from [lo + M, s + M) it lands below s, outside the sum);
    // - mass of S < lo wraps onto v + jM >= v + M with weight e^{-t (v + jM - s)}:
    //   C sum_{v < lo} P_t(v) e^{-t (v + M - s)} = e^{-t M} P(S < lo).
    // The probabilities by Chernoff bounds at the tilts the transform keeps.
    const double n = double(sessions), t = tr.t, m = double(tr.points);
    double alias = 0;
    const double top = double(tr.lo) + m, wrap = double(s) + m;
    if (top <= n * tr.top) {
        double least = 1.0;
        for (int i = 0; i < 2; ++i)
            if (tr.tauTop[i] > 0)
                least = std::min(least, std::exp(n * tr.kTop[i] - tr.tauTop[i] * top));
        alias += least;
    }
    if (wrap <= n * tr.top) {
        double least = n * tr.k0 - t * double(s); // the log of the bound with no tilt past t: C
        for (int i = 0; i < 2; ++i)
            if (tr.tauWrap[i] > t)
                least = std::min(least, n * tr.kWrap[i] - t * double(s) - (tr.tauWrap[i] - t) * wrap);
        alias += std::exp(least);
    }
    if (tr.lo > 0)
        alias += std::exp(-t * m + (tr.tauLow < 0 ? n * tr.kLow - tr.tauLow * double(tr.lo) : 0.0));
    return alias;
}

std::optional<BoundedTail> OverflowRisk::invert(const Transform &tr, qint64 sessions, qint64 s) const
{
    const int m = tr.points;
    if (sessions < tr.fewest || double(s) > tr.cap || s < tr.lo || s >= tr.lo + m)
        return std::nullopt;
    // P(S >= s) = C sum_{v >= s} e^{-t (v - s)} P_t(S = v), C = exp(N K(t) - t s),
    // P_t the tilted law of the sum. Its values modulo M are
    // pi(v) = (1/M) sum_k Q_k^N e^{2 pi i k v / M}; summing v = s .. lo + M - 1
    // in closed form: (1/M) sum_k Q_k^N g_k with
    // g_k = e^{i theta s} (1 - r^L e^{i theta L}) / (1 - r e^{i theta}),
    // theta = 2 pi k / M, r = e^{-t}, L = lo + M - s terms.
    const double n = double(sessions), t = tr.t;
    const double logC = n * tr.k0 - t * double(s);
    const qint64 terms = tr.lo + m - s;
    const double r = std::exp(-t), oneMinusR = -std::expm1(-t), rL = std::exp(-t * double(terms));
    // Frequencies with |Q_k|^N <= delta are left out: together at most delta x 2 / (1 - r) (|g_k| <= 2 / (1 - r)).
    const double delta = cutOff(t);
    const double skip = std::exp(2.0 * std::log(delta) / n);
    const qint64 sm = s % m;
    // k = 0: Q_0 is the transformed law's total mass, 1 but for rounding in K(t)
    // (taken as it is, C Q_0^N is exact for whatever K(t) the tilt used).
    const double q0 = std::pow(tr.q0, n);
    double sum = q0 * -std::expm1(-t * double(terms)) / oneMinusR;
    double absSum = sum;
    double absG = 0; // sum of weight x |g_k| over the frequencies used (Q summed directly only)
    qint64 used = 1;
    tr.makeWeights(r, oneMinusR);
    const Transform::Powers &pw = tr.powersOf(sessions, skip);
    sum += tr.wave(pw, sm) - rL * pw.a;
    // The terms' sizes: |Re| + |Im| of each c_k e^{i theta s} is at most sqrt(2) (|Re c_k| + |Im c_k|).
    absSum += 1.5 * (pw.absC + rL * pw.absE);
    // |g_k| <= |d_k| (1 + r^L) (|e_k| = |d_k|)
    absG = pw.absD * (1.0 + rL);
    used += pw.used;
    const double rel = sum / double(m);
    // Round-off, relative to C: the FFT's error ||dQ||_2 <= 10 log2(M) eps ||Q||_2
    // (Higham 2002, Theorem 24.2, with margin), the input's and the powers'
    // rounding (N eps each), carried to the sum by Cauchy-Schwarz with
    // (1/M) sum_k |g_k|^2 <= 4 (1 + r^M) / ((1 - r^2)(1 - r^M)); the sum's own
    // rounding and the unit circle's (4 eps a term) ((terms + 80) x eps x sum of |terms|); the frequencies left out.
    const double rM = std::exp(-t * double(m));
    const double gNorm = 2.0 * std::sqrt((1.0 + rM) / (-std::expm1(-2.0 * t) * -std::expm1(-t * double(m))));
    // Q_k summed directly instead (qError > 0): |Q_k^N error| <= N (qError + 10 eps) at each
    // frequency used (the powers' rounding included), times its weight x |g_k| (computed |g|
    // taken 1% larger for its own rounding; k = 0 with |g_0| <= 1 / (1 - r), here 4 / (1 - r)), over M.
    const double transformError = tr.qError > 0 ? n * (tr.qError + 10.0 * kRound) * (1.01 * absG + 4.0 / oneMinusR) / double(m)
                                                : gNorm * n * kRound * (10.0 * std::log2(double(m)) + 10.0);
    const double roundOff = transformError + double(used + 80) * kRound * absSum / double(m) + 2.0 * delta / oneMinusR;
    // Truncation and aliasing, bounded by Chernoff bounds (aliasBound).
    const double alias = aliasBound(tr, sessions, s);
    const double value = std::exp(logC) * rel;
    if (alias > kAliasShare * std::abs(value) + 1e-18)
        return std::nullopt; // the window is too narrow for this N
    return BoundedTail{std::clamp(value, 0.0, 1.0), std::exp(logC) * roundOff + alias};
}

void OverflowRisk::Transform::makeWeights(double r, double oneMinusR) const
{
    const int m = points;
    const size_t count = significant.size();
    if (!circle)
        circle = UnitCircle::of(m);
    if (dRe.size() == count)
        return;
    // g_k = e^{i theta s} (1 - r^L e^{i theta L}) / (1 - r e^{i theta}) = (e^{i theta s} - r^L e^{i theta lo}) d_k / w_k,
    // as theta (s + L) = theta (lo + M) and theta M = 2 pi k.
    dRe.resize(count), dIm.resize(count), eRe.resize(count), eIm.resize(count);
    const qint64 start = lo % m;
    for (size_t i = 0; i < count; ++i) {
        const qint64 k = significant[i];
        double c = 1, sn = 0, lc = 1, ls = 0;
        circle->at(k, c, sn);
        circle->at(k * start, lc, ls);
        // 1 - r e^{i theta} = (1 - r) + r (1 - cos theta) - i r sin theta; 1 - cos theta
        // without cancellation: sin^2 / (1 + cos) when cos > 0.
        const double versine = c > 0 ? sn * sn / (1.0 + c) : 1.0 - c;
        const double dr = oneMinusR + r * versine, di = -r * sn;
        const double weight = k == m / 2 ? 1.0 : 2.0;
        const double inv = weight / (dr * dr + di * di);
        dRe[i] = dr * inv;
        dIm[i] = -di * inv;
        eRe[i] = lc * dRe[i] - ls * dIm[i];
        eIm[i] = lc * dIm[i] + ls * dRe[i];
    }
}

const OverflowRisk::Transform::Powers &OverflowRisk::Transform::powersOf(qint64 sessions, double skip) const
{
    const size_t count = significant.size();
    // Q_k^N: one product from Q_k^{N - 1} when that is kept, else by squaring.
    auto found = std::find_if(powers.begin(), powers.end(), [&](const Powers &x) { return x.n == sessions; });
    if (found == powers.end()) {
        const auto before = std::find_if(powers.begin(), powers.end(), [&](const Powers &x) { return x.n == sessions - 1; });
        const Powers *last = before != powers.end() ? &*before : nullptr;
        Powers w;
        w.n = sessions;
        w.pRe.resize(count), w.pIm.resize(count), w.cRe.resize(count), w.cIm.resize(count);
        for (size_t i = 0; i < count; ++i) {
            const double qr = qRe[i], qi = qIm[i];
            double pr = 0, pi = 0;
            if (last) {
                pr = last->pRe[i] * qr - last->pIm[i] * qi;
                pi = last->pRe[i] * qi + last->pIm[i] * qr;
            } else {
                power(qr, qi, sessions, pr, pi);
            }
            w.pRe[i] = pr;
            w.pIm[i] = pi;
            if (qr * qr + qi * qi <= skip) {
                w.cRe[i] = w.cIm[i] = 0;
                continue;
            }
            w.cRe[i] = pr * dRe[i] - pi * dIm[i];
            w.cIm[i] = pr * dIm[i] + pi * dRe[i];
            const double er = pr * eRe[i] - pi * eIm[i], ei = pr * eIm[i] + pi * eRe[i];
            w.a += er;
            w.absC += std::abs(w.cRe[i]) + std::abs(w.cIm[i]);
            w.absE += std::abs(er) + std::abs(ei);
            w.absD += std::abs(dRe[i]) + std::abs(dIm[i]);
            ++w.used;
        }
        if (powers.size() >= 4)
            powers.erase(powers.begin());
        powers.push_back(std::move(w));
        found = powers.end() - 1;
    }
    return *found;
}

double OverflowRisk::Transform::wave(const Powers &pw, qint64 sm) const
{
    const size_t count = significant.size();
    // sum_k Re(w_k Q_k^N g_k) = sum_k Re(c_k e^{i theta s}) - r^L a, e^{i theta s} from the
    // unit circle's tables (two sums, even and odd terms, so that they run in parallel).
    double even = 0, odd = 0;
    for (size_t i = 0; i + 1 < count; i += 2) {
        double c = 1, sn = 0, c2 = 1, s2 = 0;
        circle->at(qint64(significant[i]) * sm, c, sn);
        circle->at(qint64(significant[i + 1]) * sm, c2, s2);
        even += pw.cRe[i] * c - pw.cIm[i] * sn;
        odd += pw.cRe[i + 1] * c2 - pw.cIm[i + 1] * s2;
    }
    if (count % 2 == 1) {
        double c = 1, sn = 0;
        circle->at(qint64(significant[count - 1]) * sm, c, sn);
        even += pw.cRe[count - 1] * c - pw.cIm[count - 1] * sn;
    }
    return even + odd;
}

std::optional<BoundedTail> OverflowRisk::invertedTail(qint64 sessions, qint64 budget, qint64 s, std::shared_ptr<Transform> &transform,
                                                      qint64 maxPoints) const
{
    // Reuse the transform when it serves this N; else build one, wider until the aliasing bound is small.
    if (transform && !transform->aliases) {
        if (const auto r = invert(*transform, sessions, s))
            return r;
        // Refused for aliasing at the bounds' tilts of another N (the count's N + 1, say, on
        // N's transform): with tilts for this N the bound may pass, for two saddlepoints
        // instead of a transform.
        if (transform->boundsFor[0] != sessions && transform->boundsFor[1] != sessions) {
            boundTilts(*transform, sessions, s, 1);
            if (const auto r = invert(*transform, sessions, s))
                return r;
        }
    }
    if (const auto r = keptTail(sessions, s, transform, maxPoints))
        return r;
    const auto tilted = tiltFor(sessions, budget);
    for (double h = 8; tilted && h < kWidest; h *= 1.5) {
        auto made = transformFor(*tilted, sessions, budget, h, maxPoints);
        if (!made) {
            transform.reset();
            return std::nullopt;
        }
        transform = std::make_shared<Transform>(std::move(*made));
        if (transform->aliases)
            continue;
        if (const auto r = invert(*transform, sessions, s)) {
            // Kept for the other counts and budgets of this law (the last 4).
            if (m_whole->transforms.size() >= 4)
                m_whole->transforms.erase(m_whole->transforms.begin());
            m_whole->transforms.push_back(transform);
            return r;
        }
    }
    return std::nullopt;
}

std::optional<BoundedTail> OverflowRisk::keptTail(qint64 sessions, qint64 s, std::shared_ptr<Transform> &transform, qint64 maxPoints) const
{
    // A transform made for another count or budget of this law serves this one when
    // its window holds the threshold and its aliasing bound here passes invert's test
    // (tried only when that bound is below 1e-10); it is taken when its tilt leaves the
    // round-off within 1e-7 of the tail (else a transform is made for this N).
    for (auto it = m_whole->transforms.rbegin(); it != m_whole->transforms.rend(); ++it) {
        const std::shared_ptr<Transform> &kept = *it;
        if (kept == transform || kept->points > maxPoints || sessions < kept->fewest || double(s) > kept->cap || s < kept->lo
            || s >= kept->lo + kept->points)
            continue;
        // At bounds' tilts solved for this N when those of the Ns it was inverted for leave it
        // above: two saddlepoints, where a transform of its own costs tilts, a window and an FFT.
        if (aliasBound(*kept, sessions, s) > 1e-10) {
            if (kept->boundsFor[0] == sessions || kept->boundsFor[1] == sessions)
                continue;
            boundTilts(*kept, sessions, s, 1);
            if (aliasBound(*kept, sessions, s) > 1e-10)
                continue;
        }
        if (const auto r = invert(*kept, sessions, s); r && r->error <= 1e-7 * r->value) {
            transform = kept;
            return r;
        }
    }
    return std::nullopt;
}

} // namespace Headroom
