// SPDX-License-Identifier: GPL-3.0-or-later
// The report's comparison page: the scenario beside up to three others.
#include "report/pagecursor.h"
#include "report/reportcharts.h"
#include "report/reportfigures.h"
#include "report/reportsections.h"
#include "report/reporttext.h"

#include "plan/capacity.h"

#include <QFileInfo>
#include <algorithm>
#include <functional>

namespace Headroom::ReportSections {

namespace {

using ReportText::basisOf;
using ReportText::esc;
using ReportText::money;
using ReportText::tr;

using Columns = QVector<QPair<QString, Scenario>>;

// The comparison's table of HTML: a column per named scenario with its plan (one
// computeCapacity() each), a line per figure.
class ComparisonTable
{
public:
    /// A figure of a scenario and its plan, in words (plain text: line() escapes it).
    using Value = std::function<QString(const Scenario &, const CapacityResult &)>;

    explicit ComparisonTable(const Columns &all)
        : m_all(all)
    {
        for (const auto &c : all)
            m_results << computeCapacity(c.second);
        m_html = QStringLiteral("<h2>%1</h2><table cellspacing=3 border=1><tr><th></th>").arg(tr("Comparison"));
        for (const auto &c : all)
            m_html += QStringLiteral("<th>%1</th>").arg(esc(c.first));
        m_html += QStringLiteral("</tr>");
    }

    /// A row across the table: `title` in italics.
    void heading(const QString &title)
    {
        m_html += QStringLiteral("<tr><td colspan=%1><i>%2</i></td></tr>").arg(m_all.size() + 1).arg(title);
    }

    /// A row `label`: each column's `value` (a failed plan's error instead), bold where it
    /// differs from the first column's; none when `onlyWhenDiffers` and every column is alike.
    void line(const QString &label, const Value &value, bool onlyWhenDiffers)
    {
        QStringList v;
        for (int i = 0; i < m_all.size(); ++i)
            v << (m_results.at(i).ok ? value(m_all.at(i).second, m_results.at(i)) : m_results.at(i).error);
        if (onlyWhenDiffers && v.count(v.first()) == v.size())
            return;
        m_html += QStringLiteral("<tr><td>%1</td>").arg(label);
        for (int i = 0; i < v.size(); ++i)
            m_html += v.at(i) == v.first() || i == 0 ? QStringLiteral("<td>%1</td>").arg(esc(v.at(i))) : QStringLiteral("<td><b>%1</b></td>").arg(esc(v.at(i)));
        m_html += QStringLiteral("</tr>");
    }

    /// The table's HTML, closed.
    QString html() const { return m_html + QStringLiteral("</table>"); }
    const QVector<CapacityResult> &results() const { return m_results; }

private:
    const Columns &m_all;
    QVector<CapacityResult> m_results;
    QString m_html;
};

// Every input that differs between the columns.
void inputsThatDiffer(ComparisonTable &t, const ReportFigures &f)
{
    t.heading(tr("Inputs that differ"));
    t.line(tr("Model"), [](const Scenario &x, const CapacityResult &) { return x.model.name; }, true);
    t.line(tr("GPU"), [](const Scenario &x, const CapacityResult &) { return x.gpu.name; }, true);
    t.line(tr("Card memory"), [&f](const Scenario &x, const CapacityResult &) { return f.bytes(x.effectiveGpuMemoryBytes()); }, true);
    t.line(tr("TP"), [](const Scenario &x, const CapacityResult &) { return QString::number(x.tp); }, true);
    t.line(tr("Weights precision"), [](const Scenario &, const CapacityResult &y) { return Dtypes::name(y.weightsDtype); }, true);
    t.line(tr("KV precision"), [](const Scenario &, const CapacityResult &y) { return Dtypes::name(y.kvDtype); }, true);
    t.line(tr("KV heads"), [](const Scenario &x, const CapacityResult &) {
        return x.kvHeadsOverride && *x.kvHeadsOverride != x.model.kvHeads ? tr("%1 (what-if; the model has %2)").arg(*x.kvHeadsOverride).arg(x.model.kvHeads)
                                                                          : QString::number(x.model.kvHeads);
    }, true);
    t.line(tr("Engine"), [](const Scenario &x, const CapacityResult &) { return Engines::name(x.engine); }, true);
    t.line(tr("Session lengths"), [](const Scenario &x, const CapacityResult &) {
        return x.distribution ? QFileInfo(x.distribution->spec).fileName() + (x.lengthScale != 1 ? tr(" × %1").arg(Units::formatDecimal(x.lengthScale, 3)) : QString())
                              : tr("fixed, at the context");
    }, true);
    t.line(tr("Context"), [](const Scenario &x, const CapacityResult &) { return tr("%1 tokens").arg(Units::formatCount(x.contextTokens)); }, true);
    t.line(tr("Sessions asked (the charts)"), [](const Scenario &x, const CapacityResult &) { return Units::formatCount(x.sessions); }, true);
    t.line(tr("Retention cap"), [](const Scenario &x, const CapacityResult &) { return x.retainTokens ? tr("%1 tokens").arg(Units::formatCount(*x.retainTokens)) : tr("none"); }, true);
    t.line(tr("Risk"), [](const Scenario &x, const CapacityResult &) { return !x.distribution ? tr("none (fixed lengths)") : x.fleetRisk ? tr("%1 for the fleet").arg(Units::formatRisk(*x.fleetRisk)) : Units::formatRisk(x.risk); }, true);
    t.line(tr("Target sessions"), [](const Scenario &x, const CapacityResult &) { return x.targetSessions ? Units::formatCount(*x.targetSessions) : tr("none"); }, true);
    t.line(tr("Price per GPU-hour"), [](const Scenario &x, const CapacityResult &) { return money(x.effectivePrice()); }, true);
}

// The answers of every column, alike or not.
void answers(ComparisonTable &t, const ReportFigures &f)
{
    t.heading(tr("Answers"));
    t.line(tr("Basis"), [](const Scenario &x, const CapacityResult &) { return basisOf(x); }, false);
    t.line(tr("KV bytes per token"), [](const Scenario &, const CapacityResult &y) { return Units::formatExactBytes(y.kvBytesPerToken); }, false);
    t.line(tr("KV budget per GPU"), [&f](const Scenario &, const CapacityResult &y) { return f.bytes(y.kvBudgetBytesPerGpu); }, false);
    // The whole count a TP group holds with its GPUs ("15 per 4 GPUs"), never a quotient per GPU.
    t.line(tr("Sessions that fit"), [](const Scenario &x, const CapacityResult &y) { return esc(sessionsPerGpus(y.distribution.sessionsAtRisk, x.gpusPerReplica(), false)); }, false);
    t.line(tr("Money per month"), [](const Scenario &x, const CapacityResult &y) { return money(Deployment::of(x, y).perMonth); }, false);
    t.line(tr("Money per session-hour"), [](const Scenario &x, const CapacityResult &y) {
        const auto v = Deployment::of(x, y).perSessionHour;
        return v ? Units::formatUsdPer(*v, tr("session-hour")) : QStringLiteral("—");
    }, false);
}

// The paragraph under the table: whether the columns stand on one basis, what bold means and
// what the charts below hold (the sessions asked, said when every column asks as many as `s`).
QString readingNote(const Columns &all, const Scenario &s)
{
    QStringList bases;
    for (const auto &c : all)
        bases << basisOf(c.second);
    bases.removeDuplicates();
    return QStringLiteral("<p>%1 %2</p>").arg(bases.size() == 1 ? tr("Like with like: every column is %1.").arg(bases.first())
                                                                : tr("<b>Not like with like</b>: the columns stand on different bases, so their session counts answer different questions."),
                                              tr("Bold: differs from the first column. Charts below hold each column's sessions asked%1, share one scale and the colours of the memory chart.")
                                                  .arg(std::all_of(all.cbegin(), all.cend(), [&](const auto &c) { return c.second.sessions == s.sessions; })
                                                           ? tr(" (%1)").arg(Units::formatCount(s.sessions)) : QString()));
}

} // namespace

void comparison(PageCursor &page, const ReportFigures &f, const QVector<QPair<QString, Scenario>> &others, ReportCharts &charts)
{
    if (others.isEmpty())
        return;
    Columns all{{f.in.name.isEmpty() ? tr("This scenario") : f.in.name, f.s}};
    all += others;
    ComparisonTable table(all);
    inputsThatDiffer(table, f);
    answers(table, f);
    page.text(table.html() + readingNote(all, f.s), true);
    page.charts(charts.compared(all, table.results(), f.u), 0.35);
}

} // namespace Headroom::ReportSections
