// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/namedcount.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

/// Reading one config.json field for ConfigImporter: each refusal is an
/// InputError naming the field as the file spells it.
namespace Headroom::ConfigFields {

/// The whole number at `key`, at least `minimum`; `fallback` when absent or null
/// unless `required` ("is missing from config.json"). Refuses a non-number, a
/// fraction, and a figure at or beyond 2^63 (the parser kept only a rounded double).
qint64 intField(const QJsonObject &o, const char *key, qint64 fallback, bool required, qint64 minimum = 1);

/// intField() for a count or width that fits an int: above 1,000,000 is refused
/// as implausibly large.
int smallField(const QJsonObject &o, const char *key, qint64 fallback, bool required, qint64 minimum = 1);

/// smallField() (minimum 1, at most 1,000,000: a dimension, a head count, a kernel) as a
/// NamedCount carrying `key`, for checked formulas.
NamedCount namedField(const QJsonObject &o, const char *key, qint64 fallback, bool required);

/// True when `key` is present and not null.
bool has(const QJsonObject &o, const char *key);

/// The value at `path`: a key, or "object.key" one level down. Throws
/// InputError(object) when the outer value is present but not an object.
QJsonValue valueAt(const QJsonObject &c, const QString &path);

/// Throws InputError(key) "must be true or false" when `key` is present, not null
/// and not a bool; returns the value.
QJsonValue boolValue(const QJsonObject &o, const char *key);

} // namespace Headroom::ConfigFields
