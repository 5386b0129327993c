// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/dtype.h"

#include <QDebug>
#include <QString>
#include <QStringList>
#include <QVector>

namespace Headroom {

/// How a layer keeps state for a session.
enum class LayerKind {
    FullAttention,    ///< K and V for every resident token (MHA, GQA, MQA)
    SlidingWindow,    ///< K and V for at most `window` tokens
    Mla,              ///< one compressed latent + decoupled RoPE key per token (DeepSeek-V2/V3)
    Recurrent,        ///< a fixed state per session (Mamba, Gated DeltaNet / linear attention)
};

/// A run of layers that cost the same per token. Layers are grouped by cost,
/// not position: KV sizing depends on how many layers of each kind there are.
struct LayerGroup
{
    LayerKind kind = LayerKind::FullAttention;
    int count = 0;            ///< layers in this group
    int kvHeads = 0;          ///< num_key_value_heads (attention kinds)
    int headDimK = 0;         ///< values per K head (head_dim)
    int headDimV = 0;         ///< values per V head (head_dim, or v_head_dim where K and V differ)
    qint64 window = 0;        ///< sliding window in tokens (SlidingWindow)
    int latentDim = 0;        ///< kv_lora_rank (Mla)
    int ropeDim = 0;          ///< qk_rope_head_dim (Mla)
    int indexerHeadDim = 0;   ///< index_head_dim of a sparse-attention indexer's key cache (Mla, DeepSeek-V3.2; 0 = none)
    qint64 convStateValues = 0; ///< recurrent: convolution state values per layer per session
    qint64 ssmStateValues = 0;  ///< recurrent: SSM / linear-attention state values per layer per session

    bool operator==(const LayerGroup &o) const;
    bool operator!=(const LayerGroup &o) const { return !(*this == o); }
    /// True when `o` costs the same per token, so the two can share a group.
    bool sameCost(const LayerGroup &o) const;
};

/// The shape of a model as the capacity engine needs it: layer groups, head
/// counts, parameter counts and limits, read from a HuggingFace config.json
/// (see ConfigImporter) plus the preset's published parameter count.
/// A value type: compare with ==, print with qDebug().
struct ModelShape
{
    QString id;                 ///< preset id (lower-case kebab) or the config path
    QString name;               ///< display name, e.g. "Llama-3.1-8B"
    QString hfId;               ///< HuggingFace repo id, e.g. "meta-llama/Llama-3.1-8B"
    QString source;             ///< where the figures come from
    QString sourceDate;         ///< YYYY-MM-DD of the source
    QString modelType;          ///< config.json model_type
    int attentionHeads = 0;     ///< num_attention_heads (0 = unknown, custom shape)
    int kvHeads = 0;            ///< num_key_value_heads of the attention layers (0 for MLA-only)
    int headDim = 0;            ///< head_dim of the attention layers
    qint64 hiddenSize = 0;      ///< hidden_size
    int hiddenLayers = 0;       ///< num_hidden_layers as the config states it (a parallel hybrid has two groups per layer)
    qint64 intermediateSize = 0;    ///< intermediate_size (dense FFN)
    qint64 moeIntermediateSize = 0; ///< moe_intermediate_size (per expert; 0 = as intermediate_size)
    qint64 vocabSize = 0;       ///< vocab_size
    qint64 totalParams = 0;     ///< all parameters, every expert included
    qint64 activeParams = 0;    ///< parameters used per token (MoE: active experts only)
    qint64 derivedParams = 0;   ///< total parameters counted from the config's shapes (countParameters)
    qint64 derivedActiveParams = 0; ///< active parameters counted from the shapes
    qint64 visionParams = 0;    ///< vision encoder + projector parameters, part of totalParams (config.json vision_config; 0 = text only)
    qint64 tokensPerImage = 0;  ///< prompt tokens one image takes (mm_tokens_per_image; 0 without a vision encoder)
    qint64 checkpointBytes = 0; ///< published weight-file size for mixed-precision checkpoints (0 = none)
    qint64 maxPositionEmbeddings = 0; ///< max_position_embeddings (0 = unknown)
    int numExperts = 0;         ///< routed experts per MoE layer (0 = dense)
    int expertsPerToken = 0;    ///< num_experts_per_tok
    Dtype weightsDtype = Dtype::BF16;   ///< the checkpoint's precision (torch_dtype)
    Dtype recurrentStateDtype = Dtype::FP32; ///< recurrent state precision (engines keep it in fp32)
    QVector<LayerGroup> groups; ///< layer groups, summing to the model's layer count (less any layers that keep no KV of their own)
    /// Where the config's design is sized by an approximation (a chunk sized as a window, layers that
    /// reuse another layer's KV), one sentence each saying what was assumed; the plan repeats them as warnings.
    QStringList sizingNotes;

    /// num_hidden_layers: hiddenLayers when the config stated it, else the layers over all groups
    /// (summed in 64 bits: a thousand groups of 10^7 layers do not wrap).
    qint64 layers() const;
    /// The layers the groups hold, every kind (64-bit sum); fewer than num_hidden_layers where
    /// layers hold no KV of their own (Gemma 3n's KV-sharing layers, Nemotron-H's MLP layers).
    qint64 groupLayers() const;
    /// Layers of one kind (64-bit sum).
    qint64 layersOf(LayerKind kind) const;
    /// True when any group is of `kind`.
    bool has(LayerKind kind) const { return layersOf(kind) > 0; }
    /// Adds `count` layers like `g`, merging with a group of the same cost. Throws
    /// InputError("num_hidden_layers") when the merged group would pass 2^31 - 1 layers.
    void addLayers(const LayerGroup &g, int count);

    bool operator==(const ModelShape &o) const;
    bool operator!=(const ModelShape &o) const { return !(*this == o); }
};

/// "full attention", "sliding window", "MLA", "recurrent".
QString layerKindName(LayerKind kind);

QDebug operator<<(QDebug dbg, const LayerGroup &g);
QDebug operator<<(QDebug dbg, const ModelShape &m);

} // namespace Headroom
