// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>
#include <optional>

namespace Headroom {

struct CapacityResult;
struct Scenario;

/// The deployment the report recommends: the target sessions on whole TP
/// groups (the model's gpusNeeded), else the scenario's --dp replicas (the
/// model's fleetGpus; one TP group by default); money at the price in force
/// for 730 hours a month.
struct Deployment
{
    qint64 perGroup = 0;   ///< sessions per TP group on the scenario's basis
    qint64 sessions = 0;   ///< sessions the deployment serves
    qint64 gpus = 0;
    qint64 groups = 0;
    std::optional<double> perHour, perMonth, perSessionHour; ///< US dollars; none without a price

    /// The deployment of scenario `s` planned as `r` (computeCapacity(s), ok).
    static Deployment of(const Scenario &s, const CapacityResult &r);
};

} // namespace Headroom
