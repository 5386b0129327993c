// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

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
/// operand's field. Both operands must be >= 0.
qint64 mul(qint64 a, const QString &fieldA, qint64 b, const QString &fieldB);
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

/// Parses a whole count such as "100000", "8e9", "1.5e3" or "100_000" (commas
/// and underscores are separators). Throws InputError(field) unless the value
/// is a whole number in [minimum, 2^63).
qint64 parseCount(const QString &text, const QString &field, qint64 minimum = 1);

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
/// "1 session" / "4 sessions": the count with separators and the right noun.
QString plural(qint64 n, const QString &one, const QString &many);
/// Dollars: "$2.95", "$0.738", "$0.000123" (3 significant digits below $1).
QString formatUsd(double dollars);
/// "131,072 B" (exact bytes with separators and the unit).
QString formatExactBytes(qint64 bytes);
/// Unit label of the system's gigabyte: "GB" or "GiB".
QString gigaLabel(UnitSystem system);
/// Bytes in one gigabyte of the system: 10^9 or 2^30.
qint64 gigaBytes(UnitSystem system);

} // namespace Units
} // namespace Headroom
