// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"

#include <QUndoCommand>

namespace Headroom {

class Planner;

/// One undoable change of the scenario: the whole value before and after.
/// Consecutive commands with the same mergeable id (a slider drag on one
/// input) merge into one undo step (Tiled's habit of one enum of ids).
class ScenarioCommand : public QUndoCommand
{
public:
    /// Which input changed; commands with the same id merge when `mergeable`.
    enum Id { Model = 1, Gpu, Context, Sessions, Tp, KvDtype, WeightsDtype, KvHeads, Engine, Utilization,
              Distribution, Retain, Risk, LengthScale, Other };

    /// planner: the owner to update; before/after: the scenario values;
    /// text: the undo menu's wording ("Change context length").
    ScenarioCommand(Planner *planner, Scenario before, Scenario after, Id id, bool mergeable, const QString &text);

    void undo() override;
    void redo() override;
    int id() const override { return m_mergeable ? int(m_id) : -1; }
    bool mergeWith(const QUndoCommand *other) override;

private:
    Planner *m_planner;
    Scenario m_before;
    Scenario m_after;
    Id m_id;
    bool m_mergeable;
};

} // namespace Headroom
