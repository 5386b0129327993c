// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/trtllm.h"

namespace Headroom {

using EngineMath::checkFraction;
using EngineMath::fractionOf;

QString TrtllmRule::describe() const
{
    return QStringLiteral("TensorRT-LLM: free_gpu_memory_fraction × free memory after load, 32-token blocks "
                          "(tensorrt_llm KvCacheConfig)");
}

EngineBudget TrtllmRule::budget(const Scenario &s, qint64 weightsPerGpu) const
{
    EngineBudget b;
    const EngineSettings &e = s.engineSettings;
    const qint64 memory = s.effectiveEngineMemoryBytes();
    b.memory = memory;
    b.usable = memory;
    checkFraction(e.freeGpuMemoryFraction, "--free-gpu-memory-fraction");
    if (e.kvCacheMemory) {
        b.budget = *e.kvCacheMemory;
        b.rule = QStringLiteral("pinned by --kv-cache-memory");
    } else {
        const qint64 after = e.freeMemoryAfter.value_or(
            memory - Units::add(weightsPerGpu, s.effectiveWorkspaceBytes(), QStringLiteral("--weights")));
        b.budget = after > 0 ? fractionOf(after, e.freeGpuMemoryFraction) : after;
        b.rule = QStringLiteral("free_gpu_memory_fraction %1 × free memory after load").arg(e.freeGpuMemoryFraction);
    }
    b.workspace = std::max<qint64>(0, memory - weightsPerGpu - b.budget);
    return b;
}

EngineFigures TrtllmRule::figures(const Scenario &s, const KvCost &cost, qint64 budget) const
{
    EngineFigures f;
    const qint64 pool = std::max<qint64>(0, budget);
    const int perBlock = s.engineSettings.trtTokensPerBlock;
    const qint64 maxLen = s.effectiveMaxModelLen();
    const qint64 blockBytes = Units::mul(cost.bytesPerTokenPerGpu(), perBlock, QStringLiteral("--block-size"));
    f.numBlocks = blockBytes > 0 ? pool / blockBytes : 0;
    f.kvCacheTokens = f.numBlocks * perBlock;
    f.kvCacheBytes = f.numBlocks * blockBytes;
    f.maxModelLen = maxLen;
    f.maxConcurrency = maxLen > 0 ? double(f.kvCacheTokens) / double(maxLen) : 0;
    f.predicts = QStringList{QStringLiteral("[MemUsageChange] Allocated ... for max tokens in paged KV cache")};
    return f;
}

QStringList TrtllmRule::derivation(const Scenario &s, const EngineFigures &e, UnitSystem) const
{
    return {QStringLiteral("TensorRT-LLM would allocate %1 for %2 tokens (%3 blocks of %4)")
                .arg(Units::formatExactBytes(e.kvCacheBytes), Units::formatCount(e.kvCacheTokens), Units::formatCount(e.numBlocks))
                .arg(s.engineSettings.trtTokensPerBlock)};
}

} // namespace Headroom
