// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenariocommand.h"
#include "planner.h"

namespace Headroom {

ScenarioCommand::ScenarioCommand(Planner *planner, Scenario before, Scenario after, Id id, bool mergeable, const QString &text, int drag)
    : QUndoCommand(text), m_planner(planner), m_before(std::move(before)), m_after(std::move(after)), m_id(id),
      m_mergeable(mergeable), m_drag(drag)
{
}

void ScenarioCommand::undo()
{
    m_planner->apply(m_before);
}

void ScenarioCommand::redo()
{
    m_planner->apply(m_after);
}

bool ScenarioCommand::mergeWith(const QUndoCommand *other)
{
    const auto *o = static_cast<const ScenarioCommand *>(other);
    if (o->m_id != m_id || !o->m_mergeable || o->m_drag != m_drag)
        return false;
    m_after = o->m_after;
    if (m_after == m_before)
        setObsolete(true);
    return true;
}

} // namespace Headroom
