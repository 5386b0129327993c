// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/capacity.h"
#include "plan/sidepoolderivation.h"
#include "plan/sidepools.h"
#include "core/inputranges.h"
#include "engines/enginerule.h"

#include <QCoreApplication>
#include <QLocale>
#include <QRegularExpression>
#include <cmath>

namespace Headroom {

namespace {
/// The translation context of the derivation and the verdict (lupdate reads
/// Derivation::tr into build/translations/headroom.ts).
struct Derivation
{
    Q_DECLARE_TR_FUNCTIONS(Derivation)
};

using Units::formatCount;
using Units::formatExactBytes;

using Units::plural;

// "× 2 B (bf16)" or "× 9 B per 16 values (nvfp4)"
QString perValue(Dtype d)
{
    const DtypeInfo &i = Dtypes::info(d);
    if (i.valuesPerBlock == 1)
        return Derivation::tr("%1 B (%2)").arg(i.bytesPerBlock).arg(Dtypes::name(d));
    return Derivation::tr("(%1 B per %2 values, %3)").arg(i.bytesPerBlock).arg(i.valuesPerBlock).arg(Dtypes::name(d));
}

QString headsTimesDim(const LayerGroup &g, int heads)
{
    const QString dims = g.headDimK == g.headDimV ? Derivation::tr("%1 head_dim").arg(g.headDimK)
                                                  : Derivation::tr("(%1 + %2) head_dim K + V").arg(g.headDimK).arg(g.headDimV);
    const QString factor = g.headDimK == g.headDimV ? Derivation::tr("2 (K and V) × ") : QString();
    return factor + plural(heads, Derivation::tr("KV head"), Derivation::tr("KV heads")) + QStringLiteral(" × ") + dims;
}
} // namespace

QString sessionBasis(const Scenario &s, const CapacityResult &r)
{
    const QString tokens = formatCount(r.reservedTokensPerSession);
    if (s.preallocate)
        return Derivation::tr("%1 tokens (the preallocated maximum)").arg(tokens);
    if (r.admission.reservedOutputTokens)
        return contextIsDistributionLongest(s)
            ? Derivation::tr("%1 tokens (the longest prompt + %2 output tokens the engine reserves at admission)")
                  .arg(tokens, formatCount(*r.admission.reservedOutputTokens))
            : Derivation::tr("%1 tokens (the prompt + %2 output tokens the engine reserves at admission)")
                  .arg(tokens, formatCount(*r.admission.reservedOutputTokens));
    if (s.retainTokens && *s.retainTokens <= s.contextTokens)
        return Derivation::tr("%1 tokens (the retention cap)").arg(tokens);
    if (contextIsDistributionLongest(s))
        return s.distribution->kind == LengthDistribution::Kind::Trace ? Derivation::tr("%1 tokens (the longest in the trace)").arg(tokens)
                                                                       : Derivation::tr("%1 tokens (the longest of the distribution)").arg(tokens);
    return Derivation::tr("%1 tokens (the context)").arg(tokens);
}

namespace {
// The two other counts against a distribution, each with the length it is for:
// "worst case, every session at 14,089 tokens: 35; at the mean of 1,366 tokens: 363".
QString worstAndMean(const Scenario &s, const DistributionFigures &d)
{
    const qint64 longest = d.worstCaseTokens(s.retainTokens);
    return Derivation::tr("worst case, every session at %1 tokens%2: %3; at the mean of %4 tokens: %5")
        .arg(formatCount(longest), longest < d.maxTokens ? Derivation::tr(" (the cap)") : d.reservationWords(), formatCount(d.sessionsWorstCase),
             formatCount(d.meanHeldTokens(s.retainTokens.has_value())), formatCount(d.sessionsAtMean));
}
} // namespace

QString sessionsPerGpus(qint64 sessions, int gpus, bool noun)
{
    const QString count = noun ? plural(sessions, Derivation::tr("session"), Derivation::tr("sessions")) : formatCount(sessions);
    return gpus <= 1 ? Derivation::tr("%1 per GPU").arg(count) : Derivation::tr("%1 per %2 GPUs").arg(count).arg(gpus);
}

QString perReplicaOf(const Scenario &s)
{
    if (s.gpusPerReplica() <= 1)
        return QString();
    return Derivation::tr(" per replica of %1").arg(replicaShape(s));
}

QString replicaShape(const Scenario &s)
{
    if (s.gpusPerReplica() <= 1)
        return Derivation::tr("1 GPU");
    if (s.pp <= 1)
        return Derivation::tr("%1 GPUs (TP %2)").arg(s.gpusPerReplica()).arg(s.tp);
    return Derivation::tr("%1 GPUs (TP %2 × PP %3)").arg(s.gpusPerReplica()).arg(s.tp).arg(s.pp);
}

QString replicaNoun(const Scenario &s, qint64 n)
{
    if (s.gpusPerReplica() <= 1)
        return n == 1 ? Derivation::tr("GPU") : Derivation::tr("GPUs");
    return n == 1 ? Derivation::tr("replica") : Derivation::tr("replicas");
}

QStringList whatIfsInForce(const Scenario &s, UnitSystem u)
{
    QStringList out;
    // A figure a start-up log or a benchmark gave is named by where it was read ("LOG line 12
    // (...)", LogCalibration::apply; "llama-bench's size column", BenchCalibration): measured,
    // not a what-if. Every other name is one of the input's spellings (a flag, a file's key).
    static const QRegularExpression readFrom(QStringLiteral("( line \\d+|'s \\S+ column)"));
    auto measured = [&s](Input input) -> std::optional<QString> {
        const QString name = s.field(input);
        if (!readFrom.match(name).hasMatch())
            return std::nullopt;
        return name.section(QStringLiteral(" ("), 0, 0);
    };
    if (s.kvHeadsOverride && *s.kvHeadsOverride != s.model.kvHeads)
        out << Derivation::tr("KV heads %1 (what-if; the model has %2)").arg(*s.kvHeadsOverride).arg(s.model.kvHeads);
    if (s.gpuMemoryBytes && *s.gpuMemoryBytes != s.gpu.memoryBytes)
        out << (measured(Input::GpuMemory) ? Derivation::tr("card memory %1 (measured: %2)").arg(Units::formatBytes(*s.gpuMemoryBytes, u), *measured(Input::GpuMemory))
                                           : Derivation::tr("card memory %1 (what-if; the %2 has %3)").arg(Units::formatBytes(*s.gpuMemoryBytes, u), s.gpu.name, Units::formatBytes(s.gpu.memoryBytes, u)));
    if (s.weightsBytes)
        out << (measured(Input::Weights) ? Derivation::tr("weights %1 (measured: %2)").arg(Units::formatBytes(*s.weightsBytes, u), *measured(Input::Weights))
                                         : Derivation::tr("weights %1 (what-if; not the checkpoint's size)").arg(Units::formatBytes(*s.weightsBytes, u)));
    if (s.workspaceBytes)
        out << (measured(Input::Workspace) ? Derivation::tr("workspace %1 per card (measured: %2)").arg(Units::formatBytes(*s.workspaceBytes, u), *measured(Input::Workspace))
                                           : Derivation::tr("workspace %1 per card (what-if; not the engine's rule)").arg(Units::formatBytes(*s.workspaceBytes, u)));
    if (s.lengthScale != 1.0)
        out << Derivation::tr("every session length × %1 (what-if; the trace as recorded is × 1)").arg(Units::formatDecimal(s.lengthScale, 3));
    return out;
}

QString historyLostWords(double share, bool conversations, double meanByThoseLosing, double meanOverAll, qint64 p99OverAll)
{
    // Every one losing history: the two averages are one figure, said once.
    if (share >= 1.0)
        return Derivation::tr("all %1 lose history: %2 tokens on average each (p99: %3)")
            .arg(conversations ? Derivation::tr("conversations") : Derivation::tr("sessions"),
                 Units::formatCount(qint64(std::llround(meanOverAll))), Units::formatCount(p99OverAll));
    return Derivation::tr("%1% of %2 lose history: %3 tokens on average over those who lose history; %4 on average over all %2 (p99 over all: %5)")
        .arg(Units::formatDecimal(share * 100, 2), conversations ? Derivation::tr("conversations") : Derivation::tr("sessions"),
             Units::formatCount(qint64(std::llround(meanByThoseLosing))), Units::formatCount(qint64(std::llround(meanOverAll))),
             Units::formatCount(p99OverAll));
}

QString capEffect(const Scenario &s, const CapacityResult &r, qint64 uncapped)
{
    const DistributionFigures &d = r.distribution;
    // Whole sessions, as a replica holds them ("+15 sessions per 4 GPUs"), never a quotient per card.
    const qint64 gained = d.sessionsAtRisk - uncapped;
    const QString share = uncapped > 0 ? Derivation::tr(" (%1%2% of the sessions without it)")
                                             .arg(gained >= 0 ? QStringLiteral("+") : QString())
                                             .arg(Units::formatDecimal((double(d.sessionsAtRisk) / double(uncapped) - 1.0) * 100.0, 0))
                                       : QString();
    // Named by its count: the sessions at the risk (a trial could not tell it from the worst case).
    // At one length no risk is taken: the gain is every session's.
    return Derivation::tr("%1%2%3%4, against no cap")
        .arg(gained >= 0 ? QStringLiteral("+") : QStringLiteral("−"), sessionsPerGpus(std::abs(gained), s.gpusPerReplica()), share,
             s.distribution ? Derivation::tr(" at %1 risk").arg(Units::formatRisk(d.replicaRisk)) : QString());
}

QString historyLost(const CapacityResult &r)
{
    const DistributionFigures &d = r.distribution;
    if (!(d.truncatedShare > 0))
        return QString();
    return historyLostWords(d.truncatedShare, d.conversations > 0, d.meanTokensDroppedByThoseLosing, d.meanTokensDropped, d.p99TokensDropped);
}

QString limitWords(const Scenario &s, const CapacityResult &r)
{
    if (!r.runningCap)
        return Derivation::tr("the KV cache budget is the limit");
    return Derivation::tr("%1's %2 is the limit: the KV cache holds %3")
        .arg(Engines::rule(s.engine).title(), r.runningCap->setting, formatCount(r.kvSessions));
}

namespace {
QString verdictAtTheContext(const Scenario &s, const CapacityResult &r, UnitSystem u);

// ", $17,228 a month" for the fleet of the sessions asked, where a price is known (a trial
// found the fleet's money only in presenter mode).
QString fleetMonth(const DistributionFigures &d)
{
    return d.fleetCostPerMonthUsd ? Derivation::tr(", %1 a month").arg(Units::formatUsd(*d.fleetCostPerMonthUsd)) : QString();
}
} // namespace

QString capacityVerdict(const Scenario &s, const CapacityResult &r, UnitSystem u)
{
    if (!r.ok)
        return r.error;
    // Every session at a context past the engine's own --max-model-len is a request the engine
    // refuses (vLLM: "longer than the maximum model length"; SGLang, TensorRT-LLM alike): the
    // count that follows holds only once the setting is raised (a trial read "4 sessions fit"
    // at 100,000 tokens beside --max-model-len 16,000, after Calibrate applied a log).
    if (r.contextBeyondMax && s.maxModelLen && s.engine != Engine::Plain && !s.distribution)
        return Derivation::tr("%1 refuses these sessions: %2 tokens each is beyond %3 %4. Raised to at least %2: %5")
            .arg(Engines::rule(s.engine).title(), formatCount(s.contextTokens), s.field(Input::MaxModelLen), formatCount(*s.maxModelLen),
                 verdictAtTheContext(s, r, u));
    // llama.cpp's server (and Ollama's) gives each of its n_seq slots n_ctx / n_seq cells: a
    // session longer than a slot is cut or refused (tools/server/server.cpp), whatever else is free.
    if (const auto slotCap = Engines::rule(s.engine).runningCap(s); slotCap && (s.engine == Engine::LlamaCpp || s.engine == Engine::Ollama)
        && !s.distribution && slotCap->sessions > 0 && r.engineFigures.kvCacheTokens / slotCap->sessions < r.reservedTokensPerSession)
        return Derivation::tr("%1 cannot hold these sessions: each of its slots holds %2 tokens (%3 cells over %4), fewer than the %5 each needs. "
                              "With %6 raised to at least %7: %8")
            .arg(Engines::rule(s.engine).title(), formatCount(r.engineFigures.kvCacheTokens / slotCap->sessions), formatCount(r.engineFigures.kvCacheTokens),
                 slotCap->setting, formatCount(r.reservedTokensPerSession), s.field(Input::NCtx),
                 // Ollama's num_ctx is each slot's (it runs llama.cpp with num_ctx x num_parallel cells).
                 formatCount(s.engine == Engine::Ollama ? r.reservedTokensPerSession
                                                        : Units::mul(r.reservedTokensPerSession, slotCap->sessions, s.field(Input::NCtx))),
                 verdictAtTheContext(s, r, u));
    return verdictAtTheContext(s, r, u);
}

namespace {
QString verdictAtTheContext(const Scenario &s, const CapacityResult &r, UnitSystem u)
{
    auto fmt = [u](qint64 b) { return Units::formatBytes(b, u); };
    const QString tokens = formatCount(r.reservedTokensPerSession);
    if (r.shortfallBytesPerGpu > 0 || r.kvBudgetBytesPerGpu == 0) {
        // An engine with no room for its KV cache does not start (vLLM: "No available memory for
        // the cache blocks", or out of memory loading the weights; SGLang: "Not enough memory";
        // llama.cpp and TensorRT-LLM fail to allocate): said as such, with the share it ran at.
        if (s.engine != Engine::Plain) {
            // The share is named where it bounds the weights too (vLLM's utilization of the card,
            // SGLang's static fraction); TensorRT-LLM's takes a share of what the weights leave.
            const auto fraction = s.engine == Engine::Trtllm ? std::nullopt : Engines::rule(s.engine).memoryFraction(s);
            return Derivation::tr("%1 will not start: weights and workspace need %2 more than the %3 usable per GPU%4.")
                .arg(Engines::rule(s.engine).title(), fmt(r.shortfallBytesPerGpu), fmt(r.usableMemoryBytes),
                     fraction ? Derivation::tr(" at %1 %2").arg(QString::fromLatin1(InputRanges::of(fraction->first).key),
                                                                   QString::number(fraction->second, 'g', QLocale::FloatingPointShortest))
                              : QString());
        }
        return Derivation::tr("Nothing fits: weights and workspace need %1 more than the %2 usable per GPU.")
            .arg(fmt(r.shortfallBytesPerGpu), fmt(r.usableMemoryBytes));
    }
    // Against a distribution the risk-based count is the answer (answersByRisk): every session at
    // the context or at the longest length is its worst case, one of the tail's rarest (a
    // log-normal without a max runs to 135 M tokens where the count at 1e-4 is 271: "Not one
    // fits" contradicted it, and "40 asked, 17 fit at 32,768 tokens" stood beside "374 fit",
    // for a trace whose longest is 14,089 tokens: no session reaches a context set apart).
    if (answersByRisk(s)) {
        const DistributionFigures &d = r.distribution;
        // Sessions asked beyond one replica size a fleet (fleetTargetSessions): the answer says its size.
        const QString asked = d.fleetTargetFromSessions && d.fleetGpus
            ? Derivation::tr("%1 asked need %2 (%3 of %4)%5; ")
                  .arg(plural(s.sessions, Derivation::tr("session"), Derivation::tr("sessions")),
                       plural(*d.fleetGpus, Derivation::tr("GPU"), Derivation::tr("GPUs")),
                       plural(d.fleetReplicas.value_or(0), Derivation::tr("replica"), Derivation::tr("replicas")),
                       plural(s.gpusPerReplica(), Derivation::tr("GPU"), Derivation::tr("GPUs")), fleetMonth(d))
            : s.sessions > d.sessionsAtRisk
            ? Derivation::tr("%1 asked; ").arg(plural(s.sessions, Derivation::tr("session"), Derivation::tr("sessions")))
            : QString();
        return asked + Derivation::tr("%1 %2%3 at a %4 risk of overflowing the KV pool (%5); %6.")
            .arg(plural(d.sessionsAtRisk, Derivation::tr("session"), Derivation::tr("sessions")),
                 d.sessionsAtRisk == 1 ? Derivation::tr("fits") : Derivation::tr("fit"),
                 perReplicaOf(s), Units::formatRisk(d.replicaRisk),
                 worstAndMean(s, d), limitWords(s, r));
    }
    if (r.maxSessions == 0)
        return Derivation::tr("Not one %1-token session fits: it needs %2 of KV cache per GPU, the budget is %3.")
            .arg(tokens, fmt(r.reservedSessionBytesPerGpu), fmt(r.kvBudgetBytesPerGpu));
    // Sessions asked beyond one replica size a fleet (fleetTargetSessions): said first, as above.
    if (!r.fits && r.distribution.fleetTargetFromSessions && r.distribution.fleetGpus)
        return Derivation::tr("%1 asked need %2 (%3 of %4)%9; %5 %6 per replica at %7; %8.")
            .arg(plural(s.sessions, Derivation::tr("session"), Derivation::tr("sessions")),
                 plural(*r.distribution.fleetGpus, Derivation::tr("GPU"), Derivation::tr("GPUs")),
                 plural(r.distribution.fleetReplicas.value_or(0), Derivation::tr("replica"), Derivation::tr("replicas")),
                 plural(s.gpusPerReplica(), Derivation::tr("GPU"), Derivation::tr("GPUs")), formatCount(r.maxSessions),
                 r.maxSessions == 1 ? Derivation::tr("fits") : Derivation::tr("fit"), sessionBasis(s, r),
                 r.overflowBytesPerGpu > 0 ? Derivation::tr("on one replica alone the KV cache would overflow by %1 per GPU").arg(fmt(r.overflowBytesPerGpu))
                                           : limitWords(s, r),
                 fleetMonth(r.distribution));
    if (!r.fits && r.runningCap && s.sessions <= r.kvSessions)
        return Derivation::tr("%1 asked, %2 run at once at %3; %4.")
            .arg(plural(s.sessions, Derivation::tr("session"), Derivation::tr("sessions")), formatCount(r.maxSessions), sessionBasis(s, r), limitWords(s, r));
    if (!r.fits)
        return Derivation::tr("%1 asked, %2 fit at %3: the KV cache overflows by %4 per GPU.")
            .arg(plural(s.sessions, Derivation::tr("session"), Derivation::tr("sessions")), formatCount(r.maxSessions),
                 sessionBasis(s, r), fmt(r.overflowBytesPerGpu));
    return Derivation::tr("%1 of %2 tokens %3%4; %5.")
        .arg(plural(r.maxSessions, Derivation::tr("session"), Derivation::tr("sessions")), tokens,
             r.maxSessions == 1 ? Derivation::tr("fits") : Derivation::tr("fit"), perReplicaOf(s), limitWords(s, r));
}
} // namespace

namespace {

// The KV bytes per token the derivation works with: per GPU under TP or PP (one stage's
// layers), else the model's own.
qint64 perTokenShown(const Scenario &s, const CapacityResult &r)
{
    return s.gpusPerReplica() > 1 ? r.kvBytesPerTokenPerGpu : r.kvBytesPerToken;
}

// A full-attention or sliding-window group `c`: heads x head_dim x bytes per value per layer
// per token, and under TP how the heads split (or replicate) over the GPUs.
QString attentionGroupLine(const Scenario &s, const CapacityResult &r, const GroupCost &c)
{
    const LayerGroup &g = c.group;
    QString line = Derivation::tr("%1, %2: %3 × %4 = %5 per layer per token")
                       .arg(g.kind == LayerKind::SlidingWindow
                                ? Derivation::tr("Sliding window of %1 tokens").arg(formatCount(g.window))
                                : Derivation::tr("Full attention"),
                            plural(g.count, Derivation::tr("layer"), Derivation::tr("layers")), headsTimesDim(g, g.kvHeads),
                            perValue(r.kvDtype), formatExactBytes(c.bytesPerTokenPerLayer));
    if (s.tp > 1)
        line += Derivation::tr("; per GPU at TP %1: %2 → %3")
                    .arg(s.tp)
                    .arg(g.kvHeads >= s.tp ? Derivation::tr("%1 / %2 = %3 KV heads").arg(g.kvHeads).arg(s.tp).arg(c.kvHeadsPerGpu)
                                           : Derivation::tr("1 KV head, replicated on %1 GPUs").arg(s.tp / g.kvHeads),
                         formatExactBytes(c.bytesPerTokenPerLayerPerGpu));
    return line;
}

// An MLA group `c`: its latent record per layer per token (vLLM's fp8_ds_mla record for
// sparse MLA in fp8), replicated under TP, and a sparse-attention indexer's keys on top.
QStringList mlaGroupLines(const Scenario &s, const CapacityResult &r, const GroupCost &c)
{
    QStringList out;
    const LayerGroup &g = c.group;
    const bool tp = s.tp > 1;
    const QString layers = plural(g.count, Derivation::tr("layer"), Derivation::tr("layers"));
    if (g.indexerHeadDim > 0 && r.kvDtype == Dtype::FP8)
        out << Derivation::tr("Sparse MLA, %1, vLLM's fp8_ds_mla record: %2 latent × 1 B fp8 + %3 fp32 scales × 4 B + %4 RoPE × 2 B bf16 "
                              "= %5 per layer per token (vllm/v1/attention/backends/mla/flashmla_sparse.py)%6")
                   .arg(layers).arg(g.latentDim).arg((g.latentDim + 127) / 128).arg(g.ropeDim)
                   .arg(formatExactBytes(c.latentBytesPerTokenPerLayer),
                        tp ? Derivation::tr("; replicated on each of the %1 GPUs").arg(s.tp) : QString());
    else
        out << Derivation::tr("MLA, %1: (%2 latent + %3 RoPE) × %4 = %5 per layer per token (one latent, no K/V factor 2%6)")
                   .arg(layers).arg(g.latentDim).arg(g.ropeDim).arg(perValue(r.kvDtype), formatExactBytes(c.latentBytesPerTokenPerLayer),
                        tp ? Derivation::tr("; replicated on each of the %1 GPUs").arg(s.tp) : QString());
    if (g.indexerHeadDim > 0)
        out << Derivation::tr("Sparse-attention indexer, %1: %2 key values × 1 B fp8 + %3 fp32 scale × 4 B = %4 per layer per token, "
                              "whatever the KV dtype, on top of the latent: %5 + %4 = %6 (vllm/model_executor/models/deepseek_v2.py "
                              "DeepseekV32IndexerCache; SGLang NSATokenToKVPool index_head_dim + index_head_dim / 128 × 4)")
                   .arg(layers).arg(g.indexerHeadDim).arg((g.indexerHeadDim + 127) / 128)
                   .arg(formatExactBytes(c.indexerBytesPerTokenPerLayer), formatExactBytes(c.latentBytesPerTokenPerLayer),
                        formatExactBytes(c.bytesPerTokenPerLayer));
    return out;
}

// A recurrent group `c`: its fixed state per layer per session, split under TP.
QString recurrentGroupLine(const Scenario &s, const GroupCost &c)
{
    const LayerGroup &g = c.group;
    return Derivation::tr("Recurrent, %1: (%2 conv + %3 state) values × %4 = %5 per layer per session, whatever its length%6")
        .arg(plural(g.count, Derivation::tr("layer"), Derivation::tr("layers")), formatCount(g.convStateValues), formatCount(g.ssmStateValues),
             perValue(s.model.recurrentStateDtype), formatExactBytes(c.stateBytesPerLayer),
             s.tp > 1 ? Derivation::tr("; split over %1 GPUs: %2").arg(s.tp).arg(formatExactBytes(c.stateBytesPerLayerPerGpu)) : QString());
}

// 1. Per-token cost of each layer group of the target (the draft's have their own line,
// SidePools::explain), then their sum per token (per GPU under TP).
QStringList explainPerToken(const Scenario &s, const CapacityResult &r, UnitSystem u)
{
    QStringList out, perLayerTerms;
    const bool tp = s.tp > 1;
    for (const GroupCost &c : r.groups) {
        if (c.draft) // the draft's layers have their own line (SidePools::explain)
            continue;
        const LayerGroup &g = c.group;
        switch (g.kind) {
        case LayerKind::FullAttention:
        case LayerKind::SlidingWindow:
            out << attentionGroupLine(s, r, c);
            perLayerTerms << QStringLiteral("%1 × %2").arg(g.count).arg(formatExactBytes(tp ? c.bytesPerTokenPerLayerPerGpu : c.bytesPerTokenPerLayer));
            break;
        case LayerKind::Mla:
            out << mlaGroupLines(s, r, c);
            perLayerTerms << QStringLiteral("%1 × %2").arg(g.count).arg(formatExactBytes(c.bytesPerTokenPerLayer));
            break;
        case LayerKind::Recurrent:
            out << recurrentGroupLine(s, c);
            break;
        }
    }
    const qint64 perToken = perTokenShown(s, r);
    if (!perLayerTerms.isEmpty())
        out << Derivation::tr("Per token%1: %2 = %3 (%4)")
                   .arg(s.gpusPerReplica() > 1 ? Derivation::tr(" per GPU") : QString(), perLayerTerms.join(QStringLiteral(" + ")),
                        formatExactBytes(perToken), Units::formatBytes(perToken, u));
    return out;
}

// One session's terms when it is not one rate times its tokens: each group's layers at the
// tokens they hold (a window at most, the lookahead on top) or their fixed state.
QString sessionTerms(const Scenario &s, const CapacityResult &r)
{
    const bool tp = s.tp > 1;
    const qint64 tokens = r.reservedTokensPerSession;
    QStringList terms;
    for (const GroupCost &c : r.groups) {
        if (c.group.kind == LayerKind::Recurrent)
            terms << Derivation::tr("%1 × %2 state").arg(c.group.count).arg(formatExactBytes(tp ? c.stateBytesPerLayerPerGpu : c.stateBytesPerLayer));
        else {
            const qint64 held = (c.group.kind == LayerKind::SlidingWindow ? std::min(tokens, c.group.window) : tokens) + r.lookaheadTokens;
            terms << Derivation::tr("%1%2 × %3 tokens × %4")
                         .arg(c.draft ? Derivation::tr("draft ") : QString())
                         .arg(c.group.count)
                         .arg(formatCount(Units::ceilDiv(held, r.blockSize) * r.blockSize),
                              formatExactBytes(tp ? c.bytesPerTokenPerLayerPerGpu : c.bytesPerTokenPerLayer));
        }
    }
    return Derivation::tr("  = %1 (sliding-window layers hold at most their window; recurrent layers a fixed state%2)")
        .arg(terms.join(QStringLiteral(" + ")),
             r.lookaheadTokens > 0 ? Derivation::tr("; every layer %1 lookahead tokens more").arg(r.lookaheadTokens) : QString());
}

// 2. One session at its reserved length: the lookahead and the blocks it takes, and its bytes
// (per GPU under TP), as tokens x rate when one rate covers it, else term by term.
QStringList explainSession(const Scenario &s, const CapacityResult &r, UnitSystem u)
{
    QStringList out;
    const qint64 tokens = r.reservedTokensPerSession;
    QString paging;
    if (r.lookaheadTokens > 0)
        paging = QStringLiteral(" + %1 lookahead").arg(r.lookaheadTokens);
    if (r.blockSize > 1) {
        const qint64 blocks = Units::ceilDiv(tokens + r.lookaheadTokens, r.blockSize);
        paging += Derivation::tr(" = %1 blocks of %2 tokens").arg(formatCount(blocks)).arg(r.blockSize);
        if (blocks * r.blockSize != tokens + r.lookaheadTokens)
            paging += Derivation::tr(" (%1 tokens held)").arg(formatCount(blocks * r.blockSize));
    }
    const bool simple = r.groups.size() == 1 && r.groups.first().group.kind != LayerKind::SlidingWindow
        && r.groups.first().group.kind != LayerKind::Recurrent && r.lookaheadTokens == 0;
    out << Derivation::tr("One session at %1%2%3: %4%5")
               .arg(sessionBasis(s, r), paging,
                    s.tp > 1 ? Derivation::tr(", per GPU") : QString(),
                    simple ? QStringLiteral("%1 × %2 = ").arg(formatCount(Units::ceilDiv(tokens, r.blockSize) * r.blockSize),
                                                            formatExactBytes(perTokenShown(s, r)))
                           : QString(),
                    QStringLiteral("%1 (%2)").arg(formatExactBytes(r.reservedSessionBytesPerGpu), Units::formatBytes(r.reservedSessionBytesPerGpu, u)));
    if (!simple)
        out << sessionTerms(s, r);
    return out;
}

// 3. Weights and budget: the weights (per GPU under TP, PP or EP), the vision encoder, and the
// KV budget per GPU as usable memory less weights, side pools and workspace, exactly when the
// engine's own rule does not explain it below.
QStringList explainWeightsAndBudget(const Scenario &s, const CapacityResult &r, UnitSystem u)
{
    QStringList out;
    auto fmt = [u](qint64 b) { return Units::formatBytes(b, u); };
    // Exact bytes beside each rounded figure, so every line checks by eye.
    auto both = [fmt](qint64 b) { return QStringLiteral("%1 (%2)").arg(formatExactBytes(b), fmt(b)); };
    out << Derivation::tr("Weights: %1 = %2%3")
               .arg(r.weightsBasis, both(r.weightsBytes),
                    s.pp > 1 || s.ep ? Derivation::tr("; per GPU at TP %1 × PP %2%3 = %4")
                                           .arg(s.tp).arg(s.pp)
                                           .arg(s.ep ? Derivation::tr(", routed experts over EP %1").arg(*s.ep) : QString(), both(r.weightsBytesPerGpu))
                    : s.tp > 1 ? Derivation::tr("; ÷ TP %1 = %2 per GPU").arg(s.tp).arg(both(r.weightsBytesPerGpu)) : QString());
    out << explainVisionEncoder(s, r, u);
    // Pinned (--kv-cache-memory, a calibration) or not, the usable share is the card x utilization and
    // the rest of the card is held back: the line's terms add up to the exact line under it.
    const QString usable = Engines::rule(s.engine).usesUtilization()
        ? Derivation::tr("%1 card as torch sees it × %2 gpu_memory_utilization = %3 usable")
              .arg(fmt(r.engineMemoryBytes), QLocale::c().toString(s.gpuMemoryUtilization, 'g', 4), fmt(r.usableMemoryBytes))
        : Derivation::tr("%1 card").arg(fmt(r.gpuMemoryBytes));
    // The side pools loaded with the weights (a draft, LoRA slots) come off the budget beside them.
    const qint64 sideWeights = r.draftWeightsBytesPerGpu + r.loraBytesPerGpu;
    QString sideTerms;
    if (r.draftWeightsBytesPerGpu > 0)
        sideTerms += Derivation::tr(" − %1 draft weights").arg(fmt(r.draftWeightsBytesPerGpu));
    if (r.loraBytesPerGpu > 0)
        sideTerms += Derivation::tr(" − %1 LoRA slots").arg(fmt(r.loraBytesPerGpu));
    out << Derivation::tr("KV budget per GPU: %1 − %2 weights%5 − %3 workspace = %4")
               .arg(usable, fmt(r.weightsBytesPerGpu), fmt(r.workspaceBytesPerGpu),
                    r.shortfallBytesPerGpu > 0 ? Derivation::tr("−%1: nothing left for the KV cache").arg(fmt(r.shortfallBytesPerGpu))
                                               : fmt(r.kvBudgetBytesPerGpu),
                    sideTerms);
    const qint64 left = r.shortfallBytesPerGpu > 0 ? -r.shortfallBytesPerGpu : r.kvBudgetBytesPerGpu;
    if (r.usableMemoryBytes - r.weightsBytesPerGpu - sideWeights - r.workspaceBytesPerGpu == left) // an engine's own budget is explained below
        out << Derivation::tr("  exactly: %1 − %2%5 − %3 = %4")
               .arg(formatCount(r.usableMemoryBytes), formatCount(r.weightsBytesPerGpu), formatCount(r.workspaceBytesPerGpu),
                    r.shortfallBytesPerGpu > 0 ? QStringLiteral("−") + formatExactBytes(r.shortfallBytesPerGpu)
                                               : formatExactBytes(r.kvBudgetBytesPerGpu),
                    sideWeights > 0 ? QStringLiteral(" − ") + formatCount(sideWeights) : QString());
    return out;
}

// The engine's rule and its own printed figures (EngineRule::derivation), with the range of
// its token count before hardware and what is not predicted.
QStringList explainEngine(const Scenario &s, const CapacityResult &r, UnitSystem u)
{
    QStringList out;
    if (s.engine != Engine::Plain)
        out << Derivation::tr("Engine rule (%1): %2").arg(Engines::name(s.engine), r.budgetRule);
    const EngineFigures &e = r.engineFigures;
    out << Engines::rule(s.engine).derivation(s, e, u);
    if (e.kvCacheTokensHigh > e.kvCacheTokensLow) {
        out << Derivation::tr("  before hardware: %1 to %2 tokens: the budget may be %3 lower or %4 higher, from the terms %5 "
                              "measures at start-up and Headroom estimates here, each over the range public logs show "
                              "(calibrate with a start-up log to narrow it):")
                   .arg(formatCount(e.kvCacheTokensLow), formatCount(e.kvCacheTokensHigh), Units::formatBytes(e.budgetSpreadDownBytes, u),
                        Units::formatBytes(e.budgetSpreadUpBytes, u), Engines::name(s.engine));
        for (const QString &term : e.spreadTerms)
            out << QStringLiteral("      %1").arg(term);
    }
    if (!e.note.isEmpty())
        out << QStringLiteral("  (%1)").arg(e.note);
    if (s.engine != Engine::Plain)
        out << Derivation::tr("Admission (%1): %2").arg(r.admission.name, r.admission.text);
    return out;
}

// Which method settled the risk-based count of `d`, its tails at the count and one past it,
// and how far they can be off.
QString explainRiskMethod(const DistributionFigures &d)
{
    const QString tails = Derivation::tr("P(overflow) = %1 at %2, %3 at %4")
                              .arg(Units::formatScientific(d.riskTailAt, 4), formatCount(d.sessionsAtRisk),
                                   Units::formatScientific(d.riskTailAbove, 4), formatCount(d.sessionsAtRisk + 1));
    const QString bound = Units::formatScientific(d.riskErrorBound, 2);
    switch (d.riskMethod) {
    case RiskCount::Method::ClosedForm:
        return Derivation::tr("  Settled in closed form: %1 (no sum to compute).").arg(tails);
    case RiskCount::Method::Convolution:
        return Derivation::tr("  Settled by exact convolution of the session sizes: %1, each within %2; "
                              "the count is the exact one, or one below when a tail is within that of the risk.")
            .arg(tails, bound);
    case RiskCount::Method::Inversion:
        return Derivation::tr("  Settled by exact tilted Fourier inversion on the size lattice (the saddlepoint only brackets it): "
                              "%1, each within %2 (aliasing and round-off bounds); the count is the exact one, "
                              "or one below when a tail is within that of the risk.")
            .arg(tails, bound);
    case RiskCount::Method::RoundedConvolution:
        return Derivation::tr("  Settled by exact convolution of the session sizes rounded up to multiples of %1 per GPU "
                              "(too wide for the exact inversion): %2 at most, each within %3; rounding adds under %1 "
                              "to a session, so the count is never above the exact one, and at least the exact count "
                              "for a budget smaller by %1 per session.")
            .arg(formatExactBytes(d.riskRoundingBytes), tails, bound);
    case RiskCount::Method::ChernoffBound:
        return Derivation::tr("  Settled by the Chernoff bound (too large for the exact inversion): %1 at most; "
                              "the count is never above the exact one but may be several below it.")
            .arg(tails);
    }
    return QString();
}

// The fleet's risk (plan/fleetrisk.h), replicas independent: each replica's risk solved from
// the fleet's, or the fleet's chance that some replica overflows; empty for one replica
// holding the risk it was given.
QStringList explainFleetRisk(const Scenario &s, const DistributionFigures &d)
{
    QStringList out;
    if (!d.fleetReplicas || !d.fleetOverflowProbability)
        return out;
    const QString replicas = plural(*d.fleetReplicas, Derivation::tr("replica"), Derivation::tr("replicas"));
    if (s.fleetRisk)
        out << Derivation::tr("Fleet risk %1 over %2: each replica at 1 − (1 − %3)^(1/%4) = %5, solved with the replicas "
                              "that count takes (replicas overflow independently)")
                   .arg(Units::formatRisk(*s.fleetRisk), replicas, QString::number(*s.fleetRisk, 'g', 6), formatCount(*d.fleetReplicas),
                        Units::formatRisk(d.replicaRisk));
    if (*d.fleetReplicas > 1 || s.fleetRisk)
        out << Derivation::tr("The fleet of %1: 1 − (1 − %2)^%3 = %4 that some replica overflows (each replica's overflow "
                              "probability at %5, replicas independent)")
                   .arg(replicas, QString::number(d.replicaOverflowProbability, 'g', 6), formatCount(*d.fleetReplicas),
                        Units::formatRisk(*d.fleetOverflowProbability),
                        plural(d.sessionsAtRisk, Derivation::tr("session"), Derivation::tr("sessions")));
    return out;
}

// 4. Sessions and cost: the sessions that fit at the reserved length, the risk-based count
// against a distribution and how it was settled, the fleet's risk, and the cost per session-hour.
QStringList explainSessionsAndCost(const Scenario &s, const CapacityResult &r)
{
    QStringList out;
    // The quotient is shown truncated, not rounded, so floor() of it reads true (4.994 -> 4.99, never 5.00).
    if (r.reservedSessionBytesPerGpu > 0) {
        const qint64 forSessions = std::max<qint64>(0, r.kvBudgetBytesPerGpu - r.distribution.sharedPrefixBytesPerGpu);
        const qint64 held = forSessions / r.reservedSessionBytesPerGpu; // the KV cache's count, before any running cap
        // The budget as the line above gives it, less the shared prefix held once (said here, so the
        // figure divided is read from the line before: a trial could not find 65,393,178,624 B there).
        const qint64 prefix = r.distribution.sharedPrefixBytesPerGpu;
        const QString dividend = prefix > 0 && r.kvBudgetBytesPerGpu > 0
            ? Derivation::tr("(%1 − %2 shared prefix)").arg(formatExactBytes(r.kvBudgetBytesPerGpu), formatExactBytes(prefix))
            : formatExactBytes(forSessions);
        out << Derivation::tr("Sessions%1, each at %2: floor(%3 ÷ %4) = floor(%5) = %6")
                   .arg(perReplicaOf(s), sessionBasis(s, r), dividend, formatExactBytes(r.reservedSessionBytesPerGpu),
                        QLocale::c().toString(std::floor(r.sessionsExact * 100.0) / 100.0, 'f', 2), formatCount(held));
        // The engine's running cap where it cuts the count (EngineRule::runningCap).
        if (const auto cap = Engines::rule(s.engine).runningCap(s); cap && cap->sessions < held)
            out << Derivation::tr("At most %1 at once: %2's %3").arg(formatCount(cap->sessions), Engines::rule(s.engine).title(), cap->setting);
    }
    const DistributionFigures &d = r.distribution;
    if (s.distribution && !s.preallocate) {
        out << Derivation::tr("Against the length distribution (%1): %2 at a %3 risk of overflowing the pool (%4)")
                   .arg(s.distribution->spec, plural(d.sessionsAtRisk, Derivation::tr("session"), Derivation::tr("sessions")),
                        Units::formatRisk(d.replicaRisk), worstAndMean(s, d));
        if (d.conversations == 0 && s.distribution->kind == LengthDistribution::Kind::Trace && s.distribution->requests > 0)
            out << Derivation::tr("Sessions are the trace's %1 requests, each its own session: the trace names no conversations and no "
                                  "prefix blocks (hash_ids), so a conversation's turns and a shared prompt are counted in every request")
                       .arg(formatCount(s.distribution->requests));
        if (d.conversations > 0)
            out << Derivation::tr("Sessions are the trace's %1 conversations, not its %2 requests (each at its longest turn, resident "
                                  "at once; a later turn repeats the earlier ones; users who pause between turns hold less: headroom replay "
                                  "--users N sizes by traffic), rebuilt from their prefix blocks or conversation ids%3")
                       .arg(formatCount(d.conversations), formatCount(s.distribution->requests),
                            d.sharedPrefixTokens > 0
                                ? Derivation::tr("; the %1-token prefix they share (the system prompt) is held once per card, not once per "
                                                 "session: %2 off the budget, %3 left for the sessions")
                                      .arg(formatCount(d.sharedPrefixTokens), formatExactBytes(d.sharedPrefixBytesPerGpu),
                                           formatExactBytes(std::max<qint64>(0, r.kvBudgetBytesPerGpu - d.sharedPrefixBytesPerGpu)))
                                : QString());
        out << explainRiskMethod(d);
        out << explainFleetRisk(s, d);
    }
    if (r.costPerSessionHourUsd)
        out << Derivation::tr("Cost: %1 per GPU-hour × %2 ÷ %3 = %4")
                   .arg(Units::formatUsd(*s.effectivePrice()), plural(s.gpusPerReplica(), Derivation::tr("GPU"), Derivation::tr("GPUs")),
                        plural(d.sessionsAtRisk, Derivation::tr("session"), Derivation::tr("sessions")),
                        Units::formatUsdPer(*r.costPerSessionHourUsd, Derivation::tr("session-hour")));
    else if (!s.effectivePrice())
        out << Derivation::tr("Cost: set a price per GPU-hour (no published figure for %1)").arg(s.gpu.name);
    return out;
}

} // namespace

QStringList explainCapacity(const Scenario &s, const CapacityResult &r, UnitSystem u)
{
    QStringList out;
    if (!r.ok) {
        out << r.error;
        return out;
    }
    out << explainPerToken(s, r, u);
    // Side pools: the draft's KV and weights, the lookahead, the LoRA slots (each only when on).
    out << SidePools::explain(s, r, u);
    if (s.pp > 1)
        out << Derivation::tr("Pipeline parallel %1: each GPU holds the KV of ceil(layers / %1) layers; the figures below are one stage's")
                   .arg(s.pp);
    out << explainSession(s, r, u);
    out << explainWeightsAndBudget(s, r, u);
    out << explainEngine(s, r, u);
    if (!r.runnable) // said where the engine's figures are: the plan is a what-if
        out << Derivation::tr("Not runnable as planned, a what-if for another engine or card: %1").arg(r.runnableReason);
    out << explainSessionsAndCost(s, r);
    out << explainWarmSessions(s, r, u);
    return out;
}

} // namespace Headroom
