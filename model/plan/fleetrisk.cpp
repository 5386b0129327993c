// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/fleetrisk.h"
#include "plan/capacity.h"
#include "core/inputerror.h"
#include "core/units.h"

#include <QCoreApplication>
#include <cmath>

namespace Headroom::FleetRisk {

namespace {
/// The translation context of the fleet's words (the plan's own, as capacity.cpp's).
struct Capacity
{
    Q_DECLARE_TR_FUNCTIONS(Capacity)
};
} // namespace

double fleetOverflowProbability(double perReplica, qint64 replicas)
{
    if (replicas <= 0 || !(perReplica > 0))
        return 0.0;
    if (perReplica >= 1)
        return 1.0;
    return -std::expm1(double(replicas) * std::log1p(-perReplica));
}

double replicaRiskFor(double fleetRisk, qint64 replicas)
{
    if (replicas <= 1)
        return fleetRisk;
    return -std::expm1(std::log1p(-fleetRisk) / double(replicas));
}

Solution solve(double fleetRisk, std::optional<qint64> target, qint64 replicasWithoutTarget,
               const std::function<qint64(double)> &sessionsAt, double floorRisk, const QString &field)
{
    auto riskFor = [&](qint64 replicas) {
        const double p = replicaRiskFor(fleetRisk, replicas);
        if (p < floorRisk)
            throw InputError(field, QStringLiteral("%1 over %2 replicas needs each replica at %3, below the %4 the overflow "
                                                   "solver reaches: accept a larger fleet risk, or give each replica --risk")
                                        .arg(Units::formatRisk(fleetRisk), Units::formatCount(replicas), Units::formatRisk(p),
                                             Units::formatRisk(floorRisk)));
        return p;
    };
    Solution s;
    if (!target) {
        s.replicas = std::max<qint64>(1, replicasWithoutTarget);
        s.replicaRisk = riskFor(s.replicas);
        s.sessions = sessionsAt(s.replicaRisk);
        s.rounds = 1;
        return s;
    }
    // The rounds of FleetRisk::solve's comment: R never shrinks, N never grows.
    qint64 replicas = 1;
    for (s.rounds = 1; s.rounds <= maxRounds; ++s.rounds) {
        s.replicaRisk = riskFor(replicas);
        s.sessions = sessionsAt(s.replicaRisk);
        s.replicas = replicas;
        if (s.sessions <= 0) {
            s.replicas = 0; // no replica holds a session at this risk: no fleet reaches the target
            return s;
        }
        const qint64 next = Units::ceilDiv(*target, s.sessions);
        if (next == replicas)
            return s;
        replicas = next;
    }
    throw InputError(field, QStringLiteral("%1 did not settle in %2 rounds (replicas %3): give each replica --risk instead")
                                .arg(Units::formatRisk(fleetRisk)).arg(maxRounds).arg(Units::formatCount(replicas)));
}

QString words(const Scenario &s, const CapacityResult &r)
{
    const DistributionFigures &d = r.distribution;
    if (!r.ok || !answersByRisk(s) || !d.fleetReplicas || *d.fleetReplicas <= 0 || !d.fleetOverflowProbability)
        return QString();
    const qint64 replicas = *d.fleetReplicas;
    const bool card = s.gpusPerReplica() == 1;
    const QString one = card ? Capacity::tr("card") : Capacity::tr("replica");
    const QString many = Units::plural(replicas, one, card ? Capacity::tr("cards") : Capacity::tr("replicas"));
    if (s.fleetRisk)
        return replicas == 1 ? Capacity::tr("the fleet of one %1 at %2").arg(one, Units::formatRisk(*s.fleetRisk))
                             : Capacity::tr("the fleet of %1 at %2; each %3 at %4")
                                   .arg(many, Units::formatRisk(*s.fleetRisk), one, Units::formatRisk(d.replicaRisk));
    if (replicas == 1)
        return QString(); // one replica at the risk it was given: nothing more to say
    return Capacity::tr("each %1 at a risk of %2; the fleet of %3: %4 that some %1 overflows")
        .arg(one, Units::formatRisk(d.replicaRisk), many, Units::formatRisk(*d.fleetOverflowProbability));
}

} // namespace Headroom::FleetRisk
