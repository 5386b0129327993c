// SPDX-License-Identifier: GPL-3.0-or-later
#include "kv/parametercount.h"
#include "core/jsonnumbers.h"
#include "core/namedcount.h"
#include "kv/visionencoder.h"

#include <QJsonArray>
#include <QSet>
#include <cmath>
#include <limits>

namespace Headroom {

namespace {

// Every count carries the config.json field it grew from (core/namedcount.h):
// the arithmetic is checked and an overflow names the field.
using Count = NamedCount;
constexpr const char *kParameters = "parameter count";

constexpr qint64 maxLayers = 1'000'000; // the importer's bound on num_hidden_layers

// A whole config.json field in [minimum, maximum], or the fallback when absent.
Count num(const QJsonObject &c, const char *key, const Count &fallback, qint64 minimum = 0,
          qint64 maximum = std::numeric_limits<qint64>::max())
{
    const QJsonValue v = c.value(QString::fromLatin1(key));
    if (v.isUndefined() || v.isNull())
        return fallback;
    return Count(JsonNumbers::whole(v, QString::fromLatin1(key), minimum, maximum), QString::fromLatin1(key), kParameters);
}

/// The config's basic shapes every part of the count reads.
struct Basics
{
    Count h;      ///< hidden_size
    Count layers; ///< num_hidden_layers
    Count heads;  ///< num_attention_heads
    Count kv;     ///< num_key_value_heads (heads when absent)
    Count hd;     ///< head_dim (hidden_size / heads when absent)
};

/// Pure state-space models (no attention). Mamba-1 (transformers modeling_mamba.py MambaMixer):
/// in_proj hidden -> 2 d_inner, a depthwise conv with bias, x_proj d_inner -> dt_rank + 2 state,
/// dt_proj dt_rank -> d_inner with bias, A_log d_inner x state, D, out_proj, one norm a layer;
/// dt_rank "auto" is ceil(hidden / 16). Mamba-2 (modeling_mamba2.py Mamba2Mixer): in_proj hidden ->
/// 2 d_inner + 2 groups x state + heads, conv with bias over d_inner + 2 groups x state, dt_bias /
/// A_log / D per head, a gated norm over d_inner, out_proj. MambaConfig ties the LM head by default.
/// `h` is hidden_size, `layers` num_hidden_layers.
ParameterCount stateSpaceParameters(const QJsonObject &c, const QString &type, const Count &h, const Count &layers)
{
    ParameterCount p;
    const bool two = type == QLatin1String("mamba2");
    const Count vocabSsm = num(c, "vocab_size", 0);
    const Count state = num(c, "state_size", two ? 128 : 16), kernel = num(c, "conv_kernel", 4);
    const Count dInner = !two && c.contains(QStringLiteral("intermediate_size")) ? num(c, "intermediate_size", 0) : num(c, "expand", 2) * h;
    Count layer;
    if (two) {
        const Count heads2 = num(c, "num_heads", 128), groups = num(c, "n_groups", 8);
        const Count convDim = dInner + Count(2) * groups * state;
        layer = h * (Count(2) * dInner + Count(2) * groups * state + heads2) + convDim * kernel + convDim
            + Count(3) * heads2 + dInner + dInner * h + h;
    } else {
        const Count autoRank((h.v + 15) / 16, QStringLiteral("hidden_size"));
        const Count dtRank = c.value(QStringLiteral("time_step_rank")).isDouble() ? num(c, "time_step_rank", autoRank) : autoRank;
        layer = h * Count(2) * dInner + dInner * kernel + dInner + dInner * (dtRank + Count(2) * state) + dtRank * dInner + dInner
            + dInner * state + dInner + dInner * h + h;
    }
    const QJsonValue tieSsm = c.value(QStringLiteral("tie_word_embeddings"));
    const bool tiedSsm = tieSsm.isBool() ? tieSsm.toBool() : !two;
    p.total = p.active = (layers * layer + vocabSsm * h * Count(tiedSsm ? 1 : 2) + h).v;
    p.note = QStringLiteral("derived from the config's shapes (embeddings, Mamba mixers, norms)");
    return p;
}

/// One attention layer's weights: MLA as DeepSeek-V3's q_a/q_b (q_lora_rank), kv_a
/// (kv_lora_rank + qk_rope_head_dim), kv_b and o, with DeepSeek-V3.2's indexer; else
/// q/k/v/o of heads x head_dim (q, o) and KV heads x head_dim (k, v).
Count attentionParameters(const QJsonObject &c, const Basics &b)
{
    const Count &h = b.h, &heads = b.heads;
    if (!c.contains(QStringLiteral("kv_lora_rank")) || c.value(QStringLiteral("kv_lora_rank")).isNull())
        return h * heads * b.hd + Count(2) * h * b.kv * b.hd + heads * b.hd * h;
    const Count qLora = num(c, "q_lora_rank", 0), kvLora = num(c, "kv_lora_rank", 0), rope = num(c, "qk_rope_head_dim", 0);
    const Count nope = num(c, "qk_nope_head_dim", 0), v = num(c, "v_head_dim", nope);
    const Count qHead = nope + rope;
    Count attention = (qLora.v > 0 ? h * qLora + qLora + qLora * heads * qHead : h * heads * qHead)
        + h * (kvLora + rope) + kvLora + kvLora * heads * (nope + v) + heads * v * h;
    // DeepSeek-V3.2's lightning indexer (vllm/model_executor/models/deepseek_v2.py,
    // Indexer): wq_b q_lora_rank -> index_n_heads x index_head_dim, wk hidden ->
    // index_head_dim, k_norm LayerNorm (weight + bias), weights_proj hidden -> index_n_heads.
    const Count indexHeads = num(c, "index_n_heads", 0), indexDim = num(c, "index_head_dim", 0);
    if (indexDim.v > 0)
        attention = attention + qLora * indexHeads * indexDim + h * indexDim + Count(2) * indexDim + h * indexHeads;
    return attention;
}

/// Gemma 4's full-attention layers: heads of global_head_dim and, with attention_k_eq_v, no
/// v_proj and num_global_key_value_heads KV heads (transformers Gemma4TextConfig.__post_init__);
/// `attention` for every other family.
Count globalAttentionParameters(const QJsonObject &c, const Basics &b, const Count &attention)
{
    const Count globalHd = num(c, "global_head_dim", 0);
    if (globalHd.v <= 0 || c.contains(QStringLiteral("kv_lora_rank")))
        return attention;
    const bool kEqV = c.value(QStringLiteral("attention_k_eq_v")).toBool();
    const Count globalKv = kEqV ? num(c, "num_global_key_value_heads", b.kv) : b.kv;
    return b.h * b.heads * globalHd + Count(kEqV ? 1 : 2) * b.h * globalKv * globalHd + b.heads * globalHd * b.h;
}

/// Per-layer input embeddings (Gemma 3n, Gemma 4 E-models; transformers modeling_gemma3n.py):
/// one table of vocab_size_per_layer_input x (layers x hidden_size_per_layer_input), its
/// projection from hidden_size and norm (`table`), and in each layer a gate (hidden -> per-layer
/// width), a projection back and a norm (`perLayer`). Both 0 without them.
struct PerLayerEmbeddings
{
    Count table, perLayer;
};

PerLayerEmbeddings perLayerEmbeddings(const QJsonObject &c, const Basics &b)
{
    const Count &h = b.h, &layers = b.layers;
    const Count pleWidth = num(c, "hidden_size_per_layer_input", 0), pleVocab = num(c, "vocab_size_per_layer_input", 0);
    const Count ple = pleWidth.v > 0 && pleVocab.v > 0
        ? pleVocab * layers * pleWidth + h * layers * pleWidth + pleWidth
        : Count(0);
    const Count plePerLayer = pleWidth.v > 0 && pleVocab.v > 0 ? Count(2) * h * pleWidth + h : Count(0);
    return {ple, plePerLayer};
}

/// A listed layer index: a whole number within the layers, else -1 (names no layer; a
/// double past 2^63 has no qint64, and converting it was undefined behaviour).
qint64 layerIndex(const QJsonValue &v)
{
    const double d = v.toDouble(-1);
    return d >= 0 && d < double(maxLayers) && d == std::floor(d) ? qint64(d) : qint64(-1);
}

/// The feed-forward side of the layers: the dense MLP, the routed and shared experts, and
/// which layers are MoE.
struct MoeLayout
{
    Count experts, topK, expertInter, sharedInter, denseMlp, expertMlp;
    Count firstDense, expertPeriod, expertOffset, sparseStep;
    QSet<qint64> mlpOnly, moeLayers;
    bool moeListed = false; ///< moe_layers lists the MoE layers outright

    /// True when layer `i` holds experts rather than the dense MLP.
    bool isMoe(qint64 i) const
    {
        return experts.v > 0 && i >= firstDense.v && (i % expertPeriod.v) == expertOffset.v % expertPeriod.v
            && (!moeListed ? (i + 1) % sparseStep.v == 0 : moeLayers.contains(i)) && !mlpOnly.contains(i);
    }
};

/// The MoE layout of config `c` (model_type `type`, MLP width `inter`).
MoeLayout moeLayoutOf(const QJsonObject &c, const QString &type, const FamilyTraits &family, const Count &h, const Count &inter)
{
    MoeLayout e;
    e.experts = num(c, "num_local_experts", num(c, "num_experts", num(c, "n_routed_experts", 0)));
    e.topK = num(c, "num_experts_per_tok", 0);
    e.expertInter = num(c, "moe_intermediate_size", inter);
    // Llama 4's MoE layers always add one shared expert as wide as a routed one
    // (transformers modeling_llama4.py Llama4TextMoe.shared_expert; vllm llama4.py Llama4MoE).
    const bool llama4 = type.startsWith(QLatin1String("llama4"));
    // GraniteMoe(Hybrid)Config: every layer has a shared MLP of shared_intermediate_size (its
    // GraniteMoeHybridDecoderLayer.shared_mlp), beside experts of intermediate_size where it has any.
    const bool granite = type.startsWith(QLatin1String("granitemoe"));
    e.sharedInter = num(c, "shared_expert_intermediate_size",
                        granite ? num(c, "shared_intermediate_size", 0)
                                : llama4 ? e.expertInter : num(c, "n_shared_experts", 0) * e.expertInter);
    // The dense layers of an MoE model: Llama 4 names their width intermediate_size_mlp
    // (intermediate_size is its experts'); the others use intermediate_size.
    e.denseMlp = granite ? Count(3) * h * e.sharedInter
                         : Count(family.ungatedMlp ? 2 : 3) * h * num(c, "intermediate_size_mlp", inter);
    e.expertMlp = Count(3) * h * e.expertInter;
    e.firstDense = num(c, "first_k_dense_replace", 0);
    // Jamba: an MoE layer every expert_layer_period-th layer (a period of 0 would divide by zero).
    e.expertPeriod = num(c, "expert_layer_period", 1, 1, maxLayers), e.expertOffset = num(c, "expert_layer_offset", 0, 0, maxLayers);
    // Qwen2-MoE / Qwen3-MoE (decoder_sparse_step, mlp_only_layers) and Llama 4
    // (interleave_moe_layer_step): layer i is MoE when (i + 1) % step == 0 and it is not
    // listed as MLP-only (transformers Qwen3MoeDecoderLayer, Llama4TextConfig.moe_layers).
    e.sparseStep = num(c, "decoder_sparse_step", num(c, "interleave_moe_layer_step", 1, 1, maxLayers), 1, maxLayers);
    for (const QJsonValue &v : c.value(QStringLiteral("mlp_only_layers")).toArray())
        e.mlpOnly.insert(layerIndex(v));
    // Llama 4 may list its MoE layers outright (Llama4TextConfig.moe_layers); the list wins.
    const QJsonArray moeList = c.value(QStringLiteral("moe_layers")).toArray();
    e.moeListed = !moeList.isEmpty();
    for (const QJsonValue &v : moeList)
        e.moeLayers.insert(layerIndex(v));
    return e;
}

/// Jamba's Mamba-1 mixer: in_proj, conv1d, x_proj, dt_proj, A, D, out_proj and its dt/B/C
/// layernorms; mamba_dt_rank "auto" (JambaConfig's default) is ceil(hidden_size / 16).
Count jambaMambaParameters(const QJsonObject &c, const Count &h)
{
    const Count dInner = num(c, "mamba_expand", 2) * h, dState = num(c, "mamba_d_state", 16);
    const Count dConv = num(c, "mamba_d_conv", 4);
    const Count autoRank((h.v + 15) / 16, QStringLiteral("hidden_size"));
    const Count dtRank = c.value(QStringLiteral("mamba_dt_rank")) == QJsonValue(QStringLiteral("auto")) ? autoRank : num(c, "mamba_dt_rank", autoRank);
    return h * Count(2) * dInner + dInner * dConv + dInner + dInner * (dtRank + Count(2) * dState) + dtRank * dInner + dInner
        + dInner * dState + dInner + dInner * h + Count(2) * dtRank + Count(2) * dState; // + Jamba's dt/B/C layernorms
}

/// A Gated DeltaNet mixer (Qwen3-Next, Qwen3.5): in_proj_qkvz, in_proj_ba, conv1d, dt_bias,
/// A_log, norm, out_proj.
Count gatedDeltaNetParameters(const QJsonObject &c, const Count &h)
{
    const Count kH = num(c, "linear_num_key_heads", 0), vH = num(c, "linear_num_value_heads", 0);
    const Count kD = num(c, "linear_key_head_dim", 0), vD = num(c, "linear_value_head_dim", 0);
    const Count kernel = num(c, "linear_conv_kernel_dim", 4);
    const Count convDim = Count(2) * kH * kD + vH * vD;
    return h * (Count(2) * kH * kD + Count(2) * vH * vD) + h * Count(2) * vH + convDim * kernel + Count(2) * vH + vD + vH * vD * h;
}

/// A Mamba-2 mixer of `mHeads` heads over `dInner`: in_proj hidden -> 2 d_inner + 2 groups x
/// state + heads, a depthwise conv with bias over d_inner + 2 groups x state, dt_bias / A_log /
/// D per head, a gated norm over d_inner, out_proj.
Count mamba2Parameters(const Count &h, const Count &mHeads, const Count &dInner, const Count &groups, const Count &state, const Count &kernel)
{
    const Count convDim = dInner + Count(2) * groups * state;
    return h * (Count(2) * dInner + Count(2) * groups * state + mHeads) + convDim * kernel + convDim
        + Count(3) * mHeads + dInner + dInner * h;
}

/// The token mixers of each layer kind and which layers use which.
struct Mixers
{
    QJsonArray types;     ///< layer_types
    Count attnPeriod, attnOffset, fullInterval;
    Count mamba, deltaNet, lightning, mamba2;
    QString hybridPattern; ///< Nemotron-H's hybrid_override_pattern
    QJsonArray attnTypes;  ///< MiniMax's attn_type_list
    bool graniteMamba = false;

    /// The mixer of layer `i`, `attention` for an attention layer.
    Count of(qint64 i, const Count &attention) const
    {
        if (attnPeriod.v > 0 && i % attnPeriod.v != attnOffset.v)
            return mamba;
        if (fullInterval.v > 0 && (i + 1) % fullInterval.v != 0)
            return deltaNet;
        if (i < types.size() && types.at(int(i)).toString() == QLatin1String("linear_attention"))
            return deltaNet;
        if (graniteMamba && i < types.size() && types.at(int(i)).toString() == QLatin1String("mamba"))
            return mamba2;
        if (i < attnTypes.size() && attnTypes.at(int(i)) == QJsonValue(0))
            return lightning;
        return attention;
    }
};

/// The mixers config `c` builds besides attention, counted only where its markers say so.
Mixers mixersOf(const QJsonObject &c, const Basics &b)
{
    const Count &h = b.h;
    Mixers x;
    x.types = c.value(QStringLiteral("layer_types")).toArray();
    x.attnPeriod = num(c, "attn_layer_period", 0, 0, maxLayers), x.attnOffset = num(c, "attn_layer_offset", 0, 0, maxLayers);
    x.fullInterval = num(c, "full_attention_interval", 0, 0, maxLayers);
    if (x.attnPeriod.v > 0)
        x.mamba = jambaMambaParameters(c, h);
    // Gated DeltaNet layers: Qwen3-Next says full_attention_interval, Qwen3.5 only layer_types.
    if (x.fullInterval.v > 0 || c.contains(QStringLiteral("linear_num_value_heads")))
        x.deltaNet = gatedDeltaNetParameters(c, h);
    // Nemotron-H (hybrid_override_pattern; vllm/model_executor/models/nemotron_h.py): each layer is
    // one norm and one block: M a Mamba-2 mixer, * attention, - an ungated MLP (up, down), E routed
    // ungated experts + a shared one + the router.
    // Granite 4's "mamba" layers (layer_types, mamba_n_heads) are the same Mamba-2 mixer
    // (vllm/model_executor/models/granitemoehybrid.py); its d_head "auto" is mamba_expand x hidden / heads.
    x.hybridPattern = c.value(QStringLiteral("hybrid_override_pattern")).toString();
    // MiniMax lightning attention layers (attn_type_list 0; vllm minimax_text_01.py
    // MiniMaxText01LinearAttention): qkv_proj hidden -> 3 x heads x head_dim, output_gate hidden ->
    // heads x head_dim, out_proj back, and a norm over heads x head_dim.
    x.attnTypes = c.value(QStringLiteral("attn_type_list")).toArray();
    x.lightning = Count(5) * h * b.heads * b.hd + b.heads * b.hd;
    if (!x.hybridPattern.isEmpty())
        x.mamba2 = mamba2Parameters(h, num(c, "mamba_num_heads", 0), num(c, "mamba_num_heads", 0) * num(c, "mamba_head_dim", 0),
                                    num(c, "n_groups", 8), num(c, "ssm_state_size", 128), num(c, "conv_kernel", 4));
    x.graniteMamba = c.contains(QStringLiteral("mamba_n_heads")) && !c.contains(QStringLiteral("mamba_d_ssm"));
    if (x.graniteMamba) {
        const Count heads2 = num(c, "mamba_n_heads", 0);
        const Count dInner = c.value(QStringLiteral("mamba_d_head")).isDouble() ? heads2 * num(c, "mamba_d_head", 0)
                                                                               : num(c, "mamba_expand", 2) * h;
        x.mamba2 = mamba2Parameters(h, heads2, dInner, num(c, "mamba_n_groups", 1), num(c, "mamba_d_state", 256), num(c, "mamba_d_conv", 4));
    }
    return x;
}

/// Adds one Nemotron-H layer of kind `block` (its hybrid_override_pattern letter) and its norm
/// to `total` and `active`: M a Mamba-2 mixer, * attention, E routed ungated experts of which
/// top-k are active, a shared one and the router, - an ungated MLP.
void addNemotronBlock(const QJsonObject &c, QChar block, const Count &h, const Count &inter, const MoeLayout &e, const Mixers &x,
                      const Count &attention, Count &total, Count &active)
{
    const Count shared = Count(2) * h * num(c, "moe_shared_expert_intermediate_size", 0) * num(c, "n_shared_experts", 1);
    const Count routed = Count(2) * h * e.expertInter;
    const Count blockTotal = block == QLatin1Char('M') ? x.mamba2
        : block == QLatin1Char('*') ? attention
        : block == QLatin1Char('E') ? e.experts * routed + shared + h * e.experts
        : Count(2) * h * inter;
    const Count blockActive = block == QLatin1Char('E') ? e.topK * routed + shared + h * e.experts : blockTotal;
    total += blockTotal + h;
    active += blockActive + h;
}

} // namespace

FamilyTraits familyTraits(const QString &modelType)
{
    struct Row { const char *type; FamilyTraits traits; };
    //                               falcon ungated fourWide tied  positions
    static const Row rows[] = {
        {"gpt2",            {false, true,  true,  true,  true}},
        {"gpt_bigcode",     {false, true,  true,  true,  true}},
        {"gpt_neo",         {false, true,  true,  true,  true}},
        {"gptj",            {false, true,  true,  false, false}},
        {"codegen",         {false, true,  true,  false, false}},
        {"gpt_neox",        {false, true,  false, false, false}},
        {"falcon",          {true,  true,  true,  true,  false}},
        {"RefinedWeb",      {true,  true,  true,  true,  false}},
        {"RefinedWebModel", {true,  true,  true,  true,  false}},
        {"bloom",           {false, true,  true,  true,  false}},
        {"opt",             {false, true,  false, true,  true}},
        {"mpt",             {false, true,  true,  true,  false}},
        {"phi",             {false, true,  false, false, false}},
        {"starcoder2",      {false, true,  false, false, false}},
        // CohereConfig and Cohere2Config (Command R, R7B, A): tie_word_embeddings=True by default.
        {"cohere",          {false, false, false, true,  false}},
        {"cohere2",         {false, false, false, true,  false}},
    };
    for (const Row &r : rows)
        if (modelType == QLatin1String(r.type))
            return r.traits;
    return {};
}

bool isStateSpaceFamily(const QString &modelType)
{
    return modelType == QLatin1String("mamba") || modelType == QLatin1String("falcon_mamba") || modelType == QLatin1String("mamba2");
}

ParameterCount countParameters(const QJsonObject &root)
{
    ParameterCount p;
    QJsonObject c = root.value(QStringLiteral("text_config")).isObject() ? root.value(QStringLiteral("text_config")).toObject() : root;
    const QString type = c.value(QStringLiteral("model_type")).toString(root.value(QStringLiteral("model_type")).toString());
    const Count h = num(c, "hidden_size", 0), layers = num(c, "num_hidden_layers", 0, 0, maxLayers);
    const FamilyTraits family = familyTraits(type);
    if (isStateSpaceFamily(type))
        return stateSpaceParameters(c, type, h, layers);
    const Count heads = num(c, "num_attention_heads", 0);
    const Count vocab = num(c, "vocab_size", Count(type == QLatin1String("gemma3_text") ? 262208 : 0, QStringLiteral("vocab_size")));
    const Count inter = num(c, "intermediate_size", 0);
    if (h.v <= 0 || layers.v <= 0 || heads.v <= 0 || vocab.v <= 0) {
        p.note = QStringLiteral("not derived: hidden_size, num_hidden_layers, num_attention_heads and vocab_size are needed");
        return p;
    }
    if (type == QLatin1String("falcon_h1")) {
        p.note = QStringLiteral("not derived: Falcon-H1's parallel Mamba-2 mixers are not counted");
        return p;
    }
    const Count kv = num(c, "num_key_value_heads", heads);
    const Basics b{h, layers, heads, kv, num(c, "head_dim", Count(h.v / heads.v, QStringLiteral("hidden_size")))};
    const bool gemma = type.startsWith(QLatin1String("gemma"));
    const QJsonValue tieValue = c.value(QStringLiteral("tie_word_embeddings")).isBool() ? c.value(QStringLiteral("tie_word_embeddings"))
                                                                                        : root.value(QStringLiteral("tie_word_embeddings"));
    const bool tied = tieValue.isBool() ? tieValue.toBool() : gemma;
    const Count attention = attentionParameters(c, b);
    const Count fullAttention = globalAttentionParameters(c, b, attention);
    const Count swPattern = c.value(QStringLiteral("sliding_window_pattern")).isDouble() ? num(c, "sliding_window_pattern", 0, 0, maxLayers) : Count(0);
    const PerLayerEmbeddings ple = perLayerEmbeddings(c, b);
    const MoeLayout e = moeLayoutOf(c, type, family, h, inter);
    const Mixers x = mixersOf(c, b);
    const Count positions = family.learnedPositions
        ? (num(c, "max_position_embeddings", 0) + Count(type == QLatin1String("opt") ? 2 : 0)) * h
        : Count(0);
    Count total = vocab * h * Count(tied ? 1 : 2) + h + positions + ple.table;
    Count active = total;
    for (qint64 i = 0; i < layers.v; ++i) {
        const bool fullLayer = i < x.types.size() ? x.types.at(int(i)).toString() == QLatin1String("full_attention")
                                                  : swPattern.v > 0 && (i + 1) % swPattern.v == 0;
        const Count mixer = x.of(i, fullLayer ? fullAttention : attention);
        if (!x.hybridPattern.isEmpty() && i < x.hybridPattern.size()) {
            addNemotronBlock(c, x.hybridPattern.at(int(i)), h, inter, e, x, attention, total, active);
            continue;
        }
        Count ffnTotal = e.denseMlp, ffnActive = e.denseMlp;
        if (e.isMoe(i)) {
            ffnTotal = e.experts * e.expertMlp + h * e.experts + Count(3) * h * e.sharedInter;
            ffnActive = e.topK * e.expertMlp + h * e.experts + Count(3) * h * e.sharedInter;
        }
        total += mixer + ffnTotal + Count(2) * h + ple.perLayer;
        active += mixer + ffnActive + Count(2) * h + ple.perLayer;
    }
    // A multimodal checkpoint also holds its vision encoder (loaded with the model).
    const VisionEncoder vision = countVisionEncoder(root, h.v);
    total += Count(vision.params, QStringLiteral("vision_config"), kParameters);
    p.total = total.v;
    p.active = active.v;
    p.visionParams = vision.params;
    p.note = QStringLiteral("derived from the config's shapes (embeddings, attention, MLP/experts, mixers, norms%1)")
                 .arg(vision.params > 0 ? QStringLiteral(", ") + vision.note : QString());
    return p;
}

} // namespace Headroom
