// SPDX-License-Identifier: GPL-3.0-or-later
#include "trafficchartview.h"
#include "chartstyle.h"

#include <QChart>
#include <QEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>

namespace Headroom {

namespace {
/// The series' colours for a light or a dark plot: mid tones that keep a 3:1 contrast on
/// either base (WCAG 2.1's figure for graphics), the dark set lighter.
struct Colours
{
    QColor kv, kvMax, running, waiting, preempted;
};
Colours coloursFor(const QPalette &p)
{
    if (p.color(QPalette::Base).lightnessF() < 0.5)
        return {QColor(0x6c, 0xa8, 0xf0), QColor(0xa8, 0xcc, 0xf7), QColor(0x6f, 0xcf, 0x6f), QColor(0xf2, 0xa6, 0x4b), QColor(0xff, 0x6b, 0x6b)};
    return {QColor(0x1f, 0x5f, 0xbf), QColor(0x5b, 0x8f, 0xd9), QColor(0x2a, 0x8a, 0x2a), QColor(0xc0, 0x62, 0x00), QColor(0xc6, 0x20, 0x20)};
}
} // namespace

TrafficChartView::TrafficChartView(QWidget *parent)
    : QChartView(new QChart, parent), m_time(new QValueAxis), m_bytes(new QValueAxis), m_requests(new QValueAxis),
      m_kvMean(new QLineSeries), m_kvMax(new QLineSeries), m_budget(new QLineSeries), m_running(new QLineSeries),
      m_waiting(new QLineSeries), m_preempted(new QScatterSeries)
{
    QChart *c = chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->addAxis(m_time, Qt::AlignBottom);
    c->addAxis(m_bytes, Qt::AlignLeft);
    c->addAxis(m_requests, Qt::AlignRight);
    // Short names, so that the legend fits one row under the plot; the axes say the units.
    m_kvMean->setName(tr("KV, mean replica"));
    m_kvMax->setName(tr("KV, fullest replica"));
    m_budget->setName(tr("KV budget"));
    m_running->setName(tr("running"));
    m_waiting->setName(tr("waiting"));
    m_preempted->setName(tr("preemptions"));
    m_preempted->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    // In the legend's reading order: the KV lines and their bound, the requests, the marks (drawn last, on top).
    for (QXYSeries *s : std::initializer_list<QXYSeries *>{m_kvMean, m_kvMax, m_budget, m_running, m_waiting, m_preempted}) {
        c->addSeries(s);
        s->attachAxis(m_time);
        s->attachAxis(s == m_running || s == m_waiting ? m_requests : m_bytes);
    }
    setRenderHint(QPainter::Antialiasing);
    restyle();
    clear(tr("No trace yet: choose one above"));
}

void TrafficChartView::changeEvent(QEvent *event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        restyle();
}

void TrafficChartView::restyle()
{
    ChartStyle::apply(chart(), this);
    const Colours k = coloursFor(palette());
    const double width = std::max(1.5, fontMetrics().height() / 8.0);
    m_kvMean->setPen(QPen(k.kv, width * 1.3));
    QPen max(k.kvMax, width);
    max.setStyle(Qt::DotLine);
    m_kvMax->setPen(max);
    QPen budget(palette().color(QPalette::Text), width); // the budget in the text colour, as the memory chart's capacity
    budget.setStyle(Qt::DashLine);
    m_budget->setPen(budget);
    m_running->setPen(QPen(k.running, width));
    m_waiting->setPen(QPen(k.waiting, width));
    m_preempted->setColor(k.preempted);
    m_preempted->setBorderColor(k.preempted);
    m_preempted->setMarkerSize(std::max(5.0, fontMetrics().height() * 0.4));
}

void TrafficChartView::clear(const QString &title)
{
    for (QXYSeries *s : std::initializer_list<QXYSeries *>{m_kvMean, m_kvMax, m_budget, m_running, m_waiting, m_preempted})
        s->clear();
    m_time->setTitleText(tr("time since the first arrival, min"));
    m_bytes->setTitleText(tr("KV per GPU"));
    m_requests->setTitleText(tr("requests, all replicas"));
    ChartStyle::niceRange(m_time, 1, 4);
    ChartStyle::niceRange(m_bytes, 1, 4);
    ChartStyle::niceRange(m_requests, 1, 4);
    chart()->setTitle(title);
}

void TrafficChartView::show(const ReplayResult &r, qint64 budgetBytesPerGpu, UnitSystem units)
{
    const double giga = double(Units::gigaBytes(units));
    // Minutes once the trace spans ten of them (Mooncake's hour), else seconds.
    const double end = r.timeline.isEmpty() ? 1.0 : std::max(1.0, r.timeline.constLast().tSeconds);
    const bool minutes = end >= 600;
    const double perUnit = minutes ? 60.0 : 1.0;
    QList<QPointF> mean, max, running, waiting, preempted;
    double top = double(budgetBytesPerGpu) / giga, requests = 1;
    for (const ReplayPoint &p : r.timeline) {
        const double t = p.tSeconds / perUnit;
        mean << QPointF(t, p.kvBytesPerGpu / giga);
        max << QPointF(t, double(p.kvBytesPerGpuMax) / giga);
        running << QPointF(t, double(p.running));
        waiting << QPointF(t, double(p.waiting));
        if (p.preemptions > 0)
            preempted << QPointF(t, double(p.kvBytesPerGpuMax) / giga);
        top = std::max(top, double(p.kvBytesPerGpuMax) / giga);
        requests = std::max(requests, double(std::max(p.running, p.waiting)));
    }
    m_kvMean->replace(mean);
    m_kvMax->replace(max);
    m_running->replace(running);
    m_waiting->replace(waiting);
    m_preempted->replace(preempted);
    // The legend names the preemptions only when there are some to mark.
    for (QLegendMarker *m : chart()->legend()->markers(m_preempted))
        ChartStyle::setEntryVisible(m, !preempted.isEmpty());
    if (budgetBytesPerGpu > 0)
        m_budget->replace({QPointF(0, double(budgetBytesPerGpu) / giga), QPointF(end / perUnit, double(budgetBytesPerGpu) / giga)});
    else
        m_budget->clear();
    ChartStyle::niceRange(m_time, end / perUnit, 6);
    ChartStyle::niceRange(m_bytes, top * 1.05, 5);
    ChartStyle::niceRange(m_requests, requests * 1.05, 5);
    m_time->setTitleText(minutes ? tr("time since the first arrival, min") : tr("time since the first arrival, s"));
    m_bytes->setTitleText(tr("KV per GPU, %1").arg(Units::gigaLabel(units)));
    chart()->setTitle(tr("KV cache per GPU over the trace, %1").arg(Units::plural(r.replicas, tr("replica"), tr("replicas"))));
    ChartStyle::fitLegend(chart());
}

int TrafficChartView::preemptionMarks() const
{
    return int(m_preempted->count());
}

} // namespace Headroom
