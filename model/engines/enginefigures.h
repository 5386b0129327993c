// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kv/kvcost.h"
#include "inputs/scenario.h"

#include <QJsonObject>
#include <QStringList>

namespace Headroom {

/// What the chosen engine would print at start-up, predicted from a scenario:
/// its KV budget per GPU and how it counts it (blocks, tokens, concurrency),
/// or llama.cpp's / Ollama's up-front "KV self" size. `predicts` names the
/// engine's own printed lines these figures stand for.
struct EngineFigures
{
    Engine engine = Engine::Plain;
    qint64 kvCacheBytes = 0;     ///< KV memory per GPU ("Available KV cache memory", SGLang K+V, TRT-LLM "allocated")
    qint64 numBlocks = 0;        ///< blocks (vLLM "# GPU blocks" / num_blocks; TRT-LLM blocks); SGLang: tokens (page 1)
    qint64 kvCacheTokens = 0;    ///< tokens the pool holds ("GPU KV cache size", SGLang "#tokens", llama.cpp n_ctx)
    double maxConcurrency = 0;   ///< requests of max_model_len at once ("Maximum concurrency")
    qint64 maxModelLen = 0;      ///< the length the concurrency is quoted at
    qint64 kvSelfBytes = 0;      ///< llama.cpp "KV self size" / Ollama memory.required.kv, K and V (whole model)
    qint64 recurrentStateBytes = 0; ///< llama.cpp recurrent-state buffer (R + S), f32, all sequences
    qint64 activationPeakBytes = 0; ///< vLLM: the activation peak used (measured or estimated)
    QStringList predicts;        ///< the engine's printed lines these figures reproduce
    QString note;                ///< what is not predicted, and why

    /// The engine_* JSON fields of `headroom plan --engine E`.
    void addTo(QJsonObject &o) const;
};

/// The KV budget per GPU under `s.engine`, and the workspace it implies.
/// Rules and sources:
/// - plain, llama.cpp, Ollama: card - weights - workspace.
/// - vLLM: floor(card x gpu_memory_utilization) - weights - activation peak -
///   non-torch - CUDA graphs (from 0.11 on); --workspace replaces the last
///   three; --kv-cache-memory pins the result (vllm/v1/worker/gpu_worker.py).
/// - SGLang: free after load - free before load x (1 - mem_fraction_static)
///   (model_runner.py profile_max_num_token); before defaults to card -
///   runtime reserve, after to before - weights.
/// - TensorRT-LLM: free_gpu_memory_fraction x free after load, after
///   defaulting to card - weights - workspace.
struct EngineBudget
{
    qint64 usable = 0;     ///< card, or card x utilization (vLLM)
    qint64 workspace = 0;  ///< per GPU: what is neither weights nor KV within `usable`
    qint64 budget = 0;     ///< KV budget per GPU (may be negative: a shortfall)
    qint64 activationPeak = 0; ///< vLLM only
    QString rule;          ///< the rule with the numbers, for the derivation (units filled in later)
};

/// Computes the engine's budget for scenario `s` with weights per GPU `weightsPerGpu`.
/// Throws InputError naming the flag for out-of-range settings.
EngineBudget engineBudget(const Scenario &s, qint64 weightsPerGpu);

/// vLLM's activation peak estimate per GPU, bytes: T x 3 x I x 2 B / TP for
/// the MLP (gate, up and activated intermediate in bf16) + min(T, 256) x
/// vocab x 4 B for fp32 logits of vLLM's dummy sequences (max_num_seqs 256),
/// with T = max_num_batched_tokens (default 8192 from vLLM 0.8 on; before,
/// max(max_model_len, 2048) up to 32K) and I the dense intermediate size or
/// experts-per-token x the expert size. Calibrated on E05 (Qwen2.5-7B, T
/// 8192: 1.01 GiB estimated, 1.04 GiB printed). Falls back to the default
/// activation workspace when the shape lacks intermediate_size.
qint64 vllmActivationEstimate(const Scenario &s);

/// The engine's printed figures for `s`, given its KV cost and budget per GPU.
EngineFigures computeEngineFigures(const Scenario &s, const KvCost &cost, qint64 budgetPerGpu);

} // namespace Headroom
