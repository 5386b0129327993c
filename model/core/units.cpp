// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/units.h"
#include "core/inputerror.h"

#include <QLocale>
#include <QRegularExpression>
#include <QtNumeric>
#include <cmath>

namespace Headroom::Units {

qint64 mul(qint64 a, qint64 b, const QString &field, const char *quantity)
{
    qint64 r = 0;
    if (a < 0 || b < 0)
        throw InputError(field, QStringLiteral("must not be negative"));
    if (qMulOverflow(a, b, &r))
        throw InputError(field, QStringLiteral("is too large: the %1 overflows 64 bits (%2 x %3)")
                                    .arg(QString::fromLatin1(quantity), formatCount(a), formatCount(b)));
    return r;
}

qint64 add(qint64 a, qint64 b, const QString &field, const char *quantity)
{
    qint64 r = 0;
    if (a < 0 || b < 0)
        throw InputError(field, QStringLiteral("must not be negative"));
    if (qAddOverflow(a, b, &r))
        throw InputError(field, QStringLiteral("is too large: the %1 overflows 64 bits").arg(QString::fromLatin1(quantity)));
    return r;
}

qint64 mul(qint64 a, const QString &fieldA, qint64 b, const QString &fieldB, const char *quantity)
{
    return mul(a, b, a < 0 || (b >= 0 && a >= b) ? fieldA : fieldB, quantity);
}

qint64 add(qint64 a, const QString &fieldA, qint64 b, const QString &fieldB)
{
    return add(a, b, a < 0 || (b >= 0 && a >= b) ? fieldA : fieldB);
}

qint64 sub(qint64 a, qint64 b, const QString &field)
{
    qint64 r = 0;
    if (qSubOverflow(a, b, &r))
        throw InputError(field, QStringLiteral("is too large: the byte count overflows 64 bits"));
    return r;
}

namespace {

// Exact decimal parsing: a mantissa with up to 18 significant digits (a count: up to 2^63 - 1) and an
// optional exponent, scaled by an integer unit, so "79.6GiB" and "8e9" are
// computed without binary floating-point error and rounded half up.
struct Decimal
{
    bool ok = false;
    bool negative = false;
    QString digits; // without the point
    int exponent = 0; // value = digits x 10^exponent
};

Decimal parseDecimal(QString text)
{
    Decimal d;
    // Commas and underscores only as thousands separators ("100,000", "100_000"):
    // "1,5" is a decimal comma in many locales, and guessing would be wrong either way.
    static const QRegularExpression grouped(QStringLiteral("^[+-]?\\d{1,3}([,_]\\d{3})+(\\.\\d*)?([eE][+-]?\\d+)?\\z"));
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('_'))) {
        if (!grouped.match(text).hasMatch())
            return d;
        text.remove(QLatin1Char('_'));
        text.remove(QLatin1Char(','));
    }
    static const QRegularExpression re(QStringLiteral("^([+-]?)(\\d*)(?:\\.(\\d*))?(?:[eE]([+-]?\\d{1,4}))?\\z"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return d;
    const QString intPart = m.captured(2), frac = m.captured(3);
    if (intPart.isEmpty() && frac.isEmpty())
        return d;
    d.negative = m.captured(1) == QLatin1String("-");
    d.digits = intPart + frac;
    d.exponent = m.captured(4).toInt() - int(frac.size());
    while (d.digits.size() > 1 && d.digits.startsWith(QLatin1Char('0')))
        d.digits.remove(0, 1);
    d.ok = true;
    return d;
}

// Rounds digits x 10^exponent x unit to the nearest integer, or returns false on
// overflow. *exact (if given) tells whether no rounding happened.
bool scaleDecimal(const Decimal &d, qint64 unit, qint64 *out, bool *exact = nullptr)
{
    QString digits = d.digits;
    int exponent = d.exponent;
    if (exact)
        *exact = true;
    // Trailing zeros go into the exponent, before and after any cut to 18 digits:
    // 1000000000000000000000e-15 is exactly 10^6, however many digits it is written with.
    const auto trimZeros = [&] {
        while (digits.size() > 1 && digits.endsWith(QLatin1Char('0'))) {
            digits.chop(1);
            ++exponent;
        }
    };
    trimZeros();
    // A count (unit 1) of 19 digits is exact when it fits in 64 bits; a size keeps
    // 18 significant digits, so the product with its unit has room.
    bool fits = false;
    digits.toLongLong(&fits);
    if (digits.size() > 18 && !(unit == 1 && fits)) {
        // 2^63 and above (in doubles: rounding 2^63 - 1 up with them) overflow before any
        // rounding; else 2^63 B lost its last digit and read as 2^63 - 8.
        if (QString(digits + QStringLiteral("e%1").arg(exponent)).toDouble() * double(unit) >= 9.2233720368547758e18)
            return false;
        // More precision than 64 bits hold: keep 18 significant digits.
        if (exact)
            *exact = false;
        exponent += int(digits.size()) - 18;
        digits.truncate(18);
        trimZeros();
    }
    const qint64 mantissa = digits.toLongLong();
    if (mantissa == 0) {
        *out = 0;
        return true;
    }
    qint64 value = 0;
    if (qMulOverflow(mantissa, unit, &value))
        return false;
    for (; exponent > 0; --exponent)
        if (qMulOverflow(value, qint64(10), &value))
            return false;
    if (exponent < 0) {
        if (exponent < -30) {
            *out = 0;
            if (exact)
                *exact = false;
            return true;
        }
        // Divide by 10^-exponent with round-half-up, step by step.
        qint64 divisor = 1;
        bool small = false;
        for (int i = 0; i < -exponent; ++i) {
            if (qMulOverflow(divisor, qint64(10), &divisor)) {
                small = true;
                break;
            }
        }
        if (small) {
            *out = 0;
            if (exact)
                *exact = false;
            return true;
        }
        if (exact && value % divisor != 0)
            *exact = false;
        value = value / divisor + ((value % divisor) * 2 >= divisor ? 1 : 0);
    }
    *out = value;
    return true;
}

} // namespace

qint64 parseSize(const QString &input, const QString &field, bool allowZero)
{
    const QString text = input.trimmed();
    static const QRegularExpression re(QStringLiteral("^([+-]?[0-9.,_]+(?:[eE][+-]?[0-9]+)?)\\s*([A-Za-z]+)\\z"));
    const auto m = re.match(text);
    if (!m.hasMatch()) {
        static const QRegularExpression bare(QStringLiteral("^[0-9.eE+\\-_,]+\\z"));
        if (bare.match(text).hasMatch())
            throw InputError(field, QStringLiteral("\"%1\" has no unit; write it as e.g. 80GB, 79.6GiB or 512MiB").arg(text));
        throw InputError(field, QStringLiteral("\"%1\" is not a memory size; write it as e.g. 80GB, 79.6GiB or 512MiB").arg(text));
    }
    const QString unit = m.captured(2);
    struct U { const char *name; qint64 bytes; };
    static const U units[] = {
        {"B", 1},       {"kB", kB},     {"KB", kB},   {"kb", kB},   {"KiB", KiB},
        {"MB", MB},     {"mb", MB},     {"MiB", MiB}, {"GB", GB},   {"gb", GB},
        {"GiB", GiB},   {"TB", TB},     {"tb", TB},   {"TiB", TiB},
    };
    qint64 unitBytes = 0;
    for (const U &u : units)
        if (unit == QLatin1String(u.name))
            unitBytes = u.bytes;
    if (unitBytes == 0)
        throw InputError(field, QStringLiteral("unknown unit \"%1\"; use B, kB, KiB, MB, MiB, GB, GiB, TB or TiB").arg(unit));
    const Decimal d = parseDecimal(m.captured(1));
    if (!d.ok)
        throw InputError(field, QStringLiteral("\"%1\" is not a number").arg(m.captured(1)));
    qint64 bytes = 0;
    if (!scaleDecimal(d, unitBytes, &bytes))
        throw InputError(field, QStringLiteral("%1 is too large: it overflows 64-bit bytes").arg(text));
    if (d.negative && bytes != 0) // "positive" only where 0 is refused too
        throw InputError(field, (allowZero ? QStringLiteral("must not be negative, got %1") : QStringLiteral("must be positive, got %1")).arg(text));
    if (bytes == 0 && !allowZero)
        throw InputError(field, QStringLiteral("must be larger than zero, got %1").arg(text));
    return bytes;
}

qint64 parseCount(const QString &input, const QString &field, qint64 minimum)
{
    const QString text = input.trimmed();
    // An SI suffix scales exactly: "1.5M" = 15 x 10^5, no binary rounding; a binary one (IEC
    // 60027-2, as KiB beside kB) by 2^10 or 2^20: "128Ki" = 131,072, the form the window names
    // beside "128K" (an attacker's "128Ki" was refused as no whole number).
    qint64 unit = 1;
    QString number = text;
    if (number.endsWith(QLatin1String("Ki")))
        unit = KiB;
    else if (number.endsWith(QLatin1String("Mi")))
        unit = MiB;
    else if (number.endsWith(QLatin1Char('k')) || number.endsWith(QLatin1Char('K')))
        unit = kB;
    else if (number.endsWith(QLatin1Char('M')))
        unit = MB;
    if (unit > 1)
        number = number.chopped(unit == KiB || unit == MiB ? 2 : 1).trimmed();
    // "100.000" is 100 with a decimal point and 100,000 with a German or Italian thousands dot:
    // one to three digits, a dot and exactly three more, nothing else, is refused as "1,5" is.
    static const QRegularExpression dotGrouped(QStringLiteral("^[+-]?\\d{1,3}\\.\\d{3}\\z"));
    if (unit == 1 && dotGrouped.match(number).hasMatch())
        throw InputError(field, QStringLiteral("\"%1\" is ambiguous (a decimal point, or a thousands dot as in German): "
                                               "write %2 or %3 for the thousands")
                                    .arg(text, QString(number).remove(QLatin1Char('.')).remove(QLatin1Char('+')),
                                         QString(number).replace(QLatin1Char('.'), QLatin1Char(',')).remove(QLatin1Char('+'))));
    const Decimal d = parseDecimal(number);
    if (!d.ok)
        throw InputError(field, QStringLiteral("\"%1\" is not a whole number (write e.g. 100000, 100,000, 1e5, 8k or 1.5M)").arg(text));
    qint64 value = 0;
    bool exact = true;
    if (!scaleDecimal(d, unit, &value, &exact))
        throw InputError(field, QStringLiteral("%1 is too large: it overflows 64 bits").arg(text));
    // Inexact: a fraction, or more digits than 64 bits hold (2^63 and above).
    if (!exact && QString(d.digits + QStringLiteral("e%1").arg(d.exponent)).toDouble() >= 9.2233720368547758e18)
        throw InputError(field, QStringLiteral("%1 is too large: it overflows 64 bits").arg(text));
    if (!exact)
        throw InputError(field, QStringLiteral("\"%1\" is not a whole number").arg(text));
    if (d.negative && value != 0) // "positive" only where 0 is refused too
        throw InputError(field, (minimum > 0 ? QStringLiteral("must be positive, got %1") : QStringLiteral("must not be negative, got %1")).arg(text));
    if (value < minimum)
        throw InputError(field, minimum == 1 ? QStringLiteral("must be at least 1, got %1").arg(text)
                                             : QStringLiteral("must be at least %1, got %2").arg(formatCount(minimum), text));
    return value;
}

qint64 parseCount(const QString &input, const QString &field, qint64 minimum, const QLocale &locale)
{
    const QString group = locale.groupSeparator(), point = locale.decimalPoint();
    if (group == QLatin1String(",") && point == QLatin1String("."))
        return parseCount(input, field, minimum);
    // The locale's reading: its separators become the command line's "_" and ".".
    QString text = input.trimmed();
    if (!group.isEmpty()) {
        text.replace(group, QStringLiteral("_"));
        if (group.at(0).isSpace() || group.at(0) == QChar(0x202f))
            text.replace(QLatin1Char(' '), QLatin1Char('_')); // a typed space for a no-break one
    }
    text.replace(point, QStringLiteral("."));
    try {
        return parseCount(text, field, minimum);
    } catch (const InputError &) {
        try {
            return parseCount(input, field, minimum);
        } catch (const InputError &) {
        }
        throw;
    }
}

double parseFraction(const QString &input, const QString &field, double low, double high)
{
    bool ok = false;
    const double v = input.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(v))
        throw InputError(field, QStringLiteral("\"%1\" is not a number").arg(input));
    if (!(v > low && v <= high))
        throw InputError(field, QStringLiteral("must be greater than %1 and at most %2, got %3")
                                    .arg(low).arg(high).arg(input));
    return v;
}

QString formatIn(qint64 bytes, qint64 unit, const QString &label, int decimals)
{
    return QLocale::c().toString(double(bytes) / double(unit), 'f', decimals) + QLatin1Char(' ') + label;
}

QString formatBytes(qint64 bytes, UnitSystem system, int decimals)
{
    const bool bin = system == UnitSystem::Binary;
    const qint64 mag = bytes < 0 ? -bytes : bytes;
    const qint64 tera = bin ? TiB : TB, giga = bin ? GiB : GB, mega = bin ? MiB : MB, kilo = bin ? KiB : kB;
    // From 1,000 of the smaller unit (as it rounds), the larger: "1.3 TB", never "1310.7 GB"
    // beside "13.1 TB" in one column (the attacker's report).
    if (double(mag) / double(giga) >= 999.95)
        return formatIn(bytes, tera, bin ? QStringLiteral("TiB") : QStringLiteral("TB"), decimals);
    if (mag >= giga / 10)
        return formatIn(bytes, giga, bin ? QStringLiteral("GiB") : QStringLiteral("GB"), decimals);
    if (mag >= mega)
        return formatIn(bytes, mega, bin ? QStringLiteral("MiB") : QStringLiteral("MB"), decimals);
    if (mag >= kilo)
        return formatIn(bytes, kilo, bin ? QStringLiteral("KiB") : QStringLiteral("kB"), decimals);
    return formatExactBytes(bytes);
}

QString formatCount(qint64 value)
{
    // Fixed English grouping, whatever the system locale: figures must read the
    // same in a report, on screen and in tests.
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    return english.toString(value);
}

QString formatCount(qint64 value, const QLocale &locale)
{
    if (locale.language() == QLocale::C)
        return formatCount(value);
    QLocale grouped = locale;
    grouped.setNumberOptions(grouped.numberOptions() & ~QLocale::OmitGroupSeparator);
    return grouped.toString(value);
}

QLocale userLocale()
{
    const QLocale l;
    return l.language() == QLocale::C ? QLocale(QLocale::English, QLocale::UnitedStates) : l;
}

QString decimalSuffixReading(const QString &typed, qint64 value, const QLocale &locale)
{
    const QString number = typed.trimmed();
    const QChar last = number.isEmpty() ? QChar() : number.back();
    if (last != QLatin1Char('k') && last != QLatin1Char('K') && last != QLatin1Char('M'))
        return QString();
    const bool mega = last == QLatin1Char('M');
    const long double binary = (long double)value * (mega ? 1048576.0L / 1e6L : 1024.0L / 1e3L);
    return QStringLiteral("%1 read as %2 (%3); %4 %5 would be %6")
        .arg(number, formatCount(value, locale), mega ? QStringLiteral("M = 1,000,000") : QStringLiteral("k = 1,000"),
             number.chopped(1).trimmed(), mega ? QStringLiteral("Mi") : QStringLiteral("Ki"),
             binary < 9.2e18L ? formatCount(qint64(std::llround(binary)), locale) : QStringLiteral("past 64 bits"));
}

qsizetype firstControlCharacter(const QString &text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text.at(i).unicode();
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
            return i;
    }
    return -1;
}

QString plural(qint64 n, const QString &one, const QString &many)
{
    return formatCount(n) + QLatin1Char(' ') + (n == 1 ? one : many);
}

QString formatUsd(double dollars)
{
    if (!std::isfinite(dollars))
        return QStringLiteral("n/a");
    if (dollars < 0)
        return QLatin1Char('-') + formatUsd(-dollars);
    // From $10^15 whole dollars would need 16 digits and more, past what a double holds (15 to
    // 16 significant digits): the trailing digits were noise ("$1,234,567,890,123,456,768").
    // Three significant digits, as every other figure of that size, in formatScientific's form.
    if (dollars >= 1e15)
        return QLatin1Char('$') + formatScientific(dollars, 3);
    if (dollars >= 1000.0)
        return QLatin1Char('$') + formatCount(qint64(std::llround(dollars)));
    if (dollars >= 1.0 || dollars == 0.0)
        return QLatin1Char('$') + QLocale::c().toString(dollars, 'f', 2);
    if (dollars < 1e-6)
        return QStringLiteral("< $0.000001");
    // Three significant digits in fixed notation: 0.0473 -> 4 decimals.
    const int decimals = 2 - int(std::floor(std::log10(dollars)));
    return QLatin1Char('$') + QLocale::c().toString(dollars, 'f', decimals);
}

QString formatUsdPer(double dollars, const QString &unit)
{
    return formatUsd(dollars) + QStringLiteral(" per ") + unit;
}

QString formatScientific(double value, int digits)
{
    if (!std::isfinite(value))
        return QStringLiteral("n/a");
    if (value == 0.0)
        return QStringLiteral("0");
    // QLocale::c() writes "8.12e-07": drop the mantissa's trailing zeros and the exponent's padding.
    QString text = QLocale::c().toString(value, 'e', std::max(0, digits - 1));
    const int e = int(text.indexOf(QLatin1Char('e')));
    QString mantissa = text.left(e);
    if (mantissa.contains(QLatin1Char('.'))) {
        while (mantissa.endsWith(QLatin1Char('0')))
            mantissa.chop(1);
        if (mantissa.endsWith(QLatin1Char('.')))
            mantissa.chop(1);
    }
    const int exponent = text.mid(e + 1).toInt();
    return exponent == 0 ? mantissa : mantissa + QLatin1Char('e') + QString::number(exponent);
}

QString formatRisk(double p)
{
    if (!std::isfinite(p))
        return QStringLiteral("n/a");
    if (p <= 0.0)
        return QStringLiteral("0");
    if (p >= 0.1)
        return formatDecimal(std::min(p, 1.0) * 100.0, 1) + QLatin1Char('%');
    if (p < 1e-12)
        return QStringLiteral("below 1 in 1,000,000,000,000 (%1)").arg(formatScientific(p));
    // 1 / p to three significant digits, whole: 1 / 8.12e-7 = 1,231,527 -> 1,230,000.
    const double inverse = 1.0 / p;
    const double step = std::pow(10.0, std::max(0.0, std::floor(std::log10(inverse)) - 2.0));
    return QStringLiteral("1 in %1 (%2)").arg(formatCount(qint64(std::llround(inverse / step) * qint64(std::llround(step)))),
                                              formatScientific(p));
}

QString formatDecimal(double value, int decimals)
{
    if (!std::isfinite(value))
        return QStringLiteral("n/a");
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    QString text = english.toString(value, 'f', decimals);
    if (text.contains(QLatin1Char('.'))) {
        while (text.endsWith(QLatin1Char('0')))
            text.chop(1);
        if (text.endsWith(QLatin1Char('.')))
            text.chop(1);
    }
    return text == QLatin1String("-0") ? QStringLiteral("0") : text;
}

QString formatExactBytes(qint64 bytes)
{
    return formatCount(bytes) + QStringLiteral(" B");
}

QString gigaLabel(UnitSystem system)
{
    return system == UnitSystem::Binary ? QStringLiteral("GiB") : QStringLiteral("GB");
}

qint64 gigaBytes(UnitSystem system)
{
    return system == UnitSystem::Binary ? GiB : GB;
}

} // namespace Headroom::Units
