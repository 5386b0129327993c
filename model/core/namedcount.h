// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/units.h"

#include <QString>

namespace Headroom {

/// A non-negative count with the input it grew from, for formulas over
/// config.json fields: + and x are checked (Units::add / Units::mul), and an
/// overflow throws InputError naming the field of the larger operand (the
/// one to look at) and saying which quantity (`what`, e.g. "parameter
/// count") left 64 bits. Plain numbers (constants) carry no field.
struct NamedCount
{
    qint64 v = 0;
    QString field;
    const char *what = nullptr; ///< the quantity, for the overflow message; nullptr: "byte count"

    NamedCount(qint64 value = 0, QString f = {}, const char *quantity = nullptr) : v(value), field(std::move(f)), what(quantity) {}

    friend NamedCount operator*(const NamedCount &a, const NamedCount &b) { return combine(a, b, true); }
    friend NamedCount operator+(const NamedCount &a, const NamedCount &b) { return combine(a, b, false); }
    NamedCount &operator+=(const NamedCount &b) { return *this = *this + b; }

private:
    static NamedCount combine(const NamedCount &a, const NamedCount &b, bool multiply)
    {
        const QString &f = a.field.isEmpty() ? b.field : b.field.isEmpty() ? a.field : a.v >= b.v ? a.field : b.field;
        const char *what = a.what ? a.what : b.what ? b.what : "byte count";
        return NamedCount(multiply ? Units::mul(a.v, b.v, f, what) : Units::add(a.v, b.v, f, what), f, a.what ? a.what : b.what);
    }
};

} // namespace Headroom
