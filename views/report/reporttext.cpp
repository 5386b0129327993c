// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/reporttext.h"

#include "core/units.h"
#include "inputs/scenario.h"

#include <QCoreApplication>

namespace Headroom::ReportText {

QString tr(const char *t)
{
    return QCoreApplication::translate("ReportWriter", t);
}

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

QString row(const QString &a, const QString &b)
{
    return QStringLiteral("<tr><td>%1</td><td>%2</td></tr>").arg(a, b);
}

QString money(const std::optional<double> &v)
{
    return v ? Units::formatUsd(*v) : tr("set a price");
}

QString basisOf(const Scenario &s)
{
    // The risk as given: each replica's, or the whole fleet's (--fleet-risk).
    const QString risk = s.fleetRisk ? tr("a fleet-wide %1 risk").arg(Units::formatRisk(*s.fleetRisk)) : tr("a %1 risk").arg(Units::formatRisk(s.risk));
    if (s.distribution) {
        const QString lengths = s.distribution->kind == LengthDistribution::Kind::Trace ? tr("the trace") : tr("the lengths");
        return s.retainTokens ? tr("against %1 capped at %2 tokens, at %3").arg(lengths, Units::formatCount(*s.retainTokens), risk)
                              : tr("against %1 at %2").arg(lengths, risk);
    }
    if (s.retainTokens && *s.retainTokens < s.contextTokens)
        return tr("at the cap of %1 tokens").arg(Units::formatCount(*s.retainTokens));
    return tr("at the context of %1 tokens").arg(Units::formatCount(s.contextTokens));
}

} // namespace Headroom::ReportText
