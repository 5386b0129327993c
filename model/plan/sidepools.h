// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/units.h"
#include "inputs/scenario.h"
#include "kv/kvcost.h"

#include <QStringList>

namespace Headroom {

struct CapacityResult;

/// The side pools a scenario puts on each card beside the target's weights
/// and KV (issue #14): a speculative-decoding draft and LoRA adapter slots.
/// Pure functions of the Scenario; computeCapacity() folds them in.
namespace SidePools {

/// The input a draft's errors name: its model (--draft-model), else its MTP / EAGLE
/// layers (--draft-layers), as the scenario's source spells it (Scenario::field).
QString draftField(const Scenario &s);

/// The draft's shape: the --draft-model preset or config.json, or
/// --draft-layers N layers like the target's largest attention group (MTP /
/// EAGLE heads: DeepSeek-V3's MTP module and EAGLE heads are decoder layers
/// of the target's own attention shape; the what-if KV heads apply). Throws
/// InputError(--draft-layers) when the target has no attention layer to copy.
ModelShape draftShape(const Scenario &s);

/// The draft's KV cost at the target's KV dtype, TP and block size (vLLM runs
/// the draft at the target's TP unless told otherwise, and its layers share
/// the target's cache config: vllm/config/speculative.py,
/// draft_tensor_parallel_size). Throws InputError naming --draft-model (or
/// --draft-layers) when TP cannot split the draft's heads, and when --pp > 1
/// (a draft is planned beside a single pipeline stage only).
KvCost draftCost(const Scenario &s);

/// The whole draft's weights, bytes, and how they were counted (`basis`):
/// - a separate draft: its published checkpoint, else its parameters x 2 B in
///   the target's 16-bit dtype (vLLM loads the draft with the target's dtype:
///   vllm/config/speculative.py, dtype=target_model_config.dtype), or its own
///   dtype for a quantized checkpoint;
/// - N MTP / EAGLE layers: the target's weights x N x (parameters per layer) /
///   total parameters, parameters per layer = (total - 2 x vocab x hidden) /
///   layers (embeddings and head are shared with the target).
/// `targetWeights` is the target's whole weights as planned. Throws
/// InputError(--draft-model) when the draft's parameter count is unknown.
qint64 draftWeightsBytes(const Scenario &s, qint64 targetWeights, QString *basis = nullptr);

/// LoRA slots' bytes: whole model (perGpu false, TP 1) or one GPU of the
/// group (its pipeline stage's layers). vLLM allocates, per adapted linear
/// layer and per slice, lora_a (max_loras, 1, max_lora_rank, input) and
/// lora_b (max_loras, 1, output, max_lora_rank) in lora_dtype = the model's
/// 16-bit dtype (vllm/lora/layers/base_linear.py and
/// column_parallel_linear.py, create_lora_weights). Under TP the
/// column-parallel q, k, v, gate, up keep the whole input and split the
/// output (k, v at max(1, kv_heads / TP) heads), the row-parallel o and down
/// split the input and keep the whole output
/// (vllm/lora/layers/row_parallel_linear.py). So N x R x (in + out) values
/// per adapted layer. Throws InputError naming --lora-modules for MLA
/// attention or MoE experts (not planned), --max-loras when the shape lacks
/// hidden_size, num_attention_heads or intermediate_size, and the range
/// rules' fields (core/inputranges.h).
qint64 loraBytes(const Scenario &s, bool perGpu);

/// The derivation's lines for the side pools that are on, with numbers
/// plugged in and sources named: the draft's KV per token, the lookahead,
/// the draft's weights, the LoRA slots. Empty when every pool is off.
QStringList explain(const Scenario &s, const CapacityResult &r, UnitSystem units);

} // namespace SidePools
} // namespace Headroom
