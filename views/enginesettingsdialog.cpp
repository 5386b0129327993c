// SPDX-License-Identifier: GPL-3.0-or-later
#include "enginesettingsdialog.h"
#include "enginesettingsform.h"
#include "planner.h"
#include "plankeys.h"

#include "engines/enginerule.h"

#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QUndoStack>
#include <QVBoxLayout>

namespace Headroom {

EngineSettingsDialog::EngineSettingsDialog(Planner *planner, QWidget *parent)
    : QDialog(parent), m_planner(planner), m_rule(new QLabel), m_form(new EngineSettingsForm)
{
    m_rule->setWordWrap(true);
    auto *hint = new QLabel(tr("Each field is the command line's flag of that name. Empty: the default, shown greyed. "
                               "A field takes effect when you leave it or press Enter."));
    hint->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    // Enter in a field takes its text (editingFinished); it must not press Close as well, or a
    // refused text's reason would close with the dialog unseen.
    buttons->button(QDialogButtonBox::Close)->setAutoDefault(false);
    buttons->button(QDialogButtonBox::Close)->setDefault(false);
    auto *layout = new QVBoxLayout(this);
    // Never smaller than the form needs: a shown reason grows the dialog instead of crushing fields.
    layout->setSizeConstraint(QLayout::SetMinimumSize);
    layout->addWidget(m_rule);
    layout->addWidget(m_form);
    layout->addWidget(hint);
    layout->addStretch(1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    connect(m_form, &EngineSettingsForm::edited, this,
            [this](const Scenario &next, const QString &flag) { m_planner->edit(next, ScenarioCommand::Other, tr("Change %1").arg(flag)); });
    connect(m_planner, &Planner::scenarioChanged, this, &EngineSettingsDialog::showScenario);
    // A reason shown under a field: the dialog grows to hold it whole (a word-wrapped label's
    // height depends on the width, which the minimum size alone does not follow).
    connect(m_form, &EngineSettingsForm::problemShown, this, [this, layout] {
        layout->activate();
        const int needed = layout->hasHeightForWidth() ? layout->totalHeightForWidth(width()) : layout->totalMinimumSize().height();
        if (height() < needed)
            resize(width(), needed);
    });
    // The plan's undo and redo, as the main window's Edit menu has them.
    auto *undo = new QAction(tr("Undo"), this);
    undo->setShortcut(QKeySequence::Undo);
    connect(undo, &QAction::triggered, m_planner->undoStack(), &QUndoStack::undo);
    auto *redo = new QAction(tr("Redo"), this);
    redo->setShortcut(QKeySequence::Redo);
    connect(redo, &QAction::triggered, m_planner->undoStack(), &QUndoStack::redo);
    addActions({undo, redo});
    qApp->installEventFilter(this);
    showScenario(m_planner->scenario());
    resize(560, 0);
}

bool EngineSettingsDialog::eventFilter(QObject *watched, QEvent *event)
{
    auto *widget = qobject_cast<QWidget *>(watched);
    if (event->type() == QEvent::ShortcutOverride && widget && widget->window() == this) {
        // A field with typed text of its own to undo takes the key; else the plan's action fires.
        if (isPlanUndoKey(widget, static_cast<QKeyEvent *>(event)))
            return true;
    }
    return QDialog::eventFilter(watched, event);
}

void EngineSettingsDialog::showScenario(const Scenario &s)
{
    const EngineRule &rule = Engines::rule(s.engine);
    setWindowTitle(tr("%1 settings").arg(rule.title()));
    m_rule->setText(rule.describe());
    m_form->showScenario(s);
}

} // namespace Headroom
