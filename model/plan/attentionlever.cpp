// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/attentionlever.h"
#include "core/inputerror.h"
#include "kv/kvcost.h"

namespace Headroom {

namespace {

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

// KV bytes per token on one GPU of `c.now` at `heads` KV heads (the published count when
// unset), in the plan's KV dtype; -1 when that shape is invalid.
qint64 kvPerGpu(const LeverContext &c, std::optional<int> heads)
{
    try {
        return KvCost(c.now.stageModel(), c.base.kvDtype, c.now.tp, c.now.effectiveBlockSize(), heads).bytesPerTokenPerGpu();
    } catch (const InputError &) {
        return -1;
    }
}

// Half the KV heads, then half again down to one (counts that divide the attention heads):
// what-ifs of a retrained model, each changing the requirement.
QVector<LeverOption> fewerKvHeads(const LeverEvaluator &lever, const LeverContext &c)
{
    QVector<LeverOption> out;
    const Scenario &now = c.now;
    const int heads = now.effectiveKvHeads();
    // Past TP = heads every GPU holds one head (replicated): fewer heads then store the same
    // bytes per GPU and fit the same sessions. Such what-ifs are folded into the first one
    // that reaches that figure, which says so, rather than listed as identical rows.
    qint64 previousPerGpu = kvPerGpu(c, now.kvHeadsOverride);
    QVector<int> folded;
    int keptAt = -1;
    for (int h = heads / 2; h >= 1 && now.model.kvHeads > 0; h /= 2) {
        if (now.model.attentionHeads > 0 && now.model.attentionHeads % h != 0)
            continue;
        const qint64 perGpu = kvPerGpu(c, h);
        if (perGpu >= 0 && perGpu == previousPerGpu) {
            if (keptAt >= 0)
                folded << h;
            continue;
        }
        previousPerGpu = perGpu;
        Scenario v = now;
        v.kvHeadsOverride = h;
        LeverOption o = lever.price(c, h == 1 ? Levers::tr("1 KV head (MQA what-if)") : Levers::tr("%1 KV heads (GQA what-if)").arg(h), v,
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
    return out;
}

// The presets in `c.models` of similar size (0.5x to 2x the parameters) with fewer KV bytes
// per token that serve the sessions' longest length, each carrying the side pools it can.
QVector<LeverOption> leanerModels(const LeverEvaluator &lever, const LeverContext &c)
{
    QVector<LeverOption> out;
    const Scenario &now = c.now;
    const qint64 params = now.model.totalParams;
    for (const ModelShape &m : c.models) {
        if (m.id == now.model.id || params <= 0 || m.totalParams < params / 2 || m.totalParams - params > params)
            continue;
        // It must serve the sessions' length: a 4K or 32K model is no answer to 128K contexts.
        if (m.maxPositionEmbeddings > 0 && m.maxPositionEmbeddings < c.base.distribution.maxTokens)
            continue;
        try {
            if (KvCost(m, c.base.kvDtype, 1, now.effectiveBlockSize()).bytesPerToken() >= c.base.kvBytesPerToken)
                continue;
        } catch (const InputError &) {
            continue;
        }
        Scenario v = now;
        v.model = m;
        v.kvHeadsOverride.reset();
        v.weightsDtype.reset();
        carrySidePools(v);
        LeverOption o = lever.price(c, Levers::tr("model %1").arg(m.name), v, Levers::tr("a different model of similar size: quality to compare"));
        o.changesRequirement = true;
        o.changesRequirementReason = Levers::tr("%1 instead of %2: another model").arg(m.name, now.model.name);
        out << o;
    }
    return out;
}

} // namespace

QVector<LeverOption> AttentionLever::options(const LeverContext &c) const
{
    QVector<LeverOption> out = fewerKvHeads(*this, c);
    out << leanerModels(*this, c);
    return out;
}

} // namespace Headroom
