// SPDX-License-Identifier: GPL-3.0-or-later
#include "enginesettingsform.h"
#include "chartstyle.h"

#include "core/inputerror.h"
#include "core/units.h"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

namespace Headroom {

EngineSettingsForm::EngineSettingsForm(QWidget *parent) : QWidget(parent), m_form(new QFormLayout(this))
{
    m_form->setContentsMargins(0, 0, 0, 0);
    m_form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
}

void EngineSettingsForm::showScenario(const Scenario &s, const QVector<EngineSettingField> &fixed, const QString &fixedNote)
{
    m_scenario = s;
    if (!m_built || s.engine != m_engine || fixed != m_fixed)
        rebuild(s, fixed, fixedNote);
    const QLocale locale = Units::userLocale();
    for (Row &row : m_rows) {
        const QString shown = EngineSettingFields::text(s, row.setting, locale);
        // A field holding text it could not read keeps it until it is corrected or the scenario changes that setting.
        if (row.problem->isHidden() || shown != row.shown) {
            row.edit->setText(shown);
            row.problem->hide();
            ChartStyle::markInvalid(row.edit, QString());
            if (row.edit->isReadOnly())
                row.edit->setToolTip(fixedNote);
        }
        row.shown = shown;
        row.edit->setPlaceholderText(EngineSettingFields::placeholder(s, row.setting, locale));
    }
}

void EngineSettingsForm::rebuild(const Scenario &s, const QVector<EngineSettingField> &fixed, const QString &fixedNote)
{
    while (m_form->rowCount() > 0)
        m_form->removeRow(0);
    m_rows.clear();
    m_engine = s.engine;
    m_fixed = fixed;
    m_built = true;
    for (const EngineSettingField &setting : EngineSettingFields::of(s.engine)) {
        Row row;
        row.setting = setting;
        row.edit = new QLineEdit;
        const QString flag = EngineSettingFields::flag(setting);
        row.edit->setAccessibleName(flag);
        row.edit->setReadOnly(fixed.contains(setting));
        row.edit->setClearButtonEnabled(!row.edit->isReadOnly()); // emptied: back to the default
        row.problem = new QLabel;
        row.problem->setWordWrap(true);
        row.problem->hide();
        auto *cell = new QWidget;
        auto *v = new QVBoxLayout(cell);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(0);
        v->addWidget(row.edit);
        v->addWidget(row.problem);
        auto *label = new QLabel(flag);
        label->setBuddy(row.edit);
        m_form->addRow(label, cell);
        const int index = int(m_rows.size());
        connect(row.edit, &QLineEdit::editingFinished, this, [this, index] { read(index); });
        m_rows << row;
    }
    if (!fixed.isEmpty() && !fixedNote.isEmpty()) {
        auto *note = new QLabel(fixedNote);
        note->setWordWrap(true);
        m_form->addRow(note);
    }
}

void EngineSettingsForm::read(int index)
{
    Row &row = m_rows[index];
    if (row.edit->isReadOnly())
        return;
    const QString text = row.edit->text();
    try {
        const Scenario next = EngineSettingFields::withText(m_scenario, row.setting, text, Units::userLocale());
        row.problem->hide();
        ChartStyle::markInvalid(row.edit, QString());
        if (text.trimmed() != row.shown && next != m_scenario)
            Q_EMIT edited(next, EngineSettingFields::flag(row.setting));
    } catch (const InputError &e) {
        row.problem->setText(ChartStyle::errorHtml(e.text().toHtmlEscaped(), this));
        row.problem->show();
        ChartStyle::markInvalid(row.edit, e.text());
        Q_EMIT problemShown();
    }
}

QLineEdit *EngineSettingsForm::field(const QString &flag) const
{
    for (const Row &row : m_rows)
        if (EngineSettingFields::flag(row.setting) == flag)
            return row.edit;
    return nullptr;
}

QString EngineSettingsForm::problem(const QString &flag) const
{
    for (const Row &row : m_rows)
        if (EngineSettingFields::flag(row.setting) == flag)
            return row.problem->isHidden() ? QString() : row.edit->toolTip();
    return {};
}

} // namespace Headroom
