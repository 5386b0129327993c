// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"
#include "core/outputtarget.h"

#include <QJsonObject>
#include <functional>

namespace Headroom {

/// The .headroom file: one Scenario as JSON with a format version, written
/// atomically (QSaveFile) and read back identically (the model shape, card,
/// distribution and every input are stored, not just preset ids, so a file
/// keeps its meaning when presets change).
///
/// Versions: 1 is this format. Version 0 is the JSON that `headroom plan
/// --json` prints: its "inputs" migrate to a scenario (preset ids resolved by
/// the caller). A newer version, or a damaged file, is refused with a message
/// naming the file and field; nothing is written then.
class ScenarioFile
{
public:
    static constexpr int formatVersion = 1;
    /// Looks up presets by id for version-0 files; throws InputError when unknown.
    using ModelLookup = std::function<ModelShape(const QString &id)>;
    using GpuLookup = std::function<GpuSpec(const QString &id)>;

    /// The file's JSON for `scenario`, titled `name`.
    static QJsonObject toJson(const Scenario &scenario, const QString &name);
    /// A scenario from a file's JSON; `name` receives its title. `folder` is the file's
    /// folder: a relative trace path in a version-0 file is read from there. Throws InputError(field).
    /// `unknownKeys`, when given, receives the keys of a version-1 file that this Headroom
    /// does not read (any key toJson never writes), as dotted paths: "inputs.contxt_length",
    /// "model.groups[0].kv_head". They are skipped, not refused, so a file from a newer
    /// Headroom still opens. A version-0 file (a plan --json output) holds the plan's figures
    /// beside its inputs and is not looked through.
    static Scenario fromJson(const QJsonObject &json, QString *name, const ModelLookup &models = {}, const GpuLookup &gpus = {},
                             const QString &folder = {}, QStringList *unknownKeys = nullptr);
    /// Writes `path` atomically (OutputTarget::write: QSaveFile; "-" is standard output).
    /// Throws InputError("file") when it cannot (the old file stays), and before writing
    /// anything when OutputTarget::check refuses the target: an existing file that is not a
    /// scenario, or one of `protect` (the command's inputs).
    static void write(const QString &path, const Scenario &scenario, const QString &name,
                      const QVector<OutputTarget::Protected> &protect = {});
    /// Reads `path`. Throws InputError naming the file, the line for malformed JSON, or the field.
    /// `warnings`, when given, receives one sentence per key the file holds that is not read
    /// (fromJson's unknownKeys): "unknown key "inputs.contxt_length" in x.headroom: ignored".
    static Scenario read(const QString &path, QString *name, const ModelLookup &models = {}, const GpuLookup &gpus = {},
                         QStringList *warnings = nullptr);
};

} // namespace Headroom
