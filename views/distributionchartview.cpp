// SPDX-License-Identifier: GPL-3.0-or-later
#include "distributionchartview.h"
#include "chartstyle.h"

#include <QAreaSeries>
#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QEvent>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace Headroom {

DistributionChartView::DistributionChartView(QWidget *parent)
    : QChartView(new QChart, parent), m_axisX(new QLogValueAxis), m_axisCdf(new QValueAxis), m_axisShare(new QValueAxis),
      m_cdf(new QLineSeries), m_histogram(new QLineSeries), m_capLine(new QLineSeries), m_capTop(new QLineSeries),
      m_capBottom(new QLineSeries), m_handles(new QScatterSeries)
{
    QChart *c = chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->setTitle(tr("Session lengths"));
    m_axisX->setBase(10);
    m_axisX->setLabelFormat(QStringLiteral("%.0f"));
    m_axisX->setTitleText(tr("resident tokens per session (log scale)"));
    m_axisX->setMinorTickCount(8);
    m_axisCdf->setRange(0, 1);
    m_axisCdf->setTitleText(tr("CDF"));
    m_axisShare->setTitleText(tr("share")); // short: a long title is cut on a short chart; the legend says "per band"
    c->addAxis(m_axisX, Qt::AlignBottom);
    c->addAxis(m_axisCdf, Qt::AlignLeft);
    c->addAxis(m_axisShare, Qt::AlignRight);

    m_capArea = new QAreaSeries(m_capTop, m_capBottom);
    m_capArea->setName(tr("lost to the cap"));
    m_capArea->setColor(QColor(0xc6, 0x28, 0x28, 50));
    m_capArea->setBorderColor(Qt::transparent);
    m_histogram->setName(tr("share per band"));
    m_histogram->setColor(QColor(0xe0, 0x9a, 0x2b));
    m_cdf->setName(tr("CDF"));
    m_cdf->setColor(QColor(0x3b, 0x6e, 0xa8));
    QPen capPen(QColor(0xc6, 0x28, 0x28));
    capPen.setStyle(Qt::DashLine);
    capPen.setWidthF(1.5);
    m_capLine->setPen(capPen);
    m_capLine->setName(tr("retention cap"));
    m_handles->setName(tr("quantiles (drag)"));
    m_handles->setMarkerSize(12);
    for (QAbstractSeries *series : std::initializer_list<QAbstractSeries *>{m_capArea, m_histogram, m_cdf, m_capLine, m_handles}) {
        c->addSeries(series);
        series->attachAxis(m_axisX);
        series->attachAxis(series == m_histogram ? m_axisShare : m_axisCdf);
    }
    setRenderHint(QPainter::Antialiasing);
    setMouseTracking(true);
    restyle();
}

void DistributionChartView::changeEvent(QEvent *event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        restyle();
}

void DistributionChartView::restyle()
{
    ChartStyle::apply(chart(), this);
    m_handles->setColor(palette().color(QPalette::Text)); // the draggable handles in the text colour
    m_handles->setBorderColor(palette().color(QPalette::Base));
}

void DistributionChartView::show(const LengthDistribution &d, qint64 cap, const QVector<QPair<double, qint64>> &handles)
{
    if (d.lengths.isEmpty())
        return;
    // Whole decades around the lengths, and the cap when it is near them (a cap far above every
    // length, up to 2^63 - 1, would squash the lengths into the left edge).
    // A cap below every length (a fixed context of 128,000 capped at 8,192) widens the range to
    // the left as a cap above them does to the right, so its line is always on the chart.
    const bool capShown = cap > 0 && cap <= 10 * d.maximum();
    const qint64 left = capShown ? std::min(d.lengths.first(), cap) : d.lengths.first();
    const qint64 right = capShown ? std::max(d.maximum(), cap) : d.maximum();
    // The shortest length strictly inside (100,000 starts the axis at 10,000), so a step
    // at it is seen rising from 0, as the longest has room on its right.
    const double lo = std::max(1.0, std::pow(10.0, std::floor(std::log10(std::max(1.0, double(left) - 1)))));
    const double hi = std::pow(10.0, std::ceil(std::log10(double(right) + 1)));
    ChartStyle::logRange(m_axisX, lo, hi);
    // CDF as steps over the distinct lengths (thinned to at most ~400 points): flat to each
    // length, up at it. A fixed context is one step at its length.
    QList<QPointF> cdf;
    double c = 0;
    const int stride = std::max(1, int(d.lengths.size() / 400));
    cdf << QPointF(lo, 0);
    for (int i = 0; i < d.lengths.size(); ++i) {
        c += d.probabilities.at(i);
        if (i % stride == 0 || i == d.lengths.size() - 1)
            cdf << QPointF(double(d.lengths.at(i)), cdf.constLast().y()) << QPointF(double(d.lengths.at(i)), c);
    }
    cdf << QPointF(hi, 1.0);
    m_cdf->replace(cdf);
    // Histogram: share of sessions in 40 equal bands of log length.
    const int bands = 40;
    QVector<double> share(bands, 0.0);
    const double llo = std::log(lo), lhi = std::log(hi);
    for (int i = 0; i < d.lengths.size(); ++i) {
        const int b = std::clamp(int((std::log(double(d.lengths.at(i))) - llo) / (lhi - llo) * bands), 0, bands - 1);
        share[b] += d.probabilities.at(i);
    }
    QList<QPointF> hist;
    double top = 0;
    for (int b = 0; b < bands; ++b) {
        const double x0 = std::exp(llo + (lhi - llo) * b / bands), x1 = std::exp(llo + (lhi - llo) * (b + 1) / bands);
        hist << QPointF(x0, share.at(b)) << QPointF(x1, share.at(b));
        top = std::max(top, share.at(b));
    }
    m_histogram->replace(hist);
    // As few ticks as the CDF's quarters (a short chart), and never past 1: no band holds more than
    // every session (a fixed context is one band of share 1, which 5% headroom took to 1.5).
    ChartStyle::niceRange(m_axisShare, std::clamp(top * 1.05, 0.01, 1.0), 4);
    if (capShown) {
        m_capLine->replace({QPointF(double(cap), 0), QPointF(double(cap), 1)});
        m_capTop->replace({QPointF(double(cap), 1), QPointF(hi, 1)});
        m_capBottom->replace({QPointF(double(cap), 0), QPointF(hi, 0)});
    } else {
        m_capLine->clear();
        m_capTop->clear();
        m_capBottom->clear();
    }
    m_capLine->setVisible(capShown);
    m_capArea->setVisible(capShown);
    QList<QPointF> points;
    for (const auto &h : handles)
        points << QPointF(double(h.second), h.first);
    m_handles->replace(points);
    m_handles->setVisible(!handles.isEmpty());
}

QVector<QPointF> DistributionChartView::handlePoints() const
{
    return m_handles->points();
}

qint64 DistributionChartView::tokensAt(const QPointF &viewPos) const
{
    const QPointF value = chart()->mapToValue(chart()->mapFromScene(mapToScene(viewPos.toPoint())), m_handles);
    return std::max<qint64>(1, qint64(std::llround(value.x())));
}

void DistributionChartView::mousePressEvent(QMouseEvent *event)
{
    m_dragging = -1;
    const QList<QPointF> points = m_handles->points();
    double best = 12.0; // pixels
    for (int i = 0; i < points.size() && m_handles->isVisible(); ++i) {
        const QPointF scene = chart()->mapToScene(chart()->mapToPosition(points.at(i), m_handles));
        const QPointF view = mapFromScene(scene);
        const double distance = QLineF(view, event->position()).length();
        if (distance < best) {
            best = distance;
            m_dragging = i;
        }
    }
    if (m_dragging < 0)
        QChartView::mousePressEvent(event);
}

void DistributionChartView::mouseMoveEvent(QMouseEvent *event)
{
    if (m_dragging >= 0)
        Q_EMIT handleDragged(m_dragging, tokensAt(event->position()), false);
    else
        QChartView::mouseMoveEvent(event);
}

void DistributionChartView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_dragging >= 0) {
        Q_EMIT handleDragged(m_dragging, tokensAt(event->position()), true);
        m_dragging = -1;
    } else {
        QChartView::mouseReleaseEvent(event);
    }
}

} // namespace Headroom
