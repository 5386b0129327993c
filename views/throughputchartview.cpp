// SPDX-License-Identifier: GPL-3.0-or-later
#include "throughputchartview.h"
#include "chartstyle.h"

#include <QChart>
#include <QEvent>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>

namespace Headroom {

ThroughputChartView::ThroughputChartView(QWidget *parent)
    : QChartView(new QChart, parent), m_axisX(new QLogValueAxis), m_axisItl(new QValueAxis), m_axisTps(new QValueAxis),
      m_itl(new QLineSeries), m_tps(new QLineSeries), m_marker(new QLineSeries)
{
    QChart *c = chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->setTitle(tr("Batch versus latency (decode)"));
    m_axisX->setTitleText(tr("concurrent sessions per replica (log scale)"));
    m_axisX->setLabelFormat(QStringLiteral("%.0f"));
    m_axisItl->setTitleText(tr("inter-token latency, ms"));
    m_axisTps->setTitleText(tr("tokens/s per GPU"));
    c->addAxis(m_axisX, Qt::AlignBottom);
    c->addAxis(m_axisItl, Qt::AlignLeft);
    c->addAxis(m_axisTps, Qt::AlignRight);
    m_itl->setName(tr("inter-token latency"));
    m_tps->setName(tr("tokens/s per GPU"));
    m_marker->setName(tr("sessions at risk"));
    for (QLineSeries *s : {m_itl, m_tps, m_marker}) {
        c->addSeries(s);
        s->attachAxis(m_axisX);
        s->attachAxis(s == m_tps ? m_axisTps : m_axisItl);
    }
    setRenderHint(QPainter::Antialiasing);
    restyle();
}

void ThroughputChartView::changeEvent(QEvent *event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        restyle();
}

void ThroughputChartView::restyle()
{
    ChartStyle::apply(chart(), this);
    QPen pen(palette().color(QPalette::Text)); // the marker in the text colour, on light or dark
    pen.setStyle(Qt::DashLine);
    m_marker->setPen(pen);
}

void ThroughputChartView::show(const DistributionFigures &f)
{
    QList<QPointF> itl, tps;
    double maxItl = 1, maxTps = 1, maxX = 10;
    for (const ThroughputPoint &p : f.throughputCurve) {
        itl << QPointF(double(p.sessions), p.itlMs);
        tps << QPointF(double(p.sessions), p.tokensPerSecondPerGpu);
        maxItl = std::max(maxItl, p.itlMs);
        maxTps = std::max(maxTps, p.tokensPerSecondPerGpu);
        maxX = std::max(maxX, double(p.sessions));
    }
    m_itl->replace(itl);
    m_tps->replace(tps);
    ChartStyle::logRange(m_axisX, 1, maxX);
    ChartStyle::niceRange(m_axisItl, maxItl * 1.05, 4); // a short chart under the figures: few, readable ticks
    ChartStyle::niceRange(m_axisTps, maxTps * 1.05, 4);
    if (f.sessionsAtRisk > 0)
        m_marker->replace({QPointF(double(f.sessionsAtRisk), 0), QPointF(double(f.sessionsAtRisk), m_axisItl->max())});
    else
        m_marker->clear();
    chart()->setTitle(f.throughputCurve.isEmpty() ? tr("Batch versus latency: the card has no bandwidth figure")
                                                  : tr("Batch versus latency (decode)"));
}

} // namespace Headroom
