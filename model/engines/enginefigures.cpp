// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/enginefigures.h"
#include "core/inputerror.h"
#include "core/units.h"

#include <QJsonArray>
#include <QMap>
#include <cmath>

namespace Headroom {

namespace {

qint64 padTo(qint64 n, qint64 multiple)
{
    return Units::ceilDiv(n, multiple) * multiple;
}

qint64 maxModelLenOf(const Scenario &s)
{
    return s.effectiveMaxModelLen();
}

qint64 fractionOf(qint64 bytes, double fraction)
{
    return qint64(std::floor((long double)bytes * (long double)fraction));
}

void checkFraction(double f, const char *flag)
{
    if (!(f > 0 && f <= 1))
        throw InputError(QString::fromLatin1(flag), QStringLiteral("must be greater than 0 and at most 1, got %1").arg(f));
}

bool vllmSubtractsCudaGraphs(const EngineSettings &e)
{
    return e.vllmMajor > 0 || e.vllmMinor >= 11;
}

// vLLM (kv_cache_utils.py): layers of one spec form one group; a hybrid of
// several attention types is split into groups of `group_size` layers, and
// every group gets the same number of blocks.
EngineFigures vllmFigures(const Scenario &s, const KvCost &cost, qint64 budget)
{
    EngineFigures f;
    const int block = s.blockSize;
    // Attention layer counts per distinct spec (full / MLA, or sliding by window).
    QMap<qint64, int> byWindow; // window 0 = full attention or MLA
    qint64 layerBytes = -1;
    bool uniformBytes = true;
    for (const GroupCost &c : cost.groups()) {
        if (c.group.kind == LayerKind::Recurrent) {
            f.note = QStringLiteral("vLLM pads attention pages to the Mamba state's page size for hybrid models; "
                                    "Headroom predicts the KV budget only.");
            return f;
        }
        byWindow[c.group.kind == LayerKind::SlidingWindow ? c.group.window : 0] += c.group.count;
        if (layerBytes >= 0 && layerBytes != c.bytesPerTokenPerLayerPerGpu)
            uniformBytes = false;
        layerBytes = c.bytesPerTokenPerLayerPerGpu;
    }
    if (!uniformBytes || layerBytes <= 0) {
        f.note = QStringLiteral("Layers with different bytes per token: vLLM unifies page sizes by its own rules; "
                                "Headroom predicts the KV budget only.");
        return f;
    }
    const qint64 page = Units::mul(layerBytes, block, QStringLiteral("--block-size"));
    int minLayers = INT_MAX, maxLayers = 0;
    for (int n : byWindow)
        minLayers = std::min(minLayers, n), maxLayers = std::max(maxLayers, n);
    int groupSize = minLayers;
    if (byWindow.size() == 1)
        groupSize = maxLayers;
    else if (maxLayers < minLayers * 1.5)
        groupSize = maxLayers;
    qint64 groups = 0;
    for (int n : byWindow)
        groups += Units::ceilDiv(n, groupSize);
    f.numBlocks = budget > 0 ? budget / page / groupSize : 0;
    f.kvCacheTokens = f.numBlocks / groups * block;
    // get_max_concurrency_for_kv_cache_config: blocks one request of max_model_len needs.
    const qint64 maxLen = maxModelLenOf(s);
    const qint64 batched = s.engineSettings.maxNumBatchedTokens.value_or(8192);
    qint64 blocksPerRequest = 0;
    for (auto it = byWindow.cbegin(); it != byWindow.cend(); ++it) {
        const qint64 perGroup = it.key() == 0 ? Units::ceilDiv(maxLen, block)
                                              : Units::ceilDiv(std::min(it.key() - 1 + batched, maxLen), block) + 1;
        blocksPerRequest += perGroup * Units::ceilDiv(it.value(), groupSize);
    }
    f.maxModelLen = maxLen;
    f.maxConcurrency = blocksPerRequest > 0 ? double(f.numBlocks) / double(blocksPerRequest) : 0;
    f.predicts = QStringList{QStringLiteral("Available KV cache memory (GiB)"), QStringLiteral("GPU KV cache size (tokens)"),
                             QStringLiteral("Maximum concurrency for max_model_len tokens per request"),
                             QStringLiteral("num_gpu_blocks (V0: # GPU blocks)")};
    if (groups > 1)
        f.note = QStringLiteral("Hybrid attention: %1 KV cache groups of %2 layers; vLLM prints tokens = blocks / groups x block size.")
                     .arg(groups).arg(groupSize);
    if (s.tp > 1)
        f.note += QStringLiteral("%1Under TP the worker with the least free memory sets the block count; Headroom assumes equal workers.").arg(f.note.isEmpty() ? QString() : QStringLiteral(" "));
    return f;
}

} // namespace

qint64 vllmActivationEstimate(const Scenario &s)
{
    const ModelShape &m = s.model;
    const EngineSettings &e = s.engineSettings;
    qint64 tokens = 8192;
    if (e.maxNumBatchedTokens)
        tokens = *e.maxNumBatchedTokens;
    else if (e.vllmMajor == 0 && e.vllmMinor < 8) {
        const qint64 maxLen = maxModelLenOf(s);
        tokens = maxLen > 0 && maxLen <= 32768 ? std::max<qint64>(maxLen, 2048) : 2048;
    }
    const qint64 expert = m.moeIntermediateSize > 0 ? m.moeIntermediateSize : m.intermediateSize;
    const qint64 intermediate = m.numExperts > 0 && m.expertsPerToken > 0 ? m.expertsPerToken * expert : m.intermediateSize;
    if (intermediate <= 0 || m.vocabSize <= 0)
        return Engines::defaultActivationBytes;
    const QString f = QStringLiteral("--max-num-batched-tokens");
    const qint64 mlp = Units::mul(Units::mul(tokens, 3 * intermediate, f), 2, f) / std::max(1, s.tp);
    const qint64 logits = Units::mul(std::min<qint64>(tokens, 256), Units::mul(m.vocabSize, 4, f), f);
    return Units::add(mlp, logits, f);
}

EngineBudget engineBudget(const Scenario &s, qint64 weightsPerGpu)
{
    EngineBudget b;
    const EngineSettings &e = s.engineSettings;
    const qint64 memory = s.effectiveGpuMemoryBytes();
    b.usable = memory;
    switch (s.engine) {
    case Engine::Plain:
    case Engine::LlamaCpp:
    case Engine::Ollama:
        b.workspace = s.effectiveWorkspaceBytes();
        b.budget = memory - Units::add(weightsPerGpu, QStringLiteral("--weights"), b.workspace, QStringLiteral("--workspace"));
        b.rule = QStringLiteral("card − weights − workspace");
        break;
    case Engine::Vllm: {
        checkFraction(s.gpuMemoryUtilization, "--gpu-memory-utilization");
        b.usable = fractionOf(memory, s.gpuMemoryUtilization);
        if (e.kvCacheMemory) {
            b.budget = *e.kvCacheMemory;
            b.workspace = std::max<qint64>(0, b.usable - weightsPerGpu - b.budget);
            b.rule = QStringLiteral("pinned by --kv-cache-memory");
            break;
        }
        if (s.workspaceBytes) {
            b.workspace = *s.workspaceBytes;
            b.rule = QStringLiteral("card × gpu_memory_utilization − weights − workspace");
        } else {
            b.activationPeak = e.activationPeak.value_or(vllmActivationEstimate(s));
            const qint64 nonTorch = e.nonTorch.value_or(Engines::defaultNonTorchBytes(s.tp));
            const qint64 graphs = vllmSubtractsCudaGraphs(e) ? e.cudaGraph.value_or(Engines::defaultCudaGraphBytes) : 0;
            b.workspace = Units::add(Units::add(b.activationPeak, QStringLiteral("--activation-peak"), nonTorch, QStringLiteral("--non-torch")),
                                     QStringLiteral("--activation-peak"), graphs, QStringLiteral("--cuda-graph"));
            b.rule = vllmSubtractsCudaGraphs(e)
                ? QStringLiteral("card × gpu_memory_utilization − weights − activation peak − non-torch − CUDA graphs")
                : QStringLiteral("card × gpu_memory_utilization − weights − activation peak − non-torch (vLLM < 0.11 "
                                 "does not subtract CUDA graphs)");
        }
        b.budget = b.usable - Units::add(weightsPerGpu, QStringLiteral("--weights"), b.workspace, QStringLiteral("--workspace"));
        break;
    }
    case Engine::Sglang: {
        const double fraction = e.memFractionStatic.value_or(Engines::defaultMemFractionStatic(s.tp));
        checkFraction(fraction, "--mem-fraction-static");
        if (e.kvCacheMemory) {
            b.budget = *e.kvCacheMemory;
            b.rule = QStringLiteral("pinned by --kv-cache-memory");
        } else {
            const qint64 before = e.freeMemoryBefore.value_or(memory - s.runtimeReserveBytes);
            const qint64 after = e.freeMemoryAfter.value_or(before - weightsPerGpu);
            if (after > before)
                throw InputError(QStringLiteral("--free-memory-after"),
                                 QStringLiteral("%1 cannot exceed the free memory before loading (%2): loading takes memory")
                                     .arg(Units::formatBytes(after, UnitSystem::Binary), Units::formatBytes(before, UnitSystem::Binary)));
            b.budget = after - fractionOf(before, 1.0 - fraction);
            b.rule = QStringLiteral("free after load − free before load × (1 − mem_fraction_static %1)").arg(fraction);
        }
        b.workspace = std::max<qint64>(0, memory - weightsPerGpu - b.budget);
        break;
    }
    case Engine::Trtllm: {
        checkFraction(e.freeGpuMemoryFraction, "--free-gpu-memory-fraction");
        if (e.kvCacheMemory) {
            b.budget = *e.kvCacheMemory;
            b.rule = QStringLiteral("pinned by --kv-cache-memory");
        } else {
            const qint64 after = e.freeMemoryAfter.value_or(
                memory - Units::add(weightsPerGpu, QStringLiteral("--weights"), s.effectiveWorkspaceBytes(), QStringLiteral("--workspace")));
            b.budget = after > 0 ? fractionOf(after, e.freeGpuMemoryFraction) : after;
            b.rule = QStringLiteral("free_gpu_memory_fraction %1 × free memory after load").arg(e.freeGpuMemoryFraction);
        }
        b.workspace = std::max<qint64>(0, memory - weightsPerGpu - b.budget);
        break;
    }
    }
    return b;
}

EngineFigures computeEngineFigures(const Scenario &s, const KvCost &cost, qint64 budget)
{
    EngineFigures f;
    const EngineSettings &e = s.engineSettings;
    const qint64 perToken = cost.bytesPerTokenPerGpu();
    const qint64 maxLen = maxModelLenOf(s);
    const qint64 pool = std::max<qint64>(0, budget);
    switch (s.engine) {
    case Engine::Plain:
        f.kvCacheBytes = pool;
        f.numBlocks = perToken > 0 ? pool / Units::mul(perToken, s.blockSize, QStringLiteral("--block-size")) : 0;
        f.kvCacheTokens = f.numBlocks * s.blockSize;
        f.predicts = QStringList{QStringLiteral("textbook figures, no engine")};
        break;
    case Engine::Vllm:
        f = vllmFigures(s, cost, pool);
        f.kvCacheBytes = pool;
        break;
    case Engine::Sglang:
        f.kvCacheBytes = pool;
        f.kvCacheTokens = perToken > 0 ? pool / perToken : 0;
        f.numBlocks = f.kvCacheTokens; // page size 1
        f.maxModelLen = maxLen;
        f.maxConcurrency = maxLen > 0 ? double(f.kvCacheTokens) / double(maxLen) : 0;
        f.predicts = QStringList{QStringLiteral("KV Cache is allocated. #tokens"), QStringLiteral("K size + V size")};
        if (cost.stateBytesPerSessionPerGpu() > 0 || s.model.has(LayerKind::SlidingWindow))
            f.note = QStringLiteral("SGLang sizes every attention layer at full length here; its hybrid/SWA pools split "
                                    "memory by their own ratio, which Headroom does not model.");
        break;
    case Engine::Trtllm: {
        const qint64 blockBytes = Units::mul(perToken, e.trtTokensPerBlock, QStringLiteral("--block-size"));
        f.numBlocks = blockBytes > 0 ? pool / blockBytes : 0;
        f.kvCacheTokens = f.numBlocks * e.trtTokensPerBlock;
        f.kvCacheBytes = f.numBlocks * blockBytes;
        f.maxModelLen = maxLen;
        f.maxConcurrency = maxLen > 0 ? double(f.kvCacheTokens) / double(maxLen) : 0;
        f.predicts = QStringList{QStringLiteral("[MemUsageChange] Allocated ... for max tokens in paged KV cache")};
        break;
    }
    case Engine::LlamaCpp:
    case Engine::Ollama: {
        const bool ollama = s.engine == Engine::Ollama;
        const qint64 seqs = std::max(1, e.nSeq);
        qint64 cells = e.nCtx.value_or(s.maxModelLen.value_or(ollama ? Engines::ollamaDefaultContext : Engines::llamaCppDefaultContext));
        if (ollama)
            cells = Units::mul(cells, seqs, QStringLiteral("--n-ctx"));
        else
            cells = padTo(cells, Engines::llamaCppContextPadding);
        qint64 kv = 0;
        for (const GroupCost &c : cost.groups()) {
            qint64 held = cells;
            if (c.group.kind == LayerKind::Recurrent) {
                f.recurrentStateBytes += Units::mul(Units::mul(c.stateBytesPerLayer, c.group.count, QStringLiteral("--n-seq")), seqs,
                                                    QStringLiteral("--n-seq"));
                continue;
            }
            if (c.group.kind == LayerKind::SlidingWindow) {
                // llama.cpp (llama-kv-cache-iswa.cpp): min(n_ctx, pad(n_swa x n_seq + n_ubatch, 256));
                // Ollama: num_parallel x window + batch.
                const qint64 swa = c.group.window * seqs + e.nBatch;
                held = std::min(cells, ollama ? swa : padTo(swa, Engines::llamaCppContextPadding));
            }
            kv = Units::add(kv, Units::mul(Units::mul(held, c.bytesPerTokenPerLayer, QStringLiteral("--n-ctx")), c.group.count,
                                           QStringLiteral("--n-ctx")),
                            QStringLiteral("--n-ctx"));
        }
        f.kvSelfBytes = kv;
        f.kvCacheBytes = kv;
        f.kvCacheTokens = cells;
        f.maxModelLen = ollama ? cells / seqs : cells / seqs;
        f.maxConcurrency = double(seqs);
        f.predicts = ollama ? QStringList{QStringLiteral("memory.required.kv")}
                            : QStringList{QStringLiteral("KV self size (K + V)"), QStringLiteral("n_ctx"),
                                          QStringLiteral("recurrent state buffer (R + S, f32)")};
        f.note = ollama ? QStringLiteral("Ollama's estimate, before it loads the model; whole model, all GPUs.")
                        : QStringLiteral("Whole model; llama.cpp splits layers, not heads, across GPUs. Each of %1 "
                                         "sequence(s) gets n_ctx / n_seq cells unless the cache is unified.").arg(seqs);
        break;
    }
    }
    f.engine = s.engine;
    if (f.maxModelLen == 0)
        f.maxModelLen = maxLen;
    return f;
}

void EngineFigures::addTo(QJsonObject &o) const
{
    o.insert(QStringLiteral("engine"), Engines::name(engine));
    o.insert(QStringLiteral("engine_kv_cache_bytes"), kvCacheBytes);
    o.insert(QStringLiteral("engine_num_blocks"), numBlocks);
    o.insert(QStringLiteral("engine_kv_cache_tokens"), kvCacheTokens);
    o.insert(QStringLiteral("engine_max_concurrency"), maxConcurrency);
    o.insert(QStringLiteral("engine_max_model_len"), maxModelLen);
    if (engine == Engine::LlamaCpp || engine == Engine::Ollama) {
        o.insert(QStringLiteral("engine_kv_self_bytes"), kvSelfBytes);
        o.insert(QStringLiteral("engine_recurrent_state_bytes"), recurrentStateBytes);
    }
    if (engine == Engine::Vllm)
        o.insert(QStringLiteral("engine_activation_peak_bytes"), activationPeakBytes);
    o.insert(QStringLiteral("engine_predicts"), QJsonArray::fromStringList(predicts));
    o.insert(QStringLiteral("engine_note"), note);
}

} // namespace Headroom
