// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/leverevaluator.h"
#include "engines/runnability.h"
#include "plan/attentionlever.h"
#include "plan/capacity.h"
#include "plan/memorylever.h"
#include "plan/precisionlever.h"
#include "plan/retentionlever.h"
#include "plan/riskwork.h"
#include "plan/sidepoollever.h"

namespace Headroom {

LeverOption LeverEvaluator::priced(const QString &lever, const QString &option, const Scenario &s, const QString &sideEffect,
                                   const CapacityResult &r)
{
    LeverOption o;
    o.lever = lever;
    o.option = option;
    o.scenario = s;
    o.sideEffect = sideEffect;
    const Runnability runs = Runnability::of(s);
    o.runnable = runs.runnable;
    o.runnableReason = runs.reason;
    if (!r.ok) {
        o.sideEffect = r.error;
        return o;
    }
    o.sessionsPerGroup = r.distribution.sessionsAtRisk;
    o.sessionsPerGpu = double(o.sessionsPerGroup) / double(s.gpusPerReplica());
    o.costPerSessionHourUsd = r.costPerSessionHourUsd;
    o.costPerMillionTokensUsd = r.distribution.costPerMillionTokensUsd;
    o.itlMs = r.distribution.itlMsAtRisk;
    return o;
}

QString LeverEvaluator::percent(double share)
{
    return QString::number(share * 100, 'f', share < 0.01 ? 2 : 1) + QLatin1Char('%');
}

LeverOption LeverEvaluator::price(const LeverContext &c, const QString &option, const Scenario &s, const QString &sideEffect) const
{
    return priced(lever(), option, s, sideEffect, computeCapacity(s, c.work));
}

namespace LeverEvaluators {

const QVector<const LeverEvaluator *> &all()
{
    // The dispatcher: one line per lever, in the report's order.
    static const PrecisionLever precision;
    static const AttentionLever attention;
    static const RetentionLever retention;
    static const MemoryLever memory;
    static const SidePoolLever sidePools;
    static const QVector<const LeverEvaluator *> levers{&precision, &attention, &retention, &memory, &sidePools};
    return levers;
}

} // namespace LeverEvaluators

} // namespace Headroom
