// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/engineprofile.h"
#include "core/inputerror.h"
#include "core/units.h"

namespace Headroom {

bool EngineSettings::operator==(const EngineSettings &o) const
{
    return kvCacheMemory == o.kvCacheMemory && freeMemoryBefore == o.freeMemoryBefore
        && freeMemoryAfter == o.freeMemoryAfter && activationPeak == o.activationPeak && nonTorch == o.nonTorch
        && cudaGraph == o.cudaGraph && memFractionStatic == o.memFractionStatic
        && freeGpuMemoryFraction == o.freeGpuMemoryFraction && maxNumBatchedTokens == o.maxNumBatchedTokens
        && vllmMajor == o.vllmMajor && vllmMinor == o.vllmMinor && nCtx == o.nCtx && nSeq == o.nSeq
        && nBatch == o.nBatch && trtTokensPerBlock == o.trtTokensPerBlock;
}

namespace Engines {

QList<Engine> all()
{
    return {Engine::Plain, Engine::Vllm, Engine::Sglang, Engine::Trtllm, Engine::LlamaCpp, Engine::Ollama};
}

QString name(Engine e)
{
    switch (e) {
    case Engine::Plain: return QStringLiteral("plain");
    case Engine::Vllm: return QStringLiteral("vllm");
    case Engine::Sglang: return QStringLiteral("sglang");
    case Engine::Trtllm: return QStringLiteral("trtllm");
    case Engine::LlamaCpp: return QStringLiteral("llamacpp");
    case Engine::Ollama: return QStringLiteral("ollama");
    }
    return {};
}

QString describe(Engine e)
{
    switch (e) {
    case Engine::Plain:
        return QStringLiteral("Plain: card − weights − workspace");
    case Engine::Vllm:
        return QStringLiteral("vLLM: card × gpu_memory_utilization − weights − activation peak − non-torch − CUDA graphs "
                              "(vllm/v1/worker/gpu_worker.py; blocks: vllm/v1/core/kv_cache_utils.py)");
    case Engine::Sglang:
        return QStringLiteral("SGLang: free after load − free before load × (1 − mem_fraction_static), page size 1 "
                              "(sglang/srt/model_executor/model_runner.py)");
    case Engine::Trtllm:
        return QStringLiteral("TensorRT-LLM: free_gpu_memory_fraction × free memory after load, 32-token blocks "
                              "(tensorrt_llm KvCacheConfig)");
    case Engine::LlamaCpp:
        return QStringLiteral("llama.cpp: n_ctx cells up front, padded to 256; q8_0/q4_0 as ggml blocks "
                              "(src/llama-kv-cache.cpp)");
    case Engine::Ollama:
        return QStringLiteral("Ollama: memory.required.kv = num_ctx × num_parallel per global layer, "
                              "num_parallel × window + batch per sliding layer (llm/memory.go)");
    }
    return {};
}

QStringList names()
{
    QStringList out;
    for (Engine e : all())
        out << name(e);
    return out;
}

Engine parse(const QString &text, const QString &field)
{
    const QString t = text.trimmed().toLower();
    for (Engine e : all())
        if (t == name(e))
            return e;
    if (t == QLatin1String("llama.cpp") || t == QLatin1String("llama-cpp"))
        return Engine::LlamaCpp;
    if (t == QLatin1String("tensorrt-llm") || t == QLatin1String("trt-llm"))
        return Engine::Trtllm;
    throw InputError(field, QStringLiteral("unknown engine \"%1\"; use one of %2").arg(text, names().join(QStringLiteral(", "))));
}

qint64 defaultNonTorchBytes(int tp)
{
    return tp > 1 ? Units::GiB / 2 : qint64(0.06 * double(Units::GiB));
}

double defaultMemFractionStatic(int tp)
{
    if (tp >= 16)
        return 0.79;
    if (tp >= 8)
        return 0.81;
    if (tp >= 4)
        return 0.85;
    if (tp >= 2)
        return 0.87;
    return 0.88;
}

} // namespace Engines
} // namespace Headroom
