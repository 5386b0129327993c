// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"

#include <QChartView>

QT_BEGIN_NAMESPACE
class QLineSeries;
class QLogValueAxis;
class QValueAxis;
QT_END_NAMESPACE

namespace Headroom {

/// Batch versus latency: inter-token latency and tokens per second per GPU
/// against concurrent sessions, from the result's throughput curve, with the
/// risk-based session count marked. Renders what it is given.
class ThroughputChartView : public QChartView
{
    Q_OBJECT
public:
    explicit ThroughputChartView(QWidget *parent = nullptr);
    void show(const DistributionFigures &figures);

protected:
    void changeEvent(QEvent *event) override;

private:
    void restyle();

    QLogValueAxis *m_axisX;
    QValueAxis *m_axisItl;
    QValueAxis *m_axisTps;
    QLineSeries *m_itl;
    QLineSeries *m_tps;
    QLineSeries *m_marker;
};

} // namespace Headroom
