// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/enginerule.h"

namespace Headroom {

/// TensorRT-LLM: free_gpu_memory_fraction x free memory after the engine
/// loads (tensorrt_llm KvCacheConfig); 32 tokens per block (64 in older
/// build scripts).
class TrtllmRule : public EngineRule
{
public:
    Engine id() const override { return Engine::Trtllm; }
    QString name() const override { return QStringLiteral("trtllm"); }
    QStringList aliases() const override { return {QStringLiteral("tensorrt-llm"), QStringLiteral("trt-llm")}; }
    QString describe() const override;
    /// TensorRT-LLM 0.8 (E08).
    EngineVersion checkedVersion() const override { return {0, 8}; }
    EngineBudget budget(const Scenario &s, qint64 weightsPerGpu) const override;
    EngineFigures figures(const Scenario &s, const KvCost &cost, qint64 budgetPerGpu) const override;
    QStringList derivation(const Scenario &s, const EngineFigures &f, UnitSystem u) const override;
    bool honoursKvCacheMemory() const override { return true; }
    double budgetUncertainty(const Scenario &s) const override
    {
        return s.engineSettings.kvCacheMemory || s.engineSettings.freeMemoryAfter ? 0 : 0.05;
    }
};

} // namespace Headroom
