// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/logreading.h"
#include "core/inputerror.h"
#include "core/units.h"
#include "inputs/inputranges.h"

#include <QHash>
#include <cmath>

namespace Headroom::LogParse {

QRegularExpression rx(const QString &pattern)
{
    // Each pattern compiled once per thread: compiling every engine's patterns took longer
    // than reading a whole log (the calibration fuzzer ran at 28 inputs a second).
    thread_local QHash<QString, QRegularExpression> compiled;
    auto it = compiled.find(pattern);
    if (it == compiled.end())
        it = compiled.insert(pattern, QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption));
    return *it;
}

QString number()
{
    return QStringLiteral("([0-9]+(?:\\.[0-9]+)?)");
}

QString unit()
{
    return QStringLiteral("\\s*(GiB|GB|MiB|MB)");
}

qint64 bytes(const QString &number, const QString &unit, int line, const QString &field)
{
    bool ok = false;
    const double v = number.toDouble(&ok);
    if (!ok || !std::isfinite(v) || v < 0)
        throw InputError(field, QStringLiteral("line %1: \"%2\" is not a memory figure").arg(line).arg(number));
    const QString u = unit.toLower();
    const double scale = u.startsWith(QLatin1Char('m')) ? double(Units::MiB) : u.startsWith(QLatin1Char('k')) ? double(Units::KiB) : double(Units::GiB);
    if (v * scale >= 9.2e18)
        throw InputError(field, QStringLiteral("line %1: %2 %3 is too large to be a memory figure").arg(line).arg(number, unit));
    return qint64(std::llround(v * scale));
}

qint64 count(QString number, int line, const QString &field)
{
    number.remove(QLatin1Char(','));
    bool ok = false;
    const qint64 v = number.toLongLong(&ok);
    if (!ok || v < 0)
        throw InputError(field, QStringLiteral("line %1: \"%2\" is not a count").arg(line).arg(number));
    return v;
}

int shape(const QString &number, int line, const QString &field, const char *name)
{
    const qint64 v = count(number, line, field);
    if (v < 1 || v > 100'000'000)
        throw InputError(field, QStringLiteral("line %1: %2 = %3 is not a usable value").arg(line).arg(QString::fromLatin1(name), number));
    return int(v);
}

double real(const QString &number, int line, const QString &field)
{
    bool ok = false;
    const double v = number.toDouble(&ok);
    if (!ok || !std::isfinite(v))
        throw InputError(field, QStringLiteral("line %1: \"%2\" is not a number").arg(line).arg(number));
    return v;
}

double setting(RealInput input, const QString &number, int line, const QString &field)
{
    const double v = real(number, line, field);
    try {
        return InputRanges::check(input, v, QString::fromLatin1(InputRanges::of(input).key));
    } catch (const InputError &e) {
        throw InputError(field, QStringLiteral("line %1: %2 %3").arg(line).arg(e.field(), e.message()));
    }
}

} // namespace Headroom::LogParse
