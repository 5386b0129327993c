// SPDX-License-Identifier: GPL-3.0-or-later
#include "lengths/traffictrace.h"

#include "core/inputerror.h"
#include "core/units.h"
#include "lengths/tracereading.h"

#include <QHash>
#include <QSet>
#include <cmath>

namespace Headroom {

TrafficTrace TrafficTrace::read(const QString &path, const QString &field)
{
    TrafficTrace t;
    t.path = path;
    readTraceFile(path, field, maxFileBytes, &t, true);
    // A column of lengths alone has no requests to replay (readTraceFile refuses an empty file).
    if (t.requests.isEmpty())
        throw InputError(field, QStringLiteral("%1 holds lengths but no requests with arrivals: a replay needs each request's timestamp, "
                                               "prompt and output (Mooncake's JSON lines, or an Azure or BurstGPT CSV)")
                                    .arg(path));
    if (t.requests.size() > maxRequests)
        throw InputError(field, QStringLiteral("%1 holds more than %2 requests; sample it first").arg(path, Units::formatCount(maxRequests)));
    const double first = t.requests.constFirst().arrivalSeconds; // readTraceFile refuses an empty trace
    double previous = first;
    qint64 prompts = 0;
    for (TrafficRequest &r : t.requests) {
        if (r.promptTokens > (qint64(1) << 62) - prompts)
            throw InputError(field, QStringLiteral("%1 line %2, input_length: the prompts add up beyond 2^62 tokens").arg(path).arg(r.line));
        prompts += r.promptTokens;
        if (!std::isfinite(r.arrivalSeconds))
            throw InputError(field, QStringLiteral("%1 line %2: no arrival time (timestamp); a replay needs every request's arrival")
                                        .arg(path).arg(r.line));
        if (r.arrivalSeconds < previous)
            throw InputError(field, QStringLiteral("%1 line %2, timestamp: arrives %3 s before the previous line; "
                                                   "a trace lists requests in the order they arrive")
                                        .arg(path).arg(r.line).arg(previous - r.arrivalSeconds));
        previous = r.arrivalSeconds;
        r.arrivalSeconds -= first;
        if (r.arrivalSeconds > maxDurationSeconds)
            throw InputError(field, QStringLiteral("%1 line %2, timestamp: %3 days after the first request; a replay covers at most 31 days")
                                        .arg(path).arg(r.line).arg(Units::formatDecimal(r.arrivalSeconds / 86400.0, 1)));
    }
    t.durationSeconds = t.requests.constLast().arrivalSeconds;
    t.buildConversations();
    return t;
}

namespace {

/// The longest run of leading blocks that more than half of the trace's requests share: its ids.
std::vector<qint64> commonPrefix(const TrafficTrace &t)
{
    const qsizetype half = t.requests.size() / 2 + 1;
    QVector<qsizetype> sharing(t.requests.size());
    for (qsizetype i = 0; i < sharing.size(); ++i)
        sharing[i] = i;
    std::vector<qint64> prefix;
    for (int depth = 0;; ++depth) {
        QHash<qint64, qsizetype> counts;
        for (qsizetype i : std::as_const(sharing))
            if (t.requests.at(i).blockCount > depth)
                ++counts[t.blocksOf(i)[depth]];
        qint64 best = -1;
        qsizetype most = 0;
        for (auto it = counts.cbegin(); it != counts.cend(); ++it)
            if (it.value() > most || (it.value() == most && it.key() < best))
                best = it.key(), most = it.value();
        if (most < half)
            return prefix;
        prefix.push_back(best);
        QVector<qsizetype> next;
        next.reserve(most);
        for (qsizetype i : std::as_const(sharing))
            if (t.requests.at(i).blockCount > depth && t.blocksOf(i)[depth] == best)
                next << i;
        sharing.swap(next);
    }
}

} // namespace

void TrafficTrace::buildConversations()
{
    const std::vector<qint64> prefix = hasBlocks && !hasConversationIds ? commonPrefix(*this) : std::vector<qint64>();
    commonPrefixBlocks = int(prefix.size());
    commonPrefixTokenCount = 0;
    QHash<qint64, qint32> byFirstOwnBlock;
    qint32 named = 0;
    if (hasConversationIds)
        for (const TrafficRequest &r : std::as_const(requests))
            named = std::max(named, r.conversation + 1);
    qint32 next = named;
    for (qsizetype i = 0; i < requests.size(); ++i) {
        TrafficRequest &r = requests[i];
        if (hasConversationIds && r.conversation >= 0)
            continue;
        // The first block that departs from the common prefix: the conversation's own.
        const qint64 *ids = blocksOf(i);
        qint32 k = 0;
        while (k < r.blockCount && k < commonPrefixBlocks && ids[k] == prefix[size_t(k)])
            ++k;
        r.holdsCommonPrefix = commonPrefixBlocks > 0 && k == commonPrefixBlocks;
        // The prefix's tokens, from the first request that holds it whole (its last block may
        // be partial: an id names one content, so it is as long in every request holding it).
        if (k == commonPrefixBlocks && commonPrefixBlocks > 0 && commonPrefixTokenCount == 0)
            for (qint32 b = 0; b < commonPrefixBlocks; ++b)
                commonPrefixTokenCount += blockTokensOf(i, b);
        if (hasConversationIds || k >= r.blockCount) {
            r.conversation = next++;
            continue;
        }
        const auto it = byFirstOwnBlock.constFind(ids[k]);
        if (it != byFirstOwnBlock.cend()) {
            r.conversation = it.value();
        } else {
            r.conversation = next++;
            byFirstOwnBlock.insert(ids[k], r.conversation);
        }
    }
    conversations = next;
}

QString TrafficTrace::conversationRule() const
{
    if (hasConversationIds)
        return QStringLiteral("conversation_id");
    return hasBlocks ? QStringLiteral("hash_ids") : QStringLiteral("none");
}

qint64 TrafficTrace::blockTokensOf(qsizetype i, qint32 k) const
{
    const TrafficRequest &r = requests.at(i);
    return std::max<qint64>(0, std::min(blockTokens, r.promptTokens - qint64(k) * blockTokens));
}

qint64 TrafficTrace::prefixHitCeilingTokens() const
{
    QSet<qint64> seen;
    seen.reserve(qsizetype(blocks.size()));
    qint64 hits = 0;
    for (qsizetype i = 0; i < requests.size(); ++i) {
        const qint64 *ids = blocksOf(i);
        const qint32 n = requests.at(i).blockCount;
        qint32 k = 0;
        while (k < n && seen.contains(ids[k]))
            ++k;
        hits += std::min(qint64(k) * blockTokens, requests.at(i).promptTokens);
        for (qint32 j = k; j < n; ++j)
            seen.insert(ids[j]);
    }
    return hits;
}

qint64 TrafficTrace::promptTokens() const
{
    qint64 sum = 0;
    for (const TrafficRequest &r : requests)
        sum += r.promptTokens; // read() refuses a trace whose prompts add up beyond 2^62
    return sum;
}

} // namespace Headroom
