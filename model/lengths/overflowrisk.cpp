// SPDX-License-Identifier: GPL-3.0-or-later
#include "lengths/overflowrisk.h"
#include "core/inputerror.h"
#include "lengths/fftwisdom.h"
#include "lengths/normaldistribution.h"

#include <QHash>
#include <QtAlgorithms>
#include <QMutex>
#include <fftw3.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

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

namespace {

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

// The smallest power of 2 of at least n and 256. Powers of 2 only: making a
// plan (even FFTW_ESTIMATE) costs more than running it, and with 3 x 2^a and
// 5 x 2^a as well a `levers` process made dozens of plans, half its time.
// Held at 2^62, past any window a caller builds (they refuse more than their
// maxPoints): a sum spanning 10^19 units doubled m past 2^63, where it wraps to 0,
// and the loop never ended.
qint64 transformSize(double n)
{
    qint64 m = 256;
    while (double(m) < n && m < (qint64(1) << 62))
        m <<= 1;
    return m;
}

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

// e^{2 pi i j / M} for any j, from two tables of sin and cos (j = hi x B + lo, B = 512:
// M / B coarse and B fine angles, each within an ulp), one complex product: within
// 4 eps of exact, with no drift, and no step depending on the last (so consecutive
// frequencies run in parallel, where a rotation stepped by one product per frequency
// was one long dependency chain). One table per M, made once and kept for the process
// (powers of 2 from 2^8 to 2^23: at most 16, 16 K + 512 entries at 2^23).
class UnitCircle
{
public:
    explicit UnitCircle(qint64 m)
        : m_mask(quint64(m - 1))
    {
        const qint64 coarse = std::max<qint64>(1, m / qint64(kFine));
        m_coarse.resize(size_t(2 * coarse));
        m_fine.resize(size_t(2 * kFine));
        for (qint64 j = 0; j < coarse; ++j) {
            const double a = 2.0 * M_PI * double(j * qint64(kFine)) / double(m);
            m_coarse[size_t(2 * j)] = std::cos(a);
            m_coarse[size_t(2 * j + 1)] = std::sin(a);
        }
        for (qint64 j = 0; j < qint64(kFine); ++j) {
            const double a = 2.0 * M_PI * double(j) / double(m);
            m_fine[size_t(2 * j)] = std::cos(a);
            m_fine[size_t(2 * j + 1)] = std::sin(a);
        }
    }
    /// cos and sin of 2 pi j / M (j >= 0, any size: taken modulo M).
    void at(qint64 j, double &c, double &s) const
    {
        const quint64 u = quint64(j) & m_mask;
        const double *h = &m_coarse[size_t(2 * (u / kFine))], *l = &m_fine[size_t(2 * (u % kFine))];
        c = h[0] * l[0] - h[1] * l[1];
        s = h[0] * l[1] + h[1] * l[0];
    }
    /// The table of M points, made on first use.
    static std::shared_ptr<const UnitCircle> of(qint64 m)
    {
        static QMutex mutex;
        static QHash<qint64, std::shared_ptr<const UnitCircle>> circles;
        QMutexLocker lock(&mutex);
        auto &circle = circles[m];
        if (!circle)
            circle = std::make_shared<const UnitCircle>(m);
        return circle;
    }

private:
    static constexpr quint64 kFine = 512;
    quint64 m_mask;
    std::vector<double> m_coarse, m_fine; // cos, sin interleaved
};

} // namespace

// Doubles left unset until written, for arrays every element of which is written before it
// is read: std::vector's resize sets each to 0 first, which was 10-15% of an inversion's
// instructions at 4,000 frequencies (callgrind, bench_risk).
class Doubles
{
public:
    Doubles() = default;
    Doubles(Doubles &&) = default;
    Doubles &operator=(Doubles &&) = default;
    Doubles(const Doubles &other) { *this = other; }
    Doubles &operator=(const Doubles &other)
    {
        if (this != &other) {
            resize(other.m_size);
            std::copy(other.m_data.get(), other.m_data.get() + other.m_size, m_data.get());
        }
        return *this;
    }
    /// n elements, their values unset (the old ones dropped) unless n is the size already.
    void resize(size_t n)
    {
        if (n != m_size) {
            m_data.reset(new double[n]);
            m_size = n;
        }
    }
    size_t size() const { return m_size; }
    double &operator[](size_t i) { return m_data[i]; }
    const double &operator[](size_t i) const { return m_data[i]; }

private:
    std::unique_ptr<double[]> m_data;
    size_t m_size = 0;
};

// The one-session law in lattice units, capped at `cap` units and tilted by
// e^{t k}, transformed on M points: Q_k = sum_x q_x e^{-2 pi i k x / M}, k = 0..M/2,
// with q the tilted law normalised to mass 1 (wrapped modulo M). Serves any N
// whose threshold s is at most `cap` (so capping leaves P(S >= s) unchanged)
// and lies in the window [lo, lo + M).
struct OverflowRisk::Transform
{
    struct Free
    {
        void operator()(fftw_complex *p) const { fftw_free(p); }
        void operator()(double *p) const { fftw_free(p); }
    };
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
};

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

namespace {

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

} // namespace

// The law of one session in lattice units truncated to [0, L) (sizes of L units or more
// dropped: each overflows alone any threshold s <= L), and its convolution powers
// p^{*2^i}, each truncated to [0, L) again: P(S < s) for s <= L depends on nothing past L,
// so for any N the product of the powers of N's binary digits, truncated after each
// product, is the law of the sum of N sessions on [0, L), exactly. Products by FFT on M
// points, M a power of 2 of at least 2L - 1: a product of two laws on [0, L) does not wrap.
struct OverflowRisk::Truncated
{
    qint64 grain = 1;  // g: sizes rounded up to multiples of g units, and counted in them
    qint64 length = 0; // L (in units of g)
    int points = 0;    // M
    struct Power
    {
        std::unique_ptr<double[], Transform::Free> values;         // the L values computed
        std::unique_ptr<fftw_complex[], Transform::Free> spectrum; // their transform on M points (M / 2 + 1 values)
        double l1 = 0, l2 = 0; // norms of the computed values
        double error = 0;      // a bound on their l2 distance to the exact ones
    };
    std::vector<Power> powers; // p^{*2^i} truncated, i = 0, 1, ...
    // The laws of sums of N sessions on [0, L) made last (up to 8; spectra made when needed),
    // for other budgets (the same law: only the threshold moves) and N + 1 (one product).
    std::vector<std::pair<qint64, Power>> sums;
};

struct OverflowRisk::WholeWindows
{
    QMutex mutex;
    std::vector<std::shared_ptr<Transform>> transforms;
    std::vector<std::shared_ptr<Truncated>> truncated; // the last 2 made
};

std::optional<BoundedTail> OverflowRisk::truncatedTail(qint64 sessions, qint64 s, qint64 length, qint64 grain) const
{
    if (sessions < 1 || s < 1 || length < s || grain < 1)
        return std::nullopt;
    // In units of g: ceil(s / g) and ceil(length / g) (S >= s implies ceil-rounded S >= ceil(s / g)).
    s = (s - 1) / grain + 1;
    length = (length - 1) / grain + 1;
    std::shared_ptr<Truncated> law;
    const qint64 points = transformSize(2.0 * double(length) - 1.0);
    for (const std::shared_ptr<Truncated> &kept : m_whole->truncated)
        if (kept->grain == grain && kept->length >= s && kept->points <= points)
            law = kept;
    if (!law) {
        law = std::make_shared<Truncated>();
        law->grain = grain;
        law->length = length;
        law->points = int(points);
        if (m_whole->truncated.size() >= 2)
            m_whole->truncated.erase(m_whole->truncated.begin());
        m_whole->truncated.push_back(law);
    }
    const int m = law->points;
    const qint64 l = law->length;
    using Power = Truncated::Power;
    // The FFT's error in the 2-norm, relative: 10 log2(M) eps (Higham 2002, Theorem 24.2, with
    // margin, as for the inversion's transform).
    const double eta = 10.0 * std::log2(double(m)) * kRound;
    const auto norms = [&](Power &p) {
        p.l1 = p.l2 = 0;
        for (qint64 v = 0; v < l; ++v) {
            p.l1 += std::abs(p.values[v]);
            p.l2 += p.values[v] * p.values[v];
        }
        p.l1 *= 1.0 + double(l) * kRound; // the sums' own rounding
        p.l2 = std::sqrt(p.l2 * (1.0 + double(l) * kRound)) * (1.0 + kRound);
    };
    const auto transform = [&](Power &p) {
        const std::unique_ptr<double[], Transform::Free> in(fftw_alloc_real(size_t(m)));
        std::copy(p.values.get(), p.values.get() + l, in.get());
        std::fill(in.get() + l, in.get() + m, 0.0);
        p.spectrum.reset(fftw_alloc_complex(size_t(m / 2 + 1)));
        fftw_execute_dft_r2c(realPlan(m, false), in.get(), p.spectrum.get());
    };
    // a x b truncated to [0, L), from their spectra. Its error: the inputs' errors carried
    // (||a* b* - a b||_2 <= E(a) |b|_1 + |a*|_1 E(b), Young's inequality) plus the
    // product's own round-off. That, with the forward transforms within eta ||X||_2, the
    // complex products within 3 eps, and the backward transform within eta (all in the
    // 2-norm, ||X||_2 = sqrt(M) ||x||_2, |X|_max <= |x|_1): at most
    // 2 eta |a|_2 |b|_1 + (eta + 3 eps) |a|_1 |b|_2, taken as 1.01 (3 eta + 3 eps) x the larger product of norms.
    const auto multiply = [&](const Power &a, const Power &b) {
        Power c;
        const std::unique_ptr<fftw_complex[], Transform::Free> z(fftw_alloc_complex(size_t(m / 2 + 1)));
        for (int k = 0; k <= m / 2; ++k) {
            z[k][0] = a.spectrum[k][0] * b.spectrum[k][0] - a.spectrum[k][1] * b.spectrum[k][1];
            z[k][1] = a.spectrum[k][0] * b.spectrum[k][1] + a.spectrum[k][1] * b.spectrum[k][0];
        }
        const std::unique_ptr<double[], Transform::Free> w(fftw_alloc_real(size_t(m)));
        fftw_execute_dft_c2r(realPlan(m, true), z.get(), w.get());
        c.values.reset(fftw_alloc_real(size_t(l)));
        for (qint64 v = 0; v < l; ++v)
            c.values[v] = w[v] / double(m); // M a power of 2: exact
        norms(c);
        const double exactA = a.l1 + std::sqrt(double(l)) * a.error; // |a*|_1
        const double own = 1.01 * (3.0 * eta + 3.0 * kRound) * std::max(a.l2 * b.l1, a.l1 * b.l2);
        c.error = (a.error * b.l1 + exactA * b.error + own) * (1.0 + 4.0 * kRound);
        return c;
    };
    if (law->powers.empty()) {
        Power p;
        p.values.reset(fftw_alloc_real(size_t(l)));
        std::fill(p.values.get(), p.values.get() + l, 0.0);
        // Sizes are distinct: exact, for g = 1. Rounded up, at most g sizes merge into one
        // value: each within g eps of it, relatively, so within g eps |p|_2 in the 2-norm.
        const auto up = [grain](qint64 u) { return u == 0 ? 0 : (u - 1) / grain + 1; };
        for (int j = 0; j < m_units.size() && up(m_units.at(j)) < l; ++j)
            p.values[up(m_units.at(j))] += m_probs.at(j);
        norms(p);
        if (grain > 1)
            p.error = double(grain) * kRound * p.l2;
        transform(p);
        law->powers.push_back(std::move(p));
    }
    int top = 0;
    while (top < 62 && (sessions >> (top + 1)) > 0)
        ++top;
    while (int(law->powers.size()) <= top) {
        Power next = multiply(law->powers.back(), law->powers.back());
        transform(next);
        law->powers.push_back(std::move(next));
    }
    // N sessions' law: kept; else a kept M < N sessions' times the powers of N - M's binary
    // digits, where that takes fewer products than N's own digits (N - 1's: one; a count
    // bisected between kept ones: a few, where N's digits took up to 9 at 2^19 points); else
    // the product over N's binary digits, the lowest first. Costs in half products: a product
    // is two FFTs, a kept law without its spectrum needs one more.
    const auto kept = [&](qint64 n) {
        const auto it = std::find_if(law->sums.begin(), law->sums.end(), [&](const auto &x) { return x.first == n; });
        return it != law->sums.end() ? &it->second : nullptr;
    };
    const Power *sum = kept(sessions);
    if (!sum && (sessions & (sessions - 1)) == 0) {
        sum = &law->powers[size_t(top)];
    } else if (!sum) {
        Power *start = nullptr;
        qint64 rest = sessions;
        int cost = 2 * (qPopulationCount(quint64(sessions)) - 1);
        for (auto &[n, p] : law->sums) {
            const int c = 2 * qPopulationCount(quint64(sessions - n)) + (p.spectrum ? 0 : 1);
            if (n < sessions && c < cost) {
                start = &p;
                rest = sessions - n;
                cost = c;
            }
        }
        if (start && !start->spectrum)
            transform(*start);
        Power product;
        const Power *factor = start;
        for (int i = 0; i <= top; ++i) {
            if (((rest >> i) & 1) == 0)
                continue;
            if (!factor) {
                factor = &law->powers[size_t(i)];
                continue;
            }
            if (factor == &product)
                transform(product);
            product = multiply(*factor, law->powers[size_t(i)]);
            factor = &product;
        }
        if (law->sums.size() >= 8)
            law->sums.erase(law->sums.begin());
        law->sums.emplace_back(sessions, std::move(product));
        sum = &law->sums.back().second;
    }
    // P(S >= s) = 1 - P(S < s), the sum compensated (Neumaier's: within (2u + 2 s u^2) |w|_1 with
    // u = eps / 2, Higham 2002, section 4.3; taken as 3 eps + s eps^2 with the final 1 - below),
    // where a plain sum's s eps |w|_1 was 1e-10 at 2^19 values; |sum of errors| <= sqrt(s) E
    // (Cauchy-Schwarz); the law's mass, 1 but for its rounding, N (|1 - mass| + sizes eps) at most.
    double below = 0, carry = 0, mass = 0;
    for (qint64 v = 0; v < s; ++v) {
        const double x = sum->values[v], next = below + x;
        carry += std::abs(below) >= std::abs(x) ? (below - next) + x : (x - next) + below;
        below = next;
    }
    below += carry;
    for (double p : m_probs)
        mass += p;
    const double error = std::sqrt(double(s)) * sum->error + (3.0 + double(s) * kRound) * kRound * sum->l1
        + double(sessions) * (std::abs(1.0 - mass) + double(m_probs.size() + 2) * kRound);
    return BoundedTail{std::clamp(1.0 - below, 0.0, 1.0), error};
}

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
    const int m = tr.points;
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
    if (directTransform(tr, keep))
        return tr;
    // The tilted law p_j e^{t k_j - K(t)}, mass 1, wrapped modulo M, transformed in place.
    const std::unique_ptr<fftw_complex[], Transform::Free> q(fftw_alloc_complex(size_t(m / 2 + 1)));
    const std::unique_ptr<double[], Transform::Free> in(fftw_alloc_real(size_t(m)));
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
    return tr;
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
    std::vector<double> xs, ws;
    xs.reserve(size_t(m_units.size()));
    ws.reserve(size_t(m_units.size()));
    double mass = 0, first = 0;
    for (int j = 0; j < m_units.size(); ++j) {
        const double x = std::min(double(m_units.at(j)), tr.cap);
        const double w = m_probs.at(j) * std::exp(tr.t * x - tr.k0);
        xs.push_back(x);
        ws.push_back(w);
        mass += w;
        first += w * x;
    }
    const double mean = first / mass;
    double v = 0;
    for (size_t j = 0; j < xs.size(); ++j)
        v += ws[j] * (xs[j] - mean) * (xs[j] - mean);
    // V with a margin far above its rounding (sums of non-negative terms, relative error < sizes x eps).
    v = v / mass * (1.0 + 1e-6) + 1e-12;
    // Summing directly costs about 8 instructions per size and candidate; the FFT about 3 M log2 M.
    const auto cheaper = [&](double candidates) { return candidates * double(xs.size()) * 8.0 <= 3.0 * double(m) * std::log2(double(m)); };
    // f(theta) <= V theta^2 (1 - cos x <= x^2 / 2): every k below M sqrt(need / V) / (2 pi) is a candidate.
    const qint64 p = transformSize(2.0 * M_PI * std::sqrt(v / need));
    if (p > m / 4 || !cheaper(double(m) * std::sqrt(need / v) / (2.0 * M_PI)))
        return false; // no cheaper than the FFT of M points
    const std::unique_ptr<fftw_complex[], Transform::Free> grid(fftw_alloc_complex(size_t(p / 2 + 1)));
    const std::unique_ptr<double[], Transform::Free> in(fftw_alloc_real(size_t(p)));
    std::fill(in.get(), in.get() + p, 0.0);
    double norm2 = 0;
    for (size_t j = 0; j < xs.size(); ++j) {
        in[qint64(xs[j]) % p] += ws[j];
        norm2 += ws[j] * ws[j];
    }
    fftw_execute_dft_r2c(r2cPlan(int(p)), in.get(), grid.get());
    // Each grid value within 10 log2(P) eps ||Q||_2 of the exact (Higham 2002, Theorem 24.2, with
    // margin), ||Q||_2 = sqrt(P) ||in||_2, the input's own rounding (sizes x eps x mass) added.
    const double gridError = 10.0 * std::log2(double(p)) * kRound * std::sqrt(double(p) * norm2) + double(xs.size() + 2) * kRound * mass;
    const double m2 = mass * mass;
    // f at the grid points, less the bound on its rounding: f_i = 1 - |Q_i|^2 / mass^2.
    std::vector<double> f(size_t(p / 2 + 1));
    for (qint64 i = 0; i <= p / 2; ++i) {
        // (|Q_i| <= mass <= 1 + 1e-9: no overflow; the square root's rounding is in the margin.)
        const double a = std::sqrt(grid[i][0] * grid[i][0] + grid[i][1] * grid[i][1]) * (1.0 + 4.0 * kRound);
        f[size_t(i)] = 1.0 - (a + gridError) * (a + gridError) / m2 - 4.0 * kRound;
    }
    const double w = 2.0 * M_PI / double(p);
    const double bend = v * w * w / 4.0 + 4.0 * kRound;
    const qint64 per = m / p; // frequencies k of M per grid interval
    // |Q_k|^2 <= mass^2 (1 - f): left out when that is at most keep.
    const double ceiling = 1.0 - keep / m2;
    std::vector<int> candidates;
    for (qint64 i = 0; i < p / 2; ++i) {
        if (std::min(f[size_t(i)], f[size_t(i + 1)]) - bend >= ceiling)
            continue;
        for (qint64 k = std::max<qint64>(1, i * per); k < (i + 1) * per; ++k)
            candidates.push_back(int(k));
        if (!cheaper(double(candidates.size())))
            return false;
    }
    if (f[size_t(p / 2)] < ceiling)
        candidates.push_back(m / 2); // theta = pi: a grid point
    if (!cheaper(double(candidates.size())))
        return false;
    // Q_k = sum_j w_j e^{-2 pi i k x_j / M}: for each run of up to 32 consecutive
    // candidates, e^{-2 pi i k0 x_j / M} from the unit circle's tables (the index
    // reduced modulo M exactly, in integers), then one product by e^{-2 pi i x_j / M}
    // per step. Each term within 1,000 eps of exact (the tables within 4 eps, 31
    // steps of a rotation within 17 eps), the sum's rounding within sizes x eps of
    // the sum of |terms| (mass).
    tr.qError = (1000.0 + double(xs.size())) * kRound * mass;
    tr.q0 = mass;
    tr.significant.reserve(candidates.size());
    tr.circle = UnitCircle::of(m);
    const UnitCircle &circle = *tr.circle;
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
        const qint64 k0 = candidates[c];
        std::fill(re.begin(), re.end(), 0.0);
        std::fill(im.begin(), im.end(), 0.0);
        for (size_t j = 0; j < xs.size(); ++j) {
            double zc = 1, zs = 0;
            circle.at(k0 * wrapped[j], zc, zs); // k0, wrapped[j] < M <= 2^23: no overflow
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
            const double a = std::sqrt(re[r] * re[r] + im[r] * im[r]) * (1.0 + 4.0 * kRound) + tr.qError;
            if (a * a > keep) {
                tr.significant.push_back(candidates[c + r]);
                tr.qRe.push_back(re[r]);
                tr.qIm.push_back(im[r]);
            }
        }
        c += run;
    }
    return true;
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
    const size_t count = tr.significant.size();
    if (!tr.circle)
        tr.circle = UnitCircle::of(m);
    const UnitCircle &circle = *tr.circle;
    if (tr.dRe.size() != count) {
        // g_k = e^{i theta s} (1 - r^L e^{i theta L}) / (1 - r e^{i theta}) = (e^{i theta s} - r^L e^{i theta lo}) d_k / w_k,
        // as theta (s + L) = theta (lo + M) and theta M = 2 pi k.
        tr.dRe.resize(count), tr.dIm.resize(count), tr.eRe.resize(count), tr.eIm.resize(count);
        const qint64 lo = tr.lo % m;
        for (size_t i = 0; i < count; ++i) {
            const qint64 k = tr.significant[i];
            double c = 1, sn = 0, lc = 1, ls = 0;
            circle.at(k, c, sn);
            circle.at(k * lo, lc, ls);
            // 1 - r e^{i theta} = (1 - r) + r (1 - cos theta) - i r sin theta; 1 - cos theta
            // without cancellation: sin^2 / (1 + cos) when cos > 0.
            const double versine = c > 0 ? sn * sn / (1.0 + c) : 1.0 - c;
            const double dr = oneMinusR + r * versine, di = -r * sn;
            const double weight = k == m / 2 ? 1.0 : 2.0;
            const double inv = weight / (dr * dr + di * di);
            tr.dRe[i] = dr * inv;
            tr.dIm[i] = -di * inv;
            tr.eRe[i] = lc * tr.dRe[i] - ls * tr.dIm[i];
            tr.eIm[i] = lc * tr.dIm[i] + ls * tr.dRe[i];
        }
    }
    // Q_k^N: one product from Q_k^{N - 1} when that is kept, else by squaring.
    auto found = std::find_if(tr.powers.begin(), tr.powers.end(), [&](const Transform::Powers &x) { return x.n == sessions; });
    if (found == tr.powers.end()) {
        const auto before = std::find_if(tr.powers.begin(), tr.powers.end(), [&](const Transform::Powers &x) { return x.n == sessions - 1; });
        const Transform::Powers *last = before != tr.powers.end() ? &*before : nullptr;
        Transform::Powers w;
        w.n = sessions;
        w.pRe.resize(count), w.pIm.resize(count), w.cRe.resize(count), w.cIm.resize(count);
        for (size_t i = 0; i < count; ++i) {
            const double qr = tr.qRe[i], qi = tr.qIm[i];
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
            w.cRe[i] = pr * tr.dRe[i] - pi * tr.dIm[i];
            w.cIm[i] = pr * tr.dIm[i] + pi * tr.dRe[i];
            const double er = pr * tr.eRe[i] - pi * tr.eIm[i], ei = pr * tr.eIm[i] + pi * tr.eRe[i];
            w.a += er;
            w.absC += std::abs(w.cRe[i]) + std::abs(w.cIm[i]);
            w.absE += std::abs(er) + std::abs(ei);
            w.absD += std::abs(tr.dRe[i]) + std::abs(tr.dIm[i]);
            ++w.used;
        }
        if (tr.powers.size() >= 4)
            tr.powers.erase(tr.powers.begin());
        tr.powers.push_back(std::move(w));
        found = tr.powers.end() - 1;
    }
    const Transform::Powers &pw = *found;
    // sum_k Re(w_k Q_k^N g_k) = sum_k Re(c_k e^{i theta s}) - r^L a, e^{i theta s} from the
    // unit circle's tables (two sums, even and odd terms, so that they run in parallel).
    double wave = 0, waveOdd = 0;
    for (size_t i = 0; i + 1 < count; i += 2) {
        double c = 1, sn = 0, c2 = 1, s2 = 0;
        circle.at(qint64(tr.significant[i]) * sm, c, sn);
        circle.at(qint64(tr.significant[i + 1]) * sm, c2, s2);
        wave += pw.cRe[i] * c - pw.cIm[i] * sn;
        waveOdd += pw.cRe[i + 1] * c2 - pw.cIm[i + 1] * s2;
    }
    if (count % 2 == 1) {
        double c = 1, sn = 0;
        circle.at(qint64(tr.significant[count - 1]) * sm, c, sn);
        wave += pw.cRe[count - 1] * c - pw.cIm[count - 1] * sn;
    }
    wave += waveOdd;
    sum += wave - rL * pw.a;
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

std::optional<BoundedTail> OverflowRisk::tail(qint64 sessions, qint64 budget, std::shared_ptr<Transform> &transform,
                                              RiskCount::Method &method, qint64 maxPoints, bool convolution, double tolerance) const
{
    const qint64 s = threshold(sessions, budget);
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

std::optional<BoundedTail> OverflowRisk::roundedTail(qint64 sessions, qint64 budget, qint64 &grain) const
{
    const qint64 s = threshold(sessions, budget);
    const qint64 length = threshold(std::max<qint64>(1, sessions - 2), budget);
    grain = std::max<qint64>(1, (length - 1) / kRoundedLength + 1);
    QMutexLocker lock(&m_whole->mutex);
    return truncatedTail(sessions, s, length, grain);
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

RiskCount OverflowRisk::sessionsAtRisk(qint64 budget, double eps) const
{
    RiskCount count;
    if (budget <= 0)
        return count; // not even one session: 1 > budget, overflow is certain
    // Every count up to the worst case is safe (its tail is 0); past
    // budget / smallest session overflow is certain.
    const qint64 worst = sessionsWorstCase(budget);
    const qint64 most = budget / m_offset;
    // Bracket with the saddlepoint (microseconds per step): secant steps on
    // log P(N) - log eps from the normal approximation's count, kept inside the
    // bracket [a, b] with P(a) <= eps < P(b). While an end of the bracket is
    // still its initial bound (or P underflows to 0), steps gallop from the last
    // count (doubling) instead of halving the whole bracket; once both ends are
    // evaluated, a stalled secant halves the bracket.
    qint64 a = worst, b = most + 1;
    double fa = -INFINITY, fb = INFINITY;
    const double z = -Normal::quantile(eps);
    const double sd = std::sqrt(m_varBytes);
    qint64 g = qint64(std::floor(std::pow((-z * sd + std::sqrt(z * z * m_varBytes + 4.0 * m_meanBytes * double(budget))) / (2.0 * m_meanBytes), 2)));
    qint64 previous = -1;
    double fPrevious = 0;
    double gallop = std::max(1.0, std::ceil(z * sd / m_meanBytes * std::sqrt(std::max(1.0, double(g))) / 8.0));
    int stalls = 0;
    // Each saddlepoint from the last one's tilt (the counts tried are near each other).
    double tilt = std::numeric_limits<double>::quiet_NaN();
    for (int i = 0; b - a > 1 && i < 100; ++i) {
        g = std::clamp(g, a + 1, b - 1);
        Tilt used;
        const double p = saddlepointOverflow(g, budget, tilt, true, used);
        if (used.t != 0)
            tilt = used.t;
        const double f = p > 0 ? std::log(p) - std::log(eps) : -INFINITY;
        const qint64 width = b - a;
        if (p <= eps) {
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
                next = p <= eps ? double(g) + gallop : double(g) - gallop;
                gallop *= 2;
            }
        } else if (stalls >= 2) {
            next = double(a) + 0.5 * double(b - a);
        }
        // Round towards the boundary's other side so the bracket closes on both ends.
        g = p <= eps ? qint64(std::ceil(next)) : qint64(std::floor(next));
    }
    const qint64 lo = a;
    // ... then settle it with the exact tails at the boundary: N is kept only
    // when P(N) + its error bound <= eps, N + 1 refused when P(N + 1) > eps or
    // within its error bound of it (so the count is never above the exact one).
    std::shared_ptr<Transform> transform;
    const qint64 maxPoints = qint64(1) << 23;
    auto weaker = [](RiskCount::Method x, RiskCount::Method y) { return std::max(x, y); };
    struct Tail
    {
        BoundedTail tail;
        RiskCount::Method method;
        bool safe;
        qint64 grain; // RoundedConvolution's, in units
    };
    // The fewest sessions the inversion refused (its windows widen with N): larger counts skip it,
    // where each refusal cost transforms of up to 2^23 points (40% of a heavy tail's count).
    qint64 refused = std::numeric_limits<qint64>::max();
    auto evaluate = [&](qint64 n) {
        Tail e{};
        std::optional<BoundedTail> exact;
        // The truncated powers' bound (about 3e-12 for 3-12 sessions) taken up to 1e-5 of the risk.
        if (n < refused && (exact = tail(n, budget, transform, e.method, maxPoints, true, 1e-5 * eps))) {
            e.tail = *exact;
        } else if (const auto known = trivial(n, threshold(n, budget))) {
            e.tail = BoundedTail{*known, 0.0};
            e.method = RiskCount::Method::ClosedForm;
        } else {
            refused = std::min(refused, n);
            // Past the largest transform: upper bounds ("safe" is certain, "unsafe" is not), the
            // smaller of the rounded sizes' convolution and the Chernoff bound exp(N K(t) - t s)
            // at the saddlepoint.
            const qint64 s = threshold(n, budget);
            const Tilt at = saddlepoint(double(s) / double(n), double(s), std::numeric_limits<double>::quiet_NaN(), n);
            const double t = std::max(0.0, at.t);
            double k0 = at.k0, k1 = 0, k2 = 0;
            if (t != at.t)
                cumulants(t, double(s), k0, k1, k2);
            e.method = RiskCount::Method::ChernoffBound;
            e.tail = BoundedTail{std::min(1.0, std::exp(double(n) * k0 - t * double(s))), 0.0};
            if (const auto r = roundedTail(n, budget, e.grain); r && r->value + r->error < e.tail.value) {
                e.tail = *r;
                e.method = e.grain > 1 ? RiskCount::Method::RoundedConvolution : RiskCount::Method::Convolution;
            }
        }
        e.safe = e.tail.value + e.tail.error <= eps;
        return e;
    };
    // Usually the bracket's count or one of its neighbours; else gallop to a safe count below
    // and an unsafe one above, and bisect between them. Upwards, steps follow the secant of
    // log P through the last two safe counts (where the saddlepoint's bracket is far off:
    // 697 for 913 sessions of a heavy tail), doubling where it predicts nothing; the bisection
    // tries the secant's count through the bracket's ends every other step, the middle between.
    const auto logTail = [](const Tail &e) { return e.tail.value > 0 ? std::log(e.tail.value) : -INFINITY; };
    qint64 good = lo, bad = lo + 1;
    Tail atGood = evaluate(good);
    for (qint64 step = 1; !atGood.safe; step *= 2) {
        bad = good;
        good = std::max(worst, good - step);
        atGood = evaluate(good);
    }
    Tail atBad = evaluate(bad);
    for (qint64 step = 1; atBad.safe; step *= 2) {
        const double slope = (logTail(atBad) - logTail(atGood)) / double(bad - good);
        const double ahead = (std::log(eps) - logTail(atBad)) / slope;
        const qint64 next = std::isfinite(ahead) && ahead > 0 && ahead < double(most) ? bad + 1 + qint64(1.05 * ahead) : bad + step;
        good = bad;
        atGood = atBad;
        bad = std::min(most + 1, next);
        atBad = evaluate(bad);
    }
    for (int i = 0; bad - good > 1; ++i) {
        qint64 mid = good + (bad - good) / 2;
        const double guess = double(good) + (std::log(eps) - logTail(atGood)) * double(bad - good) / (logTail(atBad) - logTail(atGood));
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
    count.sessions = n;
    count.method = weaker(at.method, above.method);
    count.tailAt = at.tail.value;
    count.tailAbove = above.tail.value;
    count.errorBound = std::max(at.tail.error, above.tail.error);
    if (count.method == RiskCount::Method::RoundedConvolution)
        count.roundingBytes = m_unit * std::max(at.method == count.method ? at.grain : 1, above.method == count.method ? above.grain : 1);
    return count;
}

} // namespace Headroom
