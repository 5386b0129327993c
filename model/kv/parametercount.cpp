// SPDX-License-Identifier: GPL-3.0-or-later
#include "kv/parametercount.h"

#include <QJsonArray>

namespace Headroom {

namespace {
qint64 num(const QJsonObject &c, const char *key, qint64 fallback = 0)
{
    const QJsonValue v = c.value(QString::fromLatin1(key));
    return v.isDouble() && v.toDouble() >= 0 ? qint64(v.toDouble()) : fallback;
}
} // namespace

ParameterCount countParameters(const QJsonObject &root)
{
    ParameterCount p;
    QJsonObject c = root.value(QStringLiteral("text_config")).isObject() ? root.value(QStringLiteral("text_config")).toObject() : root;
    const QString type = c.value(QStringLiteral("model_type")).toString(root.value(QStringLiteral("model_type")).toString());
    const qint64 h = num(c, "hidden_size"), layers = num(c, "num_hidden_layers"), heads = num(c, "num_attention_heads");
    const qint64 vocab = num(c, "vocab_size", type == QLatin1String("gemma3_text") ? 262208 : 0);
    const qint64 inter = num(c, "intermediate_size");
    if (h <= 0 || layers <= 0 || heads <= 0 || vocab <= 0) {
        p.note = QStringLiteral("not derived: hidden_size, num_hidden_layers, num_attention_heads and vocab_size are needed");
        return p;
    }
    if (type == QLatin1String("falcon_h1")) {
        p.note = QStringLiteral("not derived: Falcon-H1's parallel Mamba-2 mixers are not counted");
        return p;
    }
    const qint64 kv = num(c, "num_key_value_heads", heads);
    const qint64 hd = num(c, "head_dim", h / heads);
    const bool gemma = type.startsWith(QLatin1String("gemma"));
    const QJsonValue tieValue = c.value(QStringLiteral("tie_word_embeddings")).isBool() ? c.value(QStringLiteral("tie_word_embeddings"))
                                                                                        : root.value(QStringLiteral("tie_word_embeddings"));
    const bool tied = tieValue.isBool() ? tieValue.toBool() : gemma;

    // Attention per layer.
    qint64 attention = 0;
    if (c.contains(QStringLiteral("kv_lora_rank")) && !c.value(QStringLiteral("kv_lora_rank")).isNull()) {
        const qint64 qLora = num(c, "q_lora_rank"), kvLora = num(c, "kv_lora_rank"), rope = num(c, "qk_rope_head_dim");
        const qint64 nope = num(c, "qk_nope_head_dim"), v = num(c, "v_head_dim", nope);
        const qint64 qHead = nope + rope;
        attention = (qLora > 0 ? h * qLora + qLora + qLora * heads * qHead : h * heads * qHead)
            + h * (kvLora + rope) + kvLora + kvLora * heads * (nope + v) + heads * v * h;
    } else {
        attention = h * heads * hd + 2 * h * kv * hd + heads * hd * h;
    }
    // Experts.
    const qint64 experts = num(c, "num_local_experts", num(c, "num_experts", num(c, "n_routed_experts")));
    const qint64 topK = num(c, "num_experts_per_tok");
    const qint64 expertInter = num(c, "moe_intermediate_size", inter);
    const qint64 sharedInter = num(c, "shared_expert_intermediate_size", num(c, "n_shared_experts") * expertInter);
    const qint64 denseMlp = 3 * h * inter;
    const qint64 expertMlp = 3 * h * expertInter;
    const qint64 firstDense = num(c, "first_k_dense_replace");
    const qint64 expertPeriod = num(c, "expert_layer_period", 1), expertOffset = num(c, "expert_layer_offset");

    // Which layers mix with attention and which with a recurrent mixer.
    const QJsonArray types = c.value(QStringLiteral("layer_types")).toArray();
    const qint64 attnPeriod = num(c, "attn_layer_period"), attnOffset = num(c, "attn_layer_offset");
    const qint64 fullInterval = num(c, "full_attention_interval");
    qint64 mamba = 0, deltaNet = 0;
    if (attnPeriod > 0) {
        const qint64 dInner = num(c, "mamba_expand", 2) * h, dState = num(c, "mamba_d_state", 16);
        const qint64 dConv = num(c, "mamba_d_conv", 4), dtRank = num(c, "mamba_dt_rank", (h + 15) / 16);
        mamba = h * 2 * dInner + dInner * dConv + dInner + dInner * (dtRank + 2 * dState) + dtRank * dInner + dInner
            + dInner * dState + dInner + dInner * h + 2 * dtRank + 2 * dState; // + Jamba's dt/B/C layernorms
    }
    if (fullInterval > 0) {
        const qint64 kH = num(c, "linear_num_key_heads"), vH = num(c, "linear_num_value_heads");
        const qint64 kD = num(c, "linear_key_head_dim"), vD = num(c, "linear_value_head_dim");
        const qint64 kernel = num(c, "linear_conv_kernel_dim", 4);
        const qint64 convDim = 2 * kH * kD + vH * vD;
        deltaNet = h * (2 * kH * kD + 2 * vH * vD) + h * 2 * vH + convDim * kernel + 2 * vH + vD + vH * vD * h;
    }

    qint64 total = vocab * h * (tied ? 1 : 2) + h;
    qint64 active = total;
    for (qint64 i = 0; i < layers; ++i) {
        qint64 mixer = attention;
        if (attnPeriod > 0 && i % attnPeriod != attnOffset)
            mixer = mamba;
        else if (fullInterval > 0 && (i + 1) % fullInterval != 0)
            mixer = deltaNet;
        else if (i < types.size() && types.at(i).toString() == QLatin1String("linear_attention"))
            mixer = deltaNet;
        const bool moe = experts > 0 && i >= firstDense && (i % expertPeriod) == expertOffset % std::max<qint64>(1, expertPeriod);
        qint64 ffnTotal = denseMlp, ffnActive = denseMlp;
        if (moe) {
            ffnTotal = experts * expertMlp + h * experts + 3 * h * sharedInter;
            ffnActive = topK * expertMlp + h * experts + 3 * h * sharedInter;
        }
        total += mixer + ffnTotal + 2 * h;
        active += mixer + ffnActive + 2 * h;
    }
    p.total = total;
    p.active = active;
    p.note = QStringLiteral("derived from the config's shapes (embeddings, attention, MLP/experts, mixers, norms)");
    return p;
}

} // namespace Headroom
