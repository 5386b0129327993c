// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kv/modelshape.h"
#include "inputs/scenario.h"

#include <QDialog>

QT_BEGIN_NAMESPACE
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;
QT_END_NAMESPACE

namespace Headroom {

class Planner;

/// Calibration from a pasted start-up log (vLLM, SGLang, llama.cpp): reads
/// the printed figures (LogCalibration), shows them beside Headroom's
/// prediction with the difference, and on Apply makes the measured machine
/// the scenario (one undo step), so later what-ifs start from it.
class CalibrationDialog : public QDialog
{
    Q_OBJECT
public:
    /// planner: the document to calibrate; models: presets to match the
    /// log's model name against (by HuggingFace id).
    CalibrationDialog(Planner *planner, QVector<ModelShape> models, QWidget *parent = nullptr);

    /// Reads `log` and fills the comparison; returns false (reason shown) when it cannot.
    bool readLog(const QString &log);
    /// Applies the last reading to the planner.
    void applyReading();
    /// The comparison as shown, for tests: rows of figure, printed, predicted, difference.
    QTableWidget *table() const { return m_table; }
    QString status() const;

private:
    Planner *m_planner;
    QVector<ModelShape> m_models;
    QPlainTextEdit *m_log;
    QTableWidget *m_table;
    QLabel *m_status;
    QPushButton *m_apply;
    Scenario m_calibrated;
};

} // namespace Headroom
