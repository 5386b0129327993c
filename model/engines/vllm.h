// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/enginerule.h"

namespace Headroom {

/// vLLM: floor(card x gpu_memory_utilization) - weights - activation peak -
/// non-torch [- CUDA graphs] (vllm/v1/worker/gpu_worker.py,
/// determine_available_memory); --workspace replaces the last three;
/// --kv-cache-memory pins the result. Blocks and groups per
/// vllm/v1/core/kv_cache_utils.py (get_kv_cache_configs).
class VllmRule : public EngineRule
{
public:
    Engine id() const override { return Engine::Vllm; }
    QString name() const override { return QStringLiteral("vllm"); }
    QString describe() const override;
    EngineBudget budget(const Scenario &s, qint64 weightsPerGpu) const override;
    EngineFigures figures(const Scenario &s, const KvCost &cost, qint64 budgetPerGpu) const override;
    void addJson(const EngineFigures &f, QJsonObject &o) const override;
    QStringList derivation(const Scenario &s, const EngineFigures &f, UnitSystem u) const override;
    bool usesUtilization() const override { return true; }
    bool honoursKvCacheMemory() const override { return true; }
    void addLogPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field) const override;
    void applyLog(const LogReading &r, Scenario &s) const override;

    /// True when the version subtracts the CUDA-graph memory from the budget.
    static bool subtractsCudaGraphs(const EngineSettings &e);
};

namespace Vllm {
/// vLLM's non-torch memory when not measured: 0.06 GiB printed at TP 1 (E05);
/// NCCL buffers add a few hundred MiB under TP, so 0.5 GiB when TP > 1.
qint64 defaultNonTorchBytes(int tp);
/// vLLM's CUDA-graph memory when not measured: 0.48 GiB printed for a 7B
/// model (E05).
constexpr qint64 defaultCudaGraphBytes = 515'396'076; // 0.48 GiB
} // namespace Vllm

/// vLLM's activation peak estimate per GPU, bytes: T x 3 x I x 2 B / TP for
/// the MLP (gate, up and activated intermediate in bf16) + min(T, 256) x
/// vocab x 4 B for fp32 logits of vLLM's dummy sequences (max_num_seqs 256),
/// with T = max_num_batched_tokens (default 8192 from vLLM 0.8 on; before,
/// max(max_model_len, 2048) up to 32K) and I the dense intermediate size or
/// experts-per-token x the expert size. Calibrated on E05 (Qwen2.5-7B, T
/// 8192: 1.01 GiB estimated, 1.04 GiB printed). Falls back to the default
/// activation workspace when the shape lacks intermediate_size.
qint64 vllmActivationEstimate(const Scenario &s);

} // namespace Headroom
