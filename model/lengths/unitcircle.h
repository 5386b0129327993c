// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>
#include <memory>
#include <vector>

namespace Headroom {

// e^{2 pi i j / M} for any j, from two tables of sin and cos (j = hi x B + lo, B = 512:
// M / B coarse and B fine angles, each within an ulp), one complex product: within
// 4 eps of exact, with no drift, and no step depending on the last (so consecutive
// frequencies run in parallel, where a rotation stepped by one product per frequency
// was one long dependency chain). One table per M, made once and kept for the process
// (powers of 2 from 2^8 to 2^23: at most 16, 16 K + 512 entries at 2^23).
class UnitCircle
{
public:
    /// The tables for M = `m` points (a power of 2).
    explicit UnitCircle(qint64 m);
    /// cos and sin of 2 pi j / M (j >= 0, any size: taken modulo M).
    void at(qint64 j, double &c, double &s) const
    {
        const quint64 u = quint64(j) & m_mask;
        const double *h = &m_coarse[size_t(2 * (u / kFine))], *l = &m_fine[size_t(2 * (u % kFine))];
        c = h[0] * l[0] - h[1] * l[1];
        s = h[0] * l[1] + h[1] * l[0];
    }
    /// The table of M points, made on first use.
    static std::shared_ptr<const UnitCircle> of(qint64 m);

private:
    static constexpr quint64 kFine = 512;
    quint64 m_mask;
    std::vector<double> m_coarse, m_fine; // cos, sin interleaved
};

} // namespace Headroom
