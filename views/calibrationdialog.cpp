// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartstyle.h"
#include "calibrationdialog.h"
#include "enginesettingsform.h"

#include "core/inputerror.h"
#include "io/benchcalibration.h"
#include "io/logcalibration.h"
#include "planner.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>

namespace Headroom {

CalibrationDialog::CalibrationDialog(Planner *planner, QVector<ModelShape> models, QWidget *parent)
    : QDialog(parent), m_planner(planner), m_models(std::move(models))
{
    setWindowTitle(tr("Calibrate from a start-up log or a benchmark"));
    m_log = new QPlainTextEdit;
    m_log->setPlaceholderText(tr("Paste a vLLM, SGLang, TensorRT-LLM, llama.cpp or Ollama (server.log) start-up log here, from the model "
                                 "config to the KV cache size; or a "
                                 "benchmark's result: the block under \"Serving Benchmark Result\" of vllm bench serve or "
                                 "sglang.bench_serving, or llama-bench's table."));
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_table = new QTableWidget(0, 4);
    m_table->setHorizontalHeaderLabels({tr("Figure"), tr("Printed"), tr("Predicted"), tr("Difference")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setTabKeyNavigation(false); // read-only: Tab leaves the table, the arrows walk its cells
    m_status = new QLabel;
    m_status->setWordWrap(true);
    m_settings = new EngineSettingsForm;
    // Beside the comparison, scrolling when the engine has more settings than the height shows.
    m_settingsArea = new QScrollArea;
    m_settingsArea->setWidget(m_settings);
    m_settingsArea->setWidgetResizable(true);
    m_settingsArea->setFrameShape(QFrame::NoFrame);
    m_settingsArea->hide();
    auto *read = new QPushButton(tr("&Read"));
    m_apply = new QPushButton(tr("&Apply to scenario"));
    m_apply->setEnabled(false);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons->addButton(read, QDialogButtonBox::ActionRole);
    buttons->addButton(m_apply, QDialogButtonBox::AcceptRole);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_log, 2);
    layout->addWidget(m_status);
    auto *comparison = new QHBoxLayout;
    comparison->addWidget(m_table, 3);
    comparison->addWidget(m_settingsArea, 2);
    layout->addLayout(comparison, 3);
    layout->addWidget(buttons);
    connect(read, &QPushButton::clicked, this, [this] { readLog(m_log->toPlainText()); });
    connect(m_apply, &QPushButton::clicked, this, [this] {
        applyReading();
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_settings, &EngineSettingsForm::edited, this, [this](const Scenario &next) {
        m_base = next;
        m_apply->setEnabled(false);
        m_table->setRowCount(0);
        try {
            m_status->setText(compareStartupLog());
            m_apply->setEnabled(true);
        } catch (const InputError &e) {
            m_status->setText(ChartStyle::errorHtml(e.text().toHtmlEscaped(), this));
        }
    });
    resize(900, 600);
}

bool CalibrationDialog::readLog(const QString &log)
{
    m_apply->setEnabled(false);
    m_table->setRowCount(0);
    m_settingsArea->hide();
    try {
        m_status->setText(BenchReading::recognises(log) ? readBenchmark(log) : readStartupLog(log));
        m_apply->setEnabled(true);
        return true;
    } catch (const InputError &e) {
        m_status->setText(ChartStyle::errorHtml(e.text().toHtmlEscaped(), this));
        return false;
    }
}

Scenario CalibrationDialog::withNamedModel(Scenario base, const QString &printed) const
{
    for (const ModelShape &m : m_models)
        if (!m.hfId.isEmpty() && LogCalibration::namesModel(printed, m.hfId))
            base.model = m;
    return base;
}

void CalibrationDialog::resetTable(const QStringList &headers)
{
    m_table->setRowCount(0);
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
}

void CalibrationDialog::addRow(const QStringList &cells)
{
    const int i = m_table->rowCount();
    m_table->insertRow(i);
    for (int c = 0; c < cells.size(); ++c)
        m_table->setItem(i, c, new QTableWidgetItem(cells.at(c)));
}

QString CalibrationDialog::readStartupLog(const QString &log)
{
    m_reading = LogCalibration::read(log, tr("log"));
    m_base = withNamedModel(m_planner->scenario(), m_reading.model);
    return compareStartupLog();
}

QString CalibrationDialog::compareStartupLog()
{
    const LogReading &reading = m_reading;
    const Scenario &base = m_base;
    // The settings the prediction is at: the log's where it prints them, else the scenario's (editable).
    m_settings->showScenario(LogCalibration::applySettings(reading, base), LogCalibration::printedSettings(reading),
                             tr("Printed in the log: the prediction takes it from there."));
    m_settingsArea->show();
    m_calibrated = LogCalibration::apply(reading, base);
    m_applyText = tr("Calibrate from log");
    const QVector<CalibrationRow> rows = LogCalibration::compare(reading, base);
    resetTable({tr("Figure"), tr("Printed"), tr("Predicted"), tr("Difference")});
    for (const CalibrationRow &row : rows)
        addRow({row.figure, row.format(row.printed), row.format(row.predicted), CalibrationRow::formatDifference(row.difference())});
    QString status = tr("%1 log%2, model %3 (using %4): %5 of %6 lines read.")
                         .arg(Engines::name(reading.engine), reading.version.isEmpty() ? QString() : QStringLiteral(" v") + reading.version,
                              reading.model.isEmpty() ? tr("not named") : reading.model, m_calibrated.model.name)
                         .arg(reading.linesUsed)
                         .arg(reading.linesRead);
    for (const QString &w : LogCalibration::warnings(reading, m_calibrated, rows))
        status += QStringLiteral("<br>") + ChartStyle::errorHtml(w.toHtmlEscaped(), this);
    return status;
}

QString CalibrationDialog::readBenchmark(const QString &text)
{
    const BenchReading reading = BenchReading::read(text, tr("log"));
    const BenchCalibration c = BenchCalibration::fit(reading, withNamedModel(m_planner->scenario(), reading.model));
    m_calibrated = c.after;
    m_applyText = tr("Calibrate from benchmark");
    resetTable({tr("Figure"), tr("Measured"), tr("Predicted before"), tr("Predicted after"), tr("Difference after")});
    for (const CalibrationRow &row : c.rows)
        addRow({row.figure, row.format(row.printed), row.format(row.predicted), row.format(row.measured),
                CalibrationRow::formatDifference(row.measuredDifference())});
    QString status = tr("%1 result, model %2 (using %3): %4 of %5 lines read.")
                         .arg(reading.toolName(), reading.model.isEmpty() ? tr("not named") : reading.model, c.before.model.name)
                         .arg(reading.linesUsed)
                         .arg(reading.linesRead);
    for (const QString &note : c.notes)
        status += QStringLiteral("<br>") + note.toHtmlEscaped();
    return status;
}

void CalibrationDialog::applyReading()
{
    m_planner->edit(m_calibrated, ScenarioCommand::Other, m_applyText);
}

QString CalibrationDialog::status() const
{
    return m_status->text();
}

} // namespace Headroom
