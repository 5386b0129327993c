// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace Headroom::JsonNumbers {

/// The whole number `v` holds, checked against [minimum, maximum] before any
/// cast: a JSON number (a double: NaN cannot occur, but fractions, -0 and
/// values beyond 2^63 can) or, when `allowString`, a decimal string (how
/// .headroom files keep integers above 2^53 exact). -0 reads as 0.
/// Throws InputError(field) naming the range for anything else: a fraction,
/// a number out of range, a string, a bool, an array or an object.
qint64 whole(const QJsonValue &v, const QString &field, qint64 minimum, qint64 maximum, bool allowString = false);

/// o[key] through whole(); `fallback` when the key is absent or null, unless
/// the fallback itself is out of range: then the field is required and its
/// absence an InputError ("is missing"). The field named in errors is prefix + key.
qint64 whole(const QJsonObject &o, const char *key, qint64 fallback, qint64 minimum, qint64 maximum,
             const QString &prefix = {}, bool allowString = false);

/// A finite JSON number in [low, high] (both inclusive), -0 read as 0;
/// InputError(field) otherwise.
double real(const QJsonValue &v, const QString &field, double low, double high);

} // namespace Headroom::JsonNumbers
