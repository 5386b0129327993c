// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/trtllm.h"
#include "core/inputerror.h"

namespace Headroom {

using EngineMath::checkFraction;
using EngineMath::fractionOf;

QVector<KvDtypeSupport> TrtllmRule::kvDtypes() const
{
    // FP8 runs on Ada Lovelace and Hopper and later, NVFP4 on Blackwell: both only on a
    // card that runs the format; INT8 on any card.
    return {{Dtype::FP32, "auto", {}, false}, {Dtype::BF16, "auto", {}, false}, {Dtype::FP16, "auto", {}, false},
            {Dtype::INT8, "INT8", {}, false}, {Dtype::FP8, "FP8", {}, true},     {Dtype::NVFP4, "NVFP4", {1, 3}, true}};
}

QString TrtllmRule::kvDtypeSource() const
{
    return QStringLiteral("KvCacheConfig(dtype=...) and the checkpoint's kv_cache_quant_algo: tensorrt_llm/quantization/mode.py "
                          "QuantMode (INT8_KV_CACHE, FP8_KV_CACHE, NVFP4_KV_CACHE); FP8 on Ada Lovelace and Hopper; \"NVFP4 KV "
                          "Cache\" on the 1.3 quantization page (nvidia.github.io/TensorRT-LLM/1.3.0rc27/features/quantization.html; "
                          "absent from 1.0's, 1.1 and 1.2 not read), Blackwell only");
}

QString TrtllmRule::describe() const
{
    return QStringLiteral("TensorRT-LLM: free_gpu_memory_fraction × free memory after load, 32-token blocks "
                          "(tensorrt_llm KvCacheConfig)");
}

qint64 Trtllm::runtimeBytes(const Scenario &s)
{
    const EngineSettings &e = s.engineSettings;
    const ModelShape &m = s.model;
    const QString tokens = s.field(Input::MaxNumTokens), batch = s.field(Input::MaxBatchSize);
    const QString hidden = QStringLiteral("hidden_size"), ffn = QStringLiteral("intermediate_size");
    const qint64 perToken = Units::add(Units::mul(4, m.hiddenSize, hidden), hidden, Units::mul(2, m.intermediateSize, ffn) / std::max(1, s.tp), ffn);
    const qint64 activations = Units::mul(Units::mul(e.trtMaxNumTokens.value_or(defaultMaxNumTokens), perToken, tokens), 2, tokens);
    const qint64 seqLen = e.trtMaxSeqLen.value_or(std::max<qint64>(1, s.effectiveMaxModelLen()));
    const QString seqField = s.field(e.trtMaxSeqLen ? Input::MaxSeqLen : Input::MaxModelLen);
    const qint64 perSequence = Units::add(Units::mul(m.vocabSize, 8, s.field(Input::Model)), Units::mul(seqLen, 4, seqField), seqField);
    // The larger factor is named: the batch, or a sequence (vocabulary and --max-seq-len) too long.
    const qint64 decoder = Units::mul(e.trtMaxBatchSize.value_or(defaultMaxBatchSize), batch, perSequence, seqField);
    return Units::add(Units::add(EngineMath::cudaContextBytes, activations, tokens), decoder, batch);
}

EngineBudget TrtllmRule::budget(const Scenario &s, qint64 weightsPerGpu) const
{
    EngineBudget b;
    const EngineSettings &e = s.engineSettings;
    const qint64 memory = s.effectiveEngineMemoryBytes();
    b.memory = memory;
    b.usable = memory;
    checkFraction(e.freeGpuMemoryFraction, s.field(Input::FreeGpuMemoryFraction));
    if (e.kvCacheMemory) {
        b.budget = *e.kvCacheMemory;
        b.rule = QStringLiteral("pinned by --kv-cache-memory");
    } else {
        const qint64 other = s.workspaceBytes ? *s.workspaceBytes : Trtllm::runtimeBytes(s);
        const qint64 after = e.freeMemoryAfter.value_or(memory - Units::add(weightsPerGpu, s.field(Input::Weights), other, s.field(Input::Workspace)));
        b.budget = after > 0 ? fractionOf(after, e.freeGpuMemoryFraction) : after;
        b.rule = e.freeMemoryAfter || s.workspaceBytes
            ? QStringLiteral("free_gpu_memory_fraction %1 × free memory after load").arg(e.freeGpuMemoryFraction)
            : QStringLiteral("free_gpu_memory_fraction %1 × (card − weights − runtime %2: CUDA context, activation buffers at "
                             "max_num_tokens %3, decoder buffers for max_batch_size %4)")
                  .arg(e.freeGpuMemoryFraction)
                  .arg(Units::formatBytes(Trtllm::runtimeBytes(s), UnitSystem::Binary), Units::formatCount(e.trtMaxNumTokens.value_or(Trtllm::defaultMaxNumTokens)),
                       Units::formatCount(e.trtMaxBatchSize.value_or(Trtllm::defaultMaxBatchSize)));
        // One checked case before hardware (E08, TensorRT-LLM 0.8 on an A100): the runtime
        // buffers' estimate, taken as 5% of the card either way until more cases split it.
        if (!e.freeMemoryAfter)
            b.addSpread(memory / 20, memory / 20, QStringLiteral("runtime buffers: ± 5% of the card (E08, the one TensorRT-LLM "
                                                                "case checked before hardware)"));
    }
    b.workspace = EngineMath::workspaceLeft(memory, weightsPerGpu, b.budget);
    return b;
}

EngineFigures TrtllmRule::figures(const Scenario &s, const KvCost &cost, qint64 budget) const
{
    EngineFigures f;
    const qint64 pool = std::max<qint64>(0, budget);
    const int perBlock = s.engineSettings.trtTokensPerBlock;
    const qint64 maxLen = s.effectiveMaxModelLen();
    const qint64 blockBytes = Units::mul(cost.bytesPerTokenPerGpu(), perBlock, s.field(Input::TokensPerBlock));
    f.numBlocks = blockBytes > 0 ? pool / blockBytes : 0;
    f.kvCacheTokens = f.numBlocks * perBlock;
    f.kvCacheBytes = f.numBlocks * blockBytes;
    f.maxModelLen = maxLen;
    f.maxConcurrency = maxLen > 0 ? double(f.kvCacheTokens) / double(maxLen) : 0;
    f.predicts = QStringList{QStringLiteral("[MemUsageChange] Allocated ... for max tokens in paged KV cache")};
    return f;
}

std::optional<RunningCap> TrtllmRule::runningCap(const Scenario &s) const
{
    // max_batch_size: "the maximum number of requests that the engine can schedule"
    // (TensorRT-LLM docs, "Tuning max batch size and max num tokens"); only when given here.
    if (const auto n = s.engineSettings.trtMaxBatchSize)
        return RunningCap{*n, QStringLiteral("max_batch_size %1").arg(Units::formatCount(*n))};
    return std::nullopt;
}

AdmissionRule TrtllmRule::admission(const Scenario &s) const
{
    // The capacity scheduler ("Useful Runtime Options", TensorRT-LLM performance tuning guide;
    // SchedulerConfig.capacity_scheduler_policy, default GUARANTEED_NO_EVICT): a request is
    // admitted under GUARANTEED_NO_EVICT only when its prompt and its maximum output fit, in blocks
    // of tokens_per_block, so a started request is never paused.
    const EngineSettings &e = s.engineSettings;
    if (e.schedulerPolicy == SchedulerPolicy::MaxUtilization)
        return {SchedulerPolicies::engineName(e.schedulerPolicy),
                QStringLiteral("TensorRT-LLM's MAX_UTILIZATION scheduler admits as many requests as fit now and pauses some when the cache "
                               "is full: paged, so sessions are counted at the lengths they reach."),
                std::nullopt};
    if (!e.maxOutputTokens)
        return {SchedulerPolicies::engineName(e.schedulerPolicy),
                QStringLiteral("TensorRT-LLM's GUARANTEED_NO_EVICT scheduler (its default) reserves each request's prompt and maximum "
                               "output at admission; no --max-output-tokens is given, so each session is taken at its own length, as if "
                               "every request asked for exactly the tokens it generates."),
                std::nullopt};
    return {SchedulerPolicies::engineName(e.schedulerPolicy),
            QStringLiteral("TensorRT-LLM's GUARANTEED_NO_EVICT scheduler (its default) reserves each request's prompt + %1 output tokens "
                           "(--max-output-tokens) at admission, so a started request is never paused: sessions are counted at that "
                           "reservation, at most max_seq_len, not at the lengths they reach.").arg(Units::formatCount(*e.maxOutputTokens)),
            e.maxOutputTokens};
}

QStringList TrtllmRule::derivation(const Scenario &s, const EngineFigures &e, UnitSystem) const
{
    return {QStringLiteral("TensorRT-LLM would allocate %1 for %2 tokens (%3 blocks of %4)")
                .arg(Units::formatExactBytes(e.kvCacheBytes), Units::formatCount(e.kvCacheTokens), Units::formatCount(e.numBlocks))
                .arg(s.engineSettings.trtTokensPerBlock)};
}

void TrtllmRule::addLogPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field) const
{
    using namespace LogParse;
    const QString num = number(), gib = unit();
    // The KV cache manager's lines (cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp), across
    // releases: "[TensorRT-LLM][INFO] Allocate 69524783104 bytes for k/v cache." and "Using 132608
    // tokens in paged KV cache." (0.5-0.8); "[MemUsageChange] Allocated 78.30 GiB for max tokens in
    // paged KV cache (3731744)." and "Max KV cache blocks per sequence: 65 [window size=2051],
    // tokens per block=32, primary blocks=116617, secondary blocks=0" (later).
    // The start of a run: "[TensorRT-LLM] TensorRT-LLM version: 0.8.0" (tensorrt_llm/__init__.py).
    p << LogPattern{rx(QStringLiteral("TensorRT-LLM version: ")), [&r](const QRegularExpressionMatch &, int) { r.engine = Engine::Trtllm; }, Engine::Trtllm}
      << LogPattern{rx(QStringLiteral("Allocate (-?\\d+) bytes for k/v cache")),
                    [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Trtllm; r.kvBudget = bytes(m.captured(1), QStringLiteral("B"), l, field); }}
      << LogPattern{rx(QStringLiteral("Allocated ") + num + gib + QStringLiteral(" for max tokens in paged KV cache \\((-?[0-9,]+)\\)")),
                    [&r, field](const QRegularExpressionMatch &m, int l) {
                        r.engine = Engine::Trtllm;
                        r.kvBudget = bytes(m.captured(1), m.captured(2), l, field);
                        r.kvTokens = poolTokens(m.captured(3), l, field, "max tokens in paged KV cache");
                    }}
      << LogPattern{rx(QStringLiteral("Using (-?[0-9,]+) tokens in paged KV cache")),
                    [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Trtllm; r.kvTokens = poolTokens(m.captured(1), l, field, "tokens in paged KV cache"); }}
      << LogPattern{rx(QStringLiteral("tokens per block(?:=|: )(-?\\d+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Trtllm; r.tokensPerBlock = shape(m.captured(1), l, field, "tokens per block"); }}
      << LogPattern{rx(QStringLiteral("primary blocks=(-?[0-9,]+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Trtllm; r.numBlocks = count(m.captured(1), l, field); }}
      // The PyTorch backend's profile line (1.1: "... available KV cache memory when calculating max
      // tokens: 5.95 GiB, fraction is set 0.8999999761581421, kv size is 73728.", J18 in
      // shared/validation/engine-logs.md): the free_gpu_memory_fraction the run used.
      << LogPattern{rx(QStringLiteral("fraction is set ") + num),
                    [&r, field](const QRegularExpressionMatch &m, int l) { r.freeGpuMemoryFraction = LogParse::setting(RealInput::FreeGpuMemoryFraction, m.captured(1), l, field); }}
      // The same line's measured terms (tensorrt_llm/_torch/pyexecutor/_util.py, KvCacheCreator):
      // the pool is the fraction of (device total - the profiled peak + the temporary KV pool the
      // profiling run held): "Peak memory during memory usage profiling (torch + non-torch):
      // 113.65 GiB, ... device total memory 119.70 GiB, , tmp kv_mem 0.56 GiB" (J18: 0.9 x 6.61 =
      // 5.949 GiB against the 5.95 GiB allocated). Read as the card and the free memory after loading.
      << LogPattern{rx(QStringLiteral("Peak memory during memory usage profiling \\(torch \\+ non-torch\\): ") + num + gib
                       + QStringLiteral(".*device total memory ") + num + gib + QStringLiteral(".*tmp kv_mem ") + num + gib),
                    [&r, field](const QRegularExpressionMatch &m, int l) {
                        r.engine = Engine::Trtllm;
                        const qint64 peak = bytes(m.captured(1), m.captured(2), l, field), total = bytes(m.captured(3), m.captured(4), l, field),
                                     temporary = bytes(m.captured(5), m.captured(6), l, field);
                        if (peak > total)
                            throw InputError(field, QStringLiteral("line %1: a profiled peak of %2 %3 above the device's %4 %5 (an edited or damaged log?)")
                                                        .arg(l).arg(m.captured(1), m.captured(2), m.captured(3), m.captured(4)));
                        r.totalMemory = total;
                        r.freeAfter = Units::add(total - peak, temporary, field);
                    }};
}

void TrtllmRule::applyLog(const LogReading &r, Scenario &s) const
{
    if (r.tokensPerBlock)
        s.engineSettings.trtTokensPerBlock = *r.tokensPerBlock;
    if (r.freeGpuMemoryFraction)
        s.engineSettings.freeGpuMemoryFraction = *r.freeGpuMemoryFraction;
}

} // namespace Headroom
