// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/enginerule.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QString>
#include <QVector>
#include <algorithm>

namespace Headroom {

/// The text a picker shows for `preset` (a ModelShape or GpuSpec) among `all`, the list
/// the picker offers: its name, and, when another preset of the list has the same name,
/// the name with its id, "H100 SXM5 80GB (acme-h100)". A copy made with `headroom presets
/// add ID --from OTHER` keeps OTHER's name, and the picker showed the two alike.
template <typename Preset>
QString pickerLabel(const QVector<Preset> &all, const Preset &preset)
{
    const bool shared = std::count_if(all.cbegin(), all.cend(), [&preset](const Preset &p) { return p.name == preset.name; }) > 1;
    return shared ? QStringLiteral("%1 (%2)").arg(preset.name, preset.id) : preset.name;
}

/// The engine as a picker or a table shows it: its project's name ("vLLM", "TensorRT-LLM"), and
/// "Plain rule" for the plain one. The formula and its source (Engines::describe) go in a
/// tooltip and the derivation: in a picker they were cut at every width a trial tried.
inline QString engineLabel(Engine e)
{
    return e == Engine::Plain ? QCoreApplication::translate("Headroom::InputPanel", "Plain rule") : Engines::rule(e).title();
}

/// Appends every preset of `all` to `picker`, shown by pickerLabel, its id as the item data.
template <typename Preset>
void addPickerItems(QComboBox *picker, const QVector<Preset> &all)
{
    for (const Preset &p : all)
        picker->addItem(pickerLabel(all, p), p.id);
}

} // namespace Headroom
