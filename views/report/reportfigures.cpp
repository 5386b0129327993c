// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/reportfigures.h"
#include "report/reporttext.h"

namespace Headroom {

using ReportText::tr;

ReportFigures::ReportFigures(const ReportInput &input)
    : in(input)
    , s(input.scenario)
    , r(input.result)
    , d(input.result.distribution)
    , u(input.units)
{
    // The name alone: a scenario never saved is named by its model and card (or "Untitled"), and
    // one edited since it was saved says so once, in the inputs, not in every page's header.
    title = in.name.isEmpty() ? tr("Untitled scenario") : in.name;
    basis = ReportText::basisOf(s);
    dep = Deployment::of(s, r);
    price = s.effectivePrice();
    perGpu = double(dep.perGroup) / s.gpusPerReplica();
    rows = sensitivityRows(s, r);
    const EngineFigures &e = r.engineFigures;
    band = e.kvCacheTokensHigh > e.kvCacheTokensLow && e.kvCacheTokens > 0;
    // The band scales the KV cache's own count; the engine's running cap still holds it (an
    // attacker's report said "about 2 to 3 sessions" for a band that holds about 56, capped at 3).
    const double kv = double(r.runningCap ? r.kvSessions : dep.perGroup);
    const double cap = r.runningCap ? double(r.runningCap->sessions) : std::numeric_limits<double>::max();
    sessionsLow = band ? qint64(std::min(cap, kv * double(e.kvCacheTokensLow) / double(e.kvCacheTokens))) : 0;
    sessionsHigh = band ? qint64(std::min(cap, kv * double(e.kvCacheTokensHigh) / double(e.kvCacheTokens))) : 0;
    meanHeld = d.meanHeldTokens(s.retainTokens.has_value());
}

QString ReportFigures::bytes(qint64 b) const
{
    return Units::formatBytes(b, u);
}

} // namespace Headroom
