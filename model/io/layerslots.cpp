// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/layerslots.h"
#include "io/configfields.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"

#include <QJsonArray>
#include <algorithm>

namespace Headroom {

using namespace ConfigFields;

namespace {

/// What a family's rule reads: the config, its model_type and layer count, and the
/// window fields read before any rule (so their refusals come first).
struct SlotInput
{
    const QJsonObject &c;
    const QString &modelType;
    int layers = 0;
    qint64 window = 0;      ///< sliding_window (0 = none)
    QJsonValue useSw;       ///< use_sliding_window as given
    qint64 chunk = 0;       ///< attention_chunk_size (0 = none)
};

/// layer_types, one name a layer ("full_attention", "sliding_attention", "chunked_attention",
/// "linear_attention", "mamba"; "attention" / "global", "local" / "sliding" too).
QVector<LayerSlot> fromLayerTypes(const SlotInput &in)
{
    const QJsonArray types = in.c.value(QStringLiteral("layer_types")).toArray();
    if (types.size() != in.layers)
        throw InputError(QStringLiteral("layer_types"),
                         QStringLiteral("lists %1 layers but num_hidden_layers is %2").arg(types.size()).arg(in.layers));
    QVector<LayerSlot> kinds;
    for (int i = 0; i < types.size(); ++i) {
        const QString t = types.at(i).toString();
        if (t == QLatin1String("full_attention") || t == QLatin1String("attention") || t == QLatin1String("global"))
            kinds << LayerSlot::Full;
        else if (t == QLatin1String("sliding_attention") || t == QLatin1String("local") || t == QLatin1String("sliding"))
            kinds << LayerSlot::Sliding;
        else if (t == QLatin1String("chunked_attention"))
            kinds << LayerSlot::Chunked;
        else if (t == QLatin1String("linear_attention"))
            kinds << LayerSlot::Linear;
        else if (t == QLatin1String("mamba"))
            kinds << LayerSlot::Mamba;
        else
            throw InputError(QStringLiteral("layer_types[%1]").arg(i),
                             QStringLiteral("unknown layer kind \"%1\"; Headroom sizes full_attention, "
                                            "sliding_attention, chunked_attention, linear_attention and mamba layers")
                                 .arg(t));
    }
    return kinds;
}

/// Jamba: attention where i % attn_layer_period == attn_layer_offset, Mamba-1 elsewhere.
QVector<LayerSlot> jamba(const SlotInput &in)
{
    const int period = smallField(in.c, "attn_layer_period", 0, true);
    const int offset = smallField(in.c, "attn_layer_offset", 0, true, 0);
    if (offset >= period)
        throw InputError(QStringLiteral("attn_layer_offset"),
                         QStringLiteral("must be below attn_layer_period %1, got %2").arg(period).arg(offset));
    QVector<LayerSlot> kinds(in.layers);
    for (int i = 0; i < in.layers; ++i)
        kinds[i] = (i % period == offset) ? LayerSlot::Full : LayerSlot::Mamba;
    return kinds;
}

/// Qwen3-Next: full attention where (i + 1) % full_attention_interval == 0, Gated DeltaNet elsewhere.
QVector<LayerSlot> qwenNext(const SlotInput &in)
{
    const int interval = smallField(in.c, "full_attention_interval", 0, true);
    QVector<LayerSlot> kinds(in.layers);
    for (int i = 0; i < in.layers; ++i)
        kinds[i] = ((i + 1) % interval == 0) ? LayerSlot::Full : LayerSlot::Linear;
    return kinds;
}

/// Gemma 2 (modeling_gemma2.py): even layers slide, odd layers attend to all.
QVector<LayerSlot> gemma2(const SlotInput &in)
{
    QVector<LayerSlot> kinds(in.layers);
    for (int i = 0; i < in.layers; ++i)
        kinds[i] = (i % 2 == 0) ? LayerSlot::Sliding : LayerSlot::Full;
    return kinds;
}

/// MiniMax-Text-01 / M1 / M2: attn_type_list, one 0 (lightning linear attention) or 1 (softmax
/// attention) a layer (vllm/model_executor/models/minimax_text_01.py decoder_attention_types).
QVector<LayerSlot> miniMax(const SlotInput &in)
{
    const QJsonArray list = in.c.value(QStringLiteral("attn_type_list")).toArray();
    // MiniMax-M2 lists only softmax layers (vllm minimax_m2.py reads no list: all attention);
    // a list of ones says all-attention whatever its length.
    bool allSoftmax = true;
    for (const QJsonValue &v : list)
        allSoftmax = allSoftmax && v == QJsonValue(1);
    if (!allSoftmax && list.size() != in.layers)
        throw InputError(QStringLiteral("attn_type_list"),
                         QStringLiteral("lists %1 layers but num_hidden_layers is %2").arg(list.size()).arg(in.layers));
    QVector<LayerSlot> kinds(in.layers, LayerSlot::Full);
    for (int i = 0; i < in.layers && !allSoftmax; ++i) {
        if (list.at(i) != QJsonValue(0) && list.at(i) != QJsonValue(1))
            throw InputError(QStringLiteral("attn_type_list[%1]").arg(i),
                             QStringLiteral("must be 0 (lightning linear attention) or 1 (softmax attention)"));
        kinds[i] = list.at(i) == QJsonValue(1) ? LayerSlot::Full : LayerSlot::Lightning;
    }
    return kinds;
}

/// Nemotron-H: hybrid_override_pattern, one letter a layer (vllm/model_executor/models/
/// nemotron_h.py ALL_DECODER_LAYER_TYPES: M mamba, * attention, - mlp, E moe; only the
/// first two keep state for a session).
QVector<LayerSlot> nemotronH(const SlotInput &in)
{
    const QJsonValue v = in.c.value(QStringLiteral("hybrid_override_pattern"));
    if (!v.isString())
        throw InputError(QStringLiteral("hybrid_override_pattern"), QStringLiteral("must be a string of M, *, - and E (one a layer)"));
    const QString pattern = v.toString();
    if (pattern.size() != in.layers)
        throw InputError(QStringLiteral("hybrid_override_pattern"),
                         QStringLiteral("names %1 layers but num_hidden_layers is %2").arg(pattern.size()).arg(in.layers));
    QVector<LayerSlot> kinds(in.layers);
    for (int i = 0; i < in.layers; ++i) {
        const QChar ch = pattern.at(i);
        if (ch == QLatin1Char('M'))
            kinds[i] = LayerSlot::Mamba2;
        else if (ch == QLatin1Char('*'))
            kinds[i] = LayerSlot::Full;
        else if (ch == QLatin1Char('-') || ch == QLatin1Char('E'))
            kinds[i] = LayerSlot::Stateless;
        else
            throw InputError(QStringLiteral("hybrid_override_pattern"),
                             QStringLiteral("has \"%1\" at layer %2; Headroom reads M (Mamba-2), * (attention), - (MLP) and E (MoE)")
                                 .arg(ch).arg(i));
    }
    return kinds;
}

/// Llama 4 (transformers Llama4TextConfig; vllm/model_executor/models/llama4.py
/// Llama4Attention): a layer that uses RoPE (no_rope_layers[i] == 1) attends within
/// chunks of attention_chunk_size tokens, a NoPE layer (0) attends to all. Without the
/// list, every no_rope_layer_interval-th layer (default 4) is the NoPE one.
QVector<LayerSlot> llama4(const SlotInput &in)
{
    const QJsonValue list = in.c.value(QStringLiteral("no_rope_layers"));
    if (!list.isUndefined() && !list.isNull() && !list.isArray())
        throw InputError(QStringLiteral("no_rope_layers"), QStringLiteral("must be an array of 0 (no RoPE, full attention) and 1 (RoPE, chunked attention)"));
    const QJsonArray flags = list.toArray();
    if (!flags.isEmpty() && flags.size() != in.layers)
        throw InputError(QStringLiteral("no_rope_layers"),
                         QStringLiteral("lists %1 layers but num_hidden_layers is %2").arg(flags.size()).arg(in.layers));
    const int interval = smallField(in.c, "no_rope_layer_interval", 4, false);
    QVector<LayerSlot> kinds(in.layers);
    for (int i = 0; i < in.layers; ++i) {
        if (!flags.isEmpty() && flags.at(i) != QJsonValue(0) && flags.at(i) != QJsonValue(1))
            throw InputError(QStringLiteral("no_rope_layers[%1]").arg(i), QStringLiteral("must be 0 or 1"));
        const bool rope = flags.isEmpty() ? (i + 1) % interval != 0 : flags.at(i) == QJsonValue(1);
        kinds[i] = rope ? LayerSlot::Chunked : LayerSlot::Full;
    }
    return kinds;
}

/// EXAONE 4.0 spells the pattern as letters ("LLLG"): L a local (sliding) layer,
/// G a global one, repeated over the layers (vllm/model_executor/models/exaone4.py
/// reads the same per-layer choice from layer_types).
QVector<LayerSlot> exaoneLetters(const SlotInput &in)
{
    const QString pattern = in.c.value(QStringLiteral("sliding_window_pattern")).toString();
    for (QChar ch : pattern)
        if (ch != QLatin1Char('L') && ch != QLatin1Char('G'))
            throw InputError(QStringLiteral("sliding_window_pattern"),
                             QStringLiteral("must be a number or letters L (local) and G (global), got \"%1\"").arg(pattern));
    if (pattern.isEmpty())
        throw InputError(QStringLiteral("sliding_window_pattern"), QStringLiteral("must not be empty"));
    QVector<LayerSlot> kinds(in.layers);
    for (int i = 0; i < in.layers; ++i)
        kinds[i] = pattern.at(i % pattern.size()) == QLatin1Char('L') ? LayerSlot::Sliding : LayerSlot::Full;
    return kinds;
}

/// Gemma 3, Cohere2 (Command R7B, Command A), EXAONE 4.0 (numeric): every pattern-th
/// layer is global (transformers Gemma3TextConfig / Cohere2Config / Exaone4Config layer_types).
QVector<LayerSlot> everyPatternthGlobal(const SlotInput &in)
{
    const int pattern = smallField(in.c, "sliding_window_pattern", 0, true);
    QVector<LayerSlot> kinds(in.layers);
    for (int i = 0; i < in.layers; ++i)
        kinds[i] = ((i + 1) % pattern != 0) ? LayerSlot::Sliding : LayerSlot::Full;
    return kinds;
}

/// Qwen2-style configs: slide only when use_sliding_window is true, for layers >= max_window_layers.
QVector<LayerSlot> qwen2(const SlotInput &in)
{
    QVector<LayerSlot> kinds(in.layers, LayerSlot::Full);
    if (in.useSw.toBool()) {
        const int from = smallField(in.c, "max_window_layers", 0, false, 0);
        for (int i = from; i < in.layers; ++i)
            kinds[i] = LayerSlot::Sliding;
    }
    return kinds;
}

/// Families whose config class carries use_sliding_window (transformers Qwen2Config, Qwen2MoeConfig,
/// Qwen3Config, Qwen3MoeConfig, default False): a sliding_window without it is not in force.
bool qwenFamily(const QString &modelType)
{
    return modelType.startsWith(QLatin1String("qwen"));
}

/// Families whose attention passes sliding_window to every layer when the config sets it
/// (transformers modeling_mistral.py, modeling_mixtral.py, modeling_phi3.py, modeling_phimoe.py,
/// modeling_starcoder2.py: sliding_window=config.sliding_window in each layer's attention).
/// Others (Llama among them: LlamaConfig has no sliding_window, and vLLM's llama.py slides only
/// the layers layer_types names) keep full attention on every layer.
bool slidesEveryLayer(const QString &modelType)
{
    static const QStringList families{QStringLiteral("mistral"), QStringLiteral("mixtral"), QStringLiteral("phi3"),
                                      QStringLiteral("phimoe"), QStringLiteral("starcoder2")};
    return families.contains(modelType);
}

/// A sliding_window on every layer (Mistral-7B-v0.1, Phi-3: slidesEveryLayer).
QVector<LayerSlot> allSliding(const SlotInput &in)
{
    return QVector<LayerSlot>(in.layers, LayerSlot::Sliding);
}

/// One architecture family's layer rule: when it applies, and the kinds it gives.
struct FamilyRule
{
    bool (*applies)(const SlotInput &);
    QVector<LayerSlot> (*kinds)(const SlotInput &);
};

/// The families, in the order their markers are looked for: the first that applies decides.
const FamilyRule familyRules[] = {
    // Any family that names each layer (layer_types).
    {[](const SlotInput &in) { return in.c.value(QStringLiteral("layer_types")).isArray(); }, fromLayerTypes},
    // Jamba (attn_layer_period).
    {[](const SlotInput &in) { return has(in.c, "attn_layer_period"); }, jamba},
    // Qwen3-Next, Qwen3.5 (full_attention_interval, linear_num_value_heads).
    {[](const SlotInput &in) { return has(in.c, "full_attention_interval") || has(in.c, "linear_num_value_heads"); }, qwenNext},
    // Gemma 2 (model_type gemma2 with a sliding_window).
    {[](const SlotInput &in) { return in.window > 0 && in.modelType == QLatin1String("gemma2"); }, gemma2},
    // MiniMax (attn_type_list).
    {[](const SlotInput &in) { return in.c.value(QStringLiteral("attn_type_list")).isArray(); }, miniMax},
    // Nemotron-H (hybrid_override_pattern).
    {[](const SlotInput &in) { return has(in.c, "hybrid_override_pattern"); }, nemotronH},
    // Llama 4 (attention_chunk_size).
    {[](const SlotInput &in) { return in.chunk > 0; }, llama4},
    // EXAONE 4.0 (sliding_window_pattern as letters).
    {[](const SlotInput &in) { return in.window > 0 && in.c.value(QStringLiteral("sliding_window_pattern")).isString(); }, exaoneLetters},
    // Gemma 3, Cohere2, EXAONE 4.0 (sliding_window_pattern as a number).
    {[](const SlotInput &in) { return in.window > 0 && has(in.c, "sliding_window_pattern"); }, everyPatternthGlobal},
    // Qwen2 and its kin (use_sliding_window, False when absent).
    {[](const SlotInput &in) { return in.window > 0 && (in.useSw.isBool() || qwenFamily(in.modelType)); }, qwen2},
    // Mistral-7B-v0.1, Phi-3 (sliding_window alone, in families that slide every layer by it).
    {[](const SlotInput &in) { return in.window > 0 && slidesEveryLayer(in.modelType); }, allSliding},
};

} // namespace

bool hasGraniteMambaLayers(const QJsonObject &c)
{
    bool layerTypesMamba = false;
    for (const QJsonValue &t : c.value(QStringLiteral("layer_types")).toArray())
        layerTypesMamba = layerTypesMamba || t.toString() == QLatin1String("mamba");
    return layerTypesMamba && has(c, "mamba_n_heads");
}

LayerSlots layerSlotsOf(const QJsonObject &c, const QString &modelType, int layers)
{
    const QJsonValue layerTypes = c.value(QStringLiteral("layer_types"));
    if (!layerTypes.isUndefined() && !layerTypes.isNull() && !layerTypes.isArray())
        throw InputError(QStringLiteral("layer_types"), QStringLiteral("must be an array of layer kinds"));
    LayerSlots s;
    s.window = intField(c, "sliding_window", 0, false, 0);
    const QJsonValue useSw = c.value(QStringLiteral("use_sliding_window"));
    // A switch that is not true or false (a string "false" reads as true in Python, 0 as false)
    // is refused: which layers slide turns on it (an attacker's "false" slid every Qwen2 layer).
    if (!useSw.isUndefined() && !useSw.isNull() && !useSw.isBool())
        throw InputError(QStringLiteral("use_sliding_window"),
                         QStringLiteral("must be true or false, got %1").arg(JsonNumbers::shown(useSw)));
    s.chunk = intField(c, "attention_chunk_size", 0, false, 0);
    const SlotInput in{c, modelType, layers, s.window, useSw, s.chunk};
    s.kinds = QVector<LayerSlot>(layers, LayerSlot::Full);
    bool ruled = false;
    for (const FamilyRule &rule : familyRules)
        if (rule.applies(in)) {
            s.kinds = rule.kinds(in);
            ruled = true;
            break;
        }
    // use_sliding_window off turns the window off in the config itself, whatever layer_types names:
    // transformers' Qwen2Config / Qwen3Config set sliding_window = None unless use_sliding_window,
    // and each attention layer slides by config.sliding_window (modeling_qwen2.py, modeling_qwen3.py).
    const bool switchedOff = (useSw.isBool() || qwenFamily(modelType)) && !useSw.toBool();
    if (switchedOff && s.kinds.contains(LayerSlot::Sliding)) {
        s.notes << QStringLiteral("layer_types names %1 sliding_attention layers, but use_sliding_window is %2: %3's config then has "
                                  "no sliding window, so every layer is sized at full attention.")
                       .arg(s.kinds.count(LayerSlot::Sliding))
                       .arg(useSw.isBool() ? QStringLiteral("false") : QStringLiteral("absent (false)"))
                       .arg(modelType.isEmpty() ? QStringLiteral("the model") : modelType);
        std::replace(s.kinds.begin(), s.kinds.end(), LayerSlot::Sliding, LayerSlot::Full);
    }
    if (!ruled && s.window > 0)
        s.notes << QStringLiteral("sliding_window %1 is not applied: %2's attention slides only the layers layer_types names "
                                  "(none here), so every layer is sized at full attention.")
                       .arg(s.window)
                       .arg(modelType.isEmpty() ? QStringLiteral("a config without model_type") : modelType);
    // Granite 4's "mamba" layers are Mamba-2 mixers (mamba_n_heads), Jamba's Mamba-1.
    if (hasGraniteMambaLayers(c))
        std::replace(s.kinds.begin(), s.kinds.end(), LayerSlot::Mamba, LayerSlot::Mamba2);
    if (s.kinds.contains(LayerSlot::Sliding) && s.window <= 0)
        throw InputError(QStringLiteral("sliding_window"),
                         QStringLiteral("is missing but layer_types names sliding_attention layers"));
    if (s.kinds.contains(LayerSlot::Chunked) && s.chunk <= 0)
        throw InputError(QStringLiteral("attention_chunk_size"),
                         QStringLiteral("is missing but layer_types names chunked_attention layers"));
    return s;
}

} // namespace Headroom
