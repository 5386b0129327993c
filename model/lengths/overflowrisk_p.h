// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to OverflowRisk (not installed API; lengths/overflowrisk.h is the entry point):
// what its method files share. overflowrisk.cpp: the lattice law, the exact tail's choice of
// method, the closed forms and direct convolutions, and the FFT plans; tiltedinversion.cpp:
// the tilted lattice Fourier inversion; roundedconvolution.cpp: the truncated (and rounded)
// convolution powers; saddlepoint.cpp: the saddlepoint approximation and Chernoff bounds;
// riskcount.cpp: the count's search.

#include "lengths/doubles.h"
#include "lengths/overflowrisk.h"
#include "lengths/unitcircle.h"

#include <QMutex>
#include <fftw3.h>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace Headroom {

constexpr double kRound = std::numeric_limits<double>::epsilon(); // 2^-52: twice the unit round-off, for margin
// Windows h tilted standard deviations wide are tried from h = 8 up by steps of 1.5 while h < kWidest.
constexpr double kWidest = 200;
// The largest aliasing bound the inversion accepts, relative to the tail. (At 1e-6,
// which would let 3-30 sessions use windows a quarter as wide, tst_tailexact's
// random log-normal scenarios find a count two below the exact one: the bound is
// not to be loosened before that is understood.)
constexpr double kAliasShare = 1e-8;
// The longest truncation, in units of the grain, where the inversion gives up (roundedTail):
// 2^19-point FFTs, 2 MiB of values and 4 MiB of spectrum per power kept.
constexpr qint64 kRoundedLength = qint64(1) << 18;

// An out-of-place real-to-complex FFTW plan of n points (or, `backward`, the
// complex-to-real one, unnormalised), made once per size and kept for the process
// (sizes are powers of 2 from 2^8 to 2^23: 16 at most each way).
// Out of place because FFTW_ESTIMATE plans an in-place r2c three to four times
// slower (measured with FFTW 3.3.10 on Debian 12: about 8 ms against 25-35 ms
// for the 2^13, 2^14 and 2^15 points of a `levers` process against a trace),
// and a fresh process pays that planning for every size it uses. (FFTW's
// out-of-place c2r overwrites its input: callers hand it a copy.)
// FFTW's planner is not thread-safe, its execution is: plans are made under
// one lock and run with the new-array interface on fftw_alloc'd (hence equally
// aligned) arrays. The built-in wisdom (lengths/fftwisdom.h, backward up to 2^12
// points: the truncated law's products) spares the planning.
fftw_plan realPlan(int n, bool backward);
// The forward (real-to-complex) plan of n points: realPlan(n, false).
fftw_plan r2cPlan(int n);

// The smallest power of 2 of at least n and 256. Powers of 2 only: making a
// plan (even FFTW_ESTIMATE) costs more than running it, and with 3 x 2^a and
// 5 x 2^a as well a `levers` process made dozens of plans, half its time.
// Held at 2^62, past any window a caller builds (they refuse more than their
// maxPoints): a sum spanning 10^19 units doubled m past 2^63, where it wraps to 0,
// and the loop never ended.
qint64 transformSize(double n);

// Frees what fftw_alloc_real and fftw_alloc_complex gave (for std::unique_ptr).
struct FftwFree
{
    void operator()(fftw_complex *p) const { fftw_free(p); }
    void operator()(double *p) const { fftw_free(p); }
};

// The one-session law in lattice units, capped at `cap` units and tilted by
// e^{t k}, transformed on M points: Q_k = sum_x q_x e^{-2 pi i k x / M}, k = 0..M/2,
// with q the tilted law normalised to mass 1 (wrapped modulo M). Serves any N
// whose threshold s is at most `cap` (so capping leaves P(S >= s) unchanged)
// and lies in the window [lo, lo + M). (tiltedinversion.cpp)
struct OverflowRisk::Transform
{
    double t = 0;      // tilt, > 0
    qint64 fewest = 0; // the smallest N served (its threshold is the cap)
    double cap = 0;    // sizes capped at cap units
    double k0 = 0;     // K(t) = log E exp(t min(X, cap))
    double k2 = 0;     // K''(t), the tilted variance of one session, units^2
    double top = 0;    // largest capped size, units
    qint64 lo = 0;     // window start, units
    int points = 0;    // M
    // Chernoff tilts for P(S >= lo + M) and P_t(S >= s + M), with K there: [0] from the
    // reference N, [1] from the last other N whose bound at [0]'s failed (0 until then;
    // each valid for any N, tightest near its own; the bound takes the smaller).
    double tauTop[2] = {0, 0}, kTop[2] = {0, 0}, tauWrap[2] = {0, 0}, kWrap[2] = {0, 0};
    qint64 boundsFor[2] = {0, 0}; // the N of each
    double tauLow = 0, kLow = 0; // for P(S < lo): tauLow < 0, or 0 for the bound 1
    double q0 = 0;                // Q_0: the tilted law's total mass, 1 but for rounding
    std::vector<int> significant; // the k >= 1 with |Q_k|^N above the cut-off for the smallest N served
    std::vector<double> qRe, qIm; // Q_k at those k
    // How Q was computed: 0 for one FFT of M points (its round-off by Higham's 2-norm bound),
    // else a bound on |error| of each Q_k summed directly (directTransform).
    double qError = 0;
    bool aliases = false; // too narrow for the N it was made for: not transformed (no Q)
    // Made by the first inversion and kept for the next (a transform is one caller's, or
    // shared under WholeWindows' lock): at each significant k, with theta = 2 pi k / M,
    // r = e^{-t} and w_k = 2 (1 at k = M / 2), d_k = w_k / (1 - r e^{i theta}) and
    // e_k = d_k e^{i theta lo}.
    mutable Doubles dRe, dIm, eRe, eIm;
    mutable std::shared_ptr<const UnitCircle> circle; // e^{2 pi i j / M}
    // Per N inverted (the last 4), at the significant k: Q_k^N, and c_k = Q_k^N d_k at
    // the frequencies used (|Q_k|^N above the cut-off), else 0; over those,
    // a = sum_k Re(Q_k^N e_k), the sums of |Re| + |Im| of c_k, of Q_k^N e_k and of d_k,
    // and how many there are.
    struct Powers
    {
        qint64 n = 0;
        Doubles pRe, pIm, cRe, cIm;
        double a = 0, absC = 0, absE = 0, absD = 0;
        qint64 used = 0;
    };
    mutable std::vector<Powers> powers;

    // Makes d_k and e_k (above) unless made already, for r = e^{-t} and its 1 - r.
    void makeWeights(double r, double oneMinusR) const;
    // The powers of `sessions` (above), made and kept (the last 4) unless kept already: Q_k^N
    // from Q_k^{N - 1} when that is kept, else by squaring; frequencies with |Q_k|^2 <= `skip`
    // (|Q_k|^N below the cut-off) left out of the c_k and the sums.
    const Powers &powersOf(qint64 sessions, double skip) const;
    // sum_k Re(c_k e^{i theta s}) over the significant k, `sm` = s mod M, from the powers `pw`.
    double wave(const Powers &pw, qint64 sm) const;
    // Appends to the significant k (with their Q_k) those of `candidates` that may pass the
    // cut-off |Q_k|^2 > keep, each Q_k = sum_j w_j e^{-2 pi i k x_j / M} summed directly over the
    // capped sizes `xs` (units) with their tilted weights `ws`, within qError (set first, with
    // the circle of M points).
    void sumDirectly(const std::vector<double> &xs, const std::vector<double> &ws, const std::vector<int> &candidates, double keep);
};

// The law of one session in lattice units truncated to [0, L) (sizes of L units or more
// dropped: each overflows alone any threshold s <= L), and its convolution powers
// p^{*2^i}, each truncated to [0, L) again: P(S < s) for s <= L depends on nothing past L,
// so for any N the product of the powers of N's binary digits, truncated after each
// product, is the law of the sum of N sessions on [0, L), exactly. Products by FFT on M
// points, M a power of 2 of at least 2L - 1: a product of two laws on [0, L) does not wrap.
// (roundedconvolution.cpp)
struct OverflowRisk::Truncated
{
    qint64 grain = 1;  // g: sizes rounded up to multiples of g units, and counted in them
    qint64 length = 0; // L (in units of g)
    int points = 0;    // M
    struct Power
    {
        std::unique_ptr<double[], FftwFree> values;         // the L values computed
        std::unique_ptr<fftw_complex[], FftwFree> spectrum; // their transform on M points (M / 2 + 1 values)
        double l1 = 0, l2 = 0; // norms of the computed values
        double error = 0;      // a bound on their l2 distance to the exact ones
    };
    std::vector<Power> powers; // p^{*2^i} truncated, i = 0, 1, ...
    // The laws of sums of N sessions on [0, L) made last (up to 8; spectra made when needed),
    // for other budgets (the same law: only the threshold moves) and N + 1 (one product).
    std::vector<std::pair<qint64, Power>> sums;

    // p^{*1}, the first power, from the sizes above the offset in lattice units (ascending,
    // distinct) and their probabilities, rounded up to the grain; with its spectrum.
    void start(const QVector<qint64> &units, const QVector<double> &probs);
    // The powers p^{*2^i} made up to i = `top`.
    void powersUpTo(int top);
    // The law of the sum of `sessions` sessions on [0, L) (`top` its highest binary digit):
    // kept, a power, or made (and kept, the last 8).
    const Power &sumOf(qint64 sessions, int top);

private:
    // The FFT's error in the 2-norm, relative: 10 log2(M) eps (Higham 2002, Theorem 24.2, with
    // margin, as for the inversion's transform).
    double eta() const;
    // Sets p's l1 and l2 norms (their own rounding included).
    void norms(Power &p) const;
    // Sets p's spectrum: the transform of its values padded to M points.
    void transform(Power &p) const;
    // a x b truncated to [0, L), from their spectra, with its error bound.
    Power multiply(const Power &a, const Power &b) const;
};

// The transforms and truncated laws an OverflowRisk keeps for its other counts and budgets
// (shared by its copies), and the lock under which they are made and used.
struct OverflowRisk::WholeWindows
{
    QMutex mutex;
    std::vector<std::shared_ptr<Transform>> transforms;
    std::vector<std::shared_ptr<Truncated>> truncated; // the last 2 made

    // The truncated law of `grain` that serves a threshold of `s` grains, truncated to
    // `length` grains when made here (kept: the last 2); call under `mutex`.
    std::shared_ptr<Truncated> truncatedLaw(qint64 grain, qint64 s, qint64 length);
};

} // namespace Headroom
