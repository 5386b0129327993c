// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "lengths/lengthdistribution.h"

#include <QChartView>

QT_BEGIN_NAMESPACE
class QAreaSeries;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace Headroom {

/// The session-length distribution on a logarithmic length axis: histogram
/// (share of sessions per length band) and CDF, the retention cap as a line
/// with the truncated share shaded, and draggable quantile handles. Shows the
/// distribution it is given; a drag reports the new length of a handle.
class DistributionChartView : public QChartView
{
    Q_OBJECT
public:
    explicit DistributionChartView(QWidget *parent = nullptr);

    /// Draws `d` (already scaled), the cap (0 = none) and handles at the
    /// given (probability, tokens) points (empty: no handles).
    void show(const LengthDistribution &d, qint64 cap, const QVector<QPair<double, qint64>> &handles);
    /// The handles as drawn, for tests.
    QVector<QPointF> handlePoints() const;

Q_SIGNALS:
    /// Handle `index` dragged to `tokens`; `finished` on release.
    void handleDragged(int index, qint64 tokens, bool finished);

protected:
    void changeEvent(QEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    void restyle();

    qint64 tokensAt(const QPointF &viewPos) const;

    QLogValueAxis *m_axisX;
    QValueAxis *m_axisCdf;
    QValueAxis *m_axisShare;
    QLineSeries *m_cdf;
    QLineSeries *m_histogram;
    QLineSeries *m_capLine;
    QAreaSeries *m_capArea;
    QLineSeries *m_capTop;
    QLineSeries *m_capBottom;
    QScatterSeries *m_handles;
    int m_dragging = -1;
};

} // namespace Headroom
