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
/// change of engine shows at once. Ctrl+Z / Ctrl+Shift+Z undo and redo the plan here too, as in
/// the main window, unless a field has typed text of its own to undo; Enter takes a field's text
/// and never closes the dialog; a refused field's reason shows whole (the dialog grows).
class EngineSettingsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit EngineSettingsDialog(Planner *planner, QWidget *parent = nullptr);

    EngineSettingsForm *form() const { return m_form; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void showScenario(const Scenario &s);

    Planner *m_planner;
    QLabel *m_rule;
    EngineSettingsForm *m_form;
};

} // namespace Headroom
