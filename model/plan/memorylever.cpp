// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/memorylever.h"
#include "plan/capacity.h"
#include "plan/riskwork.h"

#include <QLocale>
#include <algorithm>

namespace Headroom {

using Units::formatCount;

namespace {

// Each larger card of `c.gpus` (isLargerCard), its price and the memory it adds per card said.
QVector<LeverOption> largerCards(const LeverEvaluator &lever, const LeverContext &c)
{
    QVector<LeverOption> out;
    const qint64 memory = c.base.gpuMemoryBytes;
    for (const GpuSpec &g : c.gpus) {
        if (!isLargerCard(g, memory))
            continue;
        Scenario v = c.now;
        v.gpu = g;
        v.gpuMemoryBytes.reset();
        v.priceUsdPerGpuHour.reset();
        // Two presets of one name (a copy made with `presets add --from`) are told apart by id.
        const bool sameName = std::count_if(c.gpus.cbegin(), c.gpus.cend(), [&g](const GpuSpec &o) { return o.name == g.name; }) > 1;
        // What it gains, said: the memory it adds per card (the sessions follow in their column).
        const QString gain = Levers::tr("%1 more memory per card (%2)")
                                 .arg(Units::formatBytes(g.memoryBytes - memory, UnitSystem::Decimal),
                                      Units::formatBytes(g.memoryBytes, UnitSystem::Decimal));
        out << lever.price(c, sameName ? Levers::tr("card %1 (%2)").arg(g.name, g.id) : Levers::tr("card %1").arg(g.name), v,
                     g.priceUsdPerHour ? Levers::tr("%1 per GPU-hour; %2").arg(Units::formatUsd(*g.priceUsdPerHour), gain)
                                       : Levers::tr("no published price: set one; %1").arg(gain));
    }
    return out;
}

// TP 2, 4 and 8 above the plan's (a TP the heads do not split is left out).
QVector<LeverOption> widerTensorParallel(const LeverEvaluator &lever, const LeverContext &c)
{
    QVector<LeverOption> out;
    const int heads = c.now.effectiveKvHeads();
    for (int tp : tensorParallelSizes()) {
        if (tp <= c.now.tp)
            continue;
        Scenario v = c.now;
        v.tp = tp;
        LeverOption o = lever.price(c, Levers::tr("TP %1").arg(tp), v,
                              tp > heads && heads > 0 ? Levers::tr("%1 GPUs per replica; KV heads replicated past %2").arg(tp).arg(heads)
                                                      : Levers::tr("%1 GPUs per replica").arg(tp));
        if (o.sessionsPerGroup > 0 || o.sideEffect.startsWith(QLatin1String("--tp")) == false)
            out << o;
    }
    return out;
}

// More replicas of the plan for its target sessions: the same per card, a larger fleet.
QVector<LeverOption> moreReplicas(const LeverEvaluator &lever, const LeverContext &c)
{
    const Scenario &now = c.now;
    const DistributionFigures &d = c.base.distribution;
    if (!now.targetSessions || !d.gpusNeeded || *d.gpusNeeded <= now.tp)
        return {};
    // Scale out: per card nothing changes, the fleet grows.
    LeverOption o = LeverEvaluator::priced(lever.lever(), Levers::tr("more replicas (%1 x %2 GPUs)").arg(*d.gpusNeeded / now.tp).arg(now.tp), now, QString(), c.base);
    o.sideEffect = Levers::tr("%1 GPUs in all for %2 sessions%3")
                       .arg(formatCount(*d.gpusNeeded), formatCount(*now.targetSessions),
                            d.fleetCostPerHourUsd ? Levers::tr(": %1 per hour").arg(Units::formatUsd(*d.fleetCostPerHourUsd)) : QString());
    return {o};
}

// Cold KV in host memory read over the link every decode step (LeverTarget::decodeFromHost):
// the pool as large as card and host memory, the link's time added to every token.
QVector<LeverOption> offloadColdKv(const LeverEvaluator &lever, const LeverContext &c)
{
    const Scenario &now = c.now;
    const CapacityResult &base = c.base;
    if (c.hostMemoryPerGpu <= 0 || now.gpu.hostLinkBytesPerSecond <= 0 || base.distribution.meanSessionBytesPerGpu <= 0 || !c.target.decodeFromHost)
        return {};
    // Cold KV in host memory: the pool grows by the host memory, but every
    // decode step reads the offloaded part over the host link.
    // Host memory extends the pool as if the card were larger (any engine rule).
    Scenario v = now;
    v.gpuMemoryBytes = Units::add(base.gpuMemoryBytes, c.hostMemoryPerGpu, QStringLiteral("--host-memory"));
    LeverOption o = lever.price(c, Levers::tr("offload cold KV to %1 of host memory").arg(Units::formatBytes(c.hostMemoryPerGpu, UnitSystem::Decimal)), v, QString());
    const double offloaded = std::max(0.0, double(o.sessionsPerGroup) * base.distribution.meanSessionBytesPerGpu - double(base.kvBudgetBytesPerGpu));
    const double addedMs = offloaded / double(now.gpu.hostLinkBytesPerSecond) * 1e3;
    if (o.itlMs)
        o.itlMs = *o.itlMs + addedMs;
    o.sideEffect = Levers::tr("+%1 ms per token: decode reads %2 over the host link (%3/s) each step")
                       .arg(Units::formatDecimal(addedMs, 1), Units::formatBytes(qint64(std::min(offloaded, 9.2e18)), UnitSystem::Decimal),
                            Units::formatBytes(now.gpu.hostLinkBytesPerSecond, UnitSystem::Decimal));
    return {o};
}

// Idle sessions kept warm in host memory (plan/warmsessions.h), priced per retained
// session-hour; left out when it keeps none beyond today's.
QVector<LeverOption> warmInHostMemory(const LeverEvaluator &lever, const LeverContext &c)
{
    const Scenario &now = c.now;
    if (c.hostMemoryPerGpu <= 0 || now.gpu.hostLinkBytesPerSecond <= 0 || c.target.decodeFromHost)
        return {};
    // Idle sessions wait in host memory; the decoding ones stay on the card (two tiers).
    Scenario v = now;
    v.hostKvMemoryBytes = Units::mul(c.hostMemoryPerGpu, std::max(1, now.gpusPerNode), QStringLiteral("--host-memory"));
    const CapacityResult rv = computeCapacity(v, c.work);
    LeverOption o = LeverEvaluator::priced(lever.lever(), QStringLiteral("keep idle sessions warm in %1 of host memory per node")
                                        .arg(Units::formatBytes(*v.hostKvMemoryBytes, UnitSystem::Decimal)), v, QString(), rv);
    if (!rv.ok || rv.warm.gpusPerNode <= 0)
        return {o};
    const WarmSessions &w = rv.warm;
    o.sessionsPerGroup = w.retainedPerNode / std::max<qint64>(1, w.replicasPerNode);
    o.sessionsPerGpu = double(w.retainedPerNode) / double(w.gpusPerNode);
    if (const auto p = v.effectivePrice(); p && w.retainedPerNode > 0)
        o.costPerSessionHourUsd = *p * double(w.gpusPerNode) / double(w.retainedPerNode);
    const auto msText = [](const std::optional<double> &ms) { return ms ? Units::formatDecimal(*ms, 1) + QStringLiteral(" ms") : QStringLiteral("unknown"); };
    o.sideEffect = QStringLiteral("sessions retained warm at a decoding share of %1: a returning session waits %2 to come back over the host link "
                                  "(recomputing it: %3); decode latency unchanged")
                       .arg(QLocale::c().toString(w.decodingShare, 'g', 3), msText(w.atContext.resumeMs), msText(w.atContext.recomputeMs));
    // At a decoding share of 1 every session decodes at once: host memory keeps none warm,
    // and an option of today's figures is no option (it was listed, changing nothing).
    if (w.decodingShare < 1.0 && o.sessionsPerGpu > c.current.sessionsPerGpu)
        return {o};
    return {};
}

} // namespace

QVector<LeverOption> MemoryLever::options(const LeverContext &c) const
{
    QVector<LeverOption> out = largerCards(*this, c);
    out << widerTensorParallel(*this, c) << moreReplicas(*this, c) << offloadColdKv(*this, c) << warmInHostMemory(*this, c);
    return out;
}

} // namespace Headroom
