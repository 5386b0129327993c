// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/units.h"
#include "traffic/replay.h"

#include <QPair>
#include <QString>
#include <QVector>
#include <optional>

namespace Headroom {

/// What a replay's summary says beside the result itself: the trace as read, the traffic asked
/// and the fleet's shape.
struct ReplaySummaryInput
{
    QString conversationRule;        ///< TrafficTrace::conversationRule() of the trace as read
    qint64 traceConversations = 0;   ///< its conversations before any multiplier
    qint64 sharedPrefixTokens = 0;   ///< TrafficTrace::commonPrefixTokens()
    int sharedPrefixBlocks = 0;      ///< TrafficTrace::commonPrefixBlocks
    double multiplier = 1;           ///< the conversation arrivals' multiplier replayed
    std::optional<double> users;     ///< the users asked for, when the multiplier was found for them
    int tp = 1, pp = 1;              ///< a replica's parallelism
    QString gpuName;
    qint64 kvBudgetBytesPerGpu = 0;  ///< the plan's KV budget per GPU (0: not said)
    std::optional<QString> solvedFor; ///< solvedForText() when the replicas were solved
    UnitSystem units = UnitSystem::Decimal;
};

/// The replay's summary as labelled rows, one wording for `headroom replay`'s text and the
/// window's Traffic tab: the trace and its conversations, the users or traffic, the shared
/// prefix, the fleet and its money a month (730 h), prefix hits against the unbounded ceiling,
/// preemptions, rejections, idle replicas, a fleet that cannot keep up (requests still waiting
/// at the end of the span and the last ending past 1.5 times it), queue wait and time to first
/// token (p50, p99; ms below 10 s, then s, then min), KV per GPU (peak, mean), the requests
/// running, users against sessions, and what was solved for. Counts by Units::formatCount,
/// bytes by Units::formatBytes in `in.units`.
QVector<QPair<QString, QString>> replaySummary(const ReplayResult &r, const ReplaySummaryInput &in);

/// A wait of `ms` milliseconds in the unit that reads: ms below 10 s, then seconds, then
/// minutes, one decimal ("834.8 ms", "12.5 s", "113.2 min").
QString formatWaitMs(double ms);

/// "the fewest replicas with at most N preemptions per hour[ and a p99 queue wait of at most M ms]".
QString solvedForText(double maxPreemptionsPerHour, std::optional<double> maxQueueMs);

} // namespace Headroom
