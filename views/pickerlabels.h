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
/// the plain rule with its formula, which is all there is of it. (The full rule with its source
/// is Engines::describe, for a tooltip: in a picker the formula was cut at every width.)
inline QString engineLabel(Engine e)
{
    return e == Engine::Plain ? QCoreApplication::translate("Headroom::InputPanel", "Plain (card − weights − workspace)") : Engines::rule(e).title();
}

/// Appends every preset of `all` to `picker`, shown by pickerLabel, its id as the item data.
template <typename Preset>
void addPickerItems(QComboBox *picker, const QVector<Preset> &all)
{
    for (const Preset &p : all)
        picker->addItem(pickerLabel(all, p), p.id);
}

} // namespace Headroom
