// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "presetstore.h"
#include "core/outputtarget.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QVector>

namespace Headroom {

/// A bundle of presets a team shares: one JSON document
///
///     {"format": "headroom-presets", "version": 1, "exported": "2026-12-01T08:30:00Z",
///      "presets": [ {...one preset, every field as stored...}, ... ]}
///
/// Each preset is kept whole (unknown fields included), so a bundle exported
/// by one store imports into another with every field intact.
namespace PresetBundle {

/// The bundle version this build writes and the newest it reads.
constexpr int version = 1;
/// The "format" marker of a bundle.
inline constexpr char format[] = "headroom-presets";

/// The bundle document for `presets` (their json), indented UTF-8.
QByteArray toJson(const QVector<PresetRecord> &presets);
/// Writes toJson(presets) to `path` atomically (OutputTarget::write: the old
/// file stays whole until the new one is complete), or to standard output
/// when `path` is "-". An existing file is replaced only
/// when it is itself a bundle and none of `protect` (OutputTarget::check:
/// never a device, the store or a config.json named by mistake). False with
/// *error naming the file; false, writing nothing, when any preset fails
/// PresetStore::validate (*error names the preset and field), so every
/// bundle written imports again.
bool save(const QString &path, const QVector<PresetRecord> &presets, QString *error,
          const QVector<OutputTarget::Protected> &protect = {});
/// Reads the presets of a bundle's bytes. Throws InputError naming the field
/// as a JSON path ("format", "version", "presets", "presets[2].memory_bytes")
/// with the message saying what is wrong: not JSON (line and column), another
/// format, a newer version, a duplicate id, or any field PresetStore::validate
/// refuses. `name` (the file) is put in the message. `warnings`, when given,
/// receives one sentence per key no reader takes, at the top ("format",
/// "version", "exported", "presets" are read) and in each preset
/// (PresetStore::unknownKeys): "unknown key "presets[0].memry_bytes" in
/// x.json: ignored". Such keys are kept, not refused (a newer Headroom's bundle
/// still imports).
QVector<QJsonObject> fromJson(const QByteArray &bytes, const QString &name, QStringList *warnings = nullptr);
/// fromJson() of the file at `path` (at most 16 MiB); InputError("FILE") when it cannot be read.
QVector<QJsonObject> read(const QString &path, QStringList *warnings = nullptr);

} // namespace PresetBundle

} // namespace Headroom
