// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "trafficreplay.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
QT_END_NAMESPACE

namespace Headroom {

class Planner;
class TokenSpinBox;
class TrafficChartView;

/// The "Traffic" tab: a trace with arrivals (a path, Open…, or one of the sample traces)
/// replayed on replicas of the plan's shape. Inputs: replicas, users ("N users like this
/// trace", optional), keep-idle seconds (optional), and "Solve min replicas" (no preemption,
/// optionally a p99 queue wait at most so many ms). Shows the chart (TrafficChartView) and a
/// summary in `headroom replay`'s words: the answer in one sentence, the trace and its
/// conversations, the fleet and its money, prefix hits against the ceiling, preemptions,
/// queue and time to first token, KV per GPU. The inputs are view state (not in the
/// scenario's undo); TrafficReplay replays; this shows.
class TrafficView : public QWidget
{
    Q_OBJECT
public:
    /// `replay` runs the replays (owned by the window, shared with the answer's headline).
    TrafficView(Planner *planner, TrafficReplay *replay, QWidget *parent = nullptr);

    /// Loads the trace at `path` (as typing it and pressing Enter does).
    void openTrace(const QString &path);
    QLineEdit *traceEdit() const { return m_path; }
    QSpinBox *replicasSpin() const { return m_replicas; }
    TokenSpinBox *usersSpin() const { return m_users; }
    QDoubleSpinBox *keepIdleSpin() const { return m_keepIdle; }
    QDoubleSpinBox *maxQueueSpin() const { return m_maxQueue; }
    QPushButton *solveButton() const { return m_solve; }
    TrafficChartView *chartView() const { return m_chart; }
    /// The answer's sentence as shown.
    QString answerText() const;
    /// The summary's rows as shown (plain text, "Label: value" a line).
    QString summaryText() const;
    /// The trace field's error as shown (plain text; empty when none).
    QString errorText() const;

protected:
    void changeEvent(QEvent *event) override;
    /// Shown with no trace chosen: the trace the plan's lengths come from (Lengths and risk, File >
    /// Open trace, a sample) is loaded, so the tab never says "No trace yet" beside a plan of one.
    void showEvent(QShowEvent *event) override;

private:
    /// The trace row (path, Open…, Samples) and the replay's inputs, in a form.
    QWidget *buildInputs();
    /// The trace row: its path, Open… and the sample traces, each opening the trace it names.
    QHBoxLayout *buildTraceRow();
    /// The inputs as TrafficInputs to the replay (the path as typed).
    void applyInputs();
    void chooseFile();
    void showAnswer(const TrafficAnswer &a);
    void showTraceError(const QString &path, const QString &error);
    void showBusy(bool busy);

    Planner *m_planner;
    TrafficReplay *m_replay;
    QLineEdit *m_path = nullptr;
    QSpinBox *m_replicas = nullptr;
    TokenSpinBox *m_users = nullptr;
    QDoubleSpinBox *m_keepIdle = nullptr;
    QDoubleSpinBox *m_maxQueue = nullptr;
    QPushButton *m_solve = nullptr;
    QLabel *m_error = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_answer = nullptr;
    QLabel *m_summary = nullptr;
    TrafficChartView *m_chart = nullptr;
    QString m_errorText;
    QStringList m_rows; ///< the summary's rows as plain text
};

} // namespace Headroom
