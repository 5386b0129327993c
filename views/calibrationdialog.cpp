// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartstyle.h"
#include "calibrationdialog.h"

#include "core/inputerror.h"
#include "io/logcalibration.h"
#include "planner.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace Headroom {

CalibrationDialog::CalibrationDialog(Planner *planner, QVector<ModelShape> models, QWidget *parent)
    : QDialog(parent), m_planner(planner), m_models(std::move(models))
{
    setWindowTitle(tr("Calibrate from a start-up log"));
    m_log = new QPlainTextEdit;
    m_log->setPlaceholderText(tr("Paste a vLLM, SGLang or llama.cpp start-up log here: from the model config to the KV cache size."));
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_table = new QTableWidget(0, 4);
    m_table->setHorizontalHeaderLabels({tr("Figure"), tr("Printed"), tr("Predicted"), tr("Difference")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setTabKeyNavigation(false); // read-only: Tab leaves the table, the arrows walk its cells
    m_status = new QLabel;
    m_status->setWordWrap(true);
    auto *read = new QPushButton(tr("&Read log"));
    m_apply = new QPushButton(tr("&Apply to scenario"));
    m_apply->setEnabled(false);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons->addButton(read, QDialogButtonBox::ActionRole);
    buttons->addButton(m_apply, QDialogButtonBox::AcceptRole);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_log, 2);
    layout->addWidget(m_status);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    connect(read, &QPushButton::clicked, this, [this] { readLog(m_log->toPlainText()); });
    connect(m_apply, &QPushButton::clicked, this, [this] {
        applyReading();
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    resize(900, 600);
}

bool CalibrationDialog::readLog(const QString &log)
{
    m_apply->setEnabled(false);
    m_table->setRowCount(0);
    try {
        const LogReading reading = LogCalibration::read(log, tr("log"));
        Scenario base = m_planner->scenario();
        for (const ModelShape &m : m_models)
            if (!m.hfId.isEmpty() && LogCalibration::namesModel(reading.model, m.hfId))
                base.model = m;
        m_calibrated = LogCalibration::apply(reading, base);
        const QVector<CalibrationRow> rows = LogCalibration::compare(reading, base);
        for (const CalibrationRow &row : rows) {
            const int i = m_table->rowCount();
            m_table->insertRow(i);
            m_table->setItem(i, 0, new QTableWidgetItem(row.figure));
            m_table->setItem(i, 1, new QTableWidgetItem(row.format(row.printed)));
            m_table->setItem(i, 2, new QTableWidgetItem(row.format(row.predicted)));
            m_table->setItem(i, 3, new QTableWidgetItem(std::isfinite(row.difference()) ? QStringLiteral("%1%").arg(row.difference() * 100, 0, 'f', 2)
                                                                                        : tr("n/a")));
        }
        QString status = tr("%1 log%2, model %3 (using %4): %5 of %6 lines read.")
                              .arg(Engines::name(reading.engine),
                                   reading.version.isEmpty() ? QString() : QStringLiteral(" v") + reading.version,
                                   reading.model.isEmpty() ? tr("not named") : reading.model, m_calibrated.model.name)
                              .arg(reading.linesUsed)
                              .arg(reading.linesRead);
        for (const QString &w : LogCalibration::warnings(reading, m_calibrated, rows))
            status += QStringLiteral("<br>") + ChartStyle::errorHtml(w.toHtmlEscaped(), this);
        m_status->setText(status);
        m_apply->setEnabled(true);
        return true;
    } catch (const InputError &e) {
        m_status->setText(ChartStyle::errorHtml(e.text().toHtmlEscaped(), this));
        return false;
    }
}

void CalibrationDialog::applyReading()
{
    m_planner->edit(m_calibrated, ScenarioCommand::Other, tr("Calibrate from log"));
}

QString CalibrationDialog::status() const
{
    return m_status->text();
}

} // namespace Headroom
