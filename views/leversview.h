// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

QT_BEGIN_NAMESPACE
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QTableWidget;
QT_END_NAMESPACE

namespace Headroom {

class Planner;

/// The four levers, priced: every option under precision, attention,
/// retention and memory with its sessions per GPU, change against now, cost
/// per session-hour and per million tokens, and the price paid in another
/// currency; sorted by cost, the cheapest one meeting the target marked, and
/// the answer in one sentence. Below, the diagnosis of a failure ("it failed
/// at N sessions of about T tokens"). The Planner computes; this shows.
class LeversView : public QWidget
{
    Q_OBJECT
public:
    explicit LeversView(Planner *planner, QWidget *parent = nullptr);
    QTableWidget *table() const { return m_table; }
    QString answer() const;
    /// Runs the diagnosis for the inputs in the form; returns its sentence.
    QString diagnose(qint64 sessions, qint64 tokens);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void refresh();

    Planner *m_planner;
    QDoubleSpinBox *m_targetSessions;
    QDoubleSpinBox *m_maxItl;
    QSpinBox *m_prefix;
    QTableWidget *m_table;
    QLabel *m_answer;
    QSpinBox *m_failedSessions;
    QSpinBox *m_failedTokens;
    QLabel *m_diagnosis;
};

} // namespace Headroom
