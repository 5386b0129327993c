// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kv/gpuspec.h"
#include "kv/modelshape.h"
#include "presetstore.h"

#include <QTextStream>
#include <QVector>

namespace Headroom {

// The presets the commands read: the user's store, else the built-ins.

/// The user's preset store, opened once per process (a warning on `err` the first time it is
/// opened with one); nullptr, with a warning, when it cannot be opened: the built-ins serve.
const PresetStore *openStore(QTextStream &err);
/// The preset `id` of `kind` ("model" or "gpu"). Throws InputError naming `field` when there is none.
PresetRecord findPreset(const QString &id, const QString &kind, const QString &field, QTextStream &err);
/// Every model preset that reads (a damaged user preset is left out).
QVector<ModelShape> allModels(QTextStream &err);
/// Every GPU preset that reads (a damaged user preset is left out).
QVector<GpuSpec> allGpus(QTextStream &err);
/// The model preset `id`. Throws InputError naming `field` (unknown, or a stored row that no
/// longer reads: named as that preset, with the commands that mend it).
ModelShape presetModel(const QString &id, QTextStream &err, const QString &field = QStringLiteral("model"));
/// The GPU preset `id`. Throws InputError naming `field` (unknown, or a stored row that no
/// longer reads: named as that preset, with the commands that mend it).
GpuSpec presetGpu(const QString &id, QTextStream &err, const QString &field = QStringLiteral("gpu"));

} // namespace Headroom
