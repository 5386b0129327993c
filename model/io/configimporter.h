// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kv/modelshape.h"

#include <QJsonObject>

namespace Headroom {

/// Reads a HuggingFace config.json (or a Headroom model preset, which embeds
/// one under "config") into a ModelShape. Field names are HuggingFace's own.
///
/// Layer rules, each from the architecture's transformers modelling file:
/// - head_dim: the explicit `head_dim` when given (Qwen3, Gemma), else
///   hidden_size / num_attention_heads; `num_key_value_heads` defaults to
///   num_attention_heads (transformers' PretrainedConfig convention: MHA).
/// - MLA (`kv_lora_rank` set; DeepSeek-V2/V3, Kimi-K2): kv_lora_rank +
///   qk_rope_head_dim values per layer per token, no K/V factor 2.
/// - `layer_types` wins when present ("full_attention", "sliding_attention",
///   "linear_attention", "mamba"/"attention"); else Gemma-2 alternates
///   (modeling_gemma2.py: even layers slide), Gemma-3 slides unless
///   (i + 1) % sliding_window_pattern == 0 (modeling_gemma3.py), Qwen2-style
///   configs slide only when use_sliding_window is true, for layers >=
///   max_window_layers; any other config with a `sliding_window` slides on
///   every layer (Mistral-7B-v0.1, Phi-3).
/// - Jamba: attention where i % attn_layer_period == attn_layer_offset, Mamba
///   elsewhere, with d_inner = mamba_expand x hidden_size, conv state
///   (mamba_d_conv - 1) x d_inner and SSM state mamba_d_state x d_inner
///   values per layer (llama.cpp src/llama-model.cpp, n_embd_r / n_embd_s).
/// - Qwen3-Next: full attention where (i + 1) % full_attention_interval == 0,
///   Gated DeltaNet elsewhere with state linear_num_value_heads x
///   linear_key_head_dim x linear_value_head_dim and conv state
///   (linear_conv_kernel_dim - 1) x (2 x linear_num_key_heads x
///   linear_key_head_dim + linear_num_value_heads x linear_value_head_dim).
/// - Families that name the geometry their own way are read under the
///   standard names (each config class's attribute_map): GPT-2 / GPTBigCode /
///   GPT-J / Bloom / RefinedWeb n_layer, n_head, n_embd, n_positions, n_inner;
///   MPT / DBRX d_model, n_heads, n_layers, max_seq_len; ChatGLM num_layers,
///   kv_channels, seq_length, padded_vocab_size, ffn_hidden_size; OPT ffn_dim.
///   KV heads as vLLM's get_total_num_kv_heads: "multi_query": true is one
///   (Falcon-7B, GPTBigCode) unless a Falcon has new_decoder_architecture,
///   else num_key_value_heads, else n_head_kv, num_kv_heads,
///   multi_query_group_num (unless ChatGLM's multi_query_attention is false),
///   attn_config.kv_n_heads, else num_attention_heads. num_experts_per_tok
///   above the expert count is refused. A refusal names the field as the
///   file spells it.
/// Multimodal configs are read from their nested `text_config`.
///
/// Errors: InputError naming the config.json field (missing, zero, negative,
/// not a number, or an attention kind this reader does not know: a hybrid or
/// state-space marker it cannot size is refused, never sized as dense).
class ConfigImporter
{
public:
    /// Shape from the contents of a config.json. A config.json states no
    /// parameter count: total and active are derived from its shapes
    /// (countParameters), 0 where they cannot be.
    static ModelShape fromConfig(const QJsonObject &config);
    /// Shape from a model preset: its "config" plus id, name, source and the
    /// published total_params / active_params / checkpoint_bytes (derived
    /// counts stay in derivedParams / derivedActiveParams for comparison).
    static ModelShape fromPreset(const QJsonObject &preset);
    /// Reads `path`: a config.json or a Headroom model preset. Throws
    /// InputError(field) for an unreadable file or malformed JSON (with the
    /// line and column of the fault).
    static ModelShape fromFile(const QString &path, const QString &field);
    /// The JSON object in the file at `path` (a regular file of at most
    /// 16 MiB), unread as a shape. Throws InputError(field) as fromFile().
    static QJsonObject readFile(const QString &path, const QString &field);
};

} // namespace Headroom
