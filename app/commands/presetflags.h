// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCommandLineParser>
#include <QJsonObject>
#include <QTextStream>

namespace Headroom {

// The presets add/edit field flags (--name, --memory, --price, ...): one table of flag,
// preset JSON field, the kind it applies to and how its value is read.

/// Adds the field flags and the other presets options (--config, --from, --clear, --replace)
/// to the shared option table, in --help's order.
void addPresetOptions(QCommandLineParser &p);

/// Applies the field flags given (and --config) to `preset` of `kind` ("gpu" or "model");
/// true when one was given. Throws InputError naming the flag.
bool applyPresetFlags(const QCommandLineParser &p, const QString &kind, QJsonObject &preset);

/// PresetStore::validate with the field named as the flag that sets it. Throws InputError.
void validateFromFlags(const QJsonObject &preset);

/// The JSON field a `--clear` value names: a field flag (with or without "--") or the JSON
/// name itself.
QString presetFieldNamed(const QString &name);

/// False, with the error line on `err`, when a field flag is given to `command`, which is
/// not presets (presets add/edit's alone; --price and --params are plan flags too).
bool refusePresetFieldFlags(const QCommandLineParser &p, const QString &command, QTextStream &err);

} // namespace Headroom
