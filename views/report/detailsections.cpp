// SPDX-License-Identifier: GPL-3.0-or-later
// The report's details after page 1: per session and per card, the sensitivity, the inputs,
// the lengths and risk, the throughput.
#include "plan/fleetrisk.h"
#include "engines/enginesettingfields.h"
#include "report/pagecursor.h"
#include "report/reportcharts.h"
#include "report/reportfigures.h"
#include "report/reportsections.h"
#include "report/reporttext.h"

#include "memorychartview.h"
#include "plan/capacity.h"

#include <QFileInfo>
#include <algorithm>
#include <cmath>

namespace Headroom::ReportSections {

namespace {

using ReportText::esc;
using ReportText::money;
using ReportText::row;
using ReportText::tr;

// Issue 14's side pools: the vision encoder and the host tier, each a row when on.
QString sidePoolRows(const ReportFigures &f)
{
    const Scenario &s = f.s;
    const CapacityResult &r = f.r;
    QString t1;
    if (s.model.visionParams > 0)
        t1 += row(tr("Vision encoder"), r.encoderLoaded ? tr("%1 of weights per GPU; encoder cache %2 per GPU; %3 image tokens per request")
                                                              .arg(f.bytes(r.encoderWeightsBytesPerGpu), f.bytes(r.encoderCacheBytesPerGpu), Units::formatCount(r.imageTokensPerRequest))
                                                        : tr("not loaded (no images under vLLM); no encoder cache"));
    if (s.decodingShare || s.hostKvMemoryBytes) {
        auto ms = [](const std::optional<double> &v) { return v ? tr("%1 ms").arg(Units::formatDecimal(*v, 1)) : tr("unknown"); };
        t1 += row(tr("Sessions kept warm per node (%1 host memory, %2 of the sessions decoding)")
                      .arg(f.bytes(r.warm.hostKvBytesPerNode), Units::formatDecimal(r.warm.decodingShare * 100, 1) + QLatin1Char('%')),
                  tr("%1 retained, %2 decoding per GPU on average; one comes back in %3 over the host link (recomputing it: %4)")
                      .arg(Units::formatCount(r.warm.retainedPerNode), Units::formatDecimal(r.warm.decodingPerGpu, 2), ms(r.warm.atContext.resumeMs),
                           ms(r.warm.atContext.recomputeMs)));
    }
    return t1;
}

// Against a distribution, the same card on the other bases (worst case, mean, admission
// limit), a table of HTML, each row its own basis.
QString otherBases(const ReportFigures &f)
{
    const Scenario &s = f.s;
    const DistributionFigures &d = f.d;
    // Under a cap the mean is the capped lengths' (what a session holds), said as such, as the
    // window's Lengths tab says it beside the lengths' own mean.
    const QString meanHeldText = s.retainTokens ? tr("%1 tokens, the mean of the lengths as capped").arg(Units::formatCount(f.meanHeld))
                                                : tr("%1 tokens%2").arg(Units::formatCount(f.meanHeld), d.reservationWords());
    QString t1 = QStringLiteral("<h3>%1</h3><table cellspacing=3>").arg(tr("The same card on other bases (each row its own basis)"));
    t1 += row(tr("Worst case: every session at the longest, %1 tokens%2").arg(Units::formatCount(d.worstCaseTokens(s.retainTokens)), d.reservationWords()),
              esc(sessionsPerGpus(d.sessionsWorstCase, s.gpusPerReplica())));
    t1 += row(tr("At the mean length, %1 (overflows about half the time)").arg(meanHeldText), esc(sessionsPerGpus(d.sessionsAtMean, s.gpusPerReplica())));
    t1 += row(tr("Admission limit: at a %1 risk against the budget less %2%").arg(Units::formatRisk(d.replicaRisk), Units::formatDecimal(s.marginFraction * 100, 1)),
              esc(sessionsPerGpus(d.admissionLimit, s.gpusPerReplica())));
    t1 += QStringLiteral("</table>");
    return t1;
}

// A row of the sensitivity table: `label` (HTML), the sessions a TP group of `tp` GPUs holds
// (the whole count, never a quotient per GPU), and the deployment `x`'s GPUs, money per month
// and per session-hour.
QString sensitivityRow(const QString &label, qint64 group, int tp, const Deployment &x)
{
    return QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td><td align=right>%5</td></tr>")
        .arg(label, sessionsPerGpus(group, tp, false), Units::formatCount(x.gpus), money(x.perMonth),
             x.perSessionHour ? Units::formatUsdPer(*x.perSessionHour, tr("session-hour")) : QStringLiteral("—"));
}

// The inputs' rows of the model and the card: shape, memory, TP, precisions, weights,
// workspace and engine rule, what differs from the preset in bold.
QString modelAndCardRows(const ReportFigures &f)
{
    const Scenario &s = f.s;
    const CapacityResult &r = f.r;
    const QString heads = s.kvHeadsOverride && *s.kvHeadsOverride != s.model.kvHeads
        ? tr("<b>KV heads %1 (what-if; the model has %2)</b>").arg(*s.kvHeadsOverride).arg(s.model.kvHeads)
        : tr("%1 KV heads").arg(s.model.kvHeads);
    QString in1 = row(tr("Model"), tr("%1 (%2 layers, %3, head_dim %4, %5 parameters)")
                                       .arg(esc(s.model.name)).arg(s.model.layers()).arg(heads).arg(s.model.headDim).arg(Units::formatCount(s.model.totalParams)));
    in1 += row(tr("GPU"), s.gpuMemoryBytes && *s.gpuMemoryBytes != s.gpu.memoryBytes
                              ? tr("%1, <b>%2 (what-if; the card has %3)</b>").arg(esc(s.gpu.name), f.bytes(*s.gpuMemoryBytes), f.bytes(s.gpu.memoryBytes))
                              : tr("%1 Exactly %2.").arg(esc(MemoryChartView::cardNote(s.gpu, r.gpuMemoryBytes, f.u)), Units::formatExactBytes(r.gpuMemoryBytes)));
    in1 += row(tr("Tensor parallelism"), QString::number(s.tp));
    Scenario preset = s;
    preset.weightsDtype.reset();
    preset.kvDtype.reset();
    const Dtype wPreset = preset.effectiveWeightsDtype(), kvPreset = preset.effectiveKvDtype();
    in1 += row(tr("Weights precision"), r.weightsDtype != wPreset ? tr("<b>%1 (set; the checkpoint is %2)</b>").arg(Dtypes::name(r.weightsDtype), Dtypes::name(wPreset))
                                                                  : Dtypes::name(r.weightsDtype));
    in1 += row(tr("KV-cache precision"), r.kvDtype != kvPreset ? tr("<b>%1 (set; the model's default is %2)</b>").arg(Dtypes::name(r.kvDtype), Dtypes::name(kvPreset))
                                                               : Dtypes::name(r.kvDtype));
    if (s.weightsBytes)
        in1 += row(tr("Weights"), tr("<b>%1 (what-if; not the checkpoint's size)</b>").arg(f.bytes(*s.weightsBytes)));
    if (s.workspaceBytes)
        in1 += row(tr("Workspace"), tr("<b>%1 per card (what-if; not the engine's rule)</b>").arg(f.bytes(*s.workspaceBytes)));
    in1 += row(tr("Engine rule"), esc(Engines::describe(s.engine)));
    // Every engine setting given, by its flag (a trial's report never named the --max-num-seqs 16
    // that decided its answer); the defaults in force are the engine's and go unlisted.
    for (const EngineSettingField &field : EngineSettingFields::of(s.engine))
        if (const QString given = EngineSettingFields::text(s, field, QLocale(QLocale::English, QLocale::UnitedStates)); !given.isEmpty())
            in1 += row(esc(EngineSettingFields::flag(field)), QStringLiteral("<b>%1</b>").arg(esc(given)));
    return in1;
}

// The inputs' rows of the side pools (issue #14), each only when on: what they take beside
// weights and KV.
QString sidePoolInputRows(const ReportFigures &f)
{
    const Scenario &s = f.s;
    const CapacityResult &r = f.r;
    QString in1;
    if (s.speculative.on())
        in1 += row(tr("Speculative decoding"),
                   tr("<b>%1, %2 per step</b>: %3 of draft weights per GPU, %4 of draft KV per token%5, %6 per session")
                       .arg(s.speculative.draftModel ? tr("draft %1").arg(esc(s.speculative.draftModel->name))
                            : s.speculative.draftLayers == 1 ? tr("1 MTP / EAGLE layer")
                            : s.speculative.draftLayers > 1  ? tr("%1 MTP / EAGLE layers").arg(s.speculative.draftLayers)
                                                             : tr("no draft (n-gram)"))
                       .arg(s.speculative.speculativeTokens == 1 ? tr("1 token") : tr("%1 tokens").arg(s.speculative.speculativeTokens))
                       .arg(f.bytes(r.draftWeightsBytesPerGpu), Units::formatExactBytes(s.gpusPerReplica() > 1 ? r.draftKvBytesPerTokenPerGpu : r.draftKvBytesPerToken),
                            s.gpusPerReplica() > 1 ? tr(" per GPU") : QString(),
                            s.speculative.speculativeTokens == 1 ? tr("1 lookahead slot") : tr("%1 lookahead slots").arg(s.speculative.speculativeTokens)));
    if (s.lora.on())
        in1 += row(tr("LoRA slots"), tr("<b>%1 slots of rank %2</b> on %3: %4 per GPU")
                                         .arg(s.lora.maxLoras).arg(s.lora.maxRank)
                                         .arg(s.lora.effectiveModules().join(QStringLiteral(", ")), f.bytes(r.loraBytesPerGpu)));
    return in1;
}

// The inputs' rows of the traffic and the price: sessions asked, lengths, context, cap, risk
// and the price per GPU-hour, what differs from the preset in bold.
QString trafficAndPriceRows(const ReportFigures &f)
{
    const Scenario &s = f.s;
    const CapacityResult &r = f.r;
    const auto &price = f.price;
    QString in1 = row(tr("Sessions asked"), r.distribution.fleetTargetFromSessions
                                                ? tr("%1 in all: more than one %2 holds, so they size the fleet").arg(Units::formatCount(s.sessions), replicaNoun(s))
                                                : tr("%1%2").arg(esc(sessionsPerGpus(s.sessions, s.gpusPerReplica())),
                                                                             s.targetSessions ? tr("; the fleet must hold %1").arg(Units::formatCount(*s.targetSessions)) : QString()));
    in1 += row(tr("Session lengths"), s.distribution ? esc(QFileInfo(s.distribution->spec).fileName().isEmpty() ? s.distribution->spec : QFileInfo(s.distribution->spec).fileName())
                                                         + (s.lengthScale != 1 ? tr(", <b>× %1 (what-if; the trace as recorded is × 1)</b>").arg(Units::formatDecimal(s.lengthScale, 3)) : QString())
                                                   : tr("every session at %1 tokens").arg(Units::formatCount(s.contextTokens)));
    // The length the per-session figures are for, which the lengths alone do not say.
    if (s.distribution)
        in1 += row(tr("Context"), r.reservedTokensPerSession == s.contextTokens
                                      ? esc(sessionBasis(s, r))
                                      : tr("%1 tokens; every per-session figure at %2").arg(Units::formatCount(s.contextTokens), esc(sessionBasis(s, r))));
    if (s.retainTokens)
        in1 += row(tr("Retention cap"), tr("%1 tokens").arg(Units::formatCount(*s.retainTokens)));
    if (s.distribution)
        in1 += row(tr("Risk accepted"), s.fleetRisk ? esc(FleetRisk::words(s, r)) : Units::formatRisk(s.risk));
    in1 += row(tr("Price"), !price ? tr("none published: set a price")
                            : s.priceUsdPerGpuHour && s.gpu.priceUsdPerHour && *s.priceUsdPerGpuHour != *s.gpu.priceUsdPerHour
                                ? tr("<b>%1 per GPU-hour (set; the preset's is %2)</b>").arg(Units::formatUsd(*price), Units::formatUsd(*s.gpu.priceUsdPerHour))
                                : tr("%1 per GPU-hour").arg(Units::formatUsd(*price)));
    return in1;
}

} // namespace

void perSessionAndCard(PageCursor &page, const ReportFigures &f)
{
    const Scenario &s = f.s;
    const CapacityResult &r = f.r;
    const DistributionFigures &d = f.d;
    QString t1 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Per session and per card, %1").arg(f.basis));
    t1 += row(tr("KV bytes per token"), QStringLiteral("%1 (%2)").arg(Units::formatExactBytes(r.kvBytesPerToken), f.bytes(r.kvBytesPerToken)));
    if (s.gpusPerReplica() > 1)
        t1 += row(tr("KV bytes per token per GPU"), Units::formatExactBytes(r.kvBytesPerTokenPerGpu));
    if (s.distribution)
        t1 += row(tr("KV bytes per session per GPU, on average"), QStringLiteral("%1 (%2)").arg(f.bytes(qint64(std::llround(d.meanSessionBytesPerGpu))),
                                                                                            Units::formatExactBytes(qint64(std::llround(d.meanSessionBytesPerGpu)))));
    else
        t1 += row(tr("KV bytes per session per GPU"), tr("%1 (%2 tokens)").arg(f.bytes(r.reservedSessionBytesPerGpu), Units::formatCount(r.reservedTokensPerSession)));
    t1 += row(tr("KV budget per GPU"), f.bytes(r.kvBudgetBytesPerGpu));
    t1 += row(tr("Sessions that fit"), esc(sessionsPerGpus(f.dep.perGroup, s.gpusPerReplica())));
    t1 += row(tr("Money per session-hour, every %1 full").arg(replicaNoun(s)), r.costPerSessionHourUsd ? Units::formatUsdPer(*r.costPerSessionHourUsd, tr("session-hour")) : tr("set a price"));
    t1 += sidePoolRows(f);
    t1 += QStringLiteral("</table>");
    if (s.distribution)
        t1 += otherBases(f);
    page.text(t1);
}


namespace {

// The names of the band's terms ("activation peak, non-torch memory at TP 1"): each term's
// text before its colon, without the ranges and case labels the derivation gives.
QString spreadTermNames(const QStringList &terms)
{
    QStringList names;
    for (const QString &t : terms)
        names << t.section(QLatin1Char(':'), 0, 0);
    return names.join(QStringLiteral(", "));
}

} // namespace
void sensitivity(PageCursor &page, const ReportFigures &f)
{
    QString sens = QStringLiteral("<h2>%1</h2><p>%2</p><table width=100% cellspacing=0 cellpadding=2 border=1 style='font-size:8pt'><tr><th width=27%>%3</th><th width=19%>%4</th><th width=7%>%5</th><th width=13%>%6</th><th width=34%>%7</th></tr>")
                       .arg(tr("Sensitivity, %1").arg(f.basis), tr("Each row changes one input and recomputes the plan; the fleet is resized for the target (or stays one %1).").arg(replicaNoun(f.s)),
                            tr("Change"), tr("Sessions that fit"), tr("GPUs"), tr("Money per month"), tr("Money per session-hour"));
    sens += sensitivityRow(tr("<b>Now</b>"), f.dep.perGroup, f.s.gpusPerReplica(), f.dep);
    for (const SensitivityRow &x : f.rows)
        sens += x.r.ok ? sensitivityRow(esc(x.v.change) + x.pastMaximum(), x.dep.perGroup, x.v.scenario.gpusPerReplica(), x.dep)
                       : QStringLiteral("<tr><td>%1</td><td colspan=4>%2</td></tr>").arg(esc(x.v.change), esc(x.r.error));
    sens += QStringLiteral("</table>");
    const EngineFigures &e = f.r.engineFigures;
    if (f.band)
        sens += QStringLiteral("<p>%1</p>").arg(tr("Before measuring on the card: the engine's KV cache is expected to hold %1 tokens, but could hold from %2 to %3 "
                                                  "(the range public start-up logs show for what the engine measures and this plan estimates: %7), so about "
                                                  "%4 to %5 sessions per %8 rather than %6. "
                                                  "Calibrate from one startup log to remove the band.")
                                                   .arg(Units::formatCount(e.kvCacheTokens), Units::formatCount(e.kvCacheTokensLow), Units::formatCount(e.kvCacheTokensHigh),
                                                        Units::formatCount(f.sessionsLow), Units::formatCount(f.sessionsHigh), Units::formatCount(f.dep.perGroup),
                                                        esc(spreadTermNames(e.spreadTerms)), replicaNoun(f.s)));
    page.text(sens);
}

void inputs(PageCursor &page, const ReportFigures &f)
{
    QString in1 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Inputs"));
    in1 += modelAndCardRows(f);
    in1 += sidePoolInputRows(f);
    in1 += trafficAndPriceRows(f);
    if (f.in.unsavedChanges)
        in1 += row(tr("Scenario file"), tr("%1, edited since it was last saved: these inputs are the ones in the window, not the file's").arg(esc(f.title)));
    in1 += QStringLiteral("</table><p><small>%1</small></p>").arg(tr("Bold: differs from the preset (a what-if changes the model or card; a setting is a choice). Sources: appendix."));
    page.text(in1);
}

void lengthsAndRisk(PageCursor &page, const ReportFigures &f, const ReportCharts &charts)
{
    const Scenario &s = f.s;
    const DistributionFigures &d = f.d;
    QString p3 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Session lengths and risk, %1").arg(f.basis));
    if (s.distribution)
        p3 += row(s.retainTokens ? tr("Lengths before the cap") : tr("Lengths"), tr("mean %1, p50 %2, p90 %3, p99 %4, max %5 tokens")
                                     .arg(Units::formatCount(qint64(std::llround(d.meanTokens))), Units::formatCount(d.p50), Units::formatCount(d.p90),
                                          Units::formatCount(d.p99), Units::formatCount(d.maxTokens)));
    if (!d.fleetTargetFromSessions) // sessions asked beyond one group size the fleet: no one group holds them
        p3 += row(tr("Overflow probability at %1").arg(Units::plural(s.sessions, tr("session"), tr("sessions"))),
                  d.overflowProbability <= 0 ? tr("none") : Units::formatRisk(d.overflowProbability));
    if (s.retainTokens && s.distribution)
        p3 += row(tr("Cost of the cap"), d.truncatedShare > 0 ? historyLost(f.r) : tr("no session loses history"));
    if (d.hasPrompts)
        p3 += row(tr("Admission by prompt only"), tr("%1 sessions, overflow risk %2 once grown")
                                                      .arg(Units::formatCount(d.admissionByPrompt), Units::formatRisk(d.riskAtGrownSize)));
    p3 += QStringLiteral("</table>");
    page.text(p3);
    if (s.distribution || s.retainTokens) // a fixed length without a cap is one bar: nothing to read
        page.chart(charts.distribution(), 0.3);
    page.chart(charts.sessions(), 0.3);
}

void throughput(PageCursor &page, const ReportFigures &f, const ReportCharts &charts)
{
    const DistributionFigures &d = f.d;
    if (f.dep.perGroup <= 0) {
        page.text(QStringLiteral("<h2>%1</h2><p>%2</p>").arg(tr("Throughput and latency"), tr("None: not one session fits on a %1, so nothing is decoded.").arg(replicaNoun(f.s))));
        return;
    }
    QString p4 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Throughput and latency, at %1").arg(esc(sessionsPerGpus(f.dep.perGroup, f.s.gpusPerReplica()))));
    // Each time with the range measured engines fell in around the prediction (issue 30).
    if (d.itlMsAtRisk)
        p4 += row(tr("Inter-token latency"), tr("%1 ms (90% of measured engines: %2 to %3 ms)")
                                                 .arg(Units::formatDecimal(*d.itlMsAtRisk, 1), Units::formatDecimal(d.itlAtRiskBand->low, 1),
                                                      Units::formatDecimal(d.itlAtRiskBand->high, 1)));
    if (d.tokensPerSecondPerGpu)
        p4 += row(tr("Tokens per second per GPU"), tr("%1 (%2 to %3)").arg(Units::formatCount(qint64(std::llround(*d.tokensPerSecondPerGpu))),
                                                                         Units::formatCount(qint64(std::llround(d.tokensPerSecondBand->low))),
                                                                         Units::formatCount(qint64(std::llround(d.tokensPerSecondBand->high)))));
    if (d.ttftMs)
        p4 += row(tr("Time to first token (mean prompt, unloaded)"), tr("%1 ms (90% of measured engines at 8 sessions or fewer: %2 to %3 ms)")
                                                                      .arg(Units::formatDecimal(*d.ttftMs, 1), Units::formatDecimal(d.ttftBand->low, 1),
                                                                           Units::formatDecimal(d.ttftBand->high, 1)));
    p4 += QStringLiteral("</table>");
    page.text(p4);
    page.chart(charts.throughput(), 0.3);
}

} // namespace Headroom::ReportSections
