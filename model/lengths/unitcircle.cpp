// SPDX-License-Identifier: GPL-3.0-or-later
#include "lengths/unitcircle.h"

#include <QHash>
#include <QMutex>
#include <algorithm>
#include <cmath>

namespace Headroom {

UnitCircle::UnitCircle(qint64 m)
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

std::shared_ptr<const UnitCircle> UnitCircle::of(qint64 m)
{
    static QMutex mutex;
    static QHash<qint64, std::shared_ptr<const UnitCircle>> circles;
    QMutexLocker lock(&mutex);
    auto &circle = circles[m];
    if (!circle)
        circle = std::make_shared<const UnitCircle>(m);
    return circle;
}

} // namespace Headroom
