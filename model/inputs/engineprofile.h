// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QtGlobal>
#include <optional>

namespace Headroom {

/// The engines whose rules Headroom knows; each has one class in
/// model/engines/<name>.cpp (EngineRule), reached through Engines::rule().
enum class Engine {
    Plain,    ///< budget = card - weights - workspace (the textbook rule)
    Vllm,     ///< engines/vllm.cpp
    Sglang,   ///< engines/sglang.cpp
    Trtllm,   ///< engines/trtllm.cpp
    LlamaCpp, ///< engines/llamacpp.cpp
    Ollama,   ///< engines/ollama.cpp
};

/// An engine release, X.Y[.Z]; most rules change by family X.Y, a few (Ollama
/// 0.6.5) at a patch release.
struct EngineVersion
{
    int major = 0;
    int minor = 0;
    int patch = 0;
    bool operator==(const EngineVersion &o) const { return major == o.major && minor == o.minor && patch == o.patch; }
    bool operator!=(const EngineVersion &o) const { return !(*this == o); }
    /// True when this release is X.Y.Z or later.
    bool atLeast(int x, int y, int z = 0) const
    {
        return major != x ? major > x : minor != y ? minor > y : patch >= z;
    }
    /// "0.11", "0.6.5"
    QString text() const
    {
        return patch ? QStringLiteral("%1.%2.%3").arg(major).arg(minor).arg(patch) : QStringLiteral("%1.%2").arg(major).arg(minor);
    }
    /// Parses "X.Y" or "X.Y.Z" (a leading "v" allowed); throws InputError(field).
    static EngineVersion parse(const QString &text, const QString &field);
};

/// TensorRT-LLM's capacity scheduler policy (tensorrt_llm/llmapi/llm_args.py,
/// CapacitySchedulerPolicy; "Useful Runtime Options", TensorRT-LLM performance tuning guide):
/// GUARANTEED_NO_EVICT (the default) admits a request only when the KV cache can hold it to
/// its maximum output, so a started request is never paused; MAX_UTILIZATION admits as many
/// as fit now and pauses requests when the cache is full (paged, as vLLM).
enum class SchedulerPolicy { GuaranteedNoEvict, MaxUtilization };

namespace SchedulerPolicies {
/// "guaranteed-no-evict", "max-utilization": the --scheduler-policy words.
QString name(SchedulerPolicy p);
/// "GUARANTEED_NO_EVICT", "MAX_UTILIZATION": the engine's own spelling.
QString engineName(SchedulerPolicy p);
/// Reads either spelling, any case, '-' or '_'; throws InputError(field) naming both words.
SchedulerPolicy parse(const QString &text, const QString &field);
} // namespace SchedulerPolicies

/// Engine-specific inputs, each optional: measured figures win over defaults.
/// Bytes are per GPU unless named otherwise.
struct EngineSettings
{
    std::optional<qint64> kvCacheMemory;     ///< --kv-cache-memory: pins the KV budget per GPU (vLLM's own override)
    std::optional<qint64> freeMemoryBefore;  ///< --free-memory-before: free memory before the weights load
    std::optional<qint64> freeMemoryAfter;   ///< --free-memory-after: free memory after the weights load
    std::optional<qint64> activationPeak;    ///< --activation-peak: vLLM's profiled torch peak
    std::optional<qint64> nonTorch;          ///< --non-torch: vLLM's non-torch memory (NCCL, CUDA context growth)
    std::optional<qint64> cudaGraph;         ///< --cuda-graph: vLLM's CUDA-graph memory
    std::optional<double> memFractionStatic; ///< --mem-fraction-static (SGLang)
    double freeGpuMemoryFraction = 0.9;      ///< --free-gpu-memory-fraction (TensorRT-LLM KvCacheConfig default)
    std::optional<qint64> maxNumBatchedTokens; ///< --max-num-batched-tokens (vLLM)
    std::optional<qint64> maxNumSeqs;        ///< --max-num-seqs (vLLM; sizes the sampler's dummy pass)
    int vllmMajor = 0;                       ///< --vllm-version X.Y: the version family
    int vllmMinor = 11;
    std::optional<qint64> nCtx;              ///< --n-ctx: llama.cpp / Ollama context cells
    int nSeq = 1;                            ///< --n-seq: llama.cpp sequences / Ollama num_parallel
    int nBatch = 512;                        ///< --n-batch: llama.cpp n_ubatch / Ollama batch (both default 512)
    int trtTokensPerBlock = 32;              ///< TensorRT-LLM tokens_per_block
    std::optional<qint64> trtMaxBatchSize;   ///< --max-batch-size (TensorRT-LLM build setting)
    std::optional<qint64> trtMaxNumTokens;   ///< --max-num-tokens (TensorRT-LLM build setting)
    std::optional<qint64> trtMaxSeqLen;      ///< --max-seq-len (TensorRT-LLM build setting; empty: max_model_len)
    /// --max-output-tokens: the most tokens a request may generate (the clients' max_tokens),
    /// what TensorRT-LLM's GUARANTEED_NO_EVICT reserves beside each prompt; empty: not known,
    /// each session is then taken at its own length.
    std::optional<qint64> maxOutputTokens;
    SchedulerPolicy schedulerPolicy = SchedulerPolicy::GuaranteedNoEvict; ///< --scheduler-policy (TensorRT-LLM)
    /// --engine-version X.Y of an engine other than vLLM (vLLM keeps vllmMajor/vllmMinor);
    /// empty: the newest release that engine's rule was checked against.
    std::optional<EngineVersion> engineVersion;

    bool operator==(const EngineSettings &o) const;
    bool operator!=(const EngineSettings &o) const { return !(*this == o); }
};

namespace Engines {

// Implemented by the dispatcher (engines/enginerule.cpp) from each engine's rule.
/// "plain", "vllm", "sglang", "trtllm", "llamacpp", "ollama".
QString name(Engine e);
/// A one-line description with the rule and its source, for the UI.
QString describe(Engine e);
/// Parses a name; throws InputError(field) naming the accepted words.
Engine parse(const QString &text, const QString &field);
/// Every accepted spelling, in menu order.
QStringList names();
/// Every engine, in menu order.
QList<Engine> all();

/// Default runtime reserve per GPU, bytes: CUDA context, cuBLAS/NCCL buffers
/// and allocator slack that no engine counts as KV. 1 GB: vLLM's own printout
/// for a 7B model on a 16 GB card shows 0.06 GiB non-torch + 0.48 GiB CUDA
/// graphs (a public vLLM V1 start-up log of Qwen2.5-7B-Instruct-AWQ), and the CUDA context itself
/// takes a few hundred MiB outside them.
constexpr qint64 defaultRuntimeReserveBytes = 1'000'000'000;
/// Default activation workspace per GPU, bytes: the forward pass's peak
/// activations. 3 GB: E05 printed a 1.04 GiB peak for a 7B model at vLLM's
/// default batched-token limit; larger hidden sizes and prefill chunks need
/// more. Reserve + activations = 4 GB, the "~4 GB working space" of the
/// founding example (shared/design/seed-figures.md, A).
constexpr qint64 defaultActivationBytes = 3'000'000'000;
/// vLLM's default gpu_memory_utilization (vllm/config: CacheConfig, 0.9).
constexpr double defaultGpuMemoryUtilization = 0.9;
/// vLLM's default block size in tokens (CacheConfig.block_size = 16).
constexpr int defaultBlockSize = 16;
} // namespace Engines
} // namespace Headroom
