// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

QT_BEGIN_NAMESPACE
class QLabel;
QT_END_NAMESPACE

namespace Headroom {

class EngineSettingsForm;
class Planner;
struct Scenario;

/// The window's engine settings (the "Settings..." button beside the engine picker): every
/// setting the command line takes for the scenario's engine (EngineSettingsForm), each change one
/// undo step through Planner::edit. Modeless: it follows the Planner's scenario, so an undo or a
/// change of engine shows at once.
class EngineSettingsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit EngineSettingsDialog(Planner *planner, QWidget *parent = nullptr);

    EngineSettingsForm *form() const { return m_form; }

private:
    void showScenario(const Scenario &s);

    Planner *m_planner;
    QLabel *m_rule;
    EngineSettingsForm *m_form;
};

} // namespace Headroom
