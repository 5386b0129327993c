// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "report/reporttext.h"
#include "distributionchartview.h"
#include "memorychartview.h"
#include "throughputchartview.h"

#include <QPair>
#include <QVector>
#include <memory>
#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace Headroom {

struct ReportFigures;

/// The charts of a report, drawn in the paper palette (PageCursor::paper) by the window's
/// own chart views, which own them: they live as long as this, so keep it until the report
/// is painted. The memory chart's bands come from MemoryChartView (its segments), so side
/// pools drawn there appear in the report too.
class ReportCharts
{
    HEADROOM_TR_CONTEXT(ReportWriter)
public:
    explicit ReportCharts(const ReportFigures &f);
    ~ReportCharts();

    /// Memory per GPU at the count the decision serves.
    QChart *memory() const;
    /// The memory chart's share of the page body: past eight legend entries (side pools
    /// on) the legend down the right needs more height.
    double memoryShare() const;
    /// The session lengths, with the cap.
    QChart *distribution() const;
    /// Sessions per TP group against context length.
    QChart *sessions() const;
    /// Throughput and latency against sessions.
    QChart *throughput() const;
    /// One memory chart per column of the comparison, `all` planned as `results`: each
    /// titled with its name, without a legend, on one scale (the tallest column's top).
    QVector<QChart *> compared(const QVector<QPair<QString, Scenario>> &all, const QVector<CapacityResult> &results, UnitSystem u);

private:
    /// Puts the plan the decision serves on the memory chart: against a distribution the
    /// sessions at risk at the mean length held, at fixed lengths the sessions at risk each
    /// at the context, and the plan as it is when no session fits.
    void showMemory(const ReportFigures &f);

    MemoryChartView m_memory;
    DistributionChartView m_distribution;
    ThroughputChartView m_throughput;
    std::unique_ptr<QChart> m_sessions;
    std::vector<std::unique_ptr<MemoryChartView>> m_compared;
};

} // namespace Headroom
