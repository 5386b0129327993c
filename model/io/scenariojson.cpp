// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/scenarioparts.h"
#include "core/units.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"

#include <cmath>

namespace Headroom::ScenarioParts {

QJsonValue big(qint64 v)
{
    return std::abs(v) < (qint64(1) << 53) ? QJsonValue(double(v)) : QJsonValue(QString::number(v));
}

qint64 readBig(const QJsonObject &o, const char *key, qint64 fallback, const QString &prefix,
               qint64 minimum)
{
    return JsonNumbers::whole(o, key, fallback, minimum, std::numeric_limits<qint64>::max(), prefix, true);
}

QString readText(const QJsonObject &o, const char *key, const QString &prefix)
{
    const QString text = JsonNumbers::text(o, key, QString(), prefix, QStringLiteral("a text"));
    if (const qsizetype i = Units::firstControlCharacter(text); i >= 0)
        throw InputError(prefix + QLatin1String(key), QStringLiteral("holds the control character U+%1 at character %2")
                                                          .arg(uint(text.at(i).unicode()), 4, 16, QLatin1Char('0')).arg(i + 1));
    return text;
}

int readInt(const QJsonObject &o, const char *key, qint64 fallback, qint64 minimum, const QString &prefix,
            qint64 maximum)
{
    return int(JsonNumbers::whole(o, key, fallback, minimum, maximum, prefix, true));
}

double readReal(const QJsonObject &o, RealInput input, double fallback, const QString &prefix)
{
    const char *key = InputRanges::of(input).key;
    const QJsonValue v = o.value(QString::fromLatin1(key));
    if (v.isUndefined() || v.isNull())
        return fallback;
    const QString field = prefix + QString::fromLatin1(key);
    if (!v.isDouble())
        throw InputError(field, QStringLiteral("must be %1, got %2")
                                    .arg(InputRanges::describe(input), JsonNumbers::shown(v)));
    return InputRanges::check(input, v.toDouble(), field);
}

std::optional<double> readOptionalReal(const QJsonObject &o, RealInput input, const QString &prefix)
{
    const QJsonValue v = o.value(QString::fromLatin1(InputRanges::of(input).key));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    return readReal(o, input, 0, prefix);
}

std::optional<qint64> readOptionalBig(const QJsonObject &o, const char *key, const QString &prefix,
                                      qint64 minimum)
{
    const QJsonValue v = o.value(QString::fromLatin1(key));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    return readBig(o, key, 0, prefix, minimum);
}

int readCount(const QJsonObject &o, CountInput input, int fallback, const QString &prefix)
{
    const CountRange &r = InputRanges::of(input);
    const qint64 v = JsonNumbers::whole(o, r.key, fallback, r.low, r.high, prefix, true);
    return InputRanges::check(input, v, prefix + QString::fromLatin1(r.key));
}

} // namespace Headroom::ScenarioParts
