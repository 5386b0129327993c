// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/dtype.h"
#include "kv/modelshape.h"

#include <QVector>
#include <optional>

namespace Headroom {

/// The cache cost of one layer group, per GPU of a TP group and for the whole model.
struct GroupCost
{
    LayerGroup group;             ///< the layers (kv_heads after any override)
    int kvHeadsPerGpu = 0;        ///< attention heads' K/V per GPU after TP split or replication
    qint64 bytesPerTokenPerLayer = 0;       ///< model's own figure (TP 1), K and V together, indexer included
    qint64 bytesPerTokenPerLayerPerGpu = 0; ///< what one GPU holds
    qint64 latentBytesPerTokenPerLayer = 0; ///< MLA: the latent + RoPE key alone (fp8_ds_mla layout on a sparse model at fp8)
    qint64 indexerBytesPerTokenPerLayer = 0; ///< MLA with an indexer: its key cache (fp8 + fp32 scales), replicated per GPU
    qint64 stateBytesPerLayer = 0;          ///< recurrent: fixed state per session per layer (model)
    qint64 stateBytesPerLayerPerGpu = 0;    ///< recurrent: per GPU (split across the TP group)
    bool draft = false;                     ///< a speculative-decoding draft's layers (KvCost::addDraft), not the model's own
};

/// How the inputs a KV cost grows from are named in its errors, as the
/// user gave them (a flag, a scenario-file field; Scenario::names).
struct KvCostNames
{
    QString tp = QStringLiteral("--tp");
    QString kvHeads = QStringLiteral("--kv-heads");
    QString blockSize = QStringLiteral("--block-size");
    QString model = QStringLiteral("--model"); ///< the shape: blamed when its bytes per token overflow
};

/// KV-cache bytes for a model at a cache precision, tensor parallelism and
/// block size: the per-layer rule of each attention kind, summed.
///
/// - Full attention: (kv_heads x head_dim_K + kv_heads x head_dim_V) values
///   per layer per token (the "2 x kv_heads x head_dim" of MHA/GQA/MQA).
/// - Sliding window: the same per token, for at most `window` tokens.
/// - MLA: kv_lora_rank + qk_rope_head_dim values per layer per token, one
///   latent with no K/V factor 2 (DeepSeek-V2 paper, section 2.1; llama.cpp
///   prints c^KV and K^R separately in its MLA-branch start-up log for DeepSeek V3/R1).
/// - Sparse MLA (an MLA group with indexerHeadDim, DeepSeek-V3.2): at an fp8
///   cache the latent takes vLLM's fp8_ds_mla layout, kv_lora_rank fp8 values
///   + one fp32 scale per 128 + qk_rope_head_dim bf16 values (512 + 16 + 128
///   = 656 B; vllm/v1/attention/backends/mla/flashmla_sparse.py,
///   get_kv_cache_shape, where "fp8" is an alias of fp8_ds_mla); and the
///   indexer adds index_head_dim fp8 values + one fp32 scale per 128 (132 B)
///   whatever the cache dtype (vllm/model_executor/models/deepseek_v2.py,
///   Indexer: DeepseekV32IndexerCache(head_dim + head_dim // quant_block_size
///   x 4, uint8); SGLang NSATokenToKVPool sizes its index_k buffer the same).
/// - Recurrent: conv + SSM state per layer per session, any length, in the
///   model's recurrent_state dtype (fp32).
/// Under TP, K/V heads per GPU = kv_heads / TP, or 1 (replicated) when TP >
/// kv_heads (vLLM: num_kv_heads // tp_size, at least 1); an MLA latent is
/// replicated on every GPU; recurrent state and weights are split.
/// Paged allocation: a layer holds ceil(tokens / block) blocks of `block`
/// tokens, tokens = min(L, window) for a sliding layer (vLLM's block table).
/// Bytes of a block format (nvfp4, q8_0, ...) are per row of values.
class KvCost
{
public:
    using Names = KvCostNames;

    /// Throws InputError naming --tp (with both numbers) when TP splits no
    /// engine would run: kv_heads not divisible by TP nor TP by kv_heads, or
    /// attention heads not divisible by TP; naming --kv-heads when the
    /// override does not divide the attention heads or the model has no
    /// K/V heads (MLA, recurrent-only); naming --block-size when < 1; naming
    /// the model when its bytes per token (or state per session) leave 64 bits.
    /// The names are `names`' (the flags by default).
    KvCost(const ModelShape &model, Dtype kvDtype, int tp, int blockSize,
           std::optional<int> kvHeadsOverride = std::nullopt, const Names &names = Names());

    /// Bytes per token the whole model adds while no window binds (K and V,
    /// all attention layers), at TP 1: the figure engines print per token.
    qint64 bytesPerToken() const { return m_bytesPerToken; }
    /// The same for one GPU of the TP group, replication included.
    qint64 bytesPerTokenPerGpu() const { return m_bytesPerTokenPerGpu; }
    /// The sparse-attention indexer's share of bytesPerToken() (0 without one);
    /// an indexer key is replicated, so the per-GPU share is the same.
    qint64 indexerBytesPerToken() const { return m_indexerBytesPerToken; }
    /// Fixed recurrent-state bytes per session (model / per GPU).
    qint64 stateBytesPerSession() const { return m_stateBytes; }
    qint64 stateBytesPerSessionPerGpu() const { return m_stateBytesPerGpu; }
    /// Tokens a layer holds for a session of `tokens`, with paging: ceil to the
    /// block size, the lookahead slots (setLookahead) included.
    qint64 heldTokens(const LayerGroup &g, qint64 tokens, const QString &field = QStringLiteral("--context")) const;
    /// Bytes one session of `tokens` resident tokens takes: whole model
    /// (perGpu false) or one GPU of the TP group. Throws InputError on overflow,
    /// naming the larger factor as NamedCount does: `field` (the length) when
    /// tokens >= the bytes per token, else the model (a shape too large per token).
    qint64 sessionBytes(qint64 tokens, bool perGpu, const QString &field = QStringLiteral("--context")) const;
    /// Whether sessionBytes(tokens, true) equals `o`'s for every `tokens` because
    /// every figure it reads is the same: block size, lookahead, bytes per token
    /// per GPU, and each group's kind, layer count, window, per-GPU bytes per token
    /// and per-GPU state (compared in order). False says nothing: two costs built
    /// differently (a replicated head count) may still price every session alike.
    bool samePerGpuSessionBytes(const KvCost &o) const;
    /// The sparse-attention indexer's share of sessionBytes(tokens) (paged like
    /// the latent; the same on every GPU). 0 without an indexer. Throws
    /// InputError(field) on overflow.
    qint64 indexerSessionBytes(qint64 tokens, const QString &field = QStringLiteral("--context")) const;
    /// Adds a speculative-decoding draft's layers to this pool: its groups
    /// (marked GroupCost::draft) and per-token bytes join every figure above,
    /// as vLLM registers the draft's attention layers in the target's forward
    /// context, so one KV cache config and one block pool hold both
    /// (vllm/v1/spec_decode/eagle.py and draft_model.py, load_model:
    /// draft_attn_layer_names; gpu_model_runner get_kv_cache_spec). `draft`
    /// must share this cost's KV dtype and block size. Throws InputError on overflow.
    void addDraft(const KvCost &draft);
    /// The draft's share of bytesPerToken() / bytesPerTokenPerGpu() (0 without one).
    qint64 draftBytesPerToken() const { return m_draftBytesPerToken; }
    qint64 draftBytesPerTokenPerGpu() const { return m_draftBytesPerTokenPerGpu; }
    /// The draft's share of sessionBytes(tokens, perGpu) (lookahead included). 0 without a draft.
    qint64 draftSessionBytes(qint64 tokens, bool perGpu, const QString &field = QStringLiteral("--context")) const;
    /// Speculative decoding's lookahead: every session holds `tokens` more
    /// token slots in every attention layer (target and draft) than its
    /// length, as vLLM's scheduler allocates slots for num_computed + new +
    /// num_lookahead_tokens (= num_speculative_tokens; vllm/v1/core/sched/
    /// scheduler.py, kv_cache_manager.allocate_slots). 0 = none.
    void setLookahead(qint64 tokens) { m_lookahead = tokens; }
    qint64 lookahead() const { return m_lookahead; }
    /// The per-group costs, in the model's group order, for derivations.
    const QVector<GroupCost> &groups() const { return m_groups; }
    int tp() const { return m_tp; }
    int blockSize() const { return m_blockSize; }
    Dtype kvDtype() const { return m_kvDtype; }

private:
    QVector<GroupCost> m_groups;
    Dtype m_kvDtype;
    int m_tp;
    int m_blockSize;
    Names m_names;
    qint64 m_bytesPerToken = 0;
    qint64 m_bytesPerTokenPerGpu = 0;
    qint64 m_indexerBytesPerToken = 0;
    qint64 m_draftBytesPerToken = 0;
    qint64 m_draftBytesPerTokenPerGpu = 0;
    qint64 m_lookahead = 0;
    qint64 m_stateBytes = 0;
    qint64 m_stateBytesPerGpu = 0;
};

} // namespace Headroom
