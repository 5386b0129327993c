// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/enginesettingfields.h"
#include "inputs/scenario.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QFormLayout;
class QLabel;
class QLineEdit;
QT_END_NAMESPACE

namespace Headroom {

/// The engine settings of one scenario's engine as a form (EngineSettingFields): one field per
/// setting the command line takes for that engine, labelled with its flag, holding the value set
/// (empty: the default, shown as the placeholder). Text is read under the flag's own rule when
/// the field is left or Enter is pressed; text it refuses stays, tinted, with the reason under
/// the field and as its tooltip, and the scenario is not changed. An emptied field goes back to
/// the default. Fields can be fixed (read-only, with a note: a setting the pasted log printed).
class EngineSettingsForm : public QWidget
{
    Q_OBJECT
public:
    explicit EngineSettingsForm(QWidget *parent = nullptr);

    /// Shows `s`'s engine settings; the fields in `fixed` read-only with `fixedNote` as their
    /// tooltip. Rebuilds the rows when the engine or the fixed set changes, else updates the texts.
    void showScenario(const Scenario &s, const QVector<EngineSettingField> &fixed = {}, const QString &fixedNote = {});
    /// The field of the setting whose flag is `flag` ("--gpu-memory-utilization"), or nullptr.
    QLineEdit *field(const QString &flag) const;
    /// The reason shown under the field of `flag` (empty when its text reads).
    QString problem(const QString &flag) const;

Q_SIGNALS:
    /// A field's text was read: `next` is the scenario shown with that setting changed; `flag`
    /// names the setting.
    void edited(const Headroom::Scenario &next, const QString &flag);
    /// A field's reason was shown or hidden: the window holding the form may need more height.
    void problemShown();

private:
    struct Row
    {
        EngineSettingField setting;
        QLineEdit *edit = nullptr;
        QLabel *problem = nullptr;
        QString shown; ///< the text last shown for the scenario (no edit when it is unchanged)
    };
    void rebuild(const Scenario &s, const QVector<EngineSettingField> &fixed, const QString &fixedNote);
    void read(int row);

    QFormLayout *m_form;
    QVector<Row> m_rows;
    Scenario m_scenario;
    Engine m_engine = Engine::Plain;
    QVector<EngineSettingField> m_fixed;
    bool m_built = false;
};

} // namespace Headroom
