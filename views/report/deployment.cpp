// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/deployment.h"

#include "inputs/scenario.h"
#include "plan/capacityresult.h"

#include <algorithm>

namespace Headroom {

Deployment Deployment::of(const Scenario &s, const CapacityResult &r)
{
    Deployment d;
    d.perGroup = r.distribution.sessionsAtRisk;
    if (r.distribution.fleetTargetSessions && r.distribution.gpusNeeded) {
        d.sessions = *r.distribution.fleetTargetSessions;
        d.gpus = *r.distribution.gpusNeeded;
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
    }
    // Per session-hour: the one figure the window and `plan` show (computeCapacity's price x
    // GPUs of a TP group / its sessions at risk), never the month over the target.
    d.perSessionHour = r.costPerSessionHourUsd;
    return d;
}

} // namespace Headroom
