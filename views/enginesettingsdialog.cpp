// SPDX-License-Identifier: GPL-3.0-or-later
#include "enginesettingsdialog.h"
#include "enginesettingsform.h"
#include "planner.h"

#include "engines/enginerule.h"

#include <QDialogButtonBox>
#include <QLabel>
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
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_rule);
    layout->addWidget(m_form);
    layout->addWidget(hint);
    layout->addStretch(1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    connect(m_form, &EngineSettingsForm::edited, this,
            [this](const Scenario &next, const QString &flag) { m_planner->edit(next, ScenarioCommand::Other, tr("Change %1").arg(flag)); });
    connect(m_planner, &Planner::scenarioChanged, this, &EngineSettingsDialog::showScenario);
    showScenario(m_planner->scenario());
    resize(560, 0);
}

void EngineSettingsDialog::showScenario(const Scenario &s)
{
    const EngineRule &rule = Engines::rule(s.engine);
    setWindowTitle(tr("%1 settings").arg(rule.title()));
    m_rule->setText(rule.describe());
    m_form->showScenario(s);
}

} // namespace Headroom
