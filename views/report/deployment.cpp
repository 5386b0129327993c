// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/deployment.h"

#include "inputs/scenario.h"
#include "plan/capacityresult.h"
#include "core/units.h"

#include <QCoreApplication>

#include <algorithm>

namespace Headroom {

Deployment Deployment::of(const Scenario &s, const CapacityResult &r)
{
    Deployment d;
    d.perGroup = r.distribution.sessionsAtRisk;
    if (r.distribution.fleetTargetSessions && r.distribution.gpusNeeded) {
        d.sessions = *r.distribution.fleetTargetSessions;
        d.gpus = *r.distribution.gpusNeeded;
        if (r.distribution.gpusNeededAtAdmissionLimit && *r.distribution.gpusNeededAtAdmissionLimit > d.gpus)
            d.gpusWithMargin = r.distribution.gpusNeededAtAdmissionLimit;
    } else {
        // No target: the fleet is --dp replicas (one by default).
        const qint64 replicas = r.distribution.fleetReplicas.value_or(1);
        d.sessions = d.perGroup * replicas;
        d.gpus = r.distribution.fleetGpus.value_or(s.gpusPerReplica());
    }
    d.groups = d.gpus / std::max<qint64>(1, s.gpusPerReplica());
    if (const auto price = s.effectivePrice()) {
        d.perHour = *price * double(d.gpus);
        d.perMonth = *d.perHour * 730.0;
        if (d.gpusWithMargin)
            d.perMonthWithMargin = *price * double(*d.gpusWithMargin) * 730.0;
    }
    // Per session-hour: the one figure the window and `plan` show (computeCapacity's price x
    // GPUs of a TP group / its sessions at risk), never the month over the target.
    d.perSessionHour = r.costPerSessionHourUsd;
    return d;
}

QString Deployment::marginWords(double marginFraction) const
{
    if (!gpusWithMargin)
        return {};
    return QCoreApplication::translate("Deployment", " (%1%2, with the %3% admission margin)")
        .arg(Units::plural(*gpusWithMargin, QCoreApplication::translate("Deployment", "GPU"), QCoreApplication::translate("Deployment", "GPUs")),
             perMonthWithMargin ? QCoreApplication::translate("Deployment", ", %1 a month").arg(Units::formatUsd(*perMonthWithMargin)) : QString(),
             Units::formatDecimal(marginFraction * 100, 1));
}

} // namespace Headroom
