// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"

namespace Headroom {

/// A vision encoder's two pools on the card (issue 14): its weights, a share
/// of the model's, and the engine's encoder cache of image embeddings.
namespace VisionPool {

/// Largest --images-per-request accepted (vLLM's default limit_mm_per_prompt
/// per modality is 999).
constexpr int maxImagesPerRequest = 999;

/// True when the model has a vision encoder (ModelShape::visionParams > 0).
bool hasEncoder(const Scenario &s);
/// True when the engine loads the encoder: always, except vLLM with no images
/// (--images-per-request 0 stands for --limit-mm-per-prompt '{"image": 0}',
/// and vLLM then skips the tower: "Tower model components are automatically
/// skipped when --limit-mm-per-prompt is set to zero for all of their
/// modalities", vllm/model_executor/models/interfaces.py,
/// SupportsMultiModal._mark_tower_model). Other engines load the checkpoint whole.
bool towerLoaded(const Scenario &s);
/// The encoder's share of the whole model's weights `weights`, bytes:
/// weights x visionParams / totalParams (the encoder at the weights' precision;
/// 0 without an encoder or a parameter count). Whether loaded or not.
qint64 encoderWeightsBytes(const Scenario &s, qint64 weights);
/// Prompt tokens the images of one request take: images x tokens per image
/// (0 on a text model). Throws InputError("--images-per-request") when the
/// count is negative or above maxImagesPerRequest, or when those tokens do not
/// fit the context.
qint64 imageTokensPerRequest(const Scenario &s);
/// The encoder cache budget in embeddings, vLLM's rule (vllm/v1/core/
/// encoder_cache_manager.py, compute_mm_encoder_budget / _get_encoder_cache_size:
/// encoder_cache_size defaults to max_num_batched_tokens, raised to the largest
/// image's tokens), under the vllm and plain rules on a vision model with images;
/// 0 otherwise (no images: "Encoder cache will not be initialized"; SGLang,
/// TensorRT-LLM, llama.cpp and Ollama size theirs differently and are not modelled).
qint64 encoderCacheTokens(const Scenario &s);
/// The encoder cache per GPU, bytes: encoderCacheTokens x the language model's
/// hidden_size x 2 B (embeddings in the model's 16-bit dtype, whole on every GPU
/// of the TP group). vLLM holds that many dummy embeddings while it profiles the
/// forward pass (vllm/v1/worker/gpu_model_runner.py, profile_run: "Cache the dummy
/// encoder outputs"), so the peak, and the KV budget, take it. 0 when a measured
/// --workspace or --activation-peak (or, under vLLM, --kv-cache-memory) already holds it.
qint64 encoderCacheBytes(const Scenario &s);

} // namespace VisionPool
} // namespace Headroom
