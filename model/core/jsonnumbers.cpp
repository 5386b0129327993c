// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/jsonnumbers.h"
#include "core/inputerror.h"
#include "core/units.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QVariant>
#include <cmath>
#include <optional>

namespace Headroom::JsonNumbers {

QString shown(const QJsonValue &v)
{
    const QByteArray a = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(a.mid(1, a.size() - 2)).left(40);
}

namespace {

QString rangeText(qint64 minimum, qint64 maximum)
{
    return QStringLiteral("a whole number from %1 to %2").arg(Units::formatCount(minimum), Units::formatCount(maximum));
}
} // namespace

qint64 whole(const QJsonValue &v, const QString &field, qint64 minimum, qint64 maximum, bool allowString)
{
    qint64 r = 0;
    if (v.isDouble() && v.toVariant().metaType().id() == QMetaType::LongLong) {
        // A JSON integer the parser kept exact (Qt keeps whole numbers that fit 64 bits as
        // integers): 2^53 + 1 stays 2^53 + 1 rather than rounding through a double.
        r = v.toInteger();
    } else if (v.isDouble()) {
        const double d = v.toDouble();
        // 2^63 is exactly representable; every double below it converts exactly.
        // Past 64 bits the parser kept only a double: its shortest digits (2^63 as
        // 9223372036854776000) are not what the file says, so the refusal says what it is.
        if (std::isfinite(d) && (d < -9223372036854775808.0 || d >= 9223372036854775808.0))
            throw InputError(field, QStringLiteral("must be %1, got a number beyond 64 bits (about %2)").arg(rangeText(minimum, maximum), QString::number(d, 'g', 4)));
        if (!std::isfinite(d) || d != std::floor(d))
            throw InputError(field, QStringLiteral("must be %1, got %2").arg(rangeText(minimum, maximum), shown(v)));
        r = qint64(d);
    } else if (v.isString() && allowString) {
        bool ok = false;
        r = v.toString().toLongLong(&ok);
        if (!ok)
            throw InputError(field, QStringLiteral("must be %1, got %2").arg(rangeText(minimum, maximum), shown(v)));
    } else {
        throw InputError(field, QStringLiteral("must be %1, got %2").arg(rangeText(minimum, maximum), shown(v)));
    }
    if (r < minimum || r > maximum)
        throw InputError(field, QStringLiteral("must be %1, got %2").arg(rangeText(minimum, maximum), Units::formatCount(r)));
    return r;
}

qint64 whole(const QJsonObject &o, const char *key, qint64 fallback, qint64 minimum, qint64 maximum, const QString &prefix, bool allowString)
{
    const QJsonValue v = o.value(QString::fromLatin1(key));
    if (v.isUndefined() || v.isNull()) {
        // A fallback out of range marks a field that must be given.
        if (fallback < minimum || fallback > maximum)
            throw InputError(prefix + QString::fromLatin1(key), QStringLiteral("is missing (%1)").arg(rangeText(minimum, maximum)));
        return fallback;
    }
    return whole(v, prefix + QString::fromLatin1(key), minimum, maximum, allowString);
}

double real(const QJsonValue &v, const QString &field, double low, double high)
{
    if (!v.isDouble() || !std::isfinite(v.toDouble()) || v.toDouble() < low || v.toDouble() > high)
        throw InputError(field, QStringLiteral("must be a number from %1 to %2, got %3").arg(low).arg(high).arg(shown(v)));
    return v.toDouble() == 0 ? 0.0 : v.toDouble();
}

namespace {
// o[key], or nothing when absent or null; InputError when present and not `want`.
std::optional<QJsonValue> typed(const QJsonObject &o, const char *key, QJsonValue::Type want, const QString &prefix, const QString &what)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    if (v.type() != want)
        throw InputError(prefix + QLatin1String(key), QStringLiteral("must be %1, got %2").arg(what, shown(v)));
    return v;
}
} // namespace

QString text(const QJsonObject &o, const char *key, const QString &fallback, const QString &prefix, const QString &what)
{
    const auto v = typed(o, key, QJsonValue::String, prefix, what);
    return v ? v->toString() : fallback;
}

bool truth(const QJsonObject &o, const char *key, bool fallback, const QString &prefix)
{
    const auto v = typed(o, key, QJsonValue::Bool, prefix, QStringLiteral("true or false"));
    return v ? v->toBool() : fallback;
}

QJsonObject object(const QJsonObject &o, const char *key, const QString &prefix)
{
    const auto v = typed(o, key, QJsonValue::Object, prefix, QStringLiteral("an object ({...})"));
    return v ? v->toObject() : QJsonObject();
}

QJsonArray array(const QJsonObject &o, const char *key, const QString &prefix)
{
    const auto v = typed(o, key, QJsonValue::Array, prefix, QStringLiteral("a list ([...])"));
    return v ? v->toArray() : QJsonArray();
}

QJsonValue wholeValue(double v)
{
    const double r = std::round(v);
    if (!(std::abs(r) < 9223372036854775808.0)) // 2^63, exact in a double; NaN fails too
        return QJsonValue(v);
    return QJsonValue(qint64(r)); // -0 becomes 0
}

namespace {
void checkFinite(const QJsonValue &v, const QString &path)
{
    if (v.isDouble() && !std::isfinite(v.toDouble()))
        throw InputError(path, QStringLiteral("came to %1, which is not a finite number; the inputs are too extreme to give it").arg(v.toDouble()));
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            checkFinite(it.value(), path.isEmpty() ? it.key() : path + QLatin1Char('.') + it.key());
    } else if (v.isArray()) {
        const QJsonArray a = v.toArray();
        for (qsizetype i = 0; i < a.size(); ++i)
            checkFinite(a.at(i), QStringLiteral("%1[%2]").arg(path).arg(i));
    }
}
} // namespace

QByteArray toJson(const QJsonObject &o, QJsonDocument::JsonFormat format)
{
    checkFinite(o, QString());
    return QJsonDocument(o).toJson(format);
}

QByteArray toJson(const QJsonArray &a, QJsonDocument::JsonFormat format)
{
    checkFinite(a, QString());
    return QJsonDocument(a).toJson(format);
}

} // namespace Headroom::JsonNumbers
