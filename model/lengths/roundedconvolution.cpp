// SPDX-License-Identifier: GPL-3.0-or-later
// OverflowRisk's truncated convolution powers, and past the inversion's largest transform
// the rounded convolution: P(S >= s) for S the sum of N sessions' lattice sizes. The
// one-session law is truncated to [0, L) units (L >= s: a session of L units or more
// overflows alone) and its powers p^{*2^i} made by FFT on 2^k >= 2L - 1 points (no
// wrap-around), each truncated to [0, L) again; their product over N's binary digits,
// truncated after each product, is the law of the sum on [0, L) exactly. With a grain
// g > 1 every size is rounded up to a multiple of g units first: the tail is then an upper
// bound (g ceil(x / g) >= x), and N sessions add at most N (g - 1) units by the rounding.
// Source: the FFT's round-off by Higham, Accuracy and Stability of Numerical Algorithms,
// 2nd ed., 2002, Theorem 24.2 (10 log2(M) eps, relative, in the 2-norm), carried through each
// product by Young's inequality; the final sum compensated (Neumaier's, Higham section 4.3).
// Error bound (truncatedTail): |value - exact| <= sqrt(s) E + (3 + s eps) eps |w|_1
// + N (|1 - mass| + (sizes + 2) eps), E the 2-norm bound carried through the products, |w|_1
// the sum's law's 1-norm: about 3e-12 for 3-12 sessions. With g > 1, "exact" is the rounded
// sizes' tail, itself at least the true one.
#include "lengths/overflowrisk_p.h"

#include <QMutexLocker>
#include <QtAlgorithms>
#include <algorithm>
#include <cmath>
#include <memory>

namespace Headroom {

std::optional<BoundedTail> OverflowRisk::truncatedTail(qint64 sessions, qint64 s, qint64 length, qint64 grain) const
{
    if (sessions < 1 || s < 1 || length < s || grain < 1)
        return std::nullopt;
    // In units of g: ceil(s / g) and ceil(length / g) (S >= s implies ceil-rounded S >= ceil(s / g)).
    s = (s - 1) / grain + 1;
    length = (length - 1) / grain + 1;
    const std::shared_ptr<Truncated> law = m_whole->truncatedLaw(grain, s, length);
    if (law->powers.empty())
        law->start(m_units, m_probs);
    int top = 0;
    while (top < 62 && (sessions >> (top + 1)) > 0)
        ++top;
    law->powersUpTo(top);
    const Truncated::Power *sum = &law->sumOf(sessions, top);
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

std::optional<BoundedTail> OverflowRisk::roundedTail(qint64 sessions, qint64 budget, qint64 &grain) const
{
    const qint64 s = threshold(sessions, budget);
    const qint64 length = threshold(std::max<qint64>(1, sessions - 2), budget);
    grain = std::max<qint64>(1, (length - 1) / kRoundedLength + 1);
    QMutexLocker lock(&m_whole->mutex);
    return truncatedTail(sessions, s, length, grain);
}

std::shared_ptr<OverflowRisk::Truncated> OverflowRisk::WholeWindows::truncatedLaw(qint64 grain, qint64 s, qint64 length)
{
    std::shared_ptr<Truncated> law;
    const qint64 points = transformSize(2.0 * double(length) - 1.0);
    for (const std::shared_ptr<Truncated> &kept : truncated)
        if (kept->grain == grain && kept->length >= s && kept->points <= points)
            law = kept;
    if (!law) {
        law = std::make_shared<Truncated>();
        law->grain = grain;
        law->length = length;
        law->points = int(points);
        if (truncated.size() >= 2)
            truncated.erase(truncated.begin());
        truncated.push_back(law);
    }
    return law;
}

double OverflowRisk::Truncated::eta() const
{
    return 10.0 * std::log2(double(points)) * kRound;
}

void OverflowRisk::Truncated::norms(Power &p) const
{
    const qint64 l = length;
    p.l1 = p.l2 = 0;
    for (qint64 v = 0; v < l; ++v) {
        p.l1 += std::abs(p.values[v]);
        p.l2 += p.values[v] * p.values[v];
    }
    p.l1 *= 1.0 + double(l) * kRound; // the sums' own rounding
    p.l2 = std::sqrt(p.l2 * (1.0 + double(l) * kRound)) * (1.0 + kRound);
}

void OverflowRisk::Truncated::transform(Power &p) const
{
    const int m = points;
    const qint64 l = length;
    const std::unique_ptr<double[], FftwFree> in(fftw_alloc_real(size_t(m)));
    std::copy(p.values.get(), p.values.get() + l, in.get());
    std::fill(in.get() + l, in.get() + m, 0.0);
    p.spectrum.reset(fftw_alloc_complex(size_t(m / 2 + 1)));
    fftw_execute_dft_r2c(realPlan(m, false), in.get(), p.spectrum.get());
}

// a x b truncated to [0, L), from their spectra. Its error: the inputs' errors carried
// (||a* b* - a b||_2 <= E(a) |b|_1 + |a*|_1 E(b), Young's inequality) plus the
// product's own round-off. That, with the forward transforms within eta ||X||_2, the
// complex products within 3 eps, and the backward transform within eta (all in the
// 2-norm, ||X||_2 = sqrt(M) ||x||_2, |X|_max <= |x|_1): at most
// 2 eta |a|_2 |b|_1 + (eta + 3 eps) |a|_1 |b|_2, taken as 1.01 (3 eta + 3 eps) x the larger product of norms.
OverflowRisk::Truncated::Power OverflowRisk::Truncated::multiply(const Power &a, const Power &b) const
{
    const int m = points;
    const qint64 l = length;
    const double eta = this->eta();
    Power c;
    const std::unique_ptr<fftw_complex[], FftwFree> z(fftw_alloc_complex(size_t(m / 2 + 1)));
    for (int k = 0; k <= m / 2; ++k) {
        z[k][0] = a.spectrum[k][0] * b.spectrum[k][0] - a.spectrum[k][1] * b.spectrum[k][1];
        z[k][1] = a.spectrum[k][0] * b.spectrum[k][1] + a.spectrum[k][1] * b.spectrum[k][0];
    }
    const std::unique_ptr<double[], FftwFree> w(fftw_alloc_real(size_t(m)));
    fftw_execute_dft_c2r(realPlan(m, true), z.get(), w.get());
    c.values.reset(fftw_alloc_real(size_t(l)));
    for (qint64 v = 0; v < l; ++v)
        c.values[v] = w[v] / double(m); // M a power of 2: exact
    norms(c);
    const double exactA = a.l1 + std::sqrt(double(l)) * a.error; // |a*|_1
    const double own = 1.01 * (3.0 * eta + 3.0 * kRound) * std::max(a.l2 * b.l1, a.l1 * b.l2);
    c.error = (a.error * b.l1 + exactA * b.error + own) * (1.0 + 4.0 * kRound);
    return c;
}

void OverflowRisk::Truncated::start(const QVector<qint64> &units, const QVector<double> &probs)
{
    const qint64 l = length;
    Power p;
    p.values.reset(fftw_alloc_real(size_t(l)));
    std::fill(p.values.get(), p.values.get() + l, 0.0);
    // Sizes are distinct: exact, for g = 1. Rounded up, at most g sizes merge into one
    // value: each within g eps of it, relatively, so within g eps |p|_2 in the 2-norm.
    const auto up = [g = grain](qint64 u) { return u == 0 ? 0 : (u - 1) / g + 1; };
    for (int j = 0; j < units.size() && up(units.at(j)) < l; ++j)
        p.values[up(units.at(j))] += probs.at(j);
    norms(p);
    if (grain > 1)
        p.error = double(grain) * kRound * p.l2;
    transform(p);
    powers.push_back(std::move(p));
}

void OverflowRisk::Truncated::powersUpTo(int top)
{
    while (int(powers.size()) <= top) {
        Power next = multiply(powers.back(), powers.back());
        transform(next);
        powers.push_back(std::move(next));
    }
}

const OverflowRisk::Truncated::Power &OverflowRisk::Truncated::sumOf(qint64 sessions, int top)
{
    // N sessions' law: kept; else a kept M < N sessions' times the powers of N - M's binary
    // digits, where that takes fewer products than N's own digits (N - 1's: one; a count
    // bisected between kept ones: a few, where N's digits took up to 9 at 2^19 points); else
    // the product over N's binary digits, the lowest first. Costs in half products: a product
    // is two FFTs, a kept law without its spectrum needs one more.
    const auto kept = [&](qint64 n) {
        const auto it = std::find_if(sums.begin(), sums.end(), [&](const auto &x) { return x.first == n; });
        return it != sums.end() ? &it->second : nullptr;
    };
    const Power *sum = kept(sessions);
    if (!sum && (sessions & (sessions - 1)) == 0) {
        sum = &powers[size_t(top)];
    } else if (!sum) {
        Power *from = nullptr;
        qint64 rest = sessions;
        int cost = 2 * (qPopulationCount(quint64(sessions)) - 1);
        for (auto &[n, p] : sums) {
            const int c = 2 * qPopulationCount(quint64(sessions - n)) + (p.spectrum ? 0 : 1);
            if (n < sessions && c < cost) {
                from = &p;
                rest = sessions - n;
                cost = c;
            }
        }
        if (from && !from->spectrum)
            transform(*from);
        Power product;
        const Power *factor = from;
        for (int i = 0; i <= top; ++i) {
            if (((rest >> i) & 1) == 0)
                continue;
            if (!factor) {
                factor = &powers[size_t(i)];
                continue;
            }
            if (factor == &product)
                transform(product);
            product = multiply(*factor, powers[size_t(i)]);
            factor = &product;
        }
        if (sums.size() >= 8)
            sums.erase(sums.begin());
        sums.emplace_back(sessions, std::move(product));
        sum = &sums.back().second;
    }
    return *sum;
}

} // namespace Headroom
