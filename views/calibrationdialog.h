// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/logreading.h"
#include "kv/modelshape.h"
#include "inputs/scenario.h"

#include <QDialog>

QT_BEGIN_NAMESPACE
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QScrollArea;
class QTableWidget;
QT_END_NAMESPACE

namespace Headroom {

class EngineSettingsForm;
class Planner;

/// Calibration from a pasted start-up log (vLLM, SGLang, TensorRT-LLM, llama.cpp, Ollama):
/// reads the printed figures (LogCalibration), shows them beside Headroom's prediction with
/// the difference, and the engine's settings the prediction is at: those the log prints
/// read from it (read-only), the others the scenario's, editable before Apply (each edit
/// predicts again). On Apply the measured machine becomes the scenario (one undo step), so
/// later what-ifs start from it. A pasted
/// benchmark result (vllm bench serve, sglang.bench_serving, llama-bench;
/// BenchReading) instead shows its times measured, predicted before and after
/// the card's achieved fractions are fitted (BenchCalibration), and Apply sets
/// those fractions.
class CalibrationDialog : public QDialog
{
    Q_OBJECT
public:
    /// planner: the document to calibrate; models: presets to match the
    /// log's model name against (by HuggingFace id).
    CalibrationDialog(Planner *planner, QVector<ModelShape> models, QWidget *parent = nullptr);

    /// Reads `log` (a start-up log or a benchmark's result) and fills the comparison; returns
    /// false (reason shown) when it cannot.
    bool readLog(const QString &log);
    /// Applies the last reading to the planner.
    void applyReading();
    /// The comparison as shown, for tests: rows of figure, printed, predicted, difference (a
    /// benchmark: figure, measured, predicted before, predicted after, difference after).
    QTableWidget *table() const { return m_table; }
    QString status() const;
    /// The engine settings the last start-up log's prediction is at (hidden for a benchmark).
    EngineSettingsForm *settings() const { return m_settings; }

private:
    /// Fills the table and returns the status line of a start-up log (LogCalibration).
    QString readStartupLog(const QString &log);
    /// Compares the read start-up log with m_base (the scenario, its model matched and its
    /// settings as edited): fills the table and the settings, returns the status line.
    QString compareStartupLog();
    /// Fills the table and returns the status line of a benchmark's result (BenchCalibration).
    QString readBenchmark(const QString &text);
    /// `base` with the preset model among m_models that `printed` names, if any.
    Scenario withNamedModel(Scenario base, const QString &printed) const;
    /// Starts the table with these column headers and no rows.
    void resetTable(const QStringList &headers);
    /// Appends a row of these cells to the table.
    void addRow(const QStringList &cells);

    Planner *m_planner;
    QVector<ModelShape> m_models;
    QPlainTextEdit *m_log;
    QTableWidget *m_table;
    QLabel *m_status;
    QPushButton *m_apply;
    EngineSettingsForm *m_settings;
    QScrollArea *m_settingsArea; ///< m_settings, beside the table
    LogReading m_reading;   ///< the last start-up log read
    Scenario m_base;        ///< the scenario that log is compared with
    Scenario m_calibrated;
    QString m_applyText; ///< the undo step's name of the last reading
};

} // namespace Headroom
