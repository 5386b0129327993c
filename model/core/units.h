// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLocale>
#include <QString>
#include <QtGlobal>

namespace Headroom {

/// How byte counts are shown. Bytes stay integers (qint64) until formatted.
/// GB = 10^9 bytes (spec sheets, the founding examples: the default);
/// GiB = 2^30 bytes (vLLM, SGLang and nvidia-smi report in binary units).
enum class UnitSystem { Decimal, Binary };

namespace Units {

constexpr qint64 kB = 1000;
constexpr qint64 MB = 1000 * kB;
constexpr qint64 GB = 1000 * MB;
constexpr qint64 TB = 1000 * GB;
constexpr qint64 KiB = 1024;
constexpr qint64 MiB = 1024 * KiB;
constexpr qint64 GiB = 1024 * MiB;
constexpr qint64 TiB = 1024 * GiB;

/// a x b, or InputError(field, "is too large: the <quantity> overflows 64
/// bits") when the product does not fit in qint64. Both operands must be >= 0.
qint64 mul(qint64 a, qint64 b, const QString &field, const char *quantity = "byte count");
/// a + b, or InputError(field, ...) on overflow. Both operands must be >= 0.
qint64 add(qint64 a, qint64 b, const QString &field, const char *quantity = "byte count");
/// a x b for two named inputs: on overflow the InputError names the larger
/// operand's field and says which quantity left 64 bits. Both operands must be >= 0.
qint64 mul(qint64 a, const QString &fieldA, qint64 b, const QString &fieldB, const char *quantity = "byte count");
/// a + b for two named inputs: on overflow the InputError names the larger
/// operand's field (the one to look at). Both operands must be >= 0.
qint64 add(qint64 a, const QString &fieldA, qint64 b, const QString &fieldB);
/// a - b, or InputError(field, ...) when the difference leaves 64 bits.
qint64 sub(qint64 a, qint64 b, const QString &field);
/// ceil(a / b) for a >= 0, b > 0.
constexpr qint64 ceilDiv(qint64 a, qint64 b) { return a / b + (a % b != 0 ? 1 : 0); }

/// Parses a memory size with a unit: "80GB", "79.6GiB", "512 MiB", "1.5TB".
/// Units: B, kB (or KB), KiB, MB, MiB, GB, GiB, TB, TiB (case of the unit as
/// listed; "kb"/"gb" lower case are also taken as decimal). The result is
/// rounded to the nearest byte. A bare number, an unknown unit, a negative or
/// zero size (unless allowZero), or one over 2^63 bytes throws InputError(field).
qint64 parseSize(const QString &text, const QString &field, bool allowZero = false);

/// Parses a whole count such as "100000", "8e9", "1.5e3", "100_000" or
/// "100,000" (commas and underscores as thousands separators only), with an
/// optional SI suffix k or K (x 1,000) or M (x 1,000,000): "8k" = 8,000,
/// "32K" = 32,000, "1.5M" = 1,500,000 (decimal, as GB = 10^9), or a binary one
/// Ki (x 1,024) or Mi (x 1,048,576): "128Ki" = 131,072, "8Ki" = 8,192.
/// Throws InputError(field) unless the value is a whole number in [minimum, 2^63).
qint64 parseCount(const QString &text, const QString &field, qint64 minimum = 1);
/// The same in `locale`'s number format first (de_DE: "1.500.000", "1,5M";
/// fr_FR: "1 500 000"), then in the command line's forms above when the text
/// is not a number in that locale. Errors as parseCount; the message is the
/// one for the locale's reading.
qint64 parseCount(const QString &text, const QString &field, qint64 minimum, const QLocale &locale);
/// How a count typed with a decimal suffix was read, for a token count where the binary one is
/// common (a model's "128K" is often 131,072): "32K read as 32,000 (k = 1,000); 32 Ki would be
/// 32,768" for `typed` "32K" parsed as `value`, figures in `locale`; empty without k, K or M.
QString decimalSuffixReading(const QString &typed, qint64 value, const QLocale &locale);

/// Parses a decimal fraction (e.g. gpu_memory_utilization) in (low, high].
/// Throws InputError(field) when outside or not a number.
double parseFraction(const QString &text, const QString &field, double low, double high);

/// "13.1 GB" or "12.2 GiB": the value in GB/GiB (or MB/MiB, TB/TiB when that
/// reads better) with `decimals` decimals and the unit label. Never unlabelled.
QString formatBytes(qint64 bytes, UnitSystem system, int decimals = 1);
/// The value in exactly the given unit, e.g. formatIn(x, Units::GiB, "GiB", 2) = "3.81 GiB".
QString formatIn(qint64 bytes, qint64 unit, const QString &label, int decimals);
/// Whole number with thousands separators: 131072 -> "131,072".
QString formatCount(qint64 value);
/// The same in `locale` ("131.072" in de_DE); the C locale reads as English.
QString formatCount(qint64 value, const QLocale &locale);
/// The locale figures are typed and shown in: QLocale() unless that is the C
/// locale (no grouping), then English (United States).
QLocale userLocale();
/// "1 session" / "4 sessions": the count with separators and the right noun.
QString plural(qint64 n, const QString &one, const QString &many);

/// The index of the first character in `text` no name should hold: a C0 or C1 control, DEL, or a
/// bidirectional override or isolate (U+202A-202E, U+2066-2069: a terminal or a list would
/// show the name reordered, or run its escape sequences), or -1 when there is none.
qsizetype firstControlCharacter(const QString &text);
/// Dollars, in fixed notation below $10^15: "$1,234" from $1,000, "$2.95"
/// from $1, three significant digits below ("$0.738", "$0.0473",
/// "$0.000123"); "$0.00" for 0 and "< $0.000001" below a millionth. From $10^15 on,
/// where whole dollars would show a double's noise digits, three significant digits in
/// formatScientific's form: "$1.23e18". The one money format of every output.
QString formatUsd(double dollars);
/// A price per one unit, the one money form of every rate on every surface:
/// formatUsd(dollars) + " per " + unit, never scaled to 1,000 units (a row or
/// column that said "$0.0183 per session-hour" beside "$8.81 per 1,000
/// session-hours" read as two units, and "$8.81" in large type as the price of
/// one): formatUsdPer(4.73e-5, "session-hour") = "$0.0000473 per session-hour",
/// formatUsdPer(0.7375, "session-hour") = "$0.738 per session-hour".
QString formatUsdPer(double dollars, const QString &unit);
/// A probability in short scientific notation, `digits` significant digits,
/// trailing zeros and the exponent's padding dropped: 1e-6 -> "1e-6",
/// 8.1214e-7 (3) -> "8.12e-7", 0.0501 -> "5.01e-2", 0 -> "0".
QString formatScientific(double value, int digits = 3);
/// A risk or probability in words and figures, the one form everywhere:
/// below 0.1, "1 in N (S)" with N = 1/p to three significant digits and S
/// formatScientific(p): 1e-6 -> "1 in 1,000,000 (1e-6)", 0.01 -> "1 in 100
/// (1e-2)", 8.12e-7 -> "1 in 1,230,000 (8.12e-7)"; below 1e-12 "below 1 in
/// 1,000,000,000,000 (S)"; from 0.1 a percentage to three significant digits
/// ("10.3%", "50%", "99.9%", "100%"); 0 -> "0"; not finite -> "n/a".
QString formatRisk(double probability);
/// A figure that may be fractional, with separators and at most `decimals`
/// decimals, trailing zeros dropped: 5678.0 -> "5,678", 1.5 -> "1.5",
/// 1234.567 (2) -> "1,234.57". Counts stay whole: use formatCount for them.
QString formatDecimal(double value, int decimals = 2);
/// "131,072 B" (exact bytes with separators and the unit).
QString formatExactBytes(qint64 bytes);
/// Unit label of the system's gigabyte: "GB" or "GiB".
QString gigaLabel(UnitSystem system);
/// Bytes in one gigabyte of the system: 10^9 or 2^30.
qint64 gigaBytes(UnitSystem system);

} // namespace Units
} // namespace Headroom
