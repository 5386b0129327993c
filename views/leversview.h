// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/levers.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QDoubleSpinBox;
class QFormLayout;
class QHBoxLayout;
class QLabel;
class QTableWidget;
QT_END_NAMESPACE

namespace Headroom {

class Planner;
class TokenSpinBox;

/// The four levers, priced: every option under precision, attention,
/// retention and memory with its sessions per GPU, change against now, cost
/// per session-hour and per million tokens, and the price paid in another
/// currency; sorted by cost, the cheapest one meeting the target marked, and
/// the answer in one sentence. Options that change what the user said they
/// need (a cap below the context, a retrained model, a latency past the
/// target) are greyed, italic and say why; they are never the cheapest. Below, the diagnosis of a failure ("it failed
/// at N sessions of about T tokens"). The Planner computes; this shows.
class LeversView : public QWidget
{
    Q_OBJECT
public:
    explicit LeversView(Planner *planner, QWidget *parent = nullptr);
    QTableWidget *table() const { return m_table; }
    QString answer() const;
    /// The report shown (the latest priced off the GUI thread).
    const LeverReport &report() const { return m_report; }
    /// Runs the diagnosis for the inputs in the form; returns its sentence.
    QString diagnose(qint64 sessions, qint64 tokens);

protected:
    void showEvent(QShowEvent *event) override;

    void changeEvent(QEvent *event) override;

private:
    /// The targets (sessions per GPU, latency per token) and the shared system prompt, in a form.
    QFormLayout *buildTargets();
    /// The table of options (wrapped, read-only) and the answer in bold above it.
    void buildTable();
    /// "It failed at N sessions of about T tokens" with its Diagnose button, wired to diagnose().
    QHBoxLayout *buildDiagnosis();
    /// The targets to a new pricing, the Planner's results to refresh() and its reports to showReport().
    void connectSignals();
    void refresh();
    void showReport(const LeverReport &report);

    Planner *m_planner;
    QDoubleSpinBox *m_targetSessions;
    QDoubleSpinBox *m_maxItl;
    TokenSpinBox *m_prefix;
    QTableWidget *m_table;
    QLabel *m_answer;
    TokenSpinBox *m_failedSessions;
    TokenSpinBox *m_failedTokens;
    QLabel *m_diagnosis;
    LeverReport m_report;
};

} // namespace Headroom
