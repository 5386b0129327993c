// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/units.h"
#include "traffic/replay.h"

#include <QChartView>

QT_BEGIN_NAMESPACE
class QLineSeries;
class QScatterSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace Headroom {

/// The replay over its time: KV bytes per GPU (the mean over replicas and the fullest
/// replica, ReplayResult::timeline) against the card's KV budget per GPU as a dashed line,
/// requests running and waiting on a second axis (right), and the points where preemptions
/// happened marked on the fullest replica's line. Bytes in the planner's units (GB or GiB,
/// said on the axis). Renders what it is given; follows the palette and the window's zoom.
class TrafficChartView : public QChartView
{
    Q_OBJECT
public:
    explicit TrafficChartView(QWidget *parent = nullptr);
    /// Shows `r`'s timeline against `budgetBytesPerGpu` (0: no budget line), bytes in `units`.
    void show(const ReplayResult &r, qint64 budgetBytesPerGpu, UnitSystem units);
    /// Empties the chart, `title` saying why (no trace yet, a plan without an answer).
    void clear(const QString &title);
    /// The preemption marks drawn (points), for tests.
    int preemptionMarks() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void restyle();

    QValueAxis *m_time;
    QValueAxis *m_bytes;
    QValueAxis *m_requests;
    QLineSeries *m_kvMean;
    QLineSeries *m_kvMax;
    QLineSeries *m_budget;
    QLineSeries *m_running;
    QLineSeries *m_waiting;
    QScatterSeries *m_preempted;
};

} // namespace Headroom
