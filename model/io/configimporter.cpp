// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/configimporter.h"
#include "core/filekind.h"
#include "io/configfields.h"
#include "io/layerslots.h"
#include "core/inputerror.h"
#include "kv/parametercount.h"
#include "kv/visionencoder.h"
#include "core/units.h"
#include "core/namedcount.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <algorithm>

namespace Headroom {

using namespace ConfigFields;

namespace {

// Keys that mark a state-space or hybrid design; each must be consumed by a
// rule below, or the config is refused rather than sized as dense attention.
const char *const hybridMarkers[] = {
    "ssm_cfg", "mamba_d_ssm", "mamba_n_heads", "mamba_d_head", "mamba_n_groups", "hybrid_override_pattern",
    "block_types", "attention_hidden_size", "rwkv_version", "num_mem_blocks", "hybrid_layer_ids",
    "layers_block_type", "attn_type_list", "linear_attn_config", "state_size",
};

// The standard (LlamaConfig) names for geometry older and non-Llama families
// spell their own way in config.json, as transformers maps them with each
// config class's attribute_map. The standard name wins when both are given.
struct Alias { const char *name; const char *spelling; };
const Alias aliases[] = {
    // GPT2Config, GPTBigCodeConfig, GPTJConfig, CodeGenConfig attribute_map (n_inner is
    // their MLP width); BloomConfig and the RefinedWeb (Falcon) remote-code configs
    // also say n_layer / n_head.
    {"num_hidden_layers", "n_layer"}, {"num_attention_heads", "n_head"}, {"hidden_size", "n_embd"},
    {"max_position_embeddings", "n_positions"}, {"intermediate_size", "n_inner"},
    // FalconConfig and BloomConfig take n_embed for hidden_size (their __init__).
    {"hidden_size", "n_embed"},
    // MptConfig and DbrxConfig attribute_map.
    {"hidden_size", "d_model"}, {"num_attention_heads", "n_heads"}, {"num_hidden_layers", "n_layers"},
    {"max_position_embeddings", "max_seq_len"},
    // GPTNeoConfig attribute_map.
    {"num_attention_heads", "num_heads"},
    // ChatGLMConfig (THUDM remote code; vllm/transformers_utils/configs/chatglm.py maps
    // num_hidden_layers to num_layers): kv_channels is its head_dim (modeling_chatglm.py
    // SelfAttention), seq_length its context, padded_vocab_size its embedding rows,
    // ffn_hidden_size its MLP width (FalconConfig's too).
    {"num_hidden_layers", "num_layers"}, {"head_dim", "kv_channels"}, {"max_position_embeddings", "seq_length"},
    {"vocab_size", "padded_vocab_size"}, {"intermediate_size", "ffn_hidden_size"},
    // Nemotron-H's remote NemotronHConfig and HunYuanConfig: attention_head_dim.
    {"head_dim", "attention_head_dim"},
    // OPTConfig: ffn_dim.
    {"intermediate_size", "ffn_dim"},
    // The other context-length keys vLLM reads when max_position_embeddings is absent
    // (vllm/config _get_and_verify_max_len possible_keys): Baichuan2-13B says model_max_length.
    {"max_position_embeddings", "model_max_length"}, {"max_position_embeddings", "max_sequence_length"},
    {"max_position_embeddings", "max_seq_length"}, {"max_position_embeddings", "seq_len"},
    // Phi-3-small (Phi3SmallConfig): ff_intermediate_size is its MLP width.
    {"intermediate_size", "ff_intermediate_size"},
    // HunYuanConfig (Hunyuan-A13B): moe_topk and num_shared_expert; Ernie4_5_MoeConfig:
    // moe_num_shared_experts, moe_layer_start_index (its first MoE layer) and moe_layer_interval.
    {"num_experts_per_tok", "moe_topk"}, {"n_shared_experts", "num_shared_expert"},
    {"n_shared_experts", "moe_num_shared_experts"}, {"first_k_dense_replace", "moe_layer_start_index"},
    {"decoder_sparse_step", "moe_layer_interval"},
    // Gemma4TextConfig names its routing top-k top_k_experts; Ernie4_5_MoeConfig's attribute_map
    // maps num_experts / num_experts_per_tok to moe_num_experts / moe_k.
    {"num_experts_per_tok", "top_k_experts"}, {"num_experts", "moe_num_experts"}, {"num_experts_per_tok", "moe_k"},
    // DbrxConfig's ffn_config (DbrxFFNConfig): expert width, count and top-k.
    {"moe_intermediate_size", "ffn_config.ffn_hidden_size"}, {"num_local_experts", "ffn_config.moe_num_experts"},
    {"num_experts_per_tok", "ffn_config.moe_top_k"},
};

QJsonObject withStandardNames(QJsonObject c, const QString &rootType, QHash<QString, QString> *spelled)
{
    for (const Alias &a : aliases) {
        const QString name = QString::fromLatin1(a.name), spelling = QString::fromLatin1(a.spelling);
        if (has(c, a.name) || spelled->contains(name))
            continue;
        const QJsonValue v = valueAt(c, spelling);
        if (v.isUndefined() || v.isNull())
            continue;
        c.insert(name, v);
        spelled->insert(name, spelling);
    }
    // num_key_value_heads as vLLM reads it (vllm/config ModelConfig.get_total_num_kv_heads
    // and the Falcon / MPT / DBRX cases beside it): "multi_query": true is one KV head
    // (Falcon-7B, GPTBigCode) unless a Falcon states new_decoder_architecture; else
    // num_key_value_heads; else the first of n_head_kv, num_kv_heads (Falcon),
    // multi_query_group_num (ChatGLM, unless multi_query_attention is false),
    // attn_config.kv_n_heads (MPT, DBRX); else num_attention_heads (MHA). (vLLM looks at
    // n_head_kv before num_key_value_heads; only a file that gives both differently tells.)
    const QString type = c.value(QStringLiteral("model_type")).toString(rootType);
    const QJsonValue multiQuery = boolValue(c, "multi_query");
    const QJsonValue newArch = boolValue(c, "new_decoder_architecture");
    const bool falcon = familyTraits(type).falcon;
    const QString kv = QStringLiteral("num_key_value_heads");
    // Only the classes that define the flag read it (FalconConfig, GPTBigCodeConfig): a Llama
    // config that also says "multi_query" keeps its num_key_value_heads.
    if (multiQuery.toBool() && (falcon || type == QLatin1String("gpt_bigcode")) && !(falcon && newArch.toBool())) {
        c.insert(kv, 1);
        spelled->insert(kv, QStringLiteral("multi_query"));
        return c;
    }
    // ChatGLM groups its KV heads only when multi_query_attention is true (modeling_chatglm.py
    // SelfAttention); false is one KV head per attention head, whatever the group count says.
    const QJsonValue glmGroups = boolValue(c, "multi_query_attention");
    // The standard name wins where a file gives it beside another spelling (as every alias above).
    if (has(c, "num_key_value_heads"))
        return c;
    for (const char *key : {"n_head_kv", "num_kv_heads", "multi_query_group_num", "attn_config.kv_n_heads"}) {
        if (QLatin1String(key) == QLatin1String("multi_query_group_num") && glmGroups.isBool() && !glmGroups.toBool())
            continue;
        const QJsonValue v = valueAt(c, QString::fromLatin1(key));
        if (v.isUndefined() || v.isNull())
            continue;
        c.insert(kv, v);
        spelled->insert(kv, QString::fromLatin1(key));
        return c;
    }
    return c;
}

// The key of the object that holds a multimodal checkpoint's language model: text_config
// (transformers' LLaVA, Gemma 3, Llama 4, Mistral 3, Qwen2.5-VL ... configs), llm_config
// (InternVL's InternVLChatConfig, MiniCPM-V), language_config (DeepSeek-VL2, Janus); empty
// when the top level holds the language model itself (no such object, or one without
// num_hidden_layers where the top level has it).
QString languageModelKey(const QJsonObject &root)
{
    for (const char *key : {"text_config", "llm_config", "language_config"}) {
        const QJsonValue v = root.value(QString::fromLatin1(key));
        if (v.isObject() && (!root.contains(QStringLiteral("num_hidden_layers"))
                             || v.toObject().contains(QStringLiteral("num_hidden_layers"))))
            return QString::fromLatin1(key);
    }
    return {};
}

/// Widths and counts some families give one a layer (Hunyuan-A13B's moe_intermediate_size,
/// moe_topk and num_shared_expert lists; Gemma 3n's intermediate_size): each list in `c`
/// becomes one value, the largest (the most weight memory), with a note in `notes` when the
/// layers differ. Errors: an empty list, or an entry that is not a number.
void takeLargestOfLists(QJsonObject &c, QStringList &notes)
{
    for (const char *key : {"intermediate_size", "moe_intermediate_size", "num_experts_per_tok", "n_shared_experts"}) {
        const QJsonValue v = c.value(QString::fromLatin1(key));
        if (!v.isArray())
            continue;
        const QJsonArray list = v.toArray();
        if (list.isEmpty())
            throw InputError(QString::fromLatin1(key), QStringLiteral("is an empty list"));
        double largest = 0;
        bool same = true;
        for (int i = 0; i < list.size(); ++i) {
            if (!list.at(i).isDouble())
                throw InputError(QStringLiteral("%1[%2]").arg(QString::fromLatin1(key)).arg(i), QStringLiteral("must be a number"));
            largest = std::max(largest, list.at(i).toDouble());
            same = same && list.at(i) == list.at(0);
        }
        if (!same)
            notes << QStringLiteral("%1 differs between layers; every layer is counted at the largest, %2.")
                         .arg(QString::fromLatin1(key)).arg(largest);
        c.insert(QString::fromLatin1(key), largest);
    }
}

/// Published configs list only fields that differ from the transformers class defaults:
/// fills into `c` the defaults of `modelType`'s config class that this engine needs, then
/// the MLP width and the tie of the LM head to the embeddings where the config leaves them
/// out (familyTraits; `root` may state the tie for a nested text config).
void fillClassDefaults(QJsonObject &c, const QJsonObject &root, const QString &modelType)
{
    struct Default { const char *modelType; const char *key; qint64 value; const char *source; };
    static const Default defaults[] = {
        // transformers/models/gemma3/configuration_gemma3.py, Gemma3TextConfig.__init__
        // (also the text_config of a multimodal "gemma3" checkpoint: Gemma3Config builds
        // its text_config as a Gemma3TextConfig).
        {"gemma3_text", "max_position_embeddings", 131072, "Gemma3TextConfig"},
        {"gemma3_text", "sliding_window_pattern", 6, "Gemma3TextConfig"},
        {"gemma3_text", "sliding_window", 4096, "Gemma3TextConfig"},
        {"gemma3_text", "head_dim", 256, "Gemma3TextConfig"},
        {"gemma3", "max_position_embeddings", 131072, "Gemma3TextConfig"},
        {"gemma3", "sliding_window_pattern", 6, "Gemma3TextConfig"},
        {"gemma3", "sliding_window", 4096, "Gemma3TextConfig"},
        {"gemma3", "head_dim", 256, "Gemma3TextConfig"},
        // transformers/models/gemma4/configuration_gemma4.py, Gemma4TextConfig (the text_config of
        // a "gemma4" checkpoint too): head_dim 256, sliding_window 512, 131072 positions, layer_types
        // 5 sliding : 1 full, and global_head_dim 512 for the full layers (__post_init__).
        {"gemma4_text", "max_position_embeddings", 131072, "Gemma4TextConfig"},
        {"gemma4_text", "sliding_window_pattern", 6, "Gemma4TextConfig"},
        {"gemma4_text", "sliding_window", 512, "Gemma4TextConfig"},
        {"gemma4_text", "head_dim", 256, "Gemma4TextConfig"},
        {"gemma4_text", "global_head_dim", 512, "Gemma4TextConfig"},
        {"gemma4", "max_position_embeddings", 131072, "Gemma4TextConfig"},
        {"gemma4", "sliding_window_pattern", 6, "Gemma4TextConfig"},
        {"gemma4", "sliding_window", 512, "Gemma4TextConfig"},
        {"gemma4", "head_dim", 256, "Gemma4TextConfig"},
        {"gemma4", "global_head_dim", 512, "Gemma4TextConfig"},
        // transformers/models/gemma2/configuration_gemma2.py and gemma/configuration_gemma.py:
        // head_dim=256 in both __init__ signatures, not hidden_size / num_attention_heads.
        {"gemma2", "head_dim", 256, "Gemma2Config"},
        {"gemma", "head_dim", 256, "GemmaConfig"},
        // transformers/models/falcon/configuration_falcon.py: max_position_embeddings=2048.
        {"falcon", "max_position_embeddings", 2048, "FalconConfig"},
    };
    for (const Default &d : defaults)
        if (modelType == QLatin1String(d.modelType) && !c.contains(QString::fromLatin1(d.key)))
            c.insert(QString::fromLatin1(d.key), double(d.value));
    const FamilyTraits family = familyTraits(modelType);
    if (family.mlpFourWide && !has(c, "intermediate_size") && has(c, "hidden_size")) {
        const NamedCount hidden(intField(c, "hidden_size", 0, true), QStringLiteral("hidden_size"));
        const NamedCount ratio = modelType == QLatin1String("mpt")
            ? NamedCount(intField(c, "expansion_ratio", 4, false), QStringLiteral("expansion_ratio"))
            : NamedCount(4);
        c.insert(QStringLiteral("intermediate_size"), double((ratio * hidden).v));
    }
    if (family.tiedByDefault && !c.value(QStringLiteral("tie_word_embeddings")).isBool()
        && !root.value(QStringLiteral("tie_word_embeddings")).isBool())
        c.insert(QStringLiteral("tie_word_embeddings"), true);
}

/// The layer count and the model's widths into `m`; returns num_hidden_layers.
int readSizes(const QJsonObject &c, ModelShape &m)
{
    const int layers = smallField(c, "num_hidden_layers", 0, true);
    m.hiddenLayers = layers;
    m.hiddenSize = intField(c, "hidden_size", 0, false);
    m.intermediateSize = intField(c, "intermediate_size", 0, false, 0);
    m.moeIntermediateSize = intField(c, "moe_intermediate_size", 0, false, 0);
    m.vocabSize = intField(c, "vocab_size", 0, false, 0);
    m.maxPositionEmbeddings = intField(c, "max_position_embeddings", 0, false);
    return layers;
}

/// The weights' precision into `m.weightsDtype`: torch_dtype (or dtype), then a quantised
/// checkpoint's quantization_config (in `c`, else in `root`), which sets the weights' size.
/// A format sized on the safe side, or not read, adds a note. Errors: torch_dtype, dtype or
/// model_type not a string, or a dtype word Dtypes::parse refuses.
void readWeightsFormat(const QJsonObject &c, const QJsonObject &root, ModelShape &m)
{
    for (const char *key : {"torch_dtype", "dtype", "model_type"}) {
        const QJsonValue v = c.value(QString::fromLatin1(key));
        if (!v.isUndefined() && !v.isNull() && !v.isString())
            throw InputError(QString::fromLatin1(key), QStringLiteral("must be a string"));
    }
    const QString dtypeWord = c.value(QStringLiteral("torch_dtype")).toString(c.value(QStringLiteral("dtype")).toString());
    if (!dtypeWord.isEmpty())
        m.weightsDtype = Dtypes::parse(dtypeWord, QStringLiteral("torch_dtype"));
    const QJsonObject quant = c.value(QStringLiteral("quantization_config")).toObject(root.value(QStringLiteral("quantization_config")).toObject());
    const QString method = quant.value(QStringLiteral("quant_method")).toString().toLower();
    // "bits" as transformers' AWQ / GPTQ configs give it (a number, or its digits as a string);
    // bitsandbytes states load_in_4bit / load_in_8bit instead.
    const QJsonValue bitsValue = quant.value(QStringLiteral("bits"));
    int bits = bitsValue.isString() ? bitsValue.toString().trimmed().toInt() : bitsValue.toInt();
    if (quant.value(QStringLiteral("load_in_4bit")).toBool())
        bits = 4;
    else if (quant.value(QStringLiteral("load_in_8bit")).toBool())
        bits = 8;
    if (method == QLatin1String("fp8"))
        m.weightsDtype = Dtype::FP8;
    else if (method == QLatin1String("mxfp4"))
        m.weightsDtype = Dtype::MXFP4;
    else if (bits == 4)
        m.weightsDtype = Dtype::INT4;
    else if (bits == 8)
        m.weightsDtype = Dtype::INT8;
    else if (bits >= 1 && bits < 4) {
        // No 2- or 3-bit precision here: sized at 4 bits, more than the checkpoint holds (the safe side).
        m.weightsDtype = Dtype::INT4;
        m.sizingNotes << QStringLiteral("quantization_config gives %1-bit weights (%2); they are sized at 4 bits, more than the "
                                        "checkpoint holds: give --weights for the exact size.")
                             .arg(bits).arg(method.isEmpty() ? QStringLiteral("no quant_method") : method);
    } else if (!quant.isEmpty())
        // A format not read here: said, never sized as the unquantised weights in silence.
        m.sizingNotes << QStringLiteral("quantization_config (%1) is not read: the weights are sized at %2; give --weights or "
                                        "--weights-dtype for the checkpoint's size.")
                             .arg(method.isEmpty() ? QStringLiteral("no quant_method") : QStringLiteral("quant_method %1").arg(method),
                                  Dtypes::name(m.weightsDtype));
}

/// The routed experts into `m`: the count (num_local_experts, num_experts or
/// n_routed_experts) and top-k. Error: num_experts_per_tok above the count.
void readExperts(const QJsonObject &c, ModelShape &m)
{
    m.numExperts = smallField(c, "num_local_experts",
                              smallField(c, "num_experts", smallField(c, "n_routed_experts", 0, false, 0), false, 0),
                              false, 0);
    m.expertsPerToken = smallField(c, "num_experts_per_tok", 0, false, 0);
    if (m.numExperts > 0 && m.expertsPerToken > m.numExperts)
        throw InputError(QStringLiteral("num_experts_per_tok"), QStringLiteral("routes each token to %1 experts but the model has %2")
                                                                   .arg(m.expertsPerToken).arg(m.numExperts));
}

/// The derived parameter counts of `count` into `m` (total and active, derived and shown).
void setDerivedCounts(ModelShape &m, const ParameterCount &count)
{
    m.derivedParams = m.totalParams = count.total;
    m.derivedActiveParams = m.activeParams = count.active;
}

/// Pure state-space models: no attention, a recurrent state a layer and nothing per token.
///   Mamba-1 (MambaConfig, FalconMambaConfig; vllm mamba_utils mamba1_state_shape): conv
///   (conv_kernel - 1) x d_inner, SSM d_inner x state_size, d_inner = intermediate_size
///   (expand x hidden_size).
///   Mamba-2 (Mamba2Config; mamba2_state_shape): conv (conv_kernel - 1) x (d_inner + 2 x
///   n_groups x state_size), SSM num_heads x head_dim x state_size, d_inner = expand x hidden_size.
/// Returns `m` with `layers` such mixers and its parameter counts.
ModelShape stateSpaceShape(const QJsonObject &c, ModelShape m, int layers)
{
    const bool two = m.modelType == QLatin1String("mamba2");
    const NamedCount hidden = namedField(c, "hidden_size", 0, true), state = namedField(c, "state_size", two ? 128 : 16, false);
    const NamedCount kernel = namedField(c, "conv_kernel", 4, false), expand = namedField(c, "expand", 2, false);
    const NamedCount dInner = has(c, "intermediate_size") && !two ? namedField(c, "intermediate_size", 0, true) : expand * hidden;
    LayerGroup mixer;
    mixer.kind = LayerKind::Recurrent;
    if (two) {
        // (num_heads was read as num_attention_heads above: Mamba2Config's num_heads are SSM heads.)
        const NamedCount heads = namedField(c, "num_heads", 128, false), headDim = namedField(c, "head_dim", 64, false);
        const NamedCount groups = namedField(c, "n_groups", 8, false);
        mixer.convStateValues = (NamedCount(kernel.v - 1, kernel.field) * (dInner + NamedCount(2) * groups * state)).v;
        mixer.ssmStateValues = (heads * headDim * state).v;
    } else {
        mixer.convStateValues = (NamedCount(kernel.v - 1, kernel.field) * dInner).v;
        mixer.ssmStateValues = (dInner * state).v;
    }
    m.attentionHeads = 0;
    m.headDim = 0;
    m.addLayers(mixer, layers);
    setDerivedCounts(m, countParameters(c));
    return m;
}

/// Refuses a config that carries a hybrid or state-space marker (hybridMarkers) no rule
/// here reads, naming the marker, rather than sizing it as dense attention.
void refuseUnsizedHybrids(const QJsonObject &c, const QString &modelType)
{
    QSet<QString> consumed;
    if (has(c, "attn_layer_period")) // Jamba
        consumed << QStringLiteral("attn_layer_period");
    // Nemotron-H: one letter a layer, M a Mamba-2 mixer, * attention, - an MLP, E an MoE block.
    if (has(c, "hybrid_override_pattern"))
        consumed << QStringLiteral("hybrid_override_pattern");
    // MiniMax-Text-01 / M1 / M2: attn_type_list (layerSlotsOf).
    if (c.value(QStringLiteral("attn_type_list")).isArray())
        consumed << QStringLiteral("attn_type_list");
    // Falcon-H1 (attention and a Mamba-2 mixer side by side in every layer) and Granite 4
    // (GraniteMoeHybridConfig): layer_types names "mamba" layers that are Mamba-2
    // mixers of mamba_n_heads heads (vllm/model_executor/models/granitemoehybrid.py).
    if (modelType == QLatin1String("falcon_h1") || hasGraniteMambaLayers(c))
        consumed << QStringLiteral("mamba_d_ssm") << QStringLiteral("mamba_n_heads") << QStringLiteral("mamba_d_head")
                 << QStringLiteral("mamba_n_groups");
    for (const char *marker : hybridMarkers) {
        const QString k = QString::fromLatin1(marker);
        if (has(c, marker) && !consumed.contains(k))
            throw InputError(k, QStringLiteral("marks a hybrid or state-space layer design (model_type \"%1\") "
                                               "that Headroom cannot size yet; refusing rather than sizing it as "
                                               "dense attention")
                                    .arg(modelType));
    }
}

/// The attention heads, KV heads and head_dim into `m`; returns the V head width
/// (v_head_dim where K and V differ, else head_dim). Errors: num_key_value_heads not
/// dividing num_attention_heads (but MLA), a head_dim that cannot be derived.
int readAttentionGeometry(const QJsonObject &c, ModelShape &m)
{
    const bool mla = has(c, "kv_lora_rank");
    m.attentionHeads = smallField(c, "num_attention_heads", 0, true);
    m.kvHeads = smallField(c, "num_key_value_heads", m.attentionHeads, false);
    if (!mla && (m.kvHeads > m.attentionHeads || m.attentionHeads % m.kvHeads != 0))
        throw InputError(QStringLiteral("num_key_value_heads"),
                         QStringLiteral("%1 must divide num_attention_heads %2 (each KV head serves a whole group of query heads)")
                             .arg(m.kvHeads).arg(m.attentionHeads));
    if (has(c, "head_dim")) {
        m.headDim = smallField(c, "head_dim", 0, true);
    } else if (!mla) {
        // LlamaConfig, MistralConfig, Qwen2Config, Qwen3Config and their kin set head_dim to
        // hidden_size // num_attention_heads when the config leaves it out (their __init__);
        // the Gemma family declares its own default (fillClassDefaults).
        if (m.hiddenSize == 0)
            throw InputError(QStringLiteral("head_dim"),
                             QStringLiteral("is missing and hidden_size is missing too, so it cannot be derived"));
        if (m.hiddenSize % m.attentionHeads != 0)
            throw InputError(QStringLiteral("head_dim"),
                             QStringLiteral("is missing and hidden_size %1 is not divisible by num_attention_heads %2")
                                 .arg(m.hiddenSize).arg(m.attentionHeads));
        if (m.hiddenSize / m.attentionHeads > 1000000)
            throw InputError(QStringLiteral("hidden_size"),
                             QStringLiteral("%1 / num_attention_heads %2 gives an implausibly large head_dim")
                                 .arg(m.hiddenSize).arg(m.attentionHeads));
        m.headDim = int(m.hiddenSize / m.attentionHeads);
    }
    return has(c, "v_head_dim") && !mla ? smallField(c, "v_head_dim", 0, true) : m.headDim;
}

/// A layer of attention over every token: MLA (kv_lora_rank; `m.kvHeads` set to 0) or
/// KV heads of head_dim (K) and `headDimV` (V) values.
LayerGroup attentionGroup(const QJsonObject &c, ModelShape &m, int headDimV)
{
    LayerGroup attention;
    if (has(c, "kv_lora_rank")) {
        attention.kind = LayerKind::Mla;
        attention.latentDim = smallField(c, "kv_lora_rank", 0, true);
        attention.ropeDim = smallField(c, "qk_rope_head_dim", 0, true);
        // DeepSeek-V3.2's sparse attention: a lightning indexer keeps one key of
        // index_head_dim values per layer per token (HF config.json, DeepseekV32ForCausalLM).
        attention.indexerHeadDim = smallField(c, "index_head_dim", 0, false, 0);
        m.kvHeads = 0;
    } else {
        attention.kind = LayerKind::FullAttention;
        attention.kvHeads = m.kvHeads;
        attention.headDimK = m.headDim;
        attention.headDimV = headDimV;
    }
    return attention;
}

/// A full-attention layer of `attention` as Gemma 4 sizes it (transformers
/// Gemma4TextConfig.__post_init__, per_layer_config): heads of global_head_dim values and,
/// where attention_k_eq_v is true (keys reused as values; both are still cached),
/// num_global_key_value_heads KV heads. `attention` itself for other families and MLA.
LayerGroup globalAttentionGroup(const QJsonObject &c, const ModelShape &m, const LayerGroup &attention)
{
    LayerGroup full = attention;
    if (attention.kind == LayerKind::Mla || !has(c, "global_head_dim"))
        return full;
    full.headDimK = full.headDimV = smallField(c, "global_head_dim", 0, true);
    const QJsonValue kEqV = boolValue(c, "attention_k_eq_v");
    if (kEqV.toBool() && has(c, "num_global_key_value_heads")) {
        full.kvHeads = smallField(c, "num_global_key_value_heads", 0, true);
        if (m.attentionHeads % full.kvHeads != 0)
            throw InputError(QStringLiteral("num_global_key_value_heads"),
                             QStringLiteral("%1 must divide num_attention_heads %2").arg(full.kvHeads).arg(m.attentionHeads));
    }
    return full;
}

/// Jamba's Mamba-1 mixer (llama.cpp src/llama-model.cpp, n_embd_r / n_embd_s): d_inner =
/// mamba_expand x hidden_size, conv state (mamba_d_conv - 1) x d_inner and SSM state
/// mamba_d_state x d_inner values per layer. Error: no hidden_size to size it by.
LayerGroup jambaMambaGroup(const QJsonObject &c, const ModelShape &m)
{
    LayerGroup recurrent;
    recurrent.kind = LayerKind::Recurrent;
    // Geometry, held to the bound every dimension has (smallField: 10^6): 2^43 states per
    // channel overflowed later and blamed --params (an attacker's Jamba config).
    const qint64 expand = smallField(c, "mamba_expand", 2, false);
    const qint64 dState = smallField(c, "mamba_d_state", 16, false);
    const qint64 dConv = smallField(c, "mamba_d_conv", 4, false);
    if (m.hiddenSize == 0)
        throw InputError(QStringLiteral("hidden_size"), QStringLiteral("is needed to size the Mamba state"));
    const NamedCount dInner = NamedCount(expand, QStringLiteral("mamba_expand")) * NamedCount(m.hiddenSize, QStringLiteral("hidden_size"));
    recurrent.convStateValues = (NamedCount(dConv - 1, QStringLiteral("mamba_d_conv")) * dInner).v;
    recurrent.ssmStateValues = (NamedCount(dState, QStringLiteral("mamba_d_state")) * dInner).v;
    return recurrent;
}

/// MiniMax's lightning attention keeps one head_dim x head_dim state a head (vllm
/// minimax_text_01.py MiniMaxText01LinearAttention.get_state_shape: heads x head_dim x head_dim).
LayerGroup lightningGroup(const ModelShape &m)
{
    LayerGroup lightning;
    lightning.kind = LayerKind::Recurrent;
    lightning.ssmStateValues = (NamedCount(m.attentionHeads, QStringLiteral("num_attention_heads"))
                                * NamedCount(m.headDim, QStringLiteral("head_dim")) * NamedCount(m.headDim, QStringLiteral("head_dim"))).v;
    return lightning;
}

/// Qwen3-Next's Gated DeltaNet: state linear_num_value_heads x linear_key_head_dim x
/// linear_value_head_dim and conv state (linear_conv_kernel_dim - 1) x (2 x
/// linear_num_key_heads x linear_key_head_dim + linear_num_value_heads x linear_value_head_dim).
LayerGroup gatedDeltaNetGroup(const QJsonObject &c)
{
    LayerGroup linear;
    linear.kind = LayerKind::Recurrent;
    const NamedCount kHeads = namedField(c, "linear_num_key_heads", 0, true), vHeads = namedField(c, "linear_num_value_heads", 0, true);
    const NamedCount kDim = namedField(c, "linear_key_head_dim", 0, true), vDim = namedField(c, "linear_value_head_dim", 0, true);
    const NamedCount kernel = namedField(c, "linear_conv_kernel_dim", 4, false);
    linear.ssmStateValues = (vHeads * kDim * vDim).v;
    linear.convStateValues = (NamedCount(kernel.v - 1, kernel.field) * (NamedCount(2) * kHeads * kDim + vHeads * vDim)).v;
    return linear;
}

/// The config.json keys (and class defaults) a family's Mamba-2 mixer is read from.
struct Mamba2Keys
{
    const char *heads, *headDim, *inner, *groups;
    qint64 groupsDefault;
    const char *state;
    qint64 stateDefault; ///< 0: the state size is required
    const char *conv;
};
// Falcon-H1 (FalconH1Config): mamba_d_ssm is d_inner when given.
constexpr Mamba2Keys falconH1Mamba2{"mamba_n_heads", "mamba_d_head", "mamba_d_ssm", "mamba_n_groups", 1, "mamba_d_state", 0, "mamba_d_conv"};
// Granite 4's "mamba" layers (GraniteMoeHybridConfig defaults: n_groups 1, d_state 256, d_conv 4).
constexpr Mamba2Keys graniteMamba2{"mamba_n_heads", "mamba_d_head", nullptr, "mamba_n_groups", 1, "mamba_d_state", 256, "mamba_d_conv"};
// Nemotron-H (NemotronHConfig defaults: n_groups 8, ssm_state_size 128, conv_kernel 4).
constexpr Mamba2Keys nemotronHMamba2{"mamba_num_heads", "mamba_head_dim", nullptr, "n_groups", 8, "ssm_state_size", 128, "conv_kernel"};

/// A Mamba-2 mixer's state (llama.cpp src/llama-model.cpp; vllm mamba_utils
/// MambaStateShapeCalculator.mamba2_state_shape): conv state (d_conv - 1) x
/// (d_inner + 2 x n_groups x d_state), SSM state d_state x d_inner, d_inner = heads x head_dim,
/// read under the family's keys `k`.
LayerGroup mamba2Group(const QJsonObject &c, const ModelShape &m, const Mamba2Keys &k)
{
    const NamedCount heads = namedField(c, k.heads, 0, true);
    // "auto" (GraniteMoeHybridConfig's default) is mamba_expand x hidden_size split over the heads.
    const bool autoHeadDim = c.value(QString::fromLatin1(k.headDim)) == QJsonValue(QStringLiteral("auto"));
    const NamedCount dInner = k.inner && has(c, k.inner) ? namedField(c, k.inner, 0, true)
        : autoHeadDim ? namedField(c, "mamba_expand", 2, false) * NamedCount(m.hiddenSize, QStringLiteral("hidden_size"))
                      : heads * namedField(c, k.headDim, 0, true);
    const NamedCount groups = namedField(c, k.groups, k.groupsDefault, false), dState = namedField(c, k.state, k.stateDefault, k.stateDefault == 0);
    const NamedCount dConv = namedField(c, k.conv, 4, false);
    LayerGroup mixer;
    mixer.kind = LayerKind::Recurrent;
    mixer.convStateValues = (NamedCount(dConv.v - 1, dConv.field) * (dInner + NamedCount(2) * groups * dState)).v;
    mixer.ssmStateValues = (dState * dInner).v;
    return mixer;
}

/// The group a layer of each kind adds, read only for the kinds the model has.
struct KindGroups
{
    LayerGroup full, sliding, chunked, mamba, lightning, linear, mamba2;
    LayerGroup parallelMamba2; ///< Falcon-H1's mixer beside attention in every layer (empty count otherwise)
    bool parallel = false;

    /// The group of a layer of kind `k`; nullptr for a layer that keeps nothing.
    const LayerGroup *of(LayerSlot k) const
    {
        switch (k) {
        case LayerSlot::Full: return &full;
        case LayerSlot::Sliding: return &sliding;
        case LayerSlot::Chunked: return &chunked;
        case LayerSlot::Mamba: return &mamba;
        case LayerSlot::Linear: return &linear;
        case LayerSlot::Lightning: return &lightning;
        case LayerSlot::Mamba2: return &mamba2;
        case LayerSlot::Stateless: return nullptr;
        }
        return nullptr;
    }
};

/// The group of each layer kind in `s`, in the order their fields are read (attention,
/// Gemma 4's global layers, the windows, then each recurrent mixer). Sets `m.kvHeads` to 0
/// for MLA. Errors: a field of a kind the model has, or a window beside MLA.
KindGroups kindGroupsOf(const QJsonObject &c, ModelShape &m, const LayerSlots &s, int headDimV)
{
    KindGroups g;
    const LayerGroup attention = attentionGroup(c, m, headDimV);
    g.full = globalAttentionGroup(c, m, attention);
    const bool mla = attention.kind == LayerKind::Mla;
    if (mla && (s.kinds.contains(LayerSlot::Sliding) || s.kinds.contains(LayerSlot::Chunked)))
        throw InputError(s.kinds.contains(LayerSlot::Sliding) ? QStringLiteral("sliding_window") : QStringLiteral("attention_chunk_size"),
                         QStringLiteral("with MLA (kv_lora_rank) is not a known design"));
    g.sliding = attention;
    g.sliding.kind = LayerKind::SlidingWindow;
    g.sliding.window = s.window;
    g.chunked = g.sliding;
    g.chunked.window = s.chunk;
    if (s.kinds.contains(LayerSlot::Mamba))
        g.mamba = jambaMambaGroup(c, m);
    if (s.kinds.contains(LayerSlot::Lightning))
        g.lightning = lightningGroup(m);
    if (s.kinds.contains(LayerSlot::Linear))
        g.linear = gatedDeltaNetGroup(c);
    g.parallel = m.modelType == QLatin1String("falcon_h1");
    if (g.parallel)
        g.parallelMamba2 = mamba2Group(c, m, falconH1Mamba2);
    if (s.kinds.contains(LayerSlot::Mamba2))
        g.mamba2 = mamba2Group(c, m, has(c, "mamba_n_heads") ? graniteMamba2 : nemotronHMamba2);
    return g;
}

/// The parameter counts derived from the config's shapes (countParameters, reading the same
/// standard names and class defaults as the shape: `c` in place of a nested language model
/// of `root`) and the vision encoder the engines load with the model, into `m`; a
/// vision_config Headroom cannot count is said.
void addParameterCounts(const QJsonObject &root, const QJsonObject &c, ModelShape &m)
{
    QJsonObject countRoot = root;
    if (!languageModelKey(root).isEmpty())
        countRoot.insert(QStringLiteral("text_config"), c);
    else
        countRoot = c;
    setDerivedCounts(m, countParameters(countRoot));
    const VisionEncoder vision = countVisionEncoder(root, m.hiddenSize);
    m.visionParams = vision.params;
    m.tokensPerImage = vision.params > 0 ? vision.tokensPerImage : 0;
    // A vision tower Headroom cannot count (Qwen2-VL / Qwen2.5-VL's depth-named vision_config, ...)
    // is still loaded by the engine: the weights figure is short of it, and says so.
    if (root.value(QStringLiteral("vision_config")).isObject() && vision.params == 0)
        m.sizingNotes << QStringLiteral("vision_config is not counted (Headroom counts ViT towers that give hidden_size, "
                                        "intermediate_size, num_hidden_layers and patch_size): the weights leave the vision "
                                        "encoder out, though the engine loads it.");
}

/// Designs that keep less KV than their layers' heads imply, which Headroom does not model:
/// sized without the saving (more KV than the engine keeps: the safe side), and a note in
/// `m` for each that `c` turns on.
void noteUnmodelledSavings(const QJsonObject &c, ModelShape &m)
{
    struct Saving { const char *key; const char *what; };
    static const Saving savings[] = {
        // HunYuanConfig (Hunyuan-Large): cross-layer attention shares K and V over cla_share_factor layers.
        {"use_cla", "cross-layer attention (use_cla) shares KV between layers"},
        // DeepSeek-V4: per-layer KV compression ratios.
        {"compress_ratios", "KV compression (compress_ratios)"},
        // MllamaTextConfig (Llama 3.2 Vision): cross_attention_layers attend to the image's tokens,
        // a fixed KV per image, sized here as self-attention over the context.
        {"cross_attention_layers", "image cross-attention (cross_attention_layers) keeps a KV per image, not per token"},
    };
    for (const Saving &sv : savings) {
        const QJsonValue v = c.value(QString::fromLatin1(sv.key));
        if (!v.isUndefined() && !v.isNull() && v != QJsonValue(false) && !(v.isArray() && v.toArray().isEmpty()))
            m.sizingNotes << QStringLiteral("%1 is not modelled: KV is sized without it, more than the engine keeps.")
                                 .arg(QString::fromLatin1(sv.what));
    }
}

/// The layers that keep their own KV, in order, added to `m` by kind. Gemma 3n (transformers
/// Gemma3nTextConfig; vllm/model_executor/models/gemma3n.py): the last num_kv_shared_layers
/// layers reuse the K and V of an earlier layer of their kind and keep none (said in a note).
/// Error: num_kv_shared_layers not below the layer count.
void addLayersByKind(const QJsonObject &c, ModelShape &m, const QVector<LayerSlot> &kinds, const KindGroups &groups)
{
    const int layers = int(kinds.size());
    const int kvShared = smallField(c, "num_kv_shared_layers", 0, false, 0);
    if (kvShared >= layers)
        throw InputError(QStringLiteral("num_kv_shared_layers"),
                         QStringLiteral("%1 must be below num_hidden_layers %2 (some layer must keep its own KV)").arg(kvShared).arg(layers));
    if (kvShared > 0)
        m.sizingNotes << QStringLiteral("The last %1 of %2 layers reuse an earlier layer's KV (num_kv_shared_layers): "
                                        "KV is sized for the first %3 layers.")
                             .arg(kvShared).arg(layers).arg(layers - kvShared);
    for (int i = 0; i < layers - kvShared; ++i)
        if (const LayerGroup *g = groups.of(kinds.at(i)))
            m.addLayers(*g, 1);
}

/// The shape of the language model `c` (its fields under the standard names) of config
/// `root`, step by step: per-layer lists, class defaults, sizes, weights format, experts;
/// a pure state-space family whole (stateSpaceShape); else the attention geometry, each
/// layer's kind by its architecture family (layerSlotsOf), the group of each kind, the
/// parameter counts, the notes, and the layers. Errors: InputError naming the field.
ModelShape shapeOf(const QJsonObject &root, QJsonObject c)
{
    ModelShape m;
    m.modelType = c.value(QStringLiteral("model_type")).toString(root.value(QStringLiteral("model_type")).toString());
    takeLargestOfLists(c, m.sizingNotes);
    fillClassDefaults(c, root, m.modelType);
    const int layers = readSizes(c, m);
    readWeightsFormat(c, root, m);
    readExperts(c, m);
    if (isStateSpaceFamily(m.modelType))
        return stateSpaceShape(c, m, layers);
    refuseUnsizedHybrids(c, m.modelType);
    const int headDimV = readAttentionGeometry(c, m);
    const LayerSlots plan = layerSlotsOf(c, m.modelType, layers);
    m.sizingNotes << plan.notes;
    if (plan.kinds.contains(LayerSlot::Chunked))
        m.sizingNotes << QStringLiteral("%1 layers attend within chunks of attention_chunk_size %2 tokens; "
                                        "each is sized as a sliding window of %2 (the most it keeps: the current chunk).")
                             .arg(plan.kinds.count(LayerSlot::Chunked)).arg(plan.chunk);
    const KindGroups groups = kindGroupsOf(c, m, plan, headDimV);
    if (groups.parallel)
        m.addLayers(groups.parallelMamba2, layers);
    addParameterCounts(root, c, m);
    noteUnmodelledSavings(c, m);
    addLayersByKind(c, m, plan.kinds, groups);
    return m;
}

} // namespace

ModelShape ConfigImporter::fromConfig(const QJsonObject &root)
{
    QJsonObject c = root;
    for (const char *key : {"text_config", "llm_config", "language_config", "quantization_config"}) {
        const QJsonValue v = root.value(QString::fromLatin1(key));
        if (!v.isUndefined() && !v.isNull() && !v.isObject())
            throw InputError(QString::fromLatin1(key), QStringLiteral("must be a JSON object"));
    }
    const QString nested = languageModelKey(root);
    if (!nested.isEmpty()) {
        // Multimodal: the language model's fields live in a nested object.
        c = root.value(nested).toObject();
        for (const char *k : {"torch_dtype", "dtype"})
            if (!c.contains(QString::fromLatin1(k)) && root.contains(QString::fromLatin1(k)))
                c.insert(QString::fromLatin1(k), root.value(QString::fromLatin1(k)));
    }

    // Families that spell the geometry in their own words are read under the
    // names used below; a refusal names the field as the file spells it.
    QHash<QString, QString> spelled;
    c = withStandardNames(c, root.value(QStringLiteral("model_type")).toString(), &spelled);
    try {
        return shapeOf(root, c);
    } catch (const InputError &e) {
        if (spelled.contains(e.field()))
            throw InputError(spelled.value(e.field()), e.message());
        // Where the file gave the field under no name at all, say which names were looked for
        // (a field it did give, but wrong, is its own).
        if (c.contains(e.field()))
            throw;
        QStringList spellings;
        for (const Alias &a : aliases)
            if (e.field() == QLatin1String(a.name))
                spellings << QString::fromLatin1(a.spelling);
        if (spellings.isEmpty())
            throw;
        throw InputError(e.field(), QStringLiteral("%1 (also looked for as %2)").arg(e.message(), spellings.join(QStringLiteral(", "))));
    }
}

ModelShape ConfigImporter::fromPreset(const QJsonObject &preset)
{
    if (!preset.value(QStringLiteral("config")).isObject())
        throw InputError(QStringLiteral("config"), QStringLiteral("a model preset needs a \"config\" object"));
    ModelShape m = fromConfig(preset.value(QStringLiteral("config")).toObject());
    m.id = preset.value(QStringLiteral("id")).toString();
    m.name = preset.value(QStringLiteral("name")).toString(m.id);
    m.hfId = preset.value(QStringLiteral("hf_id")).toString();
    m.source = preset.value(QStringLiteral("source")).toString();
    m.sourceDate = preset.value(QStringLiteral("source_date")).toString();
    m.totalParams = intField(preset, "total_params", m.derivedParams, false);
    m.activeParams = intField(preset, "active_params", preset.contains(QStringLiteral("total_params")) ? m.totalParams : m.derivedActiveParams, false);
    m.checkpointBytes = intField(preset, "checkpoint_bytes", 0, false, 0);
    return m;
}

QJsonObject ConfigImporter::readFile(const QString &path, const QString &field)
{
    // A config.json is a few kB; refuse devices, pipes and anything huge
    // rather than reading without end.
    const QFileInfo info(path);
    if (!info.exists())
        throw InputError(field, QStringLiteral("%1 does not exist").arg(path));
    if (!info.isFile())
        throw InputError(field, QStringLiteral("%1 is not a regular file").arg(path));
    constexpr qint64 maxConfigBytes = 16 * Units::MiB;
    if (info.size() > maxConfigBytes)
        throw InputError(field, QStringLiteral("%1 is %2, too large for a config.json (at most 16 MiB)")
                                    .arg(path, Units::formatBytes(info.size(), UnitSystem::Binary)));
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw InputError(field, QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    const QByteArray bytes = f.read(maxConfigBytes + 1);
    FileKind::expect(path, bytes, {FileKind::Kind::Config},
                     QStringLiteral("a config.json"), field);
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError) {
        const QByteArray before = bytes.left(err.offset);
        const int line = int(before.count('\n')) + 1;
        const int column = int(err.offset - before.lastIndexOf('\n'));
        throw InputError(field, QStringLiteral("%1 is not valid JSON: %2 at line %3, column %4")
                                    .arg(path, err.errorString()).arg(line).arg(column));
    }
    if (!doc.isObject())
        throw InputError(field, QStringLiteral("%1 must hold a JSON object").arg(path));
    return doc.object();
}

ModelShape ConfigImporter::fromFile(const QString &path, const QString &field)
{
    const QJsonObject o = readFile(path, field);
    try {
        ModelShape m = o.value(QStringLiteral("kind")).toString() == QLatin1String("model") ? fromPreset(o) : fromConfig(o);
        if (m.id.isEmpty())
            m.id = path;
        if (m.name.isEmpty())
            m.name = QFileInfo(path).dir().dirName() + QLatin1Char('/') + QFileInfo(path).fileName();
        return m;
    } catch (const InputError &e) {
        throw InputError(e.field(), QStringLiteral("%1 (in %2)").arg(e.message(), path));
    }
}

} // namespace Headroom
