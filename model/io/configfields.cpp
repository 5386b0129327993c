// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/configfields.h"
#include "core/inputerror.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QVariant>
#include <cmath>

namespace Headroom::ConfigFields {

qint64 intField(const QJsonObject &o, const char *key, qint64 fallback, bool required, qint64 minimum)
{
    const QString k = QString::fromLatin1(key);
    const QJsonValue v = o.value(k);
    if (v.isUndefined() || v.isNull()) {
        if (required)
            throw InputError(k, QStringLiteral("is missing from config.json"));
        return fallback;
    }
    if (!v.isDouble())
        throw InputError(k, QStringLiteral("must be a number, got %1")
                                .arg(QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))));
    const double d = v.toDouble();
    // 2^63 is exact in a double; past it the parser kept only a rounded double
    // (2^63 reads as 9.22337e+18), so the refusal says what the figure is.
    if (std::isfinite(d) && std::abs(d) >= 9223372036854775808.0)
        throw InputError(k, QStringLiteral("must be a whole number below 2^63, got a number beyond 64 bits (about %1)").arg(QString::number(d, 'g', 4)));
    // (Figures are printed as the double they are, in their shortest digits.)
    if (!std::isfinite(d) || d != std::floor(d))
        throw InputError(k, QStringLiteral("must be a whole number, got %1").arg(QString::number(d, 'g', QLocale::FloatingPointShortest)));
    // A whole number the parser kept as a 64-bit integer stays exact (2^53 + 1 is not rounded).
    const qint64 n = v.toVariant().metaType().id() == QMetaType::LongLong ? v.toInteger() : qint64(d);
    if (n < minimum)
        throw InputError(k, QStringLiteral("must be at least %1, got %2").arg(minimum).arg(n));
    return n;
}

int smallField(const QJsonObject &o, const char *key, qint64 fallback, bool required, qint64 minimum)
{
    const qint64 v = intField(o, key, fallback, required, minimum);
    if (v > 1000000)
        throw InputError(QString::fromLatin1(key), QStringLiteral("is implausibly large (%1)").arg(v));
    return int(v);
}

NamedCount namedField(const QJsonObject &o, const char *key, qint64 fallback, bool required)
{
    return NamedCount(smallField(o, key, fallback, required), QString::fromLatin1(key));
}

bool has(const QJsonObject &o, const char *key)
{
    const QJsonValue v = o.value(QString::fromLatin1(key));
    return !v.isUndefined() && !v.isNull();
}

QJsonValue valueAt(const QJsonObject &c, const QString &path)
{
    const int dot = path.indexOf(QLatin1Char('.'));
    if (dot < 0)
        return c.value(path);
    const QJsonValue outer = c.value(path.left(dot));
    if (!outer.isUndefined() && !outer.isNull() && !outer.isObject())
        throw InputError(path.left(dot), QStringLiteral("must be a JSON object"));
    return outer.toObject().value(path.mid(dot + 1));
}

QJsonValue boolValue(const QJsonObject &o, const char *key)
{
    const QJsonValue v = o.value(QString::fromLatin1(key));
    if (!v.isUndefined() && !v.isNull() && !v.isBool())
        throw InputError(QString::fromLatin1(key), QStringLiteral("must be true or false"));
    return v;
}

} // namespace Headroom::ConfigFields
