// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/levers.h"
#include "plan/capacity.h"
#include "plan/riskwork.h"
#include "core/inputerror.h"
#include "kv/kvcost.h"
#include "core/units.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QLocale>
#include <cmath>

namespace Headroom {

namespace {

/// The translation context of the levers' options, side effects and answer
/// (lupdate reads Levers::tr into build/translations/headroom.ts).
struct Levers
{
    Q_DECLARE_TR_FUNCTIONS(Levers)
};

using Units::formatCount;

// The option's figures from its plan `r` (computeCapacity of `s`).
LeverOption priced(const QString &lever, const QString &option, const Scenario &s, const QString &sideEffect, const CapacityResult &r)
{
    LeverOption o;
    o.lever = lever;
    o.option = option;
    o.scenario = s;
    o.sideEffect = sideEffect;
    if (!r.ok) {
        o.sideEffect = r.error;
        return o;
    }
    o.sessionsPerGroup = r.distribution.sessionsAtRisk;
    o.sessionsPerGpu = double(o.sessionsPerGroup) / double(std::max(1, s.tp));
    o.costPerSessionHourUsd = r.costPerSessionHourUsd;
    o.costPerMillionTokensUsd = r.distribution.costPerMillionTokensUsd;
    o.itlMs = r.distribution.itlMsAtRisk;
    return o;
}

// The option priced by its own plan, its risk work shared with the other options' (`work`).
LeverOption price(RiskWork &work, const QString &lever, const QString &option, const Scenario &s, const QString &sideEffect)
{
    return priced(lever, option, s, sideEffect, computeCapacity(s, work));
}

QString percent(double share)
{
    return QString::number(share * 100, 'f', share < 0.01 ? 2 : 1) + QLatin1Char('%');
}

// Another model takes the side pools it can: a draft only of its own vocabulary (the
// tokenizer must match), LoRA slots on the modules it has (attention only for a mixture
// of experts, none on MLA attention; its adapters are retrained anyway).
void carrySidePools(Scenario &v)
{
    if (v.speculative.draftModel && v.speculative.draftModel->vocabSize != v.model.vocabSize)
        v.speculative = SpeculativeDecoding{};
    if (v.lora.on() && v.model.has(LayerKind::Mla))
        v.lora = LoraSlots{};
    else if (v.lora.on() && v.model.numExperts > 0)
        v.lora.modules = {QStringLiteral("q"), QStringLiteral("k"), QStringLiteral("v"), QStringLiteral("o")};
}

// Side pools (issue #14): a smaller draft, fewer speculative tokens, fewer LoRA slots,
// a lower rank, fewer adapted modules; dropping a pool serves something else, so those
// options change the requirement.
QVector<LeverOption> sidePoolOptions(RiskWork &work, const Scenario &now, const QVector<ModelShape> &models)
{
    QVector<LeverOption> out;
    const QString lever = QStringLiteral("side pools");
    const SpeculativeDecoding &sd = now.speculative;
    if (sd.draftModel) {
        // A draft must share the target's tokenizer: a preset of the same vocabulary, smaller.
        for (const ModelShape &m : models) {
            if (m.id == sd.draftModel->id || m.totalParams <= 0 || m.totalParams >= sd.draftModel->totalParams
                || m.vocabSize != sd.draftModel->vocabSize || m.id == now.model.id)
                continue;
            Scenario v = now;
            v.speculative.draftModel = m;
            out << price(work, lever, QStringLiteral("smaller draft %1").arg(m.name), v,
                         QStringLiteral("fewer draft tokens accepted per step: measure the speed-up"));
        }
    }
    if (sd.draftLayers > 1) {
        Scenario v = now;
        v.speculative.draftLayers = 1;
        out << price(work, lever, QStringLiteral("1 MTP / EAGLE layer"), v, QStringLiteral("fewer draft tokens accepted per step: measure the speed-up"));
    }
    if (sd.speculativeTokens > 1) {
        Scenario v = now;
        v.speculative.speculativeTokens = sd.speculativeTokens / 2;
        const int k = v.speculative.speculativeTokens;
        out << price(work, lever, k == 1 ? Levers::tr("1 speculative token per step") : Levers::tr("%1 speculative tokens per step").arg(k), v,
                     QStringLiteral("fewer tokens per verification step"));
    }
    if (sd.on()) {
        Scenario v = now;
        v.speculative = SpeculativeDecoding{};
        LeverOption o = price(work, lever, QStringLiteral("no speculative decoding"), v, QStringLiteral("decode one token per step: slower per session"));
        o.changesRequirement = true;
        o.changesRequirementReason = QStringLiteral("gives up the speed-up the draft was there for");
        out << o;
    }
    const LoraSlots &l = now.lora;
    if (l.on() && l.maxLoras > 1) {
        Scenario v = now;
        v.lora.maxLoras = l.maxLoras / 2;
        LeverOption o = price(work, lever, QStringLiteral("%1 LoRA slots").arg(v.lora.maxLoras), v,
                              QStringLiteral("adapters beyond %1 wait for a slot (loaded from host memory)").arg(v.lora.maxLoras));
        out << o;
    }
    if (l.on() && l.maxRank > 8) {
        Scenario v = now;
        v.lora.maxRank = l.maxRank / 2;
        LeverOption o = price(work, lever, QStringLiteral("LoRA rank %1").arg(v.lora.maxRank), v,
                              QStringLiteral("adapters above rank %1 no longer load").arg(v.lora.maxRank));
        o.changesRequirement = true;
        o.changesRequirementReason = QStringLiteral("adapters of rank %1 need retraining at rank %2").arg(l.maxRank).arg(v.lora.maxRank);
        out << o;
    }
    const QStringList attention{QStringLiteral("q"), QStringLiteral("k"), QStringLiteral("v"), QStringLiteral("o")};
    if (l.on() && l.effectiveModules() != attention && l.effectiveModules().size() > attention.size()) {
        Scenario v = now;
        v.lora.modules = attention;
        LeverOption o = price(work, lever, QStringLiteral("LoRA on attention only (q, k, v, o)"), v,
                              QStringLiteral("adapters trained on the MLP no longer load"));
        o.changesRequirement = true;
        o.changesRequirementReason = QStringLiteral("adapters trained on the MLP need retraining");
        out << o;
    }
    return out;
}

} // namespace

QVector<int> tensorParallelSizes()
{
    return {1, 2, 4, 8};
}

bool isLargerCard(const GpuSpec &card, qint64 memoryBytes)
{
    return double(card.memoryBytes) >= 1.1 * double(memoryBytes);
}

LeverReport evaluateLevers(const Scenario &now, const QVector<ModelShape> &models, const QVector<GpuSpec> &gpus,
                           const LeverTarget &target, qint64 sharedPrefixTokens, qint64 hostMemoryPerGpu)
{
    // Every option's plan shares one RiskWork: most options change the budget or the
    // bytes per token, not the lengths, and each distinct law and tail is settled once.
    // A levers row reads the count, latency and cost only (Figures::Counts).
    RiskWork work(RiskWork::Figures::Counts);
    return evaluateLevers(work, now, models, gpus, target, sharedPrefixTokens, hostMemoryPerGpu);
}

LeverReport evaluateLevers(RiskWork &work, const Scenario &now, const QVector<ModelShape> &models, const QVector<GpuSpec> &gpus,
                           const LeverTarget &target, qint64 sharedPrefixTokens, qint64 hostMemoryPerGpu)
{
    LeverReport report;
    const CapacityResult base = computeCapacity(now, work);
    report.current = priced(QStringLiteral("now"), QStringLiteral("as planned"), now, QString(), base);
    if (!base.ok) {
        report.answer = base.error;
        return report;
    }
    QVector<LeverOption> &out = report.options;

    // Fewer bytes per entry.
    const Dtype kv = base.kvDtype;
    for (Dtype d : {Dtype::FP8, Dtype::INT8, Dtype::NVFP4, Dtype::INT4}) {
        if (Dtypes::bytesFor(d, 1024, {}) >= Dtypes::bytesFor(kv, 1024, {}))
            continue;
        Scenario v = now;
        v.kvDtype = d;
        // Phrased so no article depends on the dtype's name ("an int4", "a bf16").
        out << price(work, QStringLiteral("precision"), Levers::tr("KV cache %1").arg(Dtypes::name(d)), v,
                     Levers::tr("quality risk of the KV cache in %1, to measure on your evaluations").arg(Dtypes::name(d)));
    }

    // Fewer entries per token.
    const int heads = now.effectiveKvHeads();
    // Past TP = heads every GPU holds one head (replicated): fewer heads then store the same
    // bytes per GPU and fit the same sessions. Such what-ifs are folded into the first one
    // that reaches that figure, which says so, rather than listed as identical rows.
    auto kvPerGpu = [&](std::optional<int> h) -> qint64 {
        try {
            return KvCost(now.stageModel(), kv, now.tp, now.blockSize, h).bytesPerTokenPerGpu();
        } catch (const InputError &) {
            return -1;
        }
    };
    qint64 previousPerGpu = kvPerGpu(now.kvHeadsOverride);
    QVector<int> folded;
    int keptAt = -1;
    for (int h = heads / 2; h >= 1 && now.model.kvHeads > 0; h /= 2) {
        if (now.model.attentionHeads > 0 && now.model.attentionHeads % h != 0)
            continue;
        const qint64 perGpu = kvPerGpu(h);
        if (perGpu >= 0 && perGpu == previousPerGpu) {
            if (keptAt >= 0)
                folded << h;
            continue;
        }
        previousPerGpu = perGpu;
        Scenario v = now;
        v.kvHeadsOverride = h;
        LeverOption o = price(work, QStringLiteral("attention"), h == 1 ? Levers::tr("1 KV head (MQA what-if)") : Levers::tr("%1 KV heads (GQA what-if)").arg(h), v,
                              Levers::tr("a retrained or up-trained model (GQA), quality to check"));
        o.changesRequirement = true;
        o.changesRequirementReason = Levers::tr("%1 instead of %2 needs a retrained model")
                                         .arg(Units::plural(h, Levers::tr("KV head"), Levers::tr("KV heads")))
                                         .arg(heads);
        keptAt = int(out.size());
        out << o;
        if (h <= 1)
            break;
    }
    if (!folded.isEmpty()) {
        QStringList counts;
        for (int h : folded)
            counts << QString::number(h);
        LeverOption &kept = out[keptAt];
        kept.sideEffect += Levers::tr("; %1 KV heads fit the same at TP %2: each GPU holds one head, replicated past the head count")
                               .arg(counts.join(Levers::tr(" or ")))
                               .arg(now.tp);
    }
    const qint64 params = now.model.totalParams;
    for (const ModelShape &m : models) {
        if (m.id == now.model.id || params <= 0 || m.totalParams < params / 2 || m.totalParams - params > params)
            continue;
        // It must serve the sessions' length: a 4K or 32K model is no answer to 128K contexts.
        if (m.maxPositionEmbeddings > 0 && m.maxPositionEmbeddings < base.distribution.maxTokens)
            continue;
        try {
            if (KvCost(m, kv, 1, now.blockSize).bytesPerToken() >= base.kvBytesPerToken)
                continue;
        } catch (const InputError &) {
            continue;
        }
        Scenario v = now;
        v.model = m;
        v.kvHeadsOverride.reset();
        v.weightsDtype.reset();
        carrySidePools(v);
        LeverOption o = price(work, QStringLiteral("attention"), Levers::tr("model %1").arg(m.name), v,
                              Levers::tr("a different model of similar size: quality to compare"));
        o.changesRequirement = true;
        o.changesRequirementReason = Levers::tr("%1 instead of %2: another model").arg(m.name, now.model.name);
        out << o;
    }

    // Fewer tokens resident.
    const qint64 longest = base.distribution.maxTokens;
    const LengthDistribution lengths = now.distribution ? now.distribution->scaled(now.lengthScale, now.field(Input::LengthScale)) : LengthDistribution::fixed(now.contextTokens);
    for (qint64 cap : {8192, 32768, 65536, 131072}) {
        if (cap >= longest || (now.retainTokens && cap >= *now.retainTokens))
            continue;
        Scenario v = now;
        v.retainTokens = cap;
        LeverOption o = price(work, QStringLiteral("retention"), Levers::tr("cap at %1 tokens").arg(formatCount(cap)), v,
                              Levers::tr("%1 of sessions lose history; %2 tokens dropped on average, p99 %3")
                                  .arg(percent(lengths.shareAbove(cap)), formatCount(qint64(std::llround(lengths.meanDropped(cap)))),
                                       formatCount(lengths.droppedQuantile(cap, 0.99))));
        if (cap < now.contextTokens) {
            o.changesRequirement = true;
            o.changesRequirementReason = Levers::tr("keeps %1 of the %2 tokens of context asked for").arg(formatCount(cap), formatCount(now.contextTokens));
        }
        out << o;
    }
    if (sharedPrefixTokens > 0 && !now.preallocate) {
        // Prefix caching: every session holds its own tokens past the shared prefix;
        // the prefix's KV is stored once per GPU.
        try {
            const KvCost cost(now.model, kv, now.tp, now.blockSize, now.kvHeadsOverride);
            Scenario v = now;
            v.distribution = lengths.scaled(1.0, now.field(Input::LengthScale));
            for (qint64 &l : v.distribution->lengths)
                l = std::max<qint64>(1, l - sharedPrefixTokens);
            v.distribution->spec = lengths.spec + Levers::tr(" less a shared %1-token prefix").arg(formatCount(sharedPrefixTokens));
            v.lengthScale = 1.0;
            v.workspaceBytes = Units::add(now.effectiveWorkspaceBytes(), cost.sessionBytes(sharedPrefixTokens, true), QStringLiteral("--shared-prefix"));
            out << price(work, QStringLiteral("retention"), Levers::tr("shared %1-token system prompt, prefix-cached").arg(formatCount(sharedPrefixTokens)), v,
                         Levers::tr("none, when prompts really are shared"));
        } catch (const InputError &) {
        }
    }

    // More memory.
    for (const GpuSpec &g : gpus) {
        if (!isLargerCard(g, base.gpuMemoryBytes))
            continue;
        Scenario v = now;
        v.gpu = g;
        v.gpuMemoryBytes.reset();
        v.priceUsdPerGpuHour.reset();
        // Two presets of one name (a copy made with `presets add --from`) are told apart by id.
        const bool sameName = std::count_if(gpus.cbegin(), gpus.cend(), [&g](const GpuSpec &o) { return o.name == g.name; }) > 1;
        // What it gains, said: the memory it adds per card (the sessions follow in their column).
        const QString gain = Levers::tr("%1 more memory per card (%2)")
                                 .arg(Units::formatBytes(g.memoryBytes - base.gpuMemoryBytes, UnitSystem::Decimal),
                                      Units::formatBytes(g.memoryBytes, UnitSystem::Decimal));
        out << price(work, QStringLiteral("memory"), sameName ? Levers::tr("card %1 (%2)").arg(g.name, g.id) : Levers::tr("card %1").arg(g.name), v,
                     g.priceUsdPerHour ? Levers::tr("%1 per GPU-hour; %2").arg(Units::formatUsd(*g.priceUsdPerHour), gain)
                                       : Levers::tr("no published price: set one; %1").arg(gain));
    }
    for (int tp : tensorParallelSizes()) {
        if (tp <= now.tp)
            continue;
        Scenario v = now;
        v.tp = tp;
        LeverOption o = price(work, QStringLiteral("memory"), Levers::tr("TP %1").arg(tp), v,
                              tp > heads && heads > 0 ? Levers::tr("%1 GPUs per replica; KV heads replicated past %2").arg(tp).arg(heads)
                                                      : Levers::tr("%1 GPUs per replica").arg(tp));
        if (o.sessionsPerGroup > 0 || o.sideEffect.startsWith(QLatin1String("--tp")) == false)
            out << o;
    }
    if (now.targetSessions && base.distribution.gpusNeeded && *base.distribution.gpusNeeded > now.tp) {
        // Scale out: per card nothing changes, the fleet grows.
        LeverOption o = priced(QStringLiteral("memory"), Levers::tr("more replicas (%1 x %2 GPUs)")
                                                             .arg(*base.distribution.gpusNeeded / now.tp).arg(now.tp),
                               now, QString(), base);
        o.sideEffect = Levers::tr("%1 GPUs in all for %2 sessions%3")
                           .arg(formatCount(*base.distribution.gpusNeeded), formatCount(*now.targetSessions),
                                base.distribution.fleetCostPerHourUsd ? Levers::tr(": %1 per hour").arg(Units::formatUsd(*base.distribution.fleetCostPerHourUsd))
                                                                      : QString());
        out << o;
    }
    if (hostMemoryPerGpu > 0 && now.gpu.hostLinkBytesPerSecond > 0 && base.distribution.meanSessionBytesPerGpu > 0 && target.decodeFromHost) {
        // Cold KV in host memory: the pool grows by the host memory, but every
        // decode step reads the offloaded part over the host link.
        // Host memory extends the pool as if the card were larger (any engine rule).
        Scenario v = now;
        v.gpuMemoryBytes = Units::add(base.gpuMemoryBytes, hostMemoryPerGpu, QStringLiteral("--host-memory"));
        LeverOption o = price(work, QStringLiteral("memory"), Levers::tr("offload cold KV to %1 of host memory").arg(Units::formatBytes(hostMemoryPerGpu, UnitSystem::Decimal)), v, QString());
        const double offloaded = std::max(0.0, double(o.sessionsPerGroup) * base.distribution.meanSessionBytesPerGpu - double(base.kvBudgetBytesPerGpu));
        const double addedMs = offloaded / double(now.gpu.hostLinkBytesPerSecond) * 1e3;
        if (o.itlMs)
            o.itlMs = *o.itlMs + addedMs;
        o.sideEffect = Levers::tr("+%1 ms per token: decode reads %2 over the host link (%3/s) each step")
                           .arg(Units::formatDecimal(addedMs, 1), Units::formatBytes(qint64(std::min(offloaded, 9.2e18)), UnitSystem::Decimal),
                                Units::formatBytes(now.gpu.hostLinkBytesPerSecond, UnitSystem::Decimal));
        out << o;
    }

    if (hostMemoryPerGpu > 0 && now.gpu.hostLinkBytesPerSecond > 0 && !target.decodeFromHost) {
        // Idle sessions wait in host memory; the decoding ones stay on the card (two tiers).
        Scenario v = now;
        v.hostKvMemoryBytes = Units::mul(hostMemoryPerGpu, std::max(1, now.gpusPerNode), QStringLiteral("--host-memory"));
        const CapacityResult rv = computeCapacity(v, work);
        LeverOption o = priced(QStringLiteral("memory"), QStringLiteral("keep idle sessions warm in %1 of host memory per node")
                                                             .arg(Units::formatBytes(*v.hostKvMemoryBytes, UnitSystem::Decimal)), v, QString(), rv);
        bool changes = true;
        if (rv.ok && rv.warm.gpusPerNode > 0) {
            const WarmSessions &w = rv.warm;
            o.sessionsPerGroup = w.retainedPerNode / std::max<qint64>(1, w.replicasPerNode);
            o.sessionsPerGpu = double(w.retainedPerNode) / double(w.gpusPerNode);
            if (const auto p = v.effectivePrice(); p && w.retainedPerNode > 0)
                o.costPerSessionHourUsd = *p * double(w.gpusPerNode) / double(w.retainedPerNode);
            // At a decoding share of 1 every session decodes at once: host memory keeps none warm,
            // and an option of today's figures is no option (it was listed, changing nothing).
            changes = w.decodingShare < 1.0 && o.sessionsPerGpu > report.current.sessionsPerGpu;
            const auto msText = [](const std::optional<double> &ms) { return ms ? Units::formatDecimal(*ms, 1) + QStringLiteral(" ms") : QStringLiteral("unknown"); };
            o.sideEffect = QStringLiteral("sessions retained warm at a decoding share of %1: a returning session waits %2 to come back over the host link "
                                          "(recomputing it: %3); decode latency unchanged")
                               .arg(QLocale::c().toString(w.decodingShare, 'g', 3), msText(w.atContext.resumeMs), msText(w.atContext.recomputeMs));
        }
        if (changes)
            out << o;
    }
    out << sidePoolOptions(work, now, models);

    // Change against now; the target; order by cost.
    for (LeverOption &o : out) {
        o.change = report.current.sessionsPerGpu > 0 ? o.sessionsPerGpu / report.current.sessionsPerGpu - 1.0
                                                      : (o.sessionsPerGpu > 0 ? INFINITY : 0.0);
        // Without a latency target, 200 ms per token (5 tokens/s, too slow to read along) is the
        // ceiling; an explicit target needs a known latency (a card with a bandwidth figure).
        const double maxItl = target.maxItlMs.value_or(200.0);
        const bool latencyOk = o.itlMs ? *o.itlMs <= maxItl : !target.maxItlMs;
        o.meetsTarget = o.sessionsPerGroup > 0 && (!target.sessionsPerGpu || o.sessionsPerGpu >= *target.sessionsPerGpu) && latencyOk;
        if (target.maxItlMs && o.itlMs && *o.itlMs > *target.maxItlMs && !o.changesRequirement) {
            o.changesRequirement = true;
            o.changesRequirementReason = Levers::tr("%1 ms per token, past the %2 ms target")
                                             .arg(QString::number(*o.itlMs, 'f', 1), QString::number(*target.maxItlMs, 'f', 1));
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const LeverOption &a, const LeverOption &b) {
        const double ca = a.sessionsPerGroup > 0 && a.costPerSessionHourUsd ? *a.costPerSessionHourUsd : INFINITY;
        const double cb = b.sessionsPerGroup > 0 && b.costPerSessionHourUsd ? *b.costPerSessionHourUsd : INFINITY;
        return ca < cb;
    });
    for (LeverOption &o : out) {
        if (o.meetsTarget && !o.changesRequirement && o.costPerSessionHourUsd) {
            o.cheapest = true;
            break;
        }
    }
    // One sentence: the cheapest, then the best of each other kind of option, each named with
    // its price, a larger card by name and price per GPU-hour ("more silicon" said nothing).
    auto kindOf = [&](const LeverOption &o) -> QString {
        if (o.lever == QLatin1String("memory"))
            return o.scenario.gpu.id != now.gpu.id ? Levers::tr("a larger card")
                 : o.scenario.tp != now.tp          ? Levers::tr("more GPUs per replica")
                                                    : Levers::tr("more memory");
        if (o.lever == QLatin1String("retention"))
            return Levers::tr("shorter memory");
        if (o.lever == QLatin1String("precision"))
            return Levers::tr("lower precision");
        if (o.lever == QLatin1String("side pools"))
            return Levers::tr("a smaller side pool");
        return Levers::tr("a leaner attention design");
    };
    auto named = [&](const LeverOption &o) {
        const auto cardPrice = o.scenario.gpu.id != now.gpu.id ? o.scenario.effectivePrice() : std::nullopt;
        return cardPrice ? Levers::tr("%1 at %2 per GPU-hour").arg(o.option, Units::formatUsd(*cardPrice)) : o.option;
    };
    // One unit for every price here: the smallest figure below a cent quotes them all per
    // 1,000 (or 1,000,000) session-hours, as the window's and the command line's money columns.
    double smallest = report.current.costPerSessionHourUsd.value_or(INFINITY);
    for (const LeverOption &o : out)
        if (o.costPerSessionHourUsd && o.sessionsPerGroup > 0 && *o.costPerSessionHourUsd > 0)
            smallest = std::min(smallest, *o.costPerSessionHourUsd);
    while (std::isfinite(smallest) && smallest > 0 && smallest * double(report.moneyPerSessionHours) < 0.01 && report.moneyPerSessionHours < 1'000'000'000)
        report.moneyPerSessionHours *= 1000;
    const qint64 per = report.moneyPerSessionHours;
    auto perSessionHour = [per](double usd) {
        return per == 1 ? Levers::tr("%1 per session-hour").arg(Units::formatUsd(usd))
                        : Levers::tr("%1 per %2 session-hours").arg(Units::formatUsd(usd * double(per)), formatCount(per));
    };
    const auto cheapest = std::find_if(out.cbegin(), out.cend(), [](const LeverOption &o) { return o.cheapest; });
    QStringList kinds, parts;
    if (cheapest != out.cend())
        kinds << kindOf(*cheapest);
    for (const LeverOption &o : out) {
        if (o.sessionsPerGroup <= 0 || !o.costPerSessionHourUsd || !o.meetsTarget || o.changesRequirement || kinds.contains(kindOf(o)))
            continue;
        kinds << kindOf(o);
        parts << Levers::tr("%1 (%2) %3").arg(kindOf(o), named(o), perSessionHour(*o.costPerSessionHourUsd));
    }
    const bool targetSet = target.sessionsPerGpu || target.maxItlMs;
    if (cheapest == out.cend())
        report.answer = targetSet ? Levers::tr("No option here meets the target without changing the requirement: relax it, or combine levers.")
                                  : Levers::tr("No option here holds a session within 200 ms per token without changing the requirement: combine levers.");
    else
        report.answer = Levers::tr("The cheapest here is %1 (%2)%3, at %4 and %5 %6 per GPU%7")
                            .arg(named(*cheapest), cheapest->lever, targetSet ? Levers::tr(" meeting the target") : QString(),
                                 perSessionHour(*cheapest->costPerSessionHourUsd), Units::formatDecimal(cheapest->sessionsPerGpu),
                                 cheapest->sessionsPerGpu == 1.0 ? Levers::tr("session") : Levers::tr("sessions"),
                                 parts.isEmpty() ? Levers::tr(".") : Levers::tr("; next by kind of option: %1.").arg(parts.join(Levers::tr(", "))));
    return report;
}

QJsonObject LeverReport::toJson() const
{
    QJsonArray a;
    auto opt = [](const std::optional<double> &v) { return v ? QJsonValue(std::round(*v * 1e6) / 1e6) : QJsonValue(); };
    for (const LeverOption &o : options)
        a.append(QJsonObject{{QStringLiteral("lever"), o.lever},
                             {QStringLiteral("option"), o.option},
                             {QStringLiteral("sessions_per_group"), o.sessionsPerGroup},
                             {QStringLiteral("sessions_per_gpu"), o.sessionsPerGpu},
                             {QStringLiteral("tp"), o.scenario.tp},
                             {QStringLiteral("change"), std::isfinite(o.change) ? QJsonValue(o.change) : QJsonValue()},
                             {QStringLiteral("cost_per_session_hour_usd"), opt(o.costPerSessionHourUsd)},
                             {QStringLiteral("cost_per_million_tokens_usd"), opt(o.costPerMillionTokensUsd)},
                             {QStringLiteral("itl_ms"), opt(o.itlMs)},
                             {QStringLiteral("side_effect"), o.sideEffect},
                             {QStringLiteral("meets_target"), o.meetsTarget},
                             {QStringLiteral("changes_requirement"), o.changesRequirement},
                             {QStringLiteral("changes_requirement_reason"), o.changesRequirementReason},
                             {QStringLiteral("cheapest"), o.cheapest}});
    return QJsonObject{{QStringLiteral("options"), a},
                       {QStringLiteral("sessions_per_gpu_now"), current.sessionsPerGpu},
                       {QStringLiteral("cost_per_session_hour_usd_now"), opt(current.costPerSessionHourUsd)},
                       {QStringLiteral("answer"), answer}};
}

Diagnosis diagnoseFailure(const Scenario &s, qint64 failedAt, qint64 context, const QVector<ModelShape> &models, const QVector<GpuSpec> &gpus)
{
    if (failedAt < 1)
        throw InputError(QStringLiteral("--failed-at-sessions"), QStringLiteral("must be at least 1"));
    if (context < 1)
        throw InputError(QStringLiteral("--context"), QStringLiteral("must be at least 1 token"));
    Scenario at = s;
    at.contextTokens = context;
    at.sessions = failedAt;
    at.distribution.reset();
    at.preallocate = s.preallocate;
    const CapacityResult r = computeCapacity(at);
    if (!r.ok) // the sessions asked about are the failed-at count here
        throw InputError(r.errorField == QLatin1String("--sessions") ? QStringLiteral("--failed-at-sessions") : r.errorField,
                         r.error.mid(r.errorField.size() + 2));
    Diagnosis d;
    d.residentTokens = Units::mul(failedAt, r.reservedTokensPerSession, QStringLiteral("--failed-at-sessions"));
    if (r.kvBudgetBytesPerGpu <= 0) {
        d.kvBudgetTokens = 0;
        d.budgetShare = 0;
        d.explainedByKv = false;
        d.expectedFailureSessions = 1;
        d.cheapestFix = Levers::tr("a card or TP group that holds the weights (%1 short per GPU)")
                            .arg(Units::formatBytes(r.shortfallBytesPerGpu, UnitSystem::Decimal));
        d.sentence = Levers::tr("Not the KV cache: weights and workspace alone exceed the card by %1 per GPU, so it cannot start. Fix: %2.")
                         .arg(Units::formatBytes(r.shortfallBytesPerGpu, UnitSystem::Decimal), d.cheapestFix);
        return d;
    }
    d.kvBudgetTokens = r.kvCapacityTokens;
    const double resident = double(r.reservedSessionBytesPerGpu) * double(failedAt);
    d.budgetShare = r.kvBudgetBytesPerGpu > 0 ? resident / double(r.kvBudgetBytesPerGpu) : INFINITY;
    d.explainedByKv = d.budgetShare >= 0.95;
    d.expectedFailureSessions = r.maxSessions < std::numeric_limits<qint64>::max() ? r.maxSessions + 1 : r.maxSessions; // no wrap at 2^63
    const LeverReport levers = evaluateLevers(at, models, gpus, LeverTarget{double(failedAt) / double(at.tp), std::nullopt});
    const auto fix = std::find_if(levers.options.cbegin(), levers.options.cend(), [](const LeverOption &o) { return o.cheapest; });
    if (fix != levers.options.cend())
        d.cheapestFix = Levers::tr("%1 (%2): %3 sessions per TP group, %4; price paid: %5")
                            .arg(fix->option, fix->lever, formatCount(fix->sessionsPerGroup),
                                 Units::formatUsdPer(*fix->costPerSessionHourUsd, Levers::tr("session-hour"), Levers::tr("session-hours")),
                                 fix->sideEffect);
    else
        d.cheapestFix = Levers::tr("no single lever holds %1 sessions of %2 tokens: combine them").arg(formatCount(failedAt), formatCount(context));
    d.sentence = d.explainedByKv
        ? Levers::tr("KV exhaustion explains it: %1 sessions of %2 tokens hold %3 tokens (%4 of the KV budget of %5 tokens); "
                         "it should fail from %6 sessions%7. Cheapest fix: %8.")
              .arg(formatCount(failedAt), formatCount(context), formatCount(d.residentTokens), percent(d.budgetShare),
                   formatCount(d.kvBudgetTokens), formatCount(d.expectedFailureSessions),
                   // It held more than fit at that length: either its sessions were shorter than
                   // the length given when it failed, or its budget is larger than planned.
                   failedAt > d.expectedFailureSessions
                       ? Levers::tr(" (it held %1, which at %2 tokens each is %3 of the planned budget: either its sessions were "
                                    "shorter than that when it failed, about %4 tokens each at most, or the engine's budget is larger "
                                    "than planned: calibrate from its start-up log)")
                             .arg(formatCount(failedAt - 1), formatCount(context),
                                  percent(double(r.reservedSessionBytesPerGpu) * double(failedAt - 1) / double(r.kvBudgetBytesPerGpu)),
                                  formatCount(d.kvBudgetTokens / (failedAt - 1)))
                       : QString(),
                   d.cheapestFix)
        : Levers::tr("KV exhaustion does not explain it: %1 sessions of %2 tokens fill only %3 of the KV budget (%4 tokens). "
                         "Look elsewhere: activation peaks from long prefills, fragmentation, another process on the card, or a "
                         "workspace larger than planned.")
              .arg(formatCount(failedAt), formatCount(context), percent(d.budgetShare), formatCount(d.kvBudgetTokens));
    return d;
}

QJsonObject Diagnosis::toJson() const
{
    return QJsonObject{{QStringLiteral("resident_tokens"), residentTokens},
                       {QStringLiteral("kv_budget_tokens"), kvBudgetTokens},
                       {QStringLiteral("budget_share"), std::isfinite(budgetShare) ? QJsonValue(budgetShare) : QJsonValue()},
                       {QStringLiteral("explained_by_kv"), explainedByKv},
                       {QStringLiteral("expected_failure_sessions"), expectedFailureSessions},
                       {QStringLiteral("cheapest_fix"), cheapestFix},
                       {QStringLiteral("explanation"), sentence}};
}

qint64 solveMaxContext(const Scenario &s, qint64 sessions)
{
    if (sessions < 1)
        throw InputError(QStringLiteral("--sessions"), QStringLiteral("must be at least 1"));
    const qint64 modelMax = s.model.maxPositionEmbeddings > 0 ? s.model.maxPositionEmbeddings : std::numeric_limits<qint64>::max();
    if (!s.distribution) {
        // Every session at the answer: paged, not capped (the cap is what is being solved for).
        Scenario v = s;
        v.preallocate = false;
        v.retainTokens.reset();
        return std::min(maxContextFor(v, sessions), modelMax);
    }
    // Against a distribution: the largest retention cap at which the sessions fit at the risk.
    auto fits = [&](qint64 cap) {
        Scenario v = s;
        v.retainTokens = cap;
        const CapacityResult r = computeCapacity(v);
        return r.ok && r.distribution.sessionsAtRisk >= sessions;
    };
    qint64 hi = std::min(s.distribution->scaled(s.lengthScale, s.field(Input::LengthScale)).maximum(), modelMax);
    if (fits(hi))
        return hi;
    qint64 lo = 0;
    while (hi - lo > 1) {
        const qint64 mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

QPair<qint64, int> solveMinGpus(const Scenario &s, qint64 target)
{
    if (target < 1)
        throw InputError(QStringLiteral("--target-sessions"), QStringLiteral("must be at least 1"));
    QPair<qint64, int> best{0, 0};
    for (int tp : tensorParallelSizes()) {
        Scenario v = s;
        v.tp = tp;
        const CapacityResult r = computeCapacity(v);
        if (!r.ok || r.distribution.sessionsAtRisk < 1)
            continue;
        const qint64 gpus = Units::mul(Units::ceilDiv(target, r.distribution.sessionsAtRisk), tp, QStringLiteral("--target-sessions"));
        if (best.first == 0 || gpus < best.first)
            best = {gpus, tp};
    }
    return best;
}

qint64 solveMaxModelLen(const Scenario &s)
{
    Scenario v = s;
    v.distribution.reset();
    v.preallocate = false;
    v.retainTokens.reset();
    const qint64 fits = maxContextFor(v, 1);
    // No engine starts past the model's own maximum, unless --max-model-len raises it
    // (RoPE scaling, or an engine told to go beyond the config).
    const qint64 cap = std::max(s.model.maxPositionEmbeddings, s.maxModelLen.value_or(0));
    return cap > 0 ? std::min(fits, cap) : fits;
}

} // namespace Headroom
