// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonArray>
#include <QJsonDocument>
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

/// `v` as a refusal quotes it: its compact JSON ("0.5", "true", "[1]", "\"junk\""), at
/// most 40 characters.
QString shown(const QJsonValue &v);

/// o[key] as a text: `fallback` when absent or null; InputError(prefix + key)
/// saying "must be `what`, got 0.5" for a number, a bool, an array or an object
/// (a wrong type is never read as the default).
QString text(const QJsonObject &o, const char *key, const QString &fallback, const QString &prefix, const QString &what);

/// o[key] as true or false: `fallback` when absent or null; InputError(prefix + key)
/// for any other type.
bool truth(const QJsonObject &o, const char *key, bool fallback, const QString &prefix);

/// o[key] as an object: empty when absent or null; InputError(prefix + key)
/// for any other type.
QJsonObject object(const QJsonObject &o, const char *key, const QString &prefix);

/// o[key] as an array: empty when absent or null; InputError(prefix + key)
/// for any other type.
QJsonArray array(const QJsonObject &o, const char *key, const QString &prefix);

/// A whole figure held in a double (a mean of byte counts, rounded) as plan --json
/// writes bytes: a JSON integer with its exact digits. QJsonDocument writes a
/// double of 2^53 and above in its shortest form (2^60 as 1152921504606847000,
/// 1.5e16 as 1.5e+16): neither the value nor an integer. Rounds half away from
/// zero; beyond 64 bits, or not finite, `v` stays a double (toJson refuses the latter).
QJsonValue wholeValue(double v);

/// The one writer of JSON output (plan --json and the other commands' --json,
/// .headroom files, preset bundles): the bytes of `o`, after checking that
/// every number in it is finite. JSON has no NaN or infinity and QJsonDocument
/// writes them as null, which a reader takes for "not known"; so a non-finite
/// figure throws InputError naming its path ("distribution.concurrency_from_traffic",
/// "options[3].sessions_per_gpu") instead, and nothing is written.
QByteArray toJson(const QJsonObject &o, QJsonDocument::JsonFormat format = QJsonDocument::Indented);
/// toJson() of an array (presets list --json).
QByteArray toJson(const QJsonArray &a, QJsonDocument::JsonFormat format = QJsonDocument::Indented);

} // namespace Headroom::JsonNumbers
