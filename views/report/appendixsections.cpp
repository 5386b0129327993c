// SPDX-License-Identifier: GPL-3.0-or-later
// The report's appendices: the derivation, the sources, the assumptions, the figures for scripts.
#include "report/pagecursor.h"
#include "report/reportfigures.h"
#include "report/reportsections.h"
#include "report/reporttext.h"

#include "core/citation.h"
#include "io/sampletraces.h"
#include "plan/capacity.h"
#include "plan/timeconstants.h"

#include <QJsonObject>
#include <QRegularExpression>
#include <utility>

namespace Headroom::ReportSections {

namespace {

using ReportText::esc;
using ReportText::row;
using ReportText::tr;

// Figure `key` of `plan --json`'s `json` as written there, or, when plan --json leaves it
// null, null with what it waits for (a price, the target sessions).
QString scriptFigure(const QJsonObject &json, const char *key, const ReportFigures &f)
{
    const QJsonValue v = json.value(QString::fromLatin1(key));
    const QString k = QString::fromLatin1(key);
    const QString why = k.contains(QLatin1String("cost")) && !f.price ? tr("null (no price per GPU-hour)")
                        : k == QLatin1String("gpus_needed") && !f.s.targetSessions ? tr("null (no target sessions)")
                                                                                                                           : tr("null");
    return v.isDouble() ? QString::number(v.toDouble(), 'f', 12).remove(QRegularExpression(QStringLiteral("\\.?0+$"))) : why;
}

} // namespace

void derivation(PageCursor &page, const ReportFigures &f)
{
    const Scenario &s = f.s;
    // Numbered by hand in a two-column table: the derivation flows across pages in blocks, and each
    // block keeps its numbers.
    const QString a1Head = QStringLiteral("<h2>%1</h2>").arg(tr("Appendix A: the derivation, every number"));
    QString a1 = a1Head + QStringLiteral("<table cellspacing=2>");
    QStringList steps = explainCapacity(s, f.r, f.u);
    if (s.distribution) // a sample trace by its name, not the folder of the build it was found in
        steps.replaceInStrings(s.distribution->spec, describeSpec(s.distribution->spec));
    bool firstChunk = true;
    for (int i = 0; i < steps.size(); ++i) {
        a1 += QStringLiteral("<tr><td align=right>%1.</td><td>%2</td></tr>").arg(i + 1).arg(esc(steps.at(i)));
        if ((i + 1) % 14 == 0 && i + 1 < steps.size()) { // blocks small enough to flow onto the next page
            page.text(a1 + QStringLiteral("</table>"), firstChunk);
            firstChunk = false;
            a1 = QStringLiteral("<table cellspacing=2>");
        }
    }
    a1 += QStringLiteral("</table>");
    // The fixes, said for what they are: single changes, each with the sessions it holds.
    if (!f.r.fixes.isEmpty()) {
        a1 += QStringLiteral("<p><b>%1</b></p><ul>").arg(tr("Single changes that each hold the %1 asked (the Levers tab prices them):")
                                                          .arg(Units::plural(std::max<qint64>(1, s.sessions), tr("session"), tr("sessions"))));
        for (const QString &fix : f.r.fixes)
            a1 += QStringLiteral("<li>%1</li>").arg(esc(fix));
        a1 += QStringLiteral("</ul>");
    }
    page.text(a1, firstChunk);
}

void sources(PageCursor &page, const ReportFigures &f)
{
    const Scenario &s = f.s;
    // What a reader cites: each value's publication and its date. How each was checked (the
    // stored copies compared, what was not re-read) is a part of its own after it.
    auto dated = [](const QString &text, const QString &date) {
        return tr("%1 (%2)").arg(esc(Citation::publication(text)), esc(date.isEmpty() ? tr("undated") : date));
    };
    QString a2 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Appendix B: sources"));
    a2 += row(tr("Model: %1").arg(esc(s.model.name)), dated(s.model.source, s.model.sourceDate));
    a2 += row(tr("Card: %1").arg(esc(s.gpu.name)), dated(s.gpu.source, s.gpu.sourceDate));
    a2 += row(tr("Card memory"), esc(Citation::publication(s.gpu.memorySource)));
    if (s.gpu.priceUsdPerHour)
        a2 += row(tr("Price"), dated(s.gpu.priceSource, s.gpu.priceDate));
    if (s.distribution)
        a2 += row(tr("Session lengths"), esc(describeSpec(s.distribution->spec)));
    a2 += row(tr("Engine rule"), esc(f.r.budgetRule));
    a2 += QStringLiteral("</table>");
    QString checks;
    for (const auto &[what, text] : {std::pair{tr("Model"), s.model.source}, std::pair{tr("Card"), s.gpu.source},
                                     std::pair{tr("Card memory"), s.gpu.memorySource},
                                     std::pair{tr("Price"), s.gpu.priceUsdPerHour ? s.gpu.priceSource : QString()}})
        if (const QString how = Citation::checks(text); !how.isEmpty())
            checks += row(what, esc(how));
    if (!checks.isEmpty())
        a2 += QStringLiteral("<h3>%1</h3><table cellspacing=3 style='font-size:8pt'>%2</table>").arg(tr("How each value was checked"), checks);
    page.text(a2);
}

void assumptionsAndUnits(PageCursor &page, const ReportFigures &f)
{
    const Scenario &s = f.s;
    QString a2 = QStringLiteral("<h2>%1</h2><ul>").arg(tr("Appendix C: assumptions and units"));
    a2 += QStringLiteral("<li>%1</li>").arg(tr("GB = 10^9 bytes, GiB = 2^30 bytes; figures here in %1. A month is 730 hours.").arg(Units::gigaLabel(f.u)));
    a2 += QStringLiteral("<li>%1</li>").arg(tr("Workspace per GPU %1 (runtime reserve and activations).").arg(f.bytes(f.r.workspaceBytesPerGpu)));
    a2 += QStringLiteral("<li>%1</li>").arg(tr("Paged KV cache in blocks of %1 tokens%2.").arg(s.blockSize).arg(s.preallocate ? tr("; every session preallocates its maximum") : QString()));
    const TimeConstants time = timeConstants(s);
    a2 += QStringLiteral("<li>%1</li>").arg(tr("A decode step takes the longer of reading the weights and the sessions' KV at %1 of peak bandwidth and its "
                                               "compute at %2 of the dense tensor peak, plus %3 µs per layer, %4 µs per step and, across GPUs, "
                                               "%5 µs per collective; times carry the band the measured figures fell in (%6 to %7 of the prediction).")
                                                .arg(Units::formatDecimal(time.bandwidthFraction, 2), Units::formatDecimal(time.computeFraction, 2),
                                                     Units::formatDecimal(time.layerMicroseconds, 1), Units::formatDecimal(time.stepMicroseconds, 0),
                                                     Units::formatDecimal(time.collectiveMicroseconds, 1), Units::formatDecimal(time.bandLow, 2),
                                                     Units::formatDecimal(time.bandHigh, 2)));
    a2 += QStringLiteral("<li>%1</li>").arg(tr("Sessions are independent draws of the length distribution; the tail P(the sessions' KV exceeds the pool) is "
                                                   "computed with a bound on its error: directly for a few sessions, by tilted Fourier inversion on the "
                                                   "size lattice otherwise (the saddlepoint only brackets the count), and past the largest transform by the "
                                                   "smaller of two upper bounds, the exact convolution of the sizes rounded up and the Chernoff bound: "
                                                   "never above the exact count."));
    for (const QString &w : f.r.warnings)
        a2 += QStringLiteral("<li>%1</li>").arg(esc(w));
    a2 += QStringLiteral("</ul>");
    page.text(a2);
}

void figuresForScripts(PageCursor &page, const ReportFigures &f)
{
    QString a3 = QStringLiteral("<h2>%1</h2><p>%2</p><table cellspacing=2>")
                     .arg(tr("Appendix D: figures for scripts"), tr("The same figures as <tt>headroom plan --json</tt> gives them, under its field names, for scripts that check this report."));
    const QJsonObject json = f.r.toJson();
    for (const char *key : {"kv_bytes_per_token", "kv_bytes_per_token_per_gpu", "session_bytes", "weights_bytes_per_gpu", "kv_budget_bytes_per_gpu",
                            "max_sessions", "sessions_at_risk", "sessions_worst_case", "sessions_at_mean", "admission_limit",
                            "cost_per_session_hour_usd", "cost_per_million_tokens_usd", "gpus_needed", "fleet_cost_per_month_usd",
                            "fleet_replicas", "replica_overflow_probability", "fleet_overflow_probability"})
        a3 += QStringLiteral("<tr><td><tt>%1</tt></td><td>%2</td></tr>").arg(QString::fromLatin1(key), scriptFigure(json, key, f));
    a3 += QStringLiteral("</table>");
    page.text(a3);
}

} // namespace Headroom::ReportSections
