// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/vllm.h"
#include "core/inputerror.h"

#include <QJsonArray>
#include <QLocale>
#include <QMap>

namespace Headroom {

using EngineMath::checkFraction;
using EngineMath::fractionOf;

QString VllmRule::describe() const
{
    return QStringLiteral("vLLM: card × gpu_memory_utilization − weights − activation peak − non-torch − CUDA graphs "
                          "(vllm/v1/worker/gpu_worker.py; blocks: vllm/v1/core/kv_cache_utils.py)");
}

bool VllmRule::subtractsCudaGraphs(const EngineSettings &e)
{
    return e.vllmMajor > 0 || e.vllmMinor >= 11;
}

qint64 Vllm::defaultNonTorchBytes(int tp)
{
    return tp > 1 ? Units::GiB / 2 : qint64(0.06 * double(Units::GiB));
}

qint64 vllmActivationEstimate(const Scenario &s)
{
    const ModelShape &m = s.model;
    const EngineSettings &e = s.engineSettings;
    qint64 tokens = 8192;
    if (e.maxNumBatchedTokens)
        tokens = *e.maxNumBatchedTokens;
    else if (e.vllmMajor == 0 && e.vllmMinor < 8) {
        const qint64 maxLen = s.effectiveMaxModelLen();
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

EngineBudget VllmRule::budget(const Scenario &s, qint64 weightsPerGpu) const
{
    EngineBudget b;
    const EngineSettings &e = s.engineSettings;
    const qint64 memory = s.effectiveGpuMemoryBytes();
    checkFraction(s.gpuMemoryUtilization, "--gpu-memory-utilization");
    b.usable = fractionOf(memory, s.gpuMemoryUtilization);
    if (e.kvCacheMemory) {
        b.budget = *e.kvCacheMemory;
        b.workspace = std::max<qint64>(0, b.usable - weightsPerGpu - b.budget);
        b.rule = QStringLiteral("pinned by --kv-cache-memory");
        return b;
    }
    if (s.workspaceBytes) {
        b.workspace = *s.workspaceBytes;
        b.rule = QStringLiteral("card × gpu_memory_utilization − weights − workspace");
    } else {
        b.activationPeak = e.activationPeak.value_or(vllmActivationEstimate(s));
        const qint64 nonTorch = e.nonTorch.value_or(Vllm::defaultNonTorchBytes(s.tp));
        const qint64 graphs = subtractsCudaGraphs(e) ? e.cudaGraph.value_or(Vllm::defaultCudaGraphBytes) : 0;
        b.workspace = Units::add(Units::add(b.activationPeak, nonTorch, QStringLiteral("--non-torch")), graphs,
                                 QStringLiteral("--cuda-graph"));
        b.rule = subtractsCudaGraphs(e)
            ? QStringLiteral("card × gpu_memory_utilization − weights − activation peak − non-torch − CUDA graphs")
            : QStringLiteral("card × gpu_memory_utilization − weights − activation peak − non-torch (vLLM < 0.11 "
                             "does not subtract CUDA graphs)");
    }
    b.budget = b.usable - Units::add(weightsPerGpu, b.workspace, QStringLiteral("--weights"));
    return b;
}

// vLLM (kv_cache_utils.py): layers of one spec form one group; a hybrid of
// several attention types is split into groups of `group_size` layers, and
// every group gets the same number of blocks.
EngineFigures VllmRule::figures(const Scenario &s, const KvCost &cost, qint64 budget) const
{
    EngineFigures f;
    const qint64 pool = std::max<qint64>(0, budget);
    f.kvCacheBytes = pool;
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
    f.numBlocks = pool > 0 ? pool / page / groupSize : 0;
    f.kvCacheTokens = f.numBlocks / groups * block;
    // get_max_concurrency_for_kv_cache_config: blocks one request of max_model_len needs.
    const qint64 maxLen = s.effectiveMaxModelLen();
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

void VllmRule::addJson(const EngineFigures &f, QJsonObject &o) const
{
    o.insert(QStringLiteral("engine_activation_peak_bytes"), f.activationPeakBytes);
}

QStringList VllmRule::derivation(const Scenario &s, const EngineFigures &e, UnitSystem u) const
{
    QStringList out;
    if (e.activationPeakBytes > 0)
        out << QStringLiteral("  workspace = activation peak %1 (%2) + non-torch + CUDA graphs")
                   .arg(Units::formatBytes(e.activationPeakBytes, u),
                        s.engineSettings.activationPeak ? QStringLiteral("measured") : QStringLiteral("estimated from max_num_batched_tokens"));
    if (e.numBlocks > 0)
        out << QStringLiteral("vLLM would print: %1 blocks of %2 tokens; GPU KV cache size %3 tokens; maximum concurrency %4x at %5 tokens")
                   .arg(Units::formatCount(e.numBlocks)).arg(s.blockSize).arg(Units::formatCount(e.kvCacheTokens),
                        QLocale::c().toString(e.maxConcurrency, 'f', 2), Units::formatCount(e.maxModelLen));
    return out;
}

void VllmRule::addLogPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field) const
{
    using namespace LogParse;
    const QString num = number(), gib = unit();
    auto mem = [field](const QRegularExpressionMatch &m, int cap, int line) { return bytes(m.captured(cap), m.captured(cap + 1), line, field); };
    auto cnt = [field](const QRegularExpressionMatch &m, int cap, int line) { return count(m.captured(cap), line, field); };
    p << LogPattern{rx(QStringLiteral("(?:vLLM|LLM engine).*?\\(v(\\d+\\.\\d+(?:\\.\\d+)?)")), [&r](const QRegularExpressionMatch &m, int) { r.engine = Engine::Vllm; r.version = m.captured(1); }}
      << LogPattern{rx(QStringLiteral("\\bvllm[ =]v?(\\d+\\.\\d+(?:\\.\\d+)?)\\b")), [&r](const QRegularExpressionMatch &m, int) { r.engine = Engine::Vllm; r.version = m.captured(1); }}
      << LogPattern{rx(QStringLiteral("\\bmodel='([^']+)'")), [&r](const QRegularExpressionMatch &m, int) { r.model = m.captured(1); }}
      << LogPattern{rx(QStringLiteral("max_seq_len=(\\d+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.maxModelLen = shape(m.captured(1), l, field, "max_seq_len"); }}
      << LogPattern{rx(QStringLiteral("tensor_parallel_size=(\\d+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.tp = shape(m.captured(1), l, field, "tensor_parallel_size"); }}
      << LogPattern{rx(QStringLiteral("kv_cache_dtype=([a-z0-9_]+)")), [&r](const QRegularExpressionMatch &m, int) { r.kvDtype = m.captured(1); }}
      << LogPattern{rx(QStringLiteral("total_gpu_memory \\(") + num + gib + QStringLiteral("\\) x gpu_memory_utilization \\(") + num + QStringLiteral("\\)")),
                    [&r, mem](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.totalMemory = mem(m, 1, l); r.utilization = m.captured(3).toDouble(); }}
      << LogPattern{rx(QStringLiteral("model weights take ") + num + gib), [&r, mem](const QRegularExpressionMatch &m, int l) { r.weights = mem(m, 1, l); }}
      << LogPattern{rx(QStringLiteral("Model loading took ") + num + gib), [&r, mem](const QRegularExpressionMatch &m, int l) { if (!r.weights) r.weights = mem(m, 1, l); }}
      << LogPattern{rx(QStringLiteral("non_torch_memory takes ") + num + gib), [&r, mem](const QRegularExpressionMatch &m, int l) { r.nonTorch = mem(m, 1, l); }}
      << LogPattern{rx(QStringLiteral("activation peak memory takes ") + num + gib), [&r, mem](const QRegularExpressionMatch &m, int l) { r.activationPeak = mem(m, 1, l); }}
      << LogPattern{rx(QStringLiteral("(?:CUDA graph|Graph capturing).*?took ") + num + gib), [&r, mem](const QRegularExpressionMatch &m, int l) { r.cudaGraph = mem(m, 1, l); }}
      << LogPattern{rx(QStringLiteral("reserved for KV Cache is ") + num + gib), [&r, mem](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.kvBudget = mem(m, 1, l); }}
      << LogPattern{rx(QStringLiteral("Available KV cache memory: ") + num + gib), [&r, mem](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.kvBudget = mem(m, 1, l); }}
      << LogPattern{rx(QStringLiteral("# GPU blocks: ([0-9,]+)")), [&r, cnt](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.numBlocks = cnt(m, 1, l); }}
      << LogPattern{rx(QStringLiteral("num_gpu_blocks(?: is|=|:)\\s*([0-9,]+)")), [&r, cnt](const QRegularExpressionMatch &m, int l) { r.numBlocks = cnt(m, 1, l); }}
      << LogPattern{rx(QStringLiteral("GPU KV cache size: ([0-9,]+) tokens")), [&r, cnt](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.kvTokens = cnt(m, 1, l); }}
      << LogPattern{rx(QStringLiteral("Maximum concurrency for ([0-9,]+) tokens per request: ") + num + QStringLiteral("x")),
                    [&r, cnt](const QRegularExpressionMatch &m, int l) { r.maxModelLen = cnt(m, 1, l); r.maxConcurrency = m.captured(2).toDouble(); }};
}

void VllmRule::applyLog(const LogReading &r, Scenario &s) const
{
    EngineSettings &e = s.engineSettings;
    if (r.version.isEmpty() && r.activationPeak && !r.cudaGraph) {
        // A breakdown line without a CUDA-graph term comes from a version that did not subtract it.
        e.vllmMajor = 0;
        e.vllmMinor = 10;
    }
    // Keep the measured workspace as the scenario's own (the profiled terms).
    if (r.activationPeak && r.nonTorch)
        s.workspaceBytes = *r.activationPeak + *r.nonTorch + (subtractsCudaGraphs(e) ? r.cudaGraph.value_or(0) : 0);
}

} // namespace Headroom
