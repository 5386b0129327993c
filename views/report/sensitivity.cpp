// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/sensitivity.h"
#include "report/reporttext.h"

#include "core/units.h"
#include "plan/capacity.h"
#include "plan/levers.h"
#include "store/presetstore.h"

#include <cmath>
#include <functional>
#include <limits>

namespace Headroom {

namespace {

using ReportText::tr;

QString tpKind()
{
    return ReportText::tr("tensor parallelism");
}

QString cardKind()
{
    return ReportText::tr("the card");
}

// The smallest preset card larger than `memory` bytes (isLargerCard: not a sibling of the same
// size), a priced card before an unpriced one; none when no preset is larger.
std::optional<GpuSpec> nextCardUp(qint64 memory)
{
    std::optional<GpuSpec> next;
    for (const PresetRecord &p : PresetStore::builtInPresets())
        if (p.kind == QLatin1String("gpu")) {
            const GpuSpec g = GpuSpec::fromPreset(p.json);
            // A priced card before an unpriced one, then the smallest.
            const bool better = !next || (g.priceUsdPerHour.has_value() != next->priceUsdPerHour.has_value() ? g.priceUsdPerHour.has_value()
                                                                                                             : g.memoryBytes < next->memoryBytes);
            if (isLargerCard(g, memory) && better)
                next = g;
        }
    return next;
}

QVector<Variant> variantsOf(const Scenario &s, const CapacityResult &r)
{
    // A count times f, held to 1 .. 2^63 - 1 (a cap of 2^63 - 1 times 1.5 would not fit 64 bits).
    auto scaledCount = [](qint64 v, double f) {
        const long double x = std::round((long double)v * (long double)f);
        return x >= 9.2e18L ? std::numeric_limits<qint64>::max() : std::max<qint64>(1, qint64(x));
    };
    QVector<Variant> out;
    auto with = [&](const QString &kind, const QString &change, const std::function<void(Scenario &)> &edit) {
        Scenario v = s;
        edit(v);
        out << Variant{kind, change, v};
    };
    for (const double f : {0.5, 1.5}) {
        const QString pct = f < 1 ? QStringLiteral("−50%") : QStringLiteral("+50%");
        if (s.retainTokens) {
            const qint64 cap = scaledCount(*s.retainTokens, f);
            with(ReportText::tr("the retention cap"), ReportText::tr("cap %1 (%2 tokens)").arg(pct, Units::formatCount(cap)), [cap](Scenario &v) { v.retainTokens = cap; });
        } else if (s.distribution) {
            with(ReportText::tr("the session lengths"), ReportText::tr("every length %1").arg(pct), [f](Scenario &v) { v.lengthScale *= f; });
        } else {
            const qint64 c = scaledCount(s.contextTokens, f);
            with(ReportText::tr("the context"), ReportText::tr("context %1 (%2 tokens)").arg(pct, Units::formatCount(c)), [c](Scenario &v) { v.contextTokens = c; });
        }
    }
    const Dtype other = r.kvDtype == Dtype::FP8 ? Dtype::BF16 : Dtype::FP8;
    with(ReportText::tr("the KV precision"), ReportText::tr("KV cache %1 (now %2)").arg(Dtypes::name(other), Dtypes::name(r.kvDtype)), [other](Scenario &v) { v.kvDtype = other; });
    if (s.distribution)
        for (const double p : {1e-2, 1e-4, 1e-6})
            if (s.fleetRisk || std::abs(p - s.risk) > 1e-12) // each replica's risk (a fleet risk is dropped)
                with(ReportText::tr("the risk"), ReportText::tr("risk %1").arg(Units::formatRisk(p)), [p](Scenario &v) {
                    v.risk = p;
                    v.fleetRisk.reset();
                });
    // Tensor parallelism as the levers and `plan --solve min-gpus` try it: a larger TP can hold the
    // target on fewer GPUs (README's example: TP 8 holds the 1,000 sessions on 8 GPUs, TP 4 needs 12).
    for (const int tp : tensorParallelSizes())
        if (tp != s.tp)
            with(tpKind(), ReportText::tr("TP %1 (now %2)").arg(tp).arg(s.tp), [tp](Scenario &v) { v.tp = tp; });
    if (const std::optional<GpuSpec> next = nextCardUp(s.effectiveGpuMemoryBytes()))
        with(cardKind(), ReportText::tr("next card up: %1").arg(next->name), [g = *next](Scenario &v) {
            v.gpu = g;
            v.gpuMemoryBytes.reset();
            v.priceUsdPerGpuHour.reset();
        });
    return out;
}

} // namespace

double SensitivityRow::perGpu() const
{
    return double(dep.perGroup) / v.scenario.gpusPerReplica();
}

QString SensitivityRow::pastMaximum() const
{
    if (!r.ok || !r.contextBeyondMax)
        return QString();
    const qint64 maximum = v.scenario.effectiveMaxModelLen();
    return v.scenario.maxModelLen ? tr(", <i>past --max-model-len %1</i>").arg(Units::formatCount(maximum))
                                  : tr(", <i>past the model's %1-token maximum</i>").arg(Units::formatCount(maximum));
}

bool SensitivityRow::isChoice() const
{
    return v.kind == tpKind() || v.kind == cardKind();
}

QVector<SensitivityRow> sensitivityRows(const Scenario &s, const CapacityResult &r)
{
    QVector<SensitivityRow> rows;
    const QString tp = tpKind();
    for (const Variant &v : variantsOf(s, r)) {
        const CapacityResult vr = computeCapacity(v.scenario);
        // A TP the model cannot split to, or at which no session fits, is no choice (as solveMinGpus skips it).
        if (v.kind == tp && (!vr.ok || vr.distribution.sessionsAtRisk < 1))
            continue;
        rows << SensitivityRow{v, vr, vr.ok ? Deployment::of(v.scenario, vr) : Deployment{}};
    }
    return rows;
}

} // namespace Headroom
