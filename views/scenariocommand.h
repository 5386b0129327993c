// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"

#include <QUndoCommand>

namespace Headroom {

class Planner;

/// One undoable change of the scenario: the whole value before and after.
/// Consecutive commands with the same mergeable id of the same drag (a slider
/// drag on one input) merge into one undo step (Tiled's habit of one enum of
/// ids); the next drag of that slider is a step of its own.
class ScenarioCommand : public QUndoCommand
{
public:
    /// Which input changed; commands with the same id merge when `mergeable`.
    enum Id { Model = 1, Gpu, Context, Sessions, Tp, KvDtype, WeightsDtype, KvHeads, Engine, Utilization,
              Distribution, Retain, Risk, LengthScale, Other };

    /// planner: the owner to update; before/after: the scenario values;
    /// text: the undo menu's wording ("Change context length"); drag: which drag
    /// (Planner::beginDrag) a mergeable command belongs to.
    ScenarioCommand(Planner *planner, Scenario before, Scenario after, Id id, bool mergeable, const QString &text, int drag = 0);

    void undo() override;
    void redo() override;
    /// The scenario before this step and after it.
    const Scenario &before() const { return m_before; }
    const Scenario &after() const { return m_after; }
    int id() const override { return m_mergeable ? int(m_id) : -1; }
    bool mergeWith(const QUndoCommand *other) override;

private:
    Planner *m_planner;
    Scenario m_before;
    Scenario m_after;
    Id m_id;
    bool m_mergeable;
    int m_drag;
};

} // namespace Headroom
