// SPDX-License-Identifier: GPL-3.0-or-later
// Page 1 of the report: the decision, the fleet and money, the assumptions and the risk.
#include "plan/fleetrisk.h"
#include "report/pagecursor.h"
#include "report/reportcharts.h"
#include "report/reportfigures.h"
#include "report/reportsections.h"
#include "report/reporttext.h"

#include "plan/capacity.h"
#include "plan/levers.h"

#include <QDateTime>
#include <QFileInfo>
#include <algorithm>
#include <cmath>

namespace Headroom::ReportSections {

namespace {

using ReportText::esc;
using ReportText::row;
using ReportText::tr;

// The decision in one sentence of HTML: the sessions served, on which cards, for how much,
// and that the KV cache is the limit; or why no session is served.
QString decisionSentence(const ReportFigures &f)
{
    const Scenario &s = f.s;
    const Deployment &dep = f.dep;
    const QString traffic = s.distribution ? (s.distribution->kind == LengthDistribution::Kind::Trace ? tr("of this traffic") : tr("of these lengths")) : tr("of %1 tokens").arg(Units::formatCount(s.retainTokens ? std::min(*s.retainTokens, s.contextTokens) : s.contextTokens));
    const QString cards = tr("%1 × %2").arg(Units::formatCount(dep.gpus), esc(s.gpu.name));
    if (dep.perGroup <= 0)
        return tr("%1 does not serve a session on %2. %3").arg(esc(s.model.name), cards, esc(capacityVerdict(s, f.r, f.u)));
    const QString moneyPart = (dep.perMonth ? tr("%1 a month, %2").arg(Units::formatUsd(*dep.perMonth),
                                                                       Units::formatUsdPer(*dep.perSessionHour, tr("session-hour")))
                                            : tr("set a price per GPU-hour for the cost"))
        + esc(dep.marginWords(s.marginFraction));
    return tr("Serve %1 concurrent %2 %3 on %4: %5; %6.")
        .arg(Units::formatCount(dep.sessions), dep.sessions == 1 ? tr("session") : tr("sessions"), traffic, cards, moneyPart,
             esc(f.r.runningCap ? limitWords(s, f.r) : tr("the KV cache is the limit")));
}

// A choice the sensitivity table prices (another TP, the next card up) that serves the same
// sessions for less: for the target, the month; for one TP group, the session-hour; within the
// levers' latency ceiling (defaultLeverMaxItlMs), as the window's Levers tab offers them. The
// cheapest such row, or none.
const SensitivityRow *cheaperChoice(const ReportFigures &f, bool anyLatency = false)
{
    const SensitivityRow *cheaper = nullptr;
    auto costOf = [&f](const Deployment &x) { return f.s.targetSessions ? x.perMonth : x.perSessionHour; };
    for (const SensitivityRow &x : f.rows)
        if (x.r.ok && x.isChoice() && x.dep.perGroup > 0 && (!f.s.targetSessions || x.dep.sessions == f.dep.sessions)
            && (anyLatency || x.r.distribution.itlMsAtRisk.value_or(0) <= defaultLeverMaxItlMs)
            && costOf(x.dep) && costOf(f.dep) && *costOf(x.dep) < *costOf(f.dep) && (!cheaper || *costOf(x.dep) < *costOf(cheaper->dep)))
            cheaper = &x;
    return cheaper;
}

// "TP 8 (now 4): $17,228 a month on 8 GPUs, the same 1,000 sessions" or, without a target,
// its sessions and money per session-hour (HTML).
QString choiceWords(const ReportFigures &f, const SensitivityRow &x)
{
    return f.s.targetSessions ? tr("%1: %2 a month on %3, the same %4 sessions")
                                    .arg(esc(x.v.change), Units::formatUsd(*x.dep.perMonth), Units::plural(x.dep.gpus, tr("GPU"), tr("GPUs")),
                                         Units::formatCount(f.dep.sessions))
                              : tr("%1: %2, %3")
                                    .arg(esc(x.v.change), esc(sessionsPerGpus(x.dep.perGroup, x.v.scenario.gpusPerReplica())),
                                         Units::formatUsdPer(*x.dep.perSessionHour, tr("session-hour")));
}

// The fleet's rows of GPUs, sessions and, when the margin needs more GPUs, the fleet with the margin.
QString fleetRows(const ReportFigures &f)
{
    const Scenario &s = f.s;
    const DistributionFigures &d = f.d;
    const Deployment &dep = f.dep;
    // One noun for one copy of the model on every row: a GPU, or a replica of its TP x PP GPUs.
    const QString replicas = Units::formatCount(dep.groups) + QLatin1Char(' ') + replicaNoun(s, dep.groups);
    QString fleet = row(tr("GPUs"), s.gpusPerReplica() > 1 ? tr("%1 × %2 = %3 of %4").arg(Units::formatCount(dep.gpus), esc(s.gpu.name), replicas, esc(replicaShape(s)))
                                                           : tr("%1 × %2 (one model replica each)").arg(Units::formatCount(dep.gpus), esc(s.gpu.name)));
    // Whole sessions only: a replica's count with its GPUs ("15 per 4 GPUs"), never a quotient per GPU.
    const QString perGroup = esc(sessionsPerGpus(dep.perGroup, s.gpusPerReplica(), false));
    fleet += row(tr("Sessions"), d.fleetTargetSessions ? tr("%1 asked; %2").arg(Units::formatCount(*d.fleetTargetSessions), perGroup)
                                                  : s.dp > 1 ? tr("%1 (no target given: %2 from --dp)").arg(perGroup, replicas)
                                                  : tr("%1 (no target given: one %2)").arg(perGroup, replicaNoun(s)));
    // The fleet is sized at the risk-based count; engines admitting the count to deploy (the
    // admission limit, with the margin) on it may hold fewer than the target, and that is said.
    if (d.fleetTargetSessions && d.gpusNeeded && d.gpusNeededAtAdmissionLimit && *d.gpusNeededAtAdmissionLimit > *d.gpusNeeded)
        fleet += row(tr("With the margin"), tr("admitting the count to deploy, %1 per %6 (the budget less a %2% margin), these GPUs hold %3; "
                                               "%4 hold %5 with the margin too")
                                                .arg(Units::formatCount(d.admissionLimit), Units::formatDecimal(s.marginFraction * 100, 1),
                                                     Units::formatCount(d.admissionLimit * dep.groups),
                                                     Units::plural(*d.gpusNeededAtAdmissionLimit, tr("GPU"), tr("GPUs")), Units::formatCount(*d.fleetTargetSessions), replicaNoun(s)));
    return fleet;
}

// The money's rows: per month, per session-hour, per million output tokens, and a cheaper choice.
QString moneyRows(const ReportFigures &f)
{
    const Scenario &s = f.s;
    const Deployment &dep = f.dep;
    const auto &price = f.price;
    QString fleet = row(tr("Money per month"), dep.perMonth ? tr("<b>%1</b> (%2 × %3 per GPU-hour × 730 hours)")
                                                                   .arg(Units::formatUsd(*dep.perMonth), Units::plural(dep.gpus, tr("GPU"), tr("GPUs")), Units::formatUsd(*price))
                                                             : tr("set a price per GPU-hour"));
    if (dep.perSessionHour)
        fleet += row(tr("Money per session-hour"), tr("%1 (%2 per GPU-hour × %3 ÷ %4 per %5)")
                                                       .arg(Units::formatUsdPer(*dep.perSessionHour, tr("session-hour")), Units::formatUsd(*price),
                                                            Units::plural(s.gpusPerReplica(), tr("GPU"), tr("GPUs")), Units::plural(dep.perGroup, tr("session"), tr("sessions")), replicaNoun(s)));
    if (f.d.costPerMillionTokensUsd)
        fleet += row(tr("Money per million output tokens"), tr("%1 (decode at %2 per %3)").arg(Units::formatUsd(*f.d.costPerMillionTokensUsd), Units::plural(dep.perGroup, tr("session"), tr("sessions")), replicaNoun(s)));
    const SensitivityRow *cheaper = cheaperChoice(f);
    if (cheaper)
        fleet += row(tr("<b>Cheaper</b>"), QStringLiteral("<b>%1</b>").arg(choiceWords(f, *cheaper)));
    // A cheaper choice the sensitivity table shows but that decodes past the latency the levers
    // hold to is said with why it is not the advice (a trial read TP 8 at $17,228 on page 2 and
    // no word of it on page 1).
    const SensitivityRow *slower = cheaperChoice(f, true);
    // One line, so that page 1 keeps the risk accepted on a Letter page.
    if (slower && slower != cheaper && slower->r.distribution.itlMsAtRisk)
        fleet += row(tr("Cheaper, slower"), tr("%1: %2, %3 ms a token (limit: %4 ms)")
                                                .arg(esc(slower->v.change),
                                                     s.targetSessions ? tr("%1 a month").arg(Units::formatUsd(*slower->dep.perMonth))
                                                                      : Units::formatUsdPer(*slower->dep.perSessionHour, tr("session-hour")),
                                                     Units::formatDecimal(*slower->r.distribution.itlMsAtRisk, 0), Units::formatDecimal(defaultLeverMaxItlMs, 0)));
    return fleet;
}

QString signedPercent(double now, double then)
{
    if (now <= 0)
        return then > 0 ? tr("from none") : QStringLiteral("—");
    const double c = (then / now - 1) * 100;
    return (c >= 0 ? QStringLiteral("+") : QStringLiteral("−")) + tr("%1%").arg(Units::formatDecimal(std::abs(c), 0));
}

// The assumptions that move the answer most, largest first: the sensitivity rows (and the
// engine's band) with the largest change in sessions per GPU, one per input, each with that
// change and its line of HTML. The card and the TP are choices, not assumptions.
QVector<QPair<double, QString>> assumptionMoves(const ReportFigures &f)
{
    const double perGpu = f.perGpu;
    QVector<QPair<double, QString>> moves;
    QStringList seen;
    QVector<const SensitivityRow *> sorted;
    for (const SensitivityRow &x : f.rows)
        if (x.r.ok && !x.isChoice())
            sorted << &x;
    std::stable_sort(sorted.begin(), sorted.end(), [&](const SensitivityRow *a, const SensitivityRow *b) {
        return std::abs(a->perGpu() - perGpu) > std::abs(b->perGpu() - perGpu);
    });
    for (const SensitivityRow *x : sorted)
        if (!seen.contains(x->v.kind) && x->perGpu() != perGpu) { // a change that moves nothing is no assumption that moves it
            seen << x->v.kind;
            moves << qMakePair(std::abs(x->perGpu() - perGpu),
                               tr("<b>%1</b>: with %2%5, %3 (%4 against now)")
                                   .arg(x->v.kind, esc(x->v.change), esc(sessionsPerGpus(x->dep.perGroup, x->v.scenario.gpusPerReplica())), signedPercent(perGpu, x->perGpu()),
                                        x->pastMaximum()));
        }
    if (f.band)
        moves << qMakePair(double(f.dep.perGroup - f.sessionsLow) / f.s.gpusPerReplica(),
                           tr("<b>the engine's budget</b>: before measuring on the card, about %1 to %2 sessions per %3").arg(Units::formatCount(f.sessionsLow), Units::formatCount(f.sessionsHigh), replicaNoun(f.s)));
    std::stable_sort(moves.begin(), moves.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    return moves;
}

// The risk accepted, in words, and what the cap costs.
QString riskAccepted(const ReportFigures &f)
{
    const Scenario &s = f.s;
    const DistributionFigures &d = f.d;
    QString out;
    if (f.dep.perGroup <= 0)
        return tr("None to accept: not one session fits on a %1, so there is no count whose overflow to risk.").arg(replicaNoun(f.s));
    // Which risk the answer holds, each replica's or the fleet's, and what the other comes to
    // (in place of what an overflow does, so that page 1 keeps its length).
    const QString fleet = FleetRisk::words(s, f.r);
    if (s.distribution && !fleet.isEmpty())
        out += tr("At a peak of concurrent sessions, %1.").arg(esc(fleet));
    else if (s.distribution)
        out += tr("A risk of %1 that a peak of concurrent sessions overflows the KV cache; then the engine queues or preempts sessions until some finish.")
                   .arg(Units::formatRisk(d.replicaRisk));
    else
        out += tr("None from lengths: every session is reserved at its full %1 tokens, so the cache cannot overflow at this count.")
                   .arg(Units::formatCount(f.r.reservedTokensPerSession));
    if (s.retainTokens && (s.distribution ? d.truncatedShare > 0 : *s.retainTokens < s.contextTokens))
        out += QLatin1Char(' ') + (s.distribution ? tr("What the cap costs: %1.").arg(esc(historyLost(f.r)))
                                                  : tr("The cap costs history: every session keeps only its last %1 tokens.").arg(Units::formatCount(*s.retainTokens)));
    return out;
}

// The traffic replayed in the window, in the Traffic tab's words: its sentence, then the trace,
// the prefix hits, preemptions and time to first token that sized it. Empty without a replay.
QString trafficParagraph(const ReportFigures &f)
{
    if (!f.in.traffic || !f.in.traffic->ok)
        return {};
    const TrafficAnswer &a = *f.in.traffic;
    const ReplayResult &r = a.result;
    const QString detail = tr("The trace %1: %2 requests, %3 conversations over %4 s; prefix hits %5% of the prompt tokens (an unbounded cache: %6% of them); "
                              "%7; time to first token p50 %8 ms, p99 %9 ms; peak KV per GPU %10 of the %11 budget.")
                               .arg(esc(QFileInfo(a.path).fileName()), Units::formatCount(r.requests), Units::formatCount(r.conversations),
                                    Units::formatDecimal(r.durationSeconds, 0), Units::formatDecimal(100.0 * r.prefixHitShare(), 1),
                                    Units::formatDecimal(100.0 * r.ceilingShare(), 1),
                                    Units::plural(r.preemptions, tr("preemption"), tr("preemptions")), Units::formatDecimal(r.ttftMsP50, 1),
                                    Units::formatDecimal(r.ttftMsP99, 1), f.bytes(r.peakKvBytesPerGpu), f.bytes(a.kvBudgetBytesPerGpu));
    return QStringLiteral("<p><b>%1</b> %2. %3</p>").arg(tr("Traffic replayed, a question apart from the sessions asked above:"), esc(trafficSentence(a)), detail);
}

} // namespace

void decision(PageCursor &page, const ReportFigures &f)
{
    const Scenario &s = f.s;
    QString p1 = QStringLiteral("<h1>%1</h1><p>%2 · %3 · %4</p>")
                     .arg(esc(f.title), tr("Headroom capacity report"), esc(s.model.name) + tr(" on ") + esc(s.gpu.name),
                          QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    p1 += QStringLiteral("<h2>%1</h2><p style='font-size:13pt'><b>%2</b></p>").arg(tr("The decision"), decisionSentence(f));
    p1 += trafficParagraph(f);
    const QStringList ifs = whatIfsInForce(s, f.u);
    if (!ifs.isEmpty())
        p1 += QStringLiteral("<p><b>%1</b> %2.</p>").arg(tr("What-ifs in force:"), esc(ifs.join(QStringLiteral("; "))));
    page.text(p1);
}

void fleetAndMoney(PageCursor &page, const ReportFigures &f, const ReportCharts &charts)
{
    page.text(QStringLiteral("<h3>%1</h3><table cellspacing=3>").arg(tr("Fleet and money (%1)").arg(f.basis)) + fleetRows(f) + moneyRows(f)
              + QStringLiteral("</table>"));
    page.chart(charts.memory(), charts.memoryShare());
}

void assumptionsAndRisk(PageCursor &page, const ReportFigures &f)
{
    const QVector<QPair<double, QString>> moves = assumptionMoves(f);
    // As many as there are (an input whose rows all failed has none), named by their number.
    const int shown = std::min<int>(3, int(moves.size()));
    QString p1b;
    if (shown == 0) {
        p1b = QStringLiteral("<h3>%1</h3><p>%2</p>").arg(tr("The assumptions that move the answer"),
                                                          tr("None of the changes priced on page 3 moves the sessions per GPU."));
    } else {
        p1b = QStringLiteral("<h3>%1</h3><ol>").arg(shown == 3   ? tr("The three assumptions that move the answer most")
                                                    : shown == 2 ? tr("The two assumptions that move the answer most")
                                                                 : tr("The assumption that moves the answer most"));
        for (int i = 0; i < shown; ++i)
            p1b += QStringLiteral("<li>%1</li>").arg(moves.at(i).second);
        p1b += QStringLiteral("</ol>");
    }
    p1b += QStringLiteral("<h3>%1</h3><p>").arg(tr("The risk accepted"));
    p1b += riskAccepted(f);
    p1b += QStringLiteral("</p>");
    page.text(p1b);
}

} // namespace Headroom::ReportSections
