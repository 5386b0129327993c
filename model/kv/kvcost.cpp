// SPDX-License-Identifier: GPL-3.0-or-later
#include "kv/kvcost.h"
#include "core/inputerror.h"
#include "core/units.h"

#include <algorithm>

namespace Headroom {

namespace {

// Bytes of one row of `values` values, K or V, in a block format.
qint64 rowBytes(Dtype d, qint64 values)
{
    return Dtypes::bytesFor(d, values, QStringLiteral("--kv-dtype"));
}

// fp8 values with one fp32 scale per 128 (vLLM's quant_block_size for the
// DeepSeek-V3.2 indexer and the fp8_ds_mla latent).
qint64 fp8WithScalesBytes(qint64 values)
{
    return values + Units::ceilDiv(values, 128) * 4;
}

// vLLM's fp8_ds_mla record: the latent in fp8 with its scales, the RoPE key in bf16.
qint64 fp8DsMlaBytes(qint64 latent, qint64 rope)
{
    return fp8WithScalesBytes(latent) + Dtypes::bytesFor(Dtype::BF16, rope, QStringLiteral("--kv-dtype"));
}
} // namespace

KvCost::KvCost(const ModelShape &model, Dtype kvDtype, int tp, int blockSize, std::optional<int> kvHeadsOverride, const Names &names)
    : m_kvDtype(kvDtype), m_tp(tp), m_blockSize(blockSize), m_names(names)
{
    const QString &kTp = names.tp, &kKvHeads = names.kvHeads;
    // A per-token figure that leaves 64 bits grew from the shape (or from the what-if heads).
    const QString &kShape = kvHeadsOverride ? names.kvHeads : names.model;
    if (tp < 1)
        throw InputError(kTp, QStringLiteral("must be at least 1, got %1").arg(tp));
    if (blockSize < 1)
        throw InputError(names.blockSize, QStringLiteral("must be at least 1, got %1").arg(blockSize));
    const bool hasKvHeads = model.has(LayerKind::FullAttention) || model.has(LayerKind::SlidingWindow);
    if (kvHeadsOverride) {
        if (!hasKvHeads)
            throw InputError(kKvHeads, QStringLiteral("does not apply: %1 has no K/V heads (its attention is %2)")
                                           .arg(model.name, model.has(LayerKind::Mla) ? QStringLiteral("MLA")
                                                                                      : QStringLiteral("recurrent")));
        if (*kvHeadsOverride < 1)
            throw InputError(kKvHeads, QStringLiteral("must be at least 1, got %1").arg(*kvHeadsOverride));
        if (model.attentionHeads > 0 && model.attentionHeads % *kvHeadsOverride != 0)
            throw InputError(kKvHeads, QStringLiteral("%1 must divide num_attention_heads %2 (each KV head serves a "
                                                      "whole group of query heads)")
                                           .arg(*kvHeadsOverride).arg(model.attentionHeads));
    }
    if (model.attentionHeads == 0 && hasKvHeads) {
        int kv = kvHeadsOverride.value_or(model.kvHeads);
        if (tp > kv)
            throw InputError(QStringLiteral("--heads"),
                             QStringLiteral("is needed to check TP %1 against the attention heads (TP exceeds %2 KV heads)").arg(tp).arg(kv));
    }
    if (model.attentionHeads > 0 && model.attentionHeads % tp != 0)
        throw InputError(kTp, QStringLiteral("TP %1 does not divide num_attention_heads %2").arg(tp).arg(model.attentionHeads));

    for (LayerGroup g : model.groups) {
        GroupCost c;
        switch (g.kind) {
        case LayerKind::FullAttention:
        case LayerKind::SlidingWindow: {
            if (kvHeadsOverride)
                g.kvHeads = *kvHeadsOverride;
            if (g.kvHeads % tp != 0 && tp % g.kvHeads != 0)
                throw InputError(kTp, QStringLiteral("TP %1 and num_key_value_heads %2: neither divides the other, "
                                                     "so no engine can split the KV heads")
                                          .arg(tp).arg(g.kvHeads));
            c.kvHeadsPerGpu = std::max(1, g.kvHeads / tp);
            c.bytesPerTokenPerLayer = Units::add(rowBytes(kvDtype, qint64(g.kvHeads) * g.headDimK),
                                                 rowBytes(kvDtype, qint64(g.kvHeads) * g.headDimV), kShape);
            c.bytesPerTokenPerLayerPerGpu = Units::add(rowBytes(kvDtype, qint64(c.kvHeadsPerGpu) * g.headDimK),
                                                       rowBytes(kvDtype, qint64(c.kvHeadsPerGpu) * g.headDimV), kShape);
            break;
        }
        case LayerKind::Mla:
            c.latentBytesPerTokenPerLayer = g.indexerHeadDim > 0 && kvDtype == Dtype::FP8
                ? fp8DsMlaBytes(g.latentDim, g.ropeDim)
                : rowBytes(kvDtype, qint64(g.latentDim) + g.ropeDim);
            c.indexerBytesPerTokenPerLayer = g.indexerHeadDim > 0 ? fp8WithScalesBytes(g.indexerHeadDim) : 0;
            c.bytesPerTokenPerLayer = c.latentBytesPerTokenPerLayer + c.indexerBytesPerTokenPerLayer;
            c.bytesPerTokenPerLayerPerGpu = c.bytesPerTokenPerLayer;
            m_indexerBytesPerToken = Units::add(m_indexerBytesPerToken,
                                                Units::mul(c.indexerBytesPerTokenPerLayer, g.count, kShape), kShape);
            break;
        case LayerKind::Recurrent: {
            const qint64 values = Units::add(g.convStateValues, g.ssmStateValues, names.model);
            c.stateBytesPerLayer = Dtypes::bytesFor(model.recurrentStateDtype, values, names.model);
            c.stateBytesPerLayerPerGpu = Dtypes::bytesFor(model.recurrentStateDtype, Units::ceilDiv(values, tp), names.model);
            break;
        }
        }
        c.group = g;
        m_bytesPerToken = Units::add(m_bytesPerToken, Units::mul(c.bytesPerTokenPerLayer, g.count, kShape), kShape);
        m_bytesPerTokenPerGpu = Units::add(m_bytesPerTokenPerGpu, Units::mul(c.bytesPerTokenPerLayerPerGpu, g.count, kShape), kShape);
        m_stateBytes = Units::add(m_stateBytes, Units::mul(c.stateBytesPerLayer, g.count, names.model), names.model);
        m_stateBytesPerGpu = Units::add(m_stateBytesPerGpu, Units::mul(c.stateBytesPerLayerPerGpu, g.count, names.model), names.model);
        m_groups.append(c);
    }
}

qint64 KvCost::heldTokens(const LayerGroup &g, qint64 tokens, const QString &field) const
{
    if (g.kind == LayerKind::Recurrent)
        return 0;
    const qint64 t = Units::add(g.kind == LayerKind::SlidingWindow ? std::min(tokens, g.window) : tokens, m_lookahead, field);
    return Units::mul(Units::ceilDiv(t, m_blockSize), m_blockSize, field);
}

qint64 KvCost::sessionBytes(qint64 tokens, bool perGpu, const QString &field) const
{
    if (tokens < 0)
        throw InputError(field, QStringLiteral("must not be negative"));
    // The larger factor is to blame for an overflow: a long session, or a shape that is huge per token.
    const QString &blame = tokens >= (perGpu ? m_bytesPerTokenPerGpu : m_bytesPerToken) ? field : m_names.model;
    qint64 total = 0;
    for (const GroupCost &c : m_groups) {
        // Bytes per token of the group fit (the constructor summed them): times the held tokens.
        const qint64 groupBytes = c.group.kind == LayerKind::Recurrent
            ? Units::mul(perGpu ? c.stateBytesPerLayerPerGpu : c.stateBytesPerLayer, c.group.count, blame)
            : Units::mul(heldTokens(c.group, tokens, field),
                         Units::mul(perGpu ? c.bytesPerTokenPerLayerPerGpu : c.bytesPerTokenPerLayer, c.group.count, blame), blame);
        total = Units::add(total, groupBytes, blame);
    }
    return total;
}

bool KvCost::samePerGpuSessionBytes(const KvCost &o) const
{
    // Exactly the fields sessionBytes(tokens, true) and heldTokens read (keep the two in step).
    if (m_blockSize != o.m_blockSize || m_lookahead != o.m_lookahead || m_bytesPerTokenPerGpu != o.m_bytesPerTokenPerGpu
        || m_groups.size() != o.m_groups.size())
        return false;
    for (qsizetype i = 0; i < m_groups.size(); ++i) {
        const GroupCost &a = m_groups.at(i), &b = o.m_groups.at(i);
        if (a.group.kind != b.group.kind || a.group.count != b.group.count || a.group.window != b.group.window
            || a.bytesPerTokenPerLayerPerGpu != b.bytesPerTokenPerLayerPerGpu || a.stateBytesPerLayerPerGpu != b.stateBytesPerLayerPerGpu)
            return false;
    }
    return true;
}

void KvCost::addDraft(const KvCost &draft)
{
    const QString f = QStringLiteral("--draft-model");
    for (GroupCost c : draft.m_groups) {
        c.draft = true;
        m_groups.append(c);
    }
    m_bytesPerToken = Units::add(m_bytesPerToken, draft.m_bytesPerToken, f);
    m_bytesPerTokenPerGpu = Units::add(m_bytesPerTokenPerGpu, draft.m_bytesPerTokenPerGpu, f);
    m_draftBytesPerToken = Units::add(m_draftBytesPerToken, draft.m_bytesPerToken, f);
    m_draftBytesPerTokenPerGpu = Units::add(m_draftBytesPerTokenPerGpu, draft.m_bytesPerTokenPerGpu, f);
    m_stateBytes = Units::add(m_stateBytes, draft.m_stateBytes, f);
    m_stateBytesPerGpu = Units::add(m_stateBytesPerGpu, draft.m_stateBytesPerGpu, f);
}

qint64 KvCost::draftSessionBytes(qint64 tokens, bool perGpu, const QString &field) const
{
    qint64 total = 0;
    for (const GroupCost &c : m_groups) {
        if (!c.draft)
            continue;
        const qint64 layerBytes = c.group.kind == LayerKind::Recurrent
            ? (perGpu ? c.stateBytesPerLayerPerGpu : c.stateBytesPerLayer)
            : Units::mul(heldTokens(c.group, tokens, field), perGpu ? c.bytesPerTokenPerLayerPerGpu : c.bytesPerTokenPerLayer, field);
        total = Units::add(total, Units::mul(layerBytes, c.group.count, field), field);
    }
    return total;
}

qint64 KvCost::indexerSessionBytes(qint64 tokens, const QString &field) const
{
    qint64 total = 0;
    for (const GroupCost &c : m_groups)
        if (c.indexerBytesPerTokenPerLayer > 0 && !c.draft) // a draft's indexer is the draft's KV
            total = Units::add(total, Units::mul(Units::mul(heldTokens(c.group, tokens, field), c.indexerBytesPerTokenPerLayer, field),
                                                 c.group.count, field), field);
    return total;
}

} // namespace Headroom
