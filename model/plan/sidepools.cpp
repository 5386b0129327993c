// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/sidepools.h"
#include "core/inputerror.h"
#include "core/inputranges.h"
#include "plan/capacityresult.h"

#include <cmath>

namespace Headroom::SidePools {

namespace {
using Units::formatCount;
using Units::formatExactBytes;


// The model's 16-bit dtype: what vLLM loads a draft in (the target's dtype) and
// what LoRA slots take (lora_dtype "auto"), whatever the weights' quantization.
Dtype sixteenBit(const Scenario &s)
{
    return s.effectiveWeightsDtype() == Dtype::FP16 ? Dtype::FP16 : Dtype::BF16;
}

bool isSixteenOrMore(Dtype d)
{
    return d == Dtype::BF16 || d == Dtype::FP16 || d == Dtype::FP32;
}

// Parameters of one decoder layer of the target: all but the embeddings and the head.
qint64 paramsPerLayer(const ModelShape &m)
{
    const QString f = QStringLiteral("--params");
    const qint64 embeddings = m.vocabSize > 0 && m.hiddenSize > 0 ? Units::mul(Units::mul(m.vocabSize, m.hiddenSize, f), 2, f) : 0;
    const qint64 body = embeddings < m.totalParams ? m.totalParams - embeddings : m.totalParams;
    return body / std::max<qint64>(1, m.layers());
}

struct LoraCount
{
    qint64 valuesPerRank = 0; // sum of (in + out) over the adapted layers
    QString oneLayer;         // "q 4,096 + 4,096, k ..." for the first attention layer
    int attentionLayers = 0;
    int mlpLayers = 0;
};

LoraCount countLora(const Scenario &s, bool perGpu)
{
    const QString f = s.field(Input::MaxLoras);
    const ModelShape m = perGpu ? s.stageModel() : s.model;
    const int tp = perGpu ? std::max(1, s.tp) : 1;
    const QStringList mods = s.lora.effectiveModules();
    const bool attention = mods.contains(QStringLiteral("q")) || mods.contains(QStringLiteral("k"))
        || mods.contains(QStringLiteral("v")) || mods.contains(QStringLiteral("o"));
    const bool mlp = mods.contains(QStringLiteral("gate")) || mods.contains(QStringLiteral("up")) || mods.contains(QStringLiteral("down"));
    if (m.hiddenSize <= 0)
        throw InputError(f, QStringLiteral("needs the model's hidden_size: give a preset or a config.json, not a custom shape"));
    const qint64 h = m.hiddenSize;
    LoraCount out;
    QStringList terms;
    auto add = [&](const char *name, qint64 in, qint64 outSize, int layers) {
        if (!mods.contains(QString::fromLatin1(name)))
            return;
        out.valuesPerRank = Units::add(out.valuesPerRank, Units::mul(in + outSize, layers, f), f);
        terms << QStringLiteral("%1 %2 + %3").arg(QString::fromLatin1(name), formatCount(in), formatCount(outSize));
    };
    if (attention) {
        if (m.has(LayerKind::Mla))
            throw InputError(s.field(Input::LoraModules), QStringLiteral("%1 has MLA attention (q_a/q_b/kv_a/kv_b projections), whose LoRA slots are not "
                                                      "planned here; adapt the MLP only with %2 gate,up,down").arg(m.name, s.field(Input::LoraModules)));
        if (m.attentionHeads <= 0)
            throw InputError(f, QStringLiteral("needs num_attention_heads: give a preset or a config.json, not a custom shape"));
        bool first = true;
        for (const LayerGroup &g : m.groups) {
            if (g.kind != LayerKind::FullAttention && g.kind != LayerKind::SlidingWindow)
                continue;
            const int kv = s.kvHeadsOverride.value_or(g.kvHeads);
            const qint64 kvHeads = perGpu ? std::max(1, kv / tp) : kv;
            const qint64 qOut = Units::ceilDiv(qint64(m.attentionHeads) * g.headDimK, tp);
            const qint64 oIn = Units::ceilDiv(qint64(m.attentionHeads) * g.headDimV, tp);
            if (!first)
                terms.clear();
            add("q", h, qOut, g.count);
            add("k", h, kvHeads * g.headDimK, g.count);
            add("v", h, kvHeads * g.headDimV, g.count);
            add("o", oIn, h, g.count);
            if (first)
                out.oneLayer = terms.join(QStringLiteral(", "));
            first = false;
            out.attentionLayers += g.count;
        }
        terms.clear();
    }
    if (mlp) {
        if (m.numExperts > 0)
            throw InputError(s.field(Input::LoraModules), QStringLiteral("%1 is a mixture of experts: LoRA slots on its experts are not planned here; "
                                                      "adapt attention only with %2 q,k,v,o").arg(m.name, s.field(Input::LoraModules)));
        if (m.intermediateSize <= 0)
            throw InputError(f, QStringLiteral("needs the model's intermediate_size for the MLP modules: give a preset or config.json, "
                                               "or adapt attention only with --lora-modules q,k,v,o"));
        const qint64 inter = Units::ceilDiv(m.intermediateSize, tp);
        const int layers = perGpu ? (m.layers() + std::max(1, s.pp) - 1) / std::max(1, s.pp) : m.layers();
        add("gate", h, inter, layers);
        add("up", h, inter, layers);
        add("down", inter, h, layers);
        out.oneLayer += (out.oneLayer.isEmpty() ? QString() : QStringLiteral(", ")) + terms.join(QStringLiteral(", "));
        out.mlpLayers = layers;
    }
    return out;
}
} // namespace

QString draftField(const Scenario &s)
{
    return s.field(s.speculative.draftModel ? Input::DraftModel : Input::DraftLayers);
}

ModelShape draftShape(const Scenario &s)
{
    if (s.speculative.draftModel)
        return *s.speculative.draftModel;
    const int n = InputRanges::check(CountInput::DraftLayers, s.speculative.draftLayers, s.field(Input::DraftLayers));
    const LayerGroup *main = nullptr;
    for (const LayerGroup &g : s.model.groups)
        if (g.kind != LayerKind::Recurrent && (!main || g.count > main->count))
            main = &g;
    if (!main)
        throw InputError(s.field(Input::DraftLayers), QStringLiteral("%1 has no attention layer for MTP / EAGLE heads to copy: give --draft-model instead")
                                           .arg(s.model.name));
    ModelShape d = s.model;
    d.id = s.model.id + QStringLiteral("+mtp");
    d.name = QStringLiteral("%1 %2 of %3").arg(n).arg(n == 1 ? QStringLiteral("MTP / EAGLE layer") : QStringLiteral("MTP / EAGLE layers"), s.model.name);
    d.groups.clear();
    d.hiddenLayers = 0;
    LayerGroup g = *main;
    if (s.kvHeadsOverride && (g.kind == LayerKind::FullAttention || g.kind == LayerKind::SlidingWindow))
        g.kvHeads = *s.kvHeadsOverride;
    g.count = 0;
    d.addLayers(g, n);
    return d;
}

KvCost draftCost(const Scenario &s)
{
    const QString field = draftField(s);
    if (s.pp > 1)
        throw InputError(field, QStringLiteral("is planned with --pp 1 only (a draft runs beside one pipeline stage); set --pp 1 or drop the draft"));
    const ModelShape d = draftShape(s);
    if (d.groups.isEmpty())
        throw InputError(field, QStringLiteral("%1 has no layers").arg(d.name));
    try {
        return KvCost(d, s.effectiveKvDtype(), s.tp, s.effectiveBlockSize());
    } catch (const InputError &e) {
        throw InputError(field, QStringLiteral("the draft %1: %2 %3").arg(d.name, e.field(), e.message()));
    }
}

qint64 draftWeightsBytes(const Scenario &s, qint64 targetWeights, QString *basis)
{
    const QString field = draftField(s);
    if (s.speculative.draftModel) {
        const ModelShape &d = *s.speculative.draftModel;
        if (d.checkpointBytes > 0) {
            if (basis)
                *basis = QStringLiteral("%1, published checkpoint size").arg(d.name);
            return d.checkpointBytes;
        }
        if (d.totalParams <= 0)
            throw InputError(s.field(Input::DraftModel), QStringLiteral("the parameter count of the draft %1 is unknown: give a preset or a config.json "
                                                         "that states it").arg(d.name));
        const Dtype dt = isSixteenOrMore(d.weightsDtype) ? sixteenBit(s) : d.weightsDtype;
        if (basis)
            *basis = QStringLiteral("%1: %2 parameters × %3 (%4%5)")
                         .arg(d.name, formatCount(d.totalParams), Dtypes::describeSize(dt), Dtypes::name(dt),
                              isSixteenOrMore(d.weightsDtype) ? QStringLiteral(", the target's dtype, as vLLM loads a draft") : QString());
        return Dtypes::bytesFor(dt, d.totalParams, s.field(Input::DraftModel));
    }
    const int n = InputRanges::check(CountInput::DraftLayers, s.speculative.draftLayers, s.field(Input::DraftLayers));
    if (s.model.totalParams <= 0)
        throw InputError(field, QStringLiteral("needs the parameter count of %1 to size its MTP / EAGLE layers: give --params").arg(s.model.name));
    const qint64 perLayer = paramsPerLayer(s.model);
    const qint64 params = Units::mul(perLayer, n, field);
    const long double exact = (long double)targetWeights * (long double)params / (long double)s.model.totalParams;
    if (!(exact < 9.2e18L)) // the layers' share of weights past 64 bits: the weights given are absurd
        throw InputError(s.weightsBytes ? s.field(Input::Weights) : s.field(Input::DraftLayers),
                         QStringLiteral("is too large: %1 MTP / EAGLE layers of these weights overflow 64 bits").arg(n));
    const qint64 bytes = qint64(std::llround(exact));
    if (basis)
        *basis = QStringLiteral("%1 × %2 parameters per layer = %3 parameters, at the target's %4 bytes per parameter as planned "
                                "(embeddings and head shared with the target)")
                     .arg(n).arg(formatCount(perLayer), formatCount(params),
                          QString::number(double(targetWeights) / double(s.model.totalParams), 'g', 4));
    return bytes;
}

qint64 loraBytes(const Scenario &s, bool perGpu)
{
    if (!s.lora.on())
        return 0;
    const int slotCount = InputRanges::check(CountInput::MaxLoras, s.lora.maxLoras, s.field(Input::MaxLoras));
    const int rank = InputRanges::check(CountInput::MaxLoraRank, s.lora.maxRank, s.field(Input::MaxLoraRank));
    const LoraCount c = countLora(s, perGpu);
    const qint64 values = Units::mul(Units::mul(c.valuesPerRank, rank, s.field(Input::MaxLoras)), slotCount, s.field(Input::MaxLoras));
    return Dtypes::bytesFor(sixteenBit(s), values, s.field(Input::MaxLoras));
}

QStringList explain(const Scenario &s, const CapacityResult &r, UnitSystem u)
{
    QStringList out;
    auto both = [u](qint64 b) { return QStringLiteral("%1 (%2)").arg(formatExactBytes(b), Units::formatBytes(b, u)); };
    const bool tp = s.tp > 1;
    if (s.speculative.hasDraft()) {
        QStringList terms;
        for (const GroupCost &c : r.groups)
            if (c.draft)
                terms << QStringLiteral("%1 × %2").arg(c.group.count).arg(formatExactBytes(tp ? c.bytesPerTokenPerLayerPerGpu : c.bytesPerTokenPerLayer));
        const ModelShape d = draftShape(s);
        out << QStringLiteral("Draft %1 (speculative decoding), its own KV per token%2: %3 = %4, in the target's block pool "
                              "(vllm/v1/spec_decode/eagle.py load_model: the draft's attention layers join the target's KV cache groups); "
                              "target + draft = %5 per token")
                   .arg(d.name, tp ? QStringLiteral(" per GPU") : QString(), terms.join(QStringLiteral(" + ")),
                        formatExactBytes(tp ? r.draftKvBytesPerTokenPerGpu : r.draftKvBytesPerToken),
                        formatExactBytes(tp ? r.kvBytesPerTokenPerGpu + r.draftKvBytesPerTokenPerGpu : r.kvBytesPerToken + r.draftKvBytesPerToken));
        out << QStringLiteral("Draft weights: %1 = %2%3 (vllm/config/speculative.py: the draft runs at the target's TP)")
                   .arg(r.draftWeightsBasis, both(r.draftWeightsBytes),
                        tp ? QStringLiteral("; ÷ TP %1 = %2 per GPU").arg(s.tp).arg(both(r.draftWeightsBytesPerGpu)) : QString());
    }
    if (s.speculative.speculativeTokens > 0)
        out << QStringLiteral("Lookahead: %1 per step, so every session holds %2 in every layer%3 "
                              "(vllm/v1/core/sched/scheduler.py: allocate_slots with num_lookahead_tokens = num_speculative_tokens)")
                   .arg(s.speculative.speculativeTokens == 1 ? QStringLiteral("1 speculative token")
                                                             : QStringLiteral("%1 speculative tokens").arg(s.speculative.speculativeTokens),
                        s.speculative.speculativeTokens == 1 ? QStringLiteral("1 more token slot")
                                                             : QStringLiteral("%1 more token slots").arg(s.speculative.speculativeTokens))
                   .arg(s.speculative.hasDraft() ? QStringLiteral(", target and draft") : QString());
    if (s.lora.on()) {
        const LoraCount whole = countLora(s, false);
        const Dtype dt = sixteenBit(s);
        const QString perValue = QStringLiteral("%1 B (%2)").arg(Dtypes::info(dt).bytesPerBlock).arg(Dtypes::name(dt));
        QString line = QStringLiteral("LoRA slots: %1 slots × rank %2 × (in + out) values of each adapted linear layer × %3: one layer has %4; "
                                      "Σ (in + out) over the model = %5; %1 × %2 × %5 × %3 = %6")
                           .arg(s.lora.maxLoras).arg(s.lora.maxRank)
                           .arg(perValue, whole.oneLayer, formatCount(whole.valuesPerRank), both(r.loraBytes));
        if (tp || s.pp > 1)
            line += QStringLiteral("; per GPU at TP %1%2 (q, k, v, gate, up split their output, o and down their input): %3")
                        .arg(s.tp).arg(s.pp > 1 ? QStringLiteral(" × PP %1").arg(s.pp) : QString(), both(r.loraBytesPerGpu));
        line += QStringLiteral(" (vllm/lora/layers/base_linear.py create_lora_weights: lora_a (max_loras, 1, rank, input), "
                               "lora_b (max_loras, 1, output, rank) in lora_dtype = the model's dtype)");
        out << line;
    }
    return out;
}

} // namespace Headroom::SidePools
