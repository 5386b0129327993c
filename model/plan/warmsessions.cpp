// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/warmsessions.h"
#include "core/inputerror.h"
#include "core/units.h"
#include "core/inputranges.h"
#include "plan/servingestimate.h"

#include <QJsonArray>
#include <cmath>
#include <algorithm>
#include <limits>

namespace Headroom {

namespace {

ResumePoint pointAt(const Scenario &s, const KvCost &cost, qint64 tokens, qint64 weightsBytesPerGpu)
{
    ResumePoint p;
    p.tokens = tokens;
    if (s.gpu.hostLinkBytesPerSecond > 0)
        p.resumeMs = double(cost.sessionBytes(tokens, true)) / double(s.gpu.hostLinkBytesPerSecond) * 1e3;
    if (const auto t = timeToFirstToken(s, weightsBytesPerGpu, double(tokens)))
        p.recomputeMs = *t * 1e3;
    return p;
}

QJsonValue ms(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue();
}

} // namespace

WarmSessions warmSessions(const Scenario &s, const KvCost &cost, qint64 cardSessions, qint64 reservedTokens, qint64 weightsBytesPerGpu)
{
    if (s.gpusPerNode < 1 || s.gpusPerNode > 1024)
        throw InputError(s.field(Input::GpusPerNode), QStringLiteral("must be a whole number from 1 to 1,024, got %1").arg(s.gpusPerNode));
    if (s.hostKvMemoryBytes && *s.hostKvMemoryBytes < 0)
        throw InputError(s.field(Input::HostKvMemory), QStringLiteral("must not be negative"));
    WarmSessions w;
    w.decodingShare = s.decodingShare ? InputRanges::check(RealInput::DecodingShare, *s.decodingShare, s.field(Input::DecodingShare)) : 1.0;
    w.hostKvBytesPerNode = s.hostKvMemoryBytes.value_or(0);
    // gpusPerReplica is 64-bit (TP x PP); a replica wider than the node is one replica, its own GPUs.
    const qint64 perReplica = std::max<qint64>(1, s.gpusPerReplica());
    w.replicasPerNode = std::max<qint64>(1, s.gpusPerNode / perReplica);
    w.gpusPerNode = int(std::min<qint64>(w.replicasPerNode * perReplica, std::numeric_limits<int>::max()));
    w.hostLinkBytesPerSecond = s.gpu.hostLinkBytesPerSecond;
    const QString f = s.field(Input::HostKvMemory);
    // A session past 2^63 bytes across its replica's GPUs (10^14 tokens at 8 GPUs) fits no host:
    // held at INT64_MAX, where it refused the plan naming --host-kv-memory, never given (attacker).
    if (__builtin_mul_overflow(cost.sessionBytes(reservedTokens, true), perReplica, &w.sessionBytesPerReplica))
        w.sessionBytesPerReplica = std::numeric_limits<qint64>::max();
    w.cardSessionsPerNode = Units::mul(std::max<qint64>(0, cardSessions), w.replicasPerNode, f);
    w.hostSessionsPerNode = w.sessionBytesPerReplica > 0 ? w.hostKvBytesPerNode / w.sessionBytesPerReplica : 0;
    const double bound = std::floor(double(w.cardSessionsPerNode) / w.decodingShare);
    const qint64 both = Units::add(w.cardSessionsPerNode, w.hostSessionsPerNode, f);
    w.retainedPerNode = double(both) <= bound ? both : qint64(bound);
    w.decodingPerGpu = std::min(double(w.cardSessionsPerNode), w.decodingShare * double(w.retainedPerNode)) / double(w.gpusPerNode);
    w.atContext = pointAt(s, cost, reservedTokens, weightsBytesPerGpu);
    for (qint64 t = 1024; t < reservedTokens && w.byLength.size() < 40; t *= 2)
        w.byLength << pointAt(s, cost, t, weightsBytesPerGpu);
    w.byLength << w.atContext;
    return w;
}

void WarmSessions::addJson(QJsonObject &o) const
{
    o.insert(QStringLiteral("sessions_decoding_per_gpu"), decodingPerGpu);
    o.insert(QStringLiteral("sessions_retained_per_node"), retainedPerNode);
    o.insert(QStringLiteral("sessions_on_card_per_node"), cardSessionsPerNode);
    o.insert(QStringLiteral("sessions_in_host_per_node"), std::min(hostSessionsPerNode, retainedPerNode - std::min(retainedPerNode, cardSessionsPerNode)));
    o.insert(QStringLiteral("host_kv_memory_bytes_per_node"), hostKvBytesPerNode);
    o.insert(QStringLiteral("decoding_share"), decodingShare);
    o.insert(QStringLiteral("resume_ms"), ms(atContext.resumeMs));
    o.insert(QStringLiteral("recompute_ms"), ms(atContext.recomputeMs));
    o.insert(QStringLiteral("resume_faster"), atContext.resumeMs && atContext.recomputeMs ? QJsonValue(atContext.resumeFaster()) : QJsonValue());
    QJsonArray rows;
    for (const ResumePoint &p : byLength)
        rows.append(QJsonObject{{QStringLiteral("tokens"), p.tokens}, {QStringLiteral("resume_ms"), ms(p.resumeMs)},
                                {QStringLiteral("recompute_ms"), ms(p.recomputeMs)},
                                {QStringLiteral("faster"), p.resumeMs && p.recomputeMs
                                     ? QJsonValue(p.resumeFaster() ? QStringLiteral("resume") : QStringLiteral("recompute")) : QJsonValue()}});
    o.insert(QStringLiteral("resume_vs_recompute"), rows);
}

} // namespace Headroom
