// SPDX-License-Identifier: GPL-3.0-or-later
#include "traffic/replaysummary.h"

#include <QCoreApplication>
#include <cmath>

namespace Headroom {

namespace {
/// The translation context of the summary's words.
struct ReplaySummary
{
    Q_DECLARE_TR_FUNCTIONS(ReplaySummary)
};
} // namespace

QString formatWaitMs(double v)
{
    if (v < 10'000)
        return Units::formatDecimal(v, 1) + QStringLiteral(" ms");
    if (v < 600'000)
        return Units::formatDecimal(v / 1000, 1) + QStringLiteral(" s");
    return Units::formatDecimal(v / 60'000, 1) + QStringLiteral(" min");
}

QVector<QPair<QString, QString>> replaySummary(const ReplayResult &r, const ReplaySummaryInput &in)
{
    QVector<QPair<QString, QString>> rows;
    auto add = [&rows](const QString &label, const QString &value) { rows << qMakePair(label, value); };
    auto pct = [](double share) -> QString { return Units::formatDecimal(100.0 * share, 1) + QStringLiteral("%"); };
    const auto ms = formatWaitMs;
    const QString rule = in.conversationRule == QLatin1String("none")
        ? ReplaySummary::tr("each request is its own conversation (the trace has no hash_ids or conversation ids)")
        : in.conversationRule == QLatin1String("hash_ids")
        ? ReplaySummary::tr("rebuilt from hash_ids: a request continues the conversation whose first block beyond the shared prefix it shares")
        : ReplaySummary::tr("from the trace's conversation ids");
    add(ReplaySummary::tr("Trace"), ReplaySummary::tr("%1 over %2 s; %3, %4")
                              .arg(Units::plural(r.requests, ReplaySummary::tr("request"), ReplaySummary::tr("requests")), Units::formatDecimal(r.durationSeconds, 0),
                                   Units::plural(r.conversations, ReplaySummary::tr("conversation"), ReplaySummary::tr("conversations")), rule));
    if (in.users)
        add(ReplaySummary::tr("Users"), ReplaySummary::tr("%1 alive on average at unloaded speed (asked %2): the trace's %3 at %4 times their arrival rate")
                                            .arg(Units::formatDecimal(r.meanAliveConversations, 0), Units::formatDecimal(*in.users, 0),
                                                 Units::plural(in.traceConversations, ReplaySummary::tr("conversation"), ReplaySummary::tr("conversations")),
                                                 Units::formatDecimal(in.multiplier, 3)));
    else if (in.multiplier != 1.0)
        add(ReplaySummary::tr("Traffic"), ReplaySummary::tr("%1 times the trace's conversation arrivals (%2 as recorded)")
                                              .arg(Units::formatDecimal(in.multiplier, 3), Units::formatCount(in.traceConversations)));
    if (in.sharedPrefixBlocks > 0)
        add(ReplaySummary::tr("Shared prefix"), ReplaySummary::tr("%1 (%2) that more than half of the requests share: held once per replica")
                                                    .arg(Units::plural(in.sharedPrefixTokens, ReplaySummary::tr("token"), ReplaySummary::tr("tokens")),
                                                         Units::plural(in.sharedPrefixBlocks, ReplaySummary::tr("block"), ReplaySummary::tr("blocks"))));
    add(ReplaySummary::tr("Fleet"), ReplaySummary::tr("%1 of %2 (%3) on %4 = %5%6")
                              .arg(Units::plural(r.replicas, ReplaySummary::tr("replica"), ReplaySummary::tr("replicas")),
                                   Units::plural(in.tp * in.pp, ReplaySummary::tr("GPU"), ReplaySummary::tr("GPUs")),
                                   in.pp > 1 ? ReplaySummary::tr("TP %1 x PP %2").arg(in.tp).arg(in.pp) : ReplaySummary::tr("TP %1").arg(in.tp), in.gpuName,
                                   Units::plural(r.gpus, ReplaySummary::tr("GPU"), ReplaySummary::tr("GPUs")),
                                   r.fleetCostPerMonthUsd ? ReplaySummary::tr(", %1 a month (730 h)").arg(Units::formatUsd(*r.fleetCostPerMonthUsd))
                                                          : ReplaySummary::tr("; set a price per GPU-hour for the money")));
    add(ReplaySummary::tr("Prefix hits"), ReplaySummary::tr("%1 of %2 prompt tokens (%3; GPU %4, host %5); an unbounded cache: %6")
                                    .arg(Units::formatCount(r.prefixHitTokens + r.hostHitTokens), Units::formatCount(r.promptTokens),
                                         pct(r.prefixHitShare()), Units::formatCount(r.prefixHitTokens), Units::formatCount(r.hostHitTokens),
                                         pct(r.ceilingShare())));
    add(ReplaySummary::tr("Preemptions"), ReplaySummary::tr("%1 (%2 tokens recomputed)").arg(Units::formatCount(r.preemptions), Units::formatCount(r.recomputedTokens)));
    if (r.rejected > 0)
        add(ReplaySummary::tr("Rejected"), ReplaySummary::tr("%1 larger than a replica's whole KV pool, or with a prompt past max_model_len")
                                     .arg(Units::plural(r.rejected, ReplaySummary::tr("request"), ReplaySummary::tr("requests"))));
    if (r.replicas > r.conversations)
        add(ReplaySummary::tr("Idle replicas"), ReplaySummary::tr("%1 of the %2 get no conversation (a conversation stays on one replica)")
                                          .arg(Units::formatCount(r.replicas - r.conversations), Units::formatCount(r.replicas)));
    if (r.cannotKeepUp())
        add(ReplaySummary::tr("Cannot keep up"), ReplaySummary::tr("requests still wait at the end of the trace and the last one ends at %1 s, %2 times its span: "
                                               "more replicas, or solve for the fewest that keep up")
                                           .arg(Units::formatDecimal(r.endSeconds, 0), Units::formatDecimal(r.endSeconds / std::max(1.0, r.durationSeconds), 1)));
    add(ReplaySummary::tr("Queue wait"), ReplaySummary::tr("p50 %1, p99 %2").arg(ms(r.queueMsP50), ms(r.queueMsP99)));
    add(ReplaySummary::tr("Time to first token"), ReplaySummary::tr("p50 %1, p99 %2 (queue + prefill of the missed tokens)").arg(ms(r.ttftMsP50), ms(r.ttftMsP99)));
    add(ReplaySummary::tr("KV per GPU"), ReplaySummary::tr("peak %1, mean %2%3")
                                             .arg(Units::formatBytes(r.peakKvBytesPerGpu, in.units), Units::formatBytes(qint64(std::llround(r.meanKvBytesPerGpu)), in.units),
                                                  in.kvBudgetBytesPerGpu > 0 ? ReplaySummary::tr(", of a %1 budget").arg(Units::formatBytes(in.kvBudgetBytesPerGpu, in.units))
                                                                             : QString()));
    add(ReplaySummary::tr("Requests running"), ReplaySummary::tr("%1 at once on average over the trace's span (%2 per replica); peak %3 on one replica")
                                         .arg(Units::formatDecimal(r.meanRunning, 1), Units::formatDecimal(r.meanRunning / std::max(1, r.replicas), 1),
                                              Units::formatCount(r.peakRunningPerReplica)));
    // Users are counted at unloaded speed; on a loaded fleet each request runs longer than
    // alone (its decode steps share the card), so more may run at once than that count.
    if (in.users && r.meanRunning <= r.meanAliveConversations)
        add(ReplaySummary::tr("Users and sessions"), ReplaySummary::tr("of the %1 users alive, %2 are running on average; the rest are between turns, their KV kept "
                                                   "only as prefix cache (a plan's sessions are each resident at their longest)")
                                               .arg(Units::formatDecimal(r.meanAliveConversations, 0), Units::formatDecimal(r.meanRunning, 0)));
    else if (in.users)
        add(ReplaySummary::tr("Users and sessions"), ReplaySummary::tr("%1 requests run at once on average, %2 times the %3 users alive at unloaded speed: on "
                                                   "this fleet requests run longer than alone (their decode steps share the card), so users "
                                                   "wait on the fleet, not on the model; more replicas shorten it")
                                               .arg(Units::formatDecimal(r.meanRunning, 0), Units::formatDecimal(r.meanRunning / std::max(1e-9, r.meanAliveConversations), 1),
                                                    Units::formatDecimal(r.meanAliveConversations, 0)));
    if (in.solvedFor)
        add(ReplaySummary::tr("Solved for"), *in.solvedFor);
    return rows;
}

QString solvedForText(double maxPreemptionsPerHour, std::optional<double> maxQueueMs)
{
    return ReplaySummary::tr("the fewest replicas that keep up, with at most %1 preemptions per hour%2")
        .arg(Units::formatDecimal(maxPreemptionsPerHour, 1),
             maxQueueMs ? ReplaySummary::tr(" and a p99 queue wait of at most %1 ms").arg(Units::formatDecimal(*maxQueueMs, 0)) : QString());
}

} // namespace Headroom
