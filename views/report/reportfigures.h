// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "report/reporttext.h"
#include "report/deployment.h"
#include "report/sensitivity.h"
#include "reportwriter.h"

#include <QString>
#include <QVector>
#include <optional>

namespace Headroom {

/// The figures the report's sections share, worked out once from a ReportInput whose
/// result is ok: the scenario and its plan, the title, the basis, the recommended
/// deployment and the sensitivity rows. Holds references into the input, which must
/// outlive it.
struct ReportFigures
{
    HEADROOM_TR_CONTEXT(ReportWriter)
    explicit ReportFigures(const ReportInput &in);

    const ReportInput &in;
    const Scenario &s;
    const CapacityResult &r;
    const DistributionFigures &d;
    const UnitSystem u;
    QString title;       ///< the page headers' and the decision's: the scenario's name, "Untitled scenario" without one
    QString basis;       ///< ReportText::basisOf(s)
    Deployment dep;      ///< the deployment recommended
    std::optional<double> price; ///< the price per GPU-hour in force, US dollars
    double perGpu = 0;   ///< sessions per GPU of the deployment, to rank and compare the sensitivity rows: never shown as a count
    QVector<SensitivityRow> rows; ///< the sensitivity table's rows
    /// The engine's band before hardware, as sessions in proportion to the pool's tokens:
    /// whether there is one, and its low and high sessions per TP group.
    bool band = false;
    qint64 sessionsLow = 0, sessionsHigh = 0;
    /// The tokens a session holds on average against a distribution (the capped lengths'
    /// mean under a cap: DistributionFigures::meanHeldTokens).
    qint64 meanHeld = 0;

    /// `bytes` in the report's units (Units::formatBytes).
    QString bytes(qint64 b) const;
};

} // namespace Headroom
