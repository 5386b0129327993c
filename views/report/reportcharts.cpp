// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/reportcharts.h"
#include "report/pagecursor.h"
#include "report/reportfigures.h"
#include "report/reporttext.h"

#include "chartstyle.h"
#include "plan/capacity.h"

#include <QChart>
#include <QCoreApplication>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>
#include <algorithm>

namespace Headroom {

namespace {

using ReportText::tr;

// The sessions-against-context chart, dressed as the report's other charts are
// (ChartStyle::apply with `look`, a chart view already given the paper palette).
QChart *sessionsChart(const Scenario &s, const QWidget *look)
{
    auto *chart = new QChart;
    auto *series = new QLineSeries;
    series->setName(QCoreApplication::translate("ReportWriter", "sessions that fit per replica"));
    qint64 top = 1;
    double first = 1, last = 10;
    const auto points = sessionsAcrossContexts(s);
    for (const auto &[context, sessions] : points) {
        series->append(double(context), double(sessions));
        top = std::max(top, sessions);
    }
    if (!points.isEmpty())
        first = double(points.first().first), last = double(points.last().first);
    chart->addSeries(series);
    auto *x = new QLogValueAxis;
    x->setBase(10);
    x->setLabelFormat(QStringLiteral("%.0f"));
    x->setTitleText(QCoreApplication::translate("ReportWriter", "context length, tokens (log scale)"));
    ChartStyle::logRange(x, first, last);
    auto *y = new QValueAxis;
    y->setRange(0, double(top) * 1.1);
    y->applyNiceNumbers();
    y->setLabelFormat(QStringLiteral("%.0f"));
    y->setTitleText(QCoreApplication::translate("ReportWriter", "sessions"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    chart->setTitle(QCoreApplication::translate("ReportWriter", "Sessions against context length"));
    ChartStyle::apply(chart, look);
    return chart;
}

} // namespace

ReportCharts::ReportCharts(const ReportFigures &f)
{
    const Scenario &s = f.s;
    const QPalette paper = PageCursor::paper();
    for (QWidget *chart : std::initializer_list<QWidget *>{&m_memory, &m_distribution, &m_throughput})
        chart->setFont(PageCursor::paperFont());
    m_memory.setPalette(paper);
    showMemory(f);
    m_distribution.setPalette(paper);
    m_distribution.show(s.distribution ? s.distribution->scaled(s.lengthScale, s.field(Input::LengthScale))
                                       : LengthDistribution::fixed(f.r.reservedTokensPerSession),
                        s.retainTokens.value_or(0), {});
    m_throughput.setPalette(paper);
    m_throughput.show(f.d);
    m_sessions.reset(sessionsChart(s, &m_distribution));
}

ReportCharts::~ReportCharts() = default;

// Against a distribution, the memory chart shows the recommended sessions at the mean length:
// the pool as it stands on average at the risk-based count.
// Under a cap the mean is the capped lengths' (what a session holds), said as such, as the
// window's Lengths tab says it beside the lengths' own mean.
void ReportCharts::showMemory(const ReportFigures &f)
{
    const Scenario &s = f.s;
    const DistributionFigures &d = f.d;
    // Sessions asked beyond one replica size a fleet: a card of it, with its replica's share,
    // as the window's chart draws it (a trial read 334 sessions there and 352 here).
    const bool fleet = d.fleetTargetFromSessions && d.sessionsPerReplica > 0;
    const QString ofFleet = fleet ? tr(", one replica of %1").arg(Units::formatCount(d.fleetReplicas.value_or(0))) : QString();
    if (s.distribution && d.sessionsAtRisk > 0) {
        const qint64 drawn = fleet ? d.sessionsPerReplica : d.sessionsAtRisk;
        Scenario atRisk = s;
        atRisk.sessions = drawn;
        atRisk.contextTokens = f.meanHeld;
        atRisk.distribution.reset();
        m_memory.setResult(computeCapacity(atRisk), s.gpusPerReplica(), f.u);
        // Short enough for the half-page chart's width (a longer title was cut: "the me...").
        m_memory.chart()->setTitle(tr("Memory per GPU: %1").arg(MemoryChartView::sessionsAtMean(drawn, s, d)) + ofFleet);
    } else if (d.sessionsAtRisk > 0) {
        // Fixed lengths: the count the decision serves, each session at the context (as the
        // decision's sentence), not the sessions asked in the window.
        const qint64 drawn = fleet ? d.sessionsPerReplica : d.sessionsAtRisk;
        Scenario decided = s;
        decided.sessions = drawn;
        m_memory.setResult(computeCapacity(decided), s.gpusPerReplica(), f.u);
        m_memory.chart()->setTitle(tr("Memory per GPU: %1 × %2 tokens").arg(Units::plural(drawn, tr("session"), tr("sessions")),
                                                                             Units::formatCount(f.r.reservedTokensPerSession))
                                   + ofFleet);
    } else {
        m_memory.setResult(f.r, s.gpusPerReplica(), f.u);
    }
}

QChart *ReportCharts::memory() const
{
    return m_memory.chart();
}

double ReportCharts::memoryShare() const
{
    return m_memory.legendEntries() > 8 ? 0.5 : 0.36;
}

QChart *ReportCharts::distribution() const
{
    return m_distribution.chart();
}

QChart *ReportCharts::sessions() const
{
    return m_sessions.get();
}

QChart *ReportCharts::throughput() const
{
    return m_throughput.chart();
}

QVector<QChart *> ReportCharts::compared(const QVector<QPair<QString, Scenario>> &all, const QVector<CapacityResult> &results, UnitSystem u)
{
    qint64 top = 0;
    for (const CapacityResult &y : results)
        top = std::max(top, y.gpuMemoryBytes + std::max<qint64>(0, y.weightsBytesPerGpu + y.draftWeightsBytesPerGpu + y.loraBytesPerGpu + y.workspaceBytesPerGpu + y.kvBytesForSessionsPerGpu - y.gpuMemoryBytes));
    QVector<QChart *> charts;
    for (int i = 0; i < all.size(); ++i) {
        auto c = std::make_unique<MemoryChartView>();
        c->setFont(PageCursor::paperFont());
        c->setPalette(PageCursor::paper());
        c->setResult(results.at(i), all.at(i).second.gpusPerReplica(), u);
        c->setScaleTop(top);
        c->setLegendVisible(false);
        c->chart()->setTitle(all.at(i).first);
        charts << c->chart();
        m_compared.push_back(std::move(c));
    }
    return charts;
}

} // namespace Headroom
