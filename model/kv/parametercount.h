// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>

namespace Headroom {

/// Parameters derived from a config.json's shapes, for configs that do not
/// state a count (and to show beside a published one).
struct ParameterCount
{
    qint64 total = 0;   ///< every weight, all experts (0 = could not derive)
    qint64 active = 0;  ///< per token: attention, dense layers, shared and top-k routed experts
    qint64 visionParams = 0; ///< the vision encoder's share of total (countVisionEncoder; 0 without a vision_config)
    QString note;       ///< what was counted, or why nothing was
};

/// What a family's transformers classes build where its config.json is silent, for the
/// families that differ from LlamaConfig's (gated MLP, untied head, rotary positions).
/// Sources, each the family's modeling_*.py / configuration_*.py: two-matrix MLPs (GPT2MLP and
/// GPTBigCodeMLP c_fc/c_proj, GPTJMLP / CodeGenMLP fc_in/fc_out, GPTNeoMLP, GPTNeoXMLP,
/// FalconMLP and BloomMLP dense_h_to_4h/dense_4h_to_h, OPT fc1/fc2, MptMLP, PhiMLP,
/// Starcoder2MLP); 4 x hidden_size when the width is left out (GPT-2, GPT-J and CodeGen for
/// n_inner None, FalconConfig's ffn_hidden_size None, BloomMLP, GPTNeoConfig; MptConfig's
/// expansion_ratio, default 4); PretrainedConfig's tie_word_embeddings=True kept (GPT2,
/// GPTBigCode, Falcon, Bloom, OPT, MPT, GPT-Neo); learned positions (GPT2Model and
/// GPTBigCodeModel wpe, GPTNeoModel wpe, OPTLearnedPositionalEmbedding with 2 rows more).
struct FamilyTraits
{
    bool falcon = false;           ///< falcon, or the RefinedWeb remote-code spellings
    bool ungatedMlp = false;       ///< up and down only: 2 x hidden x width, not 3 x
    bool mlpFourWide = false;      ///< a width left out is 4 x hidden_size (MPT: expansion_ratio x)
    bool tiedByDefault = false;    ///< tie_word_embeddings left out means tied
    bool learnedPositions = false; ///< max_position_embeddings x hidden more (OPT: + 2 rows)
};
/// The traits of config.json `model_type`; all false for any other family.
FamilyTraits familyTraits(const QString &modelType);
/// True for the pure state-space families (no attention): Mamba-1 (model_type mamba,
/// falcon_mamba) and Mamba-2 (mamba2).
bool isStateSpaceFamily(const QString &modelType);

/// Counts the weight matrices a transformers modelling file builds from the
/// config (text_config for multimodal configs), biases and norms included:
/// - embeddings vocab x hidden (and learned positions max_position_embeddings
///   x hidden for GPT-2, GPTBigCode, GPT-Neo and OPT), plus an untied LM head of the same size
///   (tie_word_embeddings; absent = tied for Gemma, untied otherwise, the
///   defaults of GemmaConfig / LlamaConfig);
/// - attention q/k/v/o (num_attention_heads x head_dim for q and o,
///   num_key_value_heads x head_dim for k and v); MLA as DeepSeek-V3's
///   q_a/q_b (q_lora_rank), kv_a (kv_lora_rank + qk_rope_head_dim) and kv_b;
/// - a gated MLP of 3 x hidden x intermediate_size (2 x for the families
///   whose MLP has no gate: GPT-2, GPTBigCode, GPT-J, CodeGen, GPT-Neo(X),
///   Falcon, Bloom, OPT, MPT, Phi, Starcoder2); MoE layers hold
///   num_experts gated experts of moe_intermediate_size (else
///   intermediate_size), a router of hidden x experts, and n_shared_experts
///   (or a shared_expert_intermediate_size expert); first_k_dense_replace
///   dense layers first (DeepSeek), every expert_layer_period-th from
///   expert_layer_offset (Jamba);
/// - Mamba-1 mixers (Jamba: in_proj, conv1d, x_proj, dt_proj, A, D, out_proj)
///   and Gated DeltaNet mixers (Qwen3-Next: in_proj_qkvz, in_proj_ba, conv1d,
///   dt_bias, A_log, norm, out_proj).
/// - a vision_config's encoder and projector (countVisionEncoder, in
///   total only: decode never reads it).
/// Accurate to about 1% on the built-in presets' published counts (the
/// rest is biases and norms some families add). A config that lacks the
/// basic shapes, or a family it cannot count, gives total 0 and a note.
/// Errors: InputError naming the config.json field when a field it reads is
/// not a whole number in range (negative, a fraction, or a period or
/// interval below 1, which would divide by zero), and when the count leaves
/// 64 bits (checked arithmetic, Units::mul / Units::add; the field of the
/// larger operand is named).
ParameterCount countParameters(const QJsonObject &config);

} // namespace Headroom
