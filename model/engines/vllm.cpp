// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/vllm.h"
#include "core/inputerror.h"

#include <QJsonArray>
#include <QLocale>
#include <QMap>

namespace Headroom {

using EngineMath::checkFraction;
using EngineMath::fractionOf;

QVector<KvDtypeSupport> VllmRule::kvDtypes() const
{
    // "auto" keeps the model's dtype; fp8 (= fp8_e4m3) and fp8_e5m2 run on any CUDA 11.8+
    // card, converted to the model's dtype for attention; nvfp4 only through FlashInfer's
    // trtllm-gen kernels on SM100 (vllm-project/vllm#40177), so on a card running nvfp4.
    return {{Dtype::FP32, "auto", {}, false},     {Dtype::BF16, "auto", {}, false}, {Dtype::FP16, "auto", {}, false},
            {Dtype::FP8, "fp8", {0, 4}, false}, {Dtype::NVFP4, "nvfp4", {0, 21}, true}};
}

QString VllmRule::kvDtypeSource() const
{
    return QStringLiteral("--kv-cache-dtype: vllm/config/cache.py CacheDType (0.11, commit c1d8642: auto, bfloat16, fp8, fp8_e4m3, "
                          "fp8_e5m2, fp8_inc, fp8_ds_mla); nvfp4 from 0.21 on SM100 cards (vllm-project/vllm#40177); the later "
                          "int8_per_token_head and int4_per_token_head keep an fp32 scale per token and head, not Headroom's int8 and int4");
}

QString VllmRule::describe() const
{
    return QStringLiteral("vLLM: card × gpu_memory_utilization − weights − activation peak − non-torch − CUDA graphs "
                          "(vllm/v1/worker/gpu_worker.py; blocks: vllm/v1/core/kv_cache_utils.py)");
}

bool VllmRule::subtractsCudaGraphs(const EngineSettings &e)
{
    // vLLM prints "CUDA graph memory profiling is enabled (default since v0.21.0)";
    // 0.10.2 and 0.11 print the CUDA-graph figure but leave it in the KV budget
    // (the llm-d 0.11 runs: 71.26 - weights - activation - non-torch = KV exactly).
    return EngineVersion{e.vllmMajor, e.vllmMinor}.atLeast(0, 21);
}

bool Vllm::isV1(EngineVersion v)
{
    return v.atLeast(0, 8);
}

bool Vllm::largeCard(const Scenario &s)
{
    return s.effectiveEngineMemoryBytes() >= 70 * Units::GiB && !s.gpu.id.contains(QLatin1String("a100"))
        && !s.gpu.name.contains(QLatin1String("A100"));
}

qint64 Vllm::maxNumSeqs(const Scenario &s)
{
    if (s.engineSettings.maxNumSeqs)
        return *s.engineSettings.maxNumSeqs;
    const EngineVersion v{s.engineSettings.vllmMajor, s.engineSettings.vllmMinor};
    return isV1(v) && largeCard(s) ? 1024 : 256;
}

qint64 Vllm::maxNumBatchedTokens(const Scenario &s)
{
    if (s.engineSettings.maxNumBatchedTokens)
        return *s.engineSettings.maxNumBatchedTokens;
    if (isV1({s.engineSettings.vllmMajor, s.engineSettings.vllmMinor}))
        return 8192;
    const qint64 maxLen = s.effectiveMaxModelLen();
    return maxLen > 0 && maxLen <= 32768 ? std::max<qint64>(maxLen, 2048) : 2048;
}

qint64 Vllm::forwardPeakBytes(const Scenario &s)
{
    const ModelShape &m = s.model;
    const qint64 expert = m.moeIntermediateSize > 0 ? m.moeIntermediateSize : m.intermediateSize;
    const QString ffn = QStringLiteral("intermediate_size"), hidden = QStringLiteral("hidden_size");
    const qint64 intermediate = m.numExperts > 0 && m.expertsPerToken > 0 ? Units::mul(m.expertsPerToken, expert, ffn) : m.intermediateSize;
    const QString f = s.field(Input::MaxNumBatchedTokens);
    const qint64 perToken = Units::add(Units::mul(3, intermediate, ffn) / std::max(1, s.tp), ffn, Units::mul(3, m.hiddenSize, hidden), hidden);
    return Units::mul(Units::mul(maxNumBatchedTokens(s), perToken, f), 2, f);
}

qint64 Vllm::samplerPeakBytes(const Scenario &s)
{
    const QString f = s.field(Input::MaxNumSeqs);
    if (!EngineVersion{s.engineSettings.vllmMajor, s.engineSettings.vllmMinor}.atLeast(0, 10))
        return Units::mul(std::min<qint64>(maxNumBatchedTokens(s), 256), Units::mul(s.model.vocabSize, 4, f), f);
    return Units::mul(Units::mul(maxNumSeqs(s), s.model.vocabSize, f), 386, f) / 10;
}

qint64 Vllm::defaultNonTorchBytes(const Scenario &s)
{
    if (s.tp > 1)
        return Units::GiB;
    return isV1({s.engineSettings.vllmMajor, s.engineSettings.vllmMinor}) ? qint64(0.13 * double(Units::GiB))
                                                                          : qint64(0.35 * double(Units::GiB));
}

qint64 vllmActivationEstimate(const Scenario &s)
{
    const ModelShape &m = s.model;
    if (m.intermediateSize <= 0 || m.vocabSize <= 0)
        return Engines::defaultActivationBytes;
    const qint64 forward = Vllm::forwardPeakBytes(s), sampler = Vllm::samplerPeakBytes(s);
    if (EngineVersion{s.engineSettings.vllmMajor, s.engineSettings.vllmMinor}.atLeast(0, 10))
        return std::max(forward, sampler);
    return Units::add(forward, sampler, s.field(Input::MaxNumBatchedTokens));
}

EngineBudget VllmRule::budget(const Scenario &s, qint64 weightsPerGpu) const
{
    EngineBudget b;
    const EngineSettings &e = s.engineSettings;
    const qint64 memory = s.effectiveEngineMemoryBytes();
    checkFraction(s.gpuMemoryUtilization, s.field(Input::GpuMemoryUtilization));
    b.memory = memory;
    b.usable = fractionOf(memory, s.gpuMemoryUtilization);
    if (e.kvCacheMemory) {
        b.budget = *e.kvCacheMemory;
        b.workspace = EngineMath::workspaceLeft(b.usable, weightsPerGpu, b.budget);
        b.rule = QStringLiteral("pinned by --kv-cache-memory");
        return b;
    }
    if (s.workspaceBytes) {
        b.workspace = *s.workspaceBytes;
        b.rule = QStringLiteral("card × gpu_memory_utilization − weights − workspace");
    } else {
        b.activationPeak = e.activationPeak.value_or(vllmActivationEstimate(s));
        const qint64 nonTorch = e.nonTorch.value_or(Vllm::defaultNonTorchBytes(s));
        const qint64 graphs = subtractsCudaGraphs(e) ? e.cudaGraph.value_or(Vllm::defaultCudaGraphBytes) : 0;
        b.workspace = Units::add(Units::add(b.activationPeak, s.field(Input::ActivationPeak), nonTorch, s.field(Input::NonTorch)),
                                 s.field(Input::ActivationPeak), graphs, s.field(Input::CudaGraph));
        b.rule = subtractsCudaGraphs(e)
            ? QStringLiteral("card × gpu_memory_utilization − weights − activation peak − non-torch − CUDA graphs")
            : QStringLiteral("card × gpu_memory_utilization − weights − activation peak − non-torch (vLLM %1 does not "
                             "subtract CUDA graphs; 0.21 and later do)").arg(version(s).text());
    }
    b.budget = b.usable - Units::add(weightsPerGpu, s.field(Input::Weights), b.workspace, s.field(s.workspaceBytes ? Input::Workspace : Input::ActivationPeak));
    addBudgetSpread(b, s, weightsPerGpu);
    return b;
}

void VllmRule::addBudgetSpread(EngineBudget &b, const Scenario &s, qint64 weightsPerGpu) const
{
    const EngineSettings &e = s.engineSettings;
    const auto gib = [](double g) { return qint64(g * double(Units::GiB)); };
    const auto share = [](qint64 bytes, double f) { return qint64(double(bytes) * f); };
    // The card as torch sees it: presets without a measured figure take the nvidia-smi total
    // less 0.5 GiB; the presets that have one sit 0.42 (RTX 3090) to 0.59 GiB (H200) below it.
    if (!s.gpuMemoryBytes && s.gpu.torchMemoryBytes <= 0 && s.gpu.engineVisibleBytes() != s.gpu.memoryBytes)
        b.addSpread(share(gib(0.09), s.gpuMemoryUtilization), share(gib(0.08), s.gpuMemoryUtilization),
                    QStringLiteral("the card as torch sees it: the driver keeps 0.42-0.59 GiB (presets with a measured figure)"));
    // int4 weights as loaded (GPTQ, AWQ): the group-scale estimate read 0.5% (E24, GPTQ), 1.0% (J12,
    // AWQ) and 1.9% (E05, AWQ) below what vLLM printed as loaded.
    if (!s.weightsBytes && s.effectiveWeightsDtype() == Dtype::INT4)
        b.addSpread(share(weightsPerGpu, 0.02), 0, QStringLiteral("int4 weights as loaded: up to 2% more (E24, J12, E05)"));
    if (s.workspaceBytes)
        return;
    // The activation peak: printed over estimated 0.88 (E05, 1.04 GiB) to 1.31 (vllm-project/vllm
    // PR 10511, Llama-3-8B on an H100: 1.26 GiB); 0.99-1.01 on the llm-d runs it was fitted to.
    if (!e.activationPeak)
        b.addSpread(share(b.activationPeak, 0.31), share(b.activationPeak, 0.12),
                    QStringLiteral("activation peak: 0.88 to 1.31 times the estimate (E05; vllm-project/vllm PR 10511)"));
    // Non-torch memory (NCCL, custom all-reduce, the CUDA context's growth while profiling).
    if (!e.nonTorch) {
        const qint64 estimate = Vllm::defaultNonTorchBytes(s);
        if (s.tp > 1) // 0.20 GiB (PR 14447, V0 on RTX 3090s), 0.54 (llm-d TP2), 1.38 (H200 TP2), 3.58 (PR 10511, H100 TP2)
            b.addSpread(gib(3.58) - estimate, estimate - gib(0.20),
                        QStringLiteral("non-torch memory at TP > 1: 0.20-3.58 GiB per GPU (vllm-project/vllm PRs 14447 and 10511, llm-d)"));
        else if (Vllm::isV1(version(s))) // 0.06 (E05) to 0.17 GiB in V1 start-up logs
            b.addSpread(gib(0.17) - estimate, estimate - gib(0.06), QStringLiteral("non-torch memory at TP 1: 0.06-0.17 GiB (E05, llm-d, V1 logs)"));
        else // V0: 0.01 (vLLM 0.7.2 on a T4), 0.35 (E01), 1.79 GiB (PR 10511's 0.6.5 build, H100)
            b.addSpread(gib(1.79) - estimate, estimate - gib(0.01),
                        QStringLiteral("non-torch memory at TP 1 in V0: 0.01-1.79 GiB (a vLLM 0.7.2 log, E01, vllm-project/vllm PR 10511)"));
    }
    if (subtractsCudaGraphs(e) && !e.cudaGraph) // 0.45 (E26), 0.48 (E05), 1.18 (J12), 2.08 GiB (J10)
        b.addSpread(gib(2.08) - Vllm::defaultCudaGraphBytes, Vllm::defaultCudaGraphBytes - gib(0.45),
                    QStringLiteral("CUDA graphs: 0.45-2.08 GiB (E26, E05, J12, J10)"));
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
    const qint64 page = Units::mul(layerBytes, block, s.field(Input::BlockSize));
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
    const QString lenField = s.field(s.maxModelLen ? Input::MaxModelLen : Input::Model);
    const qint64 batched = s.engineSettings.maxNumBatchedTokens.value_or(8192);
    qint64 blocksPerRequest = 0;
    for (auto it = byWindow.cbegin(); it != byWindow.cend(); ++it) {
        // A sliding group: min(window - 1 + max_num_batched_tokens, max_model_len), without the sum wrapping.
        const qint64 slid = it.key() - 1 >= maxLen - batched ? maxLen : it.key() - 1 + batched;
        const qint64 perGroup = it.key() == 0 ? Units::ceilDiv(maxLen, block) : Units::ceilDiv(slid, block) + 1;
        blocksPerRequest = Units::add(blocksPerRequest, Units::mul(perGroup, Units::ceilDiv(it.value(), groupSize), lenField, "block count"),
                                      lenField, "block count");
    }
    f.maxModelLen = maxLen;
    f.maxConcurrency = blocksPerRequest > 0 ? double(f.numBlocks) / double(blocksPerRequest) : 0;
    // kv_cache_utils.py check_enough_kv_cache_memory / estimate_max_model_len: the
    // KV one request of max_model_len needs, and the longest that fits the pool.
    if (groups == 1) {
        // Under pipeline parallelism vLLM 0.15 checked one stage's memory against the whole
        // model's KV ("24.0 GiB KV cache is needed" for all 48 layers, vllm-project/vllm issue
        // 34076, E22): the check's bytes per token are the stage's x pp.
        const qint64 perToken = Units::mul(cost.bytesPerTokenPerGpu(), std::max(1, s.pp), s.field(Input::Pp));
        f.kvNeededBytes = Units::mul(EngineMath::padTo(maxLen, block, lenField), lenField, perToken, s.field(Input::Model));
        f.estimatedMaxModelLen = perToken > 0 ? std::min(maxLen, pool / Units::mul(perToken, block, s.field(Input::BlockSize)) * block) : 0;
    }
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
    o.insert(QStringLiteral("engine_kv_needed_bytes"), f.kvNeededBytes);
    o.insert(QStringLiteral("engine_estimated_max_model_len"), f.estimatedMaxModelLen);
}

std::optional<RunningCap> VllmRule::runningCap(const Scenario &s) const
{
    // SchedulerConfig.max_num_seqs: "Maximum number of sequences to be processed in a single
    // iteration" (vllm/config/scheduler.py): the running batch never holds more.
    const QString count = Units::formatCount(Vllm::maxNumSeqs(s));
    return RunningCap{Vllm::maxNumSeqs(s), s.engineSettings.maxNumSeqs ? QStringLiteral("max_num_seqs %1").arg(count)
                                                                       : QStringLiteral("max_num_seqs %1 (vLLM's default here)").arg(count)};
}

AdmissionRule VllmRule::admission(const Scenario &) const
{
    // vllm/v1/core/sched/scheduler.py: blocks are allocated per step as tokens arrive
    // (KVCacheManager.allocate_slots); when none is free the newest running request is preempted.
    return {QStringLiteral("paged"),
            QStringLiteral("vLLM pages the KV cache: a request gets blocks as its tokens arrive, and a full pool preempts the newest "
                           "request (v1/core/sched/scheduler.py), so sessions are counted at the lengths they reach."),
            std::nullopt};
}

QStringList VllmRule::derivation(const Scenario &s, const EngineFigures &e, UnitSystem u) const
{
    QStringList out;
    if (e.activationPeakBytes > 0)
        out << QStringLiteral("  workspace = activation peak %1 (%2) + non-torch + CUDA graphs")
                   .arg(Units::formatBytes(e.activationPeakBytes, u),
                        s.engineSettings.activationPeak
                            ? QStringLiteral("measured")
                            : QStringLiteral("estimated: forward pass at max_num_batched_tokens %1, sampler over max_num_seqs %2, vLLM %3")
                                  .arg(Units::formatCount(Vllm::maxNumBatchedTokens(s)), Units::formatCount(Vllm::maxNumSeqs(s)), version(s).text()));
    if (e.kvNeededBytes > e.kvCacheBytes && e.estimatedMaxModelLen > 0)
        out << QStringLiteral("vLLM would refuse max_model_len %1: %2 KV cache is needed, the pool holds %3; estimated maximum model length %4")
                   .arg(Units::formatCount(e.maxModelLen), Units::formatBytes(e.kvNeededBytes, UnitSystem::Binary),
                        Units::formatBytes(e.kvCacheBytes, UnitSystem::Binary), Units::formatCount(e.estimatedMaxModelLen));
    if (e.numBlocks > 0)
        out << QStringLiteral("vLLM would print: %1 blocks of %2 tokens; GPU KV cache size %3 tokens; maximum concurrency %4x at %5 tokens")
                   .arg(Units::formatCount(e.numBlocks)).arg(s.blockSize).arg(Units::formatCount(e.kvCacheTokens),
                        QLocale::c().toString(e.maxConcurrency, 'f', 2), Units::formatCount(e.maxModelLen));
    return out;
}

namespace {

// The size at capture `cap` with its unit at `cap + 1`, in bytes (LogParse::bytes).
qint64 bytesAt(const QRegularExpressionMatch &m, int cap, int line, const QString &field)
{
    return LogParse::bytes(m.captured(cap), m.captured(cap + 1), line, field);
}

// The count at capture `cap` (LogParse::count).
qint64 countAt(const QRegularExpressionMatch &m, int cap, int line, const QString &field)
{
    return LogParse::count(m.captured(cap), line, field);
}

// A KV cache budget at capture `cap`. Every worker prints its own budget (TP ranks, "(VllmWorker
// rank=1 pid=...)"); vLLM sizes the pool by the smallest (v1/core/kv_cache_utils.py
// get_kv_cache_configs; V0 takes the minimum of the workers' num_gpu_blocks), so the smallest
// printed figure is the one that counts.
void takeBudget(LogReading &r, const QRegularExpressionMatch &m, int cap, int line, const QString &field)
{
    r.engine = Engine::Vllm;
    const qint64 v = bytesAt(m, cap, line, field);
    r.kvBudget = r.kvBudget ? std::min(*r.kvBudget, v) : v;
}

// "# GPU blocks: 0" and "No available memory for the cache blocks" (worker.py / kv_cache_utils.py),
// on line `l`.
void failNoMemory(LogReading &r, int l)
{
    r.engine = Engine::Vllm;
    r.fail(QStringLiteral("vllm-no-memory"),
           QStringLiteral("line %1: vLLM found no memory for the KV cache: the weights and the profiled peak took all of "
                          "total memory x gpu_memory_utilization, so the pool is empty and no request can run at these "
                          "settings (raise gpu_memory_utilization, or leave more of the card: a smaller model, TP, "
                          "a lower --max-num-batched-tokens).").arg(l));
}

// The run's banner, the version, the model and the settings vLLM prints in its config line.
void addSettingPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field)
{
    using namespace LogParse;
    // The start of a run: the engine core's banner (llm_engine.py "Initializing an LLM engine (v0.6.4)
    // with config: ...", v1/engine/core.py "Initializing a V1 LLM engine (v0.11.0) with config: ...").
    p << LogPattern{rx(QStringLiteral("Initializing an? (?:V1 )?LLM engine")), [&r](const QRegularExpressionMatch &, int) { r.engine = Engine::Vllm; }, Engine::Vllm}
      << LogPattern{rx(QStringLiteral("(?:vLLM|LLM engine).*?\\(v(\\d+\\.\\d+(?:\\.\\d+)?)")), [&r](const QRegularExpressionMatch &m, int) { r.engine = Engine::Vllm; r.version = m.captured(1); }}
      << LogPattern{rx(QStringLiteral("\\bvllm[ =]v?(\\d+\\.\\d+(?:\\.\\d+)?)\\b")), [&r](const QRegularExpressionMatch &m, int) { r.engine = Engine::Vllm; r.version = m.captured(1); }}
      << LogPattern{rx(QStringLiteral("\\bmodel='([^']+)'")), [&r](const QRegularExpressionMatch &m, int) { r.model = m.captured(1); }}
      << LogPattern{rx(QStringLiteral("max_seq_len=(-?\\d+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.maxModelLen = shape(m.captured(1), l, field, "max_seq_len"); }}
      << LogPattern{rx(QStringLiteral("tensor_parallel_size=(-?\\d+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.tp = shape(m.captured(1), l, field, "tensor_parallel_size"); }}
      << LogPattern{rx(QStringLiteral("kv_cache_dtype=([a-z0-9_]+)")), [&r](const QRegularExpressionMatch &m, int) { r.kvDtype = m.captured(1); }}
      // The limits a run set: "non-default args: {..., 'max_model_len': 1024, 'max_num_seqs': 64, ...}" (utils.py, V1) and the
      // scheduler's "Chunked prefill is enabled with max_num_batched_tokens=8192." (config/scheduler.py).
      << LogPattern{rx(QStringLiteral("'max_model_len': (-?\\d+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.maxModelLen = shape(m.captured(1), l, field, "max_model_len"); }}
      << LogPattern{rx(QStringLiteral("max_num_seqs") + separator() + QStringLiteral("(-?[0-9,]+)")),
                    [&r, field](const QRegularExpressionMatch &m, int l) { if (const qint64 n = countAt(m, 1, l, field); n > 0) r.maxNumSeqs = n; }}
      << LogPattern{rx(QStringLiteral("max_num_batched_tokens") + separator() + QStringLiteral("(-?[0-9,]+)")),
                    [&r, field](const QRegularExpressionMatch &m, int l) { if (const qint64 n = countAt(m, 1, l, field); n > 0) r.maxNumBatchedTokens = n; }};
}

// The memory profile's terms as vLLM printed them from 0.6.4 to 0.10: card total, utilization,
// weights, non-torch memory, activation peak and CUDA graphs.
void addProfilePatterns(QVector<LogPattern> &p, LogReading &r, const QString &field)
{
    using namespace LogParse;
    const QString num = number(), gib = unit(), sep = separator();
    // The profile's terms in each layout vLLM has printed them (worker.py / gpu_worker.py):
    // 0.6.4 "Memory profiling results: total_gpu_memory=23.58GiB ... non_torch_memory=0.35GiB
    // kv_cache_size=3.81GiB gpu_memory_utilization=0.90"; 0.6.5-0.7 one term a line
    // ("total_gpu_memory     79.22GiB", "model weights take   14.96GiB"); 0.7-0.10 "the current
    // vLLM instance can use total_gpu_memory (15.99GiB) x gpu_memory_utilization (0.90)" and
    // "model weights take 5.29GiB; non_torch_memory takes 0.06GiB; PyTorch activation peak memory
    // takes 1.04GiB; the rest of the memory reserved for KV Cache is 8.00GiB."
    p << LogPattern{rx(QStringLiteral("total_gpu_memory") + sep + num + gib),
                    [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.totalMemory = bytesAt(m, 1, l, field); }}
      << LogPattern{rx(QStringLiteral("gpu_memory_utilization") + sep + QStringLiteral("([0-9]+(?:\\.[0-9]+)?)(?![0-9.]*\\s*(?:GiB|GB|MiB|MB))")),
                    [&r, field](const QRegularExpressionMatch &m, int l) { r.utilization = LogParse::setting(RealInput::GpuMemoryUtilization, m.captured(1), l, field); }}
      // 0.21 and later print the setting only as its flag: "The current --gpu-memory-utilization=0.5000 is
      // equivalent to --gpu-memory-utilization=0.4855 without CUDA graph memory profiling" (gpu_worker.py).
      << LogPattern{rx(QStringLiteral("current --gpu-memory-utilization=([0-9]+(?:\\.[0-9]+)?)")),
                    [&r, field](const QRegularExpressionMatch &m, int l) { r.utilization = LogParse::setting(RealInput::GpuMemoryUtilization, m.captured(1), l, field); }}
      << LogPattern{rx(QStringLiteral("model weights take") + sep + num + gib), [&r, field](const QRegularExpressionMatch &m, int l) { r.weights = bytesAt(m, 1, l, field); }}
      // "Loading model weights took 14.9888 GB" (V0 model_runner.py, V1 to 0.7) and "Model loading
      // took 0.2389 GB and 0.97 seconds" (V1 from 0.8): GB there is bytes / 2^30 (E23).
      << LogPattern{rx(QStringLiteral("Loading model weights took ") + num + gib), [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; if (!r.weights) r.weights = bytesAt(m, 1, l, field); }}
      << LogPattern{rx(QStringLiteral("Model loading took ") + num + gib), [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; if (!r.weights) r.weights = bytesAt(m, 1, l, field); }}
      << LogPattern{rx(QStringLiteral("non_torch_memory") + sep + num + gib), [&r, field](const QRegularExpressionMatch &m, int l) { r.nonTorch = bytesAt(m, 1, l, field); }}
      << LogPattern{rx(QStringLiteral("activation peak memory") + sep + num + gib), [&r, field](const QRegularExpressionMatch &m, int l) { r.activationPeak = bytesAt(m, 1, l, field); }}
      // 0.6.4 prints the torch peak with the weights in it: the activation peak is the rest.
      << LogPattern{rx(QStringLiteral("peak_torch_memory") + sep + num + gib), [&r, field](const QRegularExpressionMatch &m, int l) {
                        if (r.weights && bytesAt(m, 1, l, field) >= *r.weights)
                            r.activationPeak = bytesAt(m, 1, l, field) - *r.weights;
                    }}
      << LogPattern{rx(QStringLiteral("(?:CUDA graph|Graph capturing).*?took ") + num + gib), [&r, field](const QRegularExpressionMatch &m, int l) { r.cudaGraph = bytesAt(m, 1, l, field); }};
}

// The KV cache budget, in every wording vLLM has printed it (takeBudget).
void addBudgetPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field)
{
    using namespace LogParse;
    const QString num = number(), gib = unit(), sep = separator();
    p << LogPattern{rx(QStringLiteral("reserved for KV Cache is ") + num + gib), [&r, field](const QRegularExpressionMatch &m, int l) { takeBudget(r, m, 1, l, field); }}
      << LogPattern{rx(QStringLiteral("available_kv_cache_memory") + sep + num + gib), [&r, field](const QRegularExpressionMatch &m, int l) { takeBudget(r, m, 1, l, field); }}
      << LogPattern{rx(QStringLiteral("kv_cache_size") + sep + num + gib), [&r, field](const QRegularExpressionMatch &m, int l) { takeBudget(r, m, 1, l, field); }}
      // Also the refusal's "... larger than the available KV cache memory (9.97 GiB)".
      << LogPattern{rx(QStringLiteral("Available KV cache memory") + sep + num + gib), [&r, field](const QRegularExpressionMatch &m, int l) { takeBudget(r, m, 1, l, field); }}
      // gpu_worker.py with kv_cache_memory_bytes: "Initial free memory 31.16 GiB, reserved 4.25 GiB
      // memory for KV Cache as specified by kv_cache_memory_bytes config and skipped memory profiling."
      << LogPattern{rx(QStringLiteral("reserved ") + num + gib + QStringLiteral(" memory for KV Cache")), [&r, field](const QRegularExpressionMatch &m, int l) { takeBudget(r, m, 1, l, field); }};
}

// The pool's size in blocks and tokens (0 blocks: no memory for the cache, a failure).
void addPoolPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field)
{
    using namespace LogParse;
    // "# GPU blocks: 1952, # CPU blocks: 2048" (V0; pasted without the "#" too), "# GPU blocks: 1381" (V1 0.7),
    // "# CUDA blocks: 5519, # CPU blocks: 9362" (0.7.2's executor_base.py names the device).
    p << LogPattern{rx(QStringLiteral("(?:GPU|CUDA) blocks: (-?[0-9,]+)")), [&r, field](const QRegularExpressionMatch &m, int l) {
                        r.engine = Engine::Vllm;
                        // 0 blocks is no pool to compare: the failure, not a figure.
                        if (const qint64 blocks = countAt(m, 1, l, field); blocks == 0)
                            failNoMemory(r, l);
                        else
                            r.numBlocks = blocks;
                    }}
      // "num_gpu_blocks=26615", "num_gpu_blocks is 26615", "num_gpu_blocks is: 26615".
      << LogPattern{rx(QStringLiteral("num_gpu_blocks(?:\\s+is)?\\s*[=:]?\\s*(-?[0-9,]+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.numBlocks = countAt(m, 1, l, field); }}
      << LogPattern{rx(QStringLiteral("GPU KV cache size: (-?[0-9,]+) tokens")), [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.kvTokens = LogParse::poolTokens(m.captured(1), l, field, "GPU KV cache size"); }};
}

// The memory profile from 0.10 on (gpu_worker.py's free-memory and usage lines) and the
// maximum concurrency.
void addUsagePatterns(QVector<LogPattern> &p, LogReading &r, const QString &field)
{
    using namespace LogParse;
    const QString num = number();
    // gpu_worker.py from 0.10 on: "Free memory on device (78.57/79.18 GiB) on startup. Desired GPU
    // memory utilization is (0.9, 71.26 GiB). Actual usage is 14.99 GiB for weight, 4.76 GiB for
    // peak activation, 0.13 GiB for non-torch memory, and -0.45 GiB for CUDAGraph memory." (later
    // releases: "... for consumed memory (weights + non-torch), ..."). A negative CUDA-graph
    // figure (memory freed during capture) counts as none.
    p << LogPattern{rx(QStringLiteral("Free memory on device \\(") + num + QStringLiteral("/") + num + QStringLiteral(" GiB\\)")),
                    [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.totalMemory = bytes(m.captured(2), QStringLiteral("GiB"), l, field); }}
      << LogPattern{rx(QStringLiteral("Desired GPU memory utilization is \\(") + num), [&r, field](const QRegularExpressionMatch &m, int l) { r.utilization = LogParse::setting(RealInput::GpuMemoryUtilization, m.captured(1), l, field); }}
      << LogPattern{rx(QStringLiteral("Actual usage is ") + num + QStringLiteral(" GiB for weight, ") + num + QStringLiteral(" GiB for peak activation, ") + num
                       + QStringLiteral(" GiB for non-torch memory, and (-?)") + num + QStringLiteral(" GiB for CUDAGraph")),
                    [&r, field](const QRegularExpressionMatch &m, int l) {
                        const QString g = QStringLiteral("GiB");
                        r.weights = bytes(m.captured(1), g, l, field);
                        r.activationPeak = bytes(m.captured(2), g, l, field);
                        r.nonTorch = bytes(m.captured(3), g, l, field);
                        r.cudaGraph = m.captured(4).isEmpty() ? bytes(m.captured(5), g, l, field) : 0;
                    }}
      << LogPattern{rx(QStringLiteral("Actual usage is ") + num + QStringLiteral(" GiB for consumed memory \\(weights \\+ non-torch\\), ") + num
                       + QStringLiteral(" GiB for peak activation, and (-?)") + num + QStringLiteral(" GiB for CUDAGraph")),
                    [&r, field](const QRegularExpressionMatch &m, int l) {
                        const QString g = QStringLiteral("GiB");
                        r.weights = bytes(m.captured(1), g, l, field);
                        r.nonTorch = 0;
                        r.activationPeak = bytes(m.captured(2), g, l, field);
                        r.cudaGraph = m.captured(3).isEmpty() ? bytes(m.captured(4), g, l, field) : 0;
                    }}
      << LogPattern{rx(QStringLiteral("Maximum concurrency for (-?[0-9,]+) tokens per request: ") + num + QStringLiteral("x")),
                    [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.maxModelLen = countAt(m, 1, l, field); r.maxConcurrency = real(m.captured(2), l, field); }};
}

// Refusals of max_model_len and failed starts.
void addFailurePatterns(QVector<LogPattern> &p, LogReading &r, const QString &field)
{
    using namespace LogParse;
    const QString num = number(), gib = unit();
    // Refusals of max_model_len. V0 (worker.py raise_if_cache_size_invalid): "The model's max seq
    // len (29000) is larger than the maximum number of tokens that can be stored in KV cache
    // (23648)": the pool's tokens. V1 (kv_cache_utils.py check_enough_kv_cache_memory): "To serve
    // at least one request with the models's max seq len (1048576), (24.00 GiB KV cache is
    // needed, which is larger than the available KV cache memory (9.97 GiB). Based on the
    // available memory, the estimated maximum model length is 34736." Each part has its own
    // pattern: pasted logs wrap the message over lines.
    p << LogPattern{rx(QStringLiteral("max seq len \\((-?\\d+)\\) is larger than the maximum number of tokens that can be stored in KV cache \\((-?\\d+)\\)")),
                    [&r, field](const QRegularExpressionMatch &m, int l) {
                        r.engine = Engine::Vllm;
                        r.maxModelLen = shape(m.captured(1), l, field, "max seq len");
                        if (!r.kvTokens)
                            r.kvTokens = countAt(m, 2, l, field);
                        r.fail(QStringLiteral("vllm-max-model-len"),
                               QStringLiteral("line %1: vLLM refused to start: max_model_len %2 is longer than the %3 tokens its KV cache holds, so not one "
                                              "request of full length fits; the pool of %3 tokens is what these settings give (lower --max-model-len "
                                              "to %3 or less, or raise gpu_memory_utilization).")
                                   .arg(l).arg(Units::formatCount(*r.maxModelLen), Units::formatCount(countAt(m, 2, l, field))));
                    }}
      << LogPattern{rx(QStringLiteral("To serve at least one request with the models?'s max seq len \\((-?\\d+)\\)")),
                    [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.maxModelLen = shape(m.captured(1), l, field, "max seq len"); r.refusalLine = l; }}
      << LogPattern{rx(num + gib + QStringLiteral(" KV cache is needed")), [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.kvNeeded = bytesAt(m, 1, l, field); if (!r.refusalLine) r.refusalLine = l; }}
      << LogPattern{rx(QStringLiteral("estimated maximum model length is (-?[0-9,]+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.estimatedMaxLen = countAt(m, 1, l, field); }}
      << LogPattern{rx(QStringLiteral("No available memory for the cache blocks")), [&r](const QRegularExpressionMatch &, int l) { failNoMemory(r, l); }}
      << LogPattern{rx(QStringLiteral("EngineCore (?:failed to start|hit an exception)|Engine core initialization failed")), [&r](const QRegularExpressionMatch &, int l) {
                        r.engine = Engine::Vllm;
                        r.fail(QStringLiteral("vllm-engine-core"), QStringLiteral("line %1: vLLM's engine core failed to start.").arg(l));
                    }};
}

} // namespace

void VllmRule::addLogPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field) const
{
    addSettingPatterns(p, r, field);
    addProfilePatterns(p, r, field);
    addBudgetPatterns(p, r, field);
    addPoolPatterns(p, r, field);
    addUsagePatterns(p, r, field);
    addFailurePatterns(p, r, field);
}

void VllmRule::applyLog(const LogReading &r, Scenario &s) const
{
    EngineSettings &e = s.engineSettings;
    if (r.maxNumSeqs)
        e.maxNumSeqs = r.maxNumSeqs;
    if (r.maxNumBatchedTokens)
        e.maxNumBatchedTokens = r.maxNumBatchedTokens;
    if (r.version.isEmpty() && r.activationPeak && !r.cudaGraph) {
        // A breakdown line without a CUDA-graph term comes from a version that did not subtract it.
        e.vllmMajor = 0;
        e.vllmMinor = 10;
    }
}

void VllmRule::applyMeasurements(const LogReading &r, Scenario &s) const
{
    // Keep the measured workspace as the scenario's own (the profiled terms).
    if (r.activationPeak && r.nonTorch) {
        s.workspaceBytes = *r.activationPeak + *r.nonTorch + (subtractsCudaGraphs(s.engineSettings) ? r.cudaGraph.value_or(0) : 0);
        s.names.set(Input::Workspace, r.names.of(Input::ActivationPeak)); // measured: named by its line, not a what-if
    }
}

} // namespace Headroom
