// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/logreading.h"
#include "core/inputerror.h"
#include "core/units.h"
#include "core/inputranges.h"

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

QString leadingText(const QString &pattern)
{
    // A top-level | makes no text necessary.
    int depth = 0;
    bool inClass = false;
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        const QChar c = pattern.at(i);
        if (c == QLatin1Char('\\'))
            ++i;
        else if (inClass)
            inClass = c != QLatin1Char(']');
        else if (c == QLatin1Char('['))
            inClass = true;
        else if (c == QLatin1Char('('))
            ++depth;
        else if (c == QLatin1Char(')'))
            --depth;
        else if (c == QLatin1Char('|') && depth == 0)
            return QString();
    }
    QString lead;
    qsizetype i = pattern.startsWith(QLatin1String("\\b")) ? 2 : 0;
    while (i < pattern.size()) {
        QChar c = pattern.at(i);
        if (c == QLatin1Char('\\')) {
            // An escaped punctuation mark is itself; \s, \d, \b and the like are classes or assertions.
            if (i + 1 >= pattern.size() || pattern.at(i + 1).isLetterOrNumber())
                break;
            c = pattern.at(i + 1);
            i += 2;
        } else if (QStringView(u".^$|()[]{}?*+").contains(c)) {
            break;
        } else {
            ++i;
        }
        // A character made optional or repeatable from zero is not necessary.
        if (i < pattern.size() && QStringView(u"?*{").contains(pattern.at(i)))
            break;
        lead += c;
    }
    return lead;
}

QString number()
{
    return QStringLiteral("(-?[0-9]+(?:\\.[0-9]+)?)");
}

QString unit()
{
    return QStringLiteral("\\s*(GiB|GB|MiB|MB)");
}

QString separator()
{
    return QStringLiteral("['\"]?(?:\\s+(?:takes?|is))?\\s*[:=(]?\\s*");
}

qint64 bytes(const QString &number, const QString &unit, int line, const QString &field)
{
    bool ok = false;
    const double v = number.toDouble(&ok);
    if (!ok || !std::isfinite(v))
        throw InputError(field, QStringLiteral("line %1: \"%2\" is not a memory figure").arg(line).arg(number));
    if (v < 0)
        throw InputError(field, QStringLiteral("line %1: %2 %3 is negative: no memory figure an engine measures is below 0 (an edited or "
                                               "damaged log?)").arg(line).arg(number, unit));
    const QString u = unit.toLower();
    const double scale = u == QLatin1String("b")           ? 1.0
                         : u.startsWith(QLatin1Char('m')) ? double(Units::MiB)
                         : u.startsWith(QLatin1Char('k')) ? double(Units::KiB)
                                                          : double(Units::GiB);
    if (v * scale >= 9.2e18)
        throw InputError(field, QStringLiteral("line %1: %2 %3 is too large to be a memory figure").arg(line).arg(number, unit));
    return qint64(std::llround(v * scale));
}

qint64 count(QString number, int line, const QString &field)
{
    // Thousands separators as engines print them (Python's f"{n:,}"): groups of three after
    // the first (a comma ending the figure is the sentence's: "#tokens: 46611, ...").
    while (number.endsWith(QLatin1Char(',')))
        number.chop(1);
    const QStringList groups = number.split(QLatin1Char(','));
    for (qsizetype i = 1; i < groups.size(); ++i)
        if (groups.at(i).size() != 3 || groups.first().isEmpty() || groups.first() == QLatin1String("-"))
            throw InputError(field, QStringLiteral("line %1: \"%2\" is not a count (its thousands separators are misplaced)").arg(line).arg(number));
    number.remove(QLatin1Char(','));
    bool ok = false;
    const qint64 v = number.toLongLong(&ok);
    if (ok && v < 0)
        throw InputError(field, QStringLiteral("line %1: %2 is negative: no count an engine prints is below 0 (an edited or damaged log?)")
                                    .arg(line).arg(number));
    if (!ok)
        throw InputError(field, QStringLiteral("line %1: \"%2\" is not a count").arg(line).arg(number));
    return v;
}

qint64 poolTokens(const QString &number, int line, const QString &field, const char *name)
{
    const qint64 v = count(number, line, field);
    if (v < 1)
        throw InputError(field, QStringLiteral("line %1: %2 = %3: a KV-cache pool of no tokens is no figure to compare (the engine refuses to "
                                               "start rather than print one); paste a start-up whose engine sized its cache")
                                    .arg(line).arg(QString::fromLatin1(name), number));
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
    if (v < 0)
        throw InputError(field, QStringLiteral("line %1: %2 is negative: no figure an engine prints is below 0 (an edited or damaged log?)")
                                    .arg(line).arg(number));
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
