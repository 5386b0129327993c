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
    /// For a target: the GPUs engines admitting the count to deploy (the admission limit, the
    /// budget less the margin) need when more than `gpus`, and their money a month; else empty.
    std::optional<qint64> gpusWithMargin;
    std::optional<double> perMonthWithMargin;

    /// " (16 GPUs, $34,456 a month, with the 5% admission margin)" when gpusWithMargin is set,
    /// else empty: said after the fleet's GPUs and money wherever they headline.
    QString marginWords(double marginFraction) const;

    /// The deployment of scenario `s` planned as `r` (computeCapacity(s), ok).
    static Deployment of(const Scenario &s, const CapacityResult &r);
};

} // namespace Headroom
