// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QtGlobal>
#include <optional>

namespace Headroom {

/// How an engine carves a card's memory into weights, workspace and KV cache,
/// and how it counts what it allocates. Each rule names its source.
enum class Engine {
    Plain,    ///< budget = card - weights - workspace (the textbook rule)
    Vllm,     ///< card x gpu_memory_utilization - weights - activation peak - non-torch
              ///< [- CUDA graphs]; vllm/v1/worker/gpu_worker.py determine_available_memory;
              ///< blocks per vllm/v1/core/kv_cache_utils.py (get_kv_cache_configs)
    Sglang,   ///< free after load - free before load x (1 - mem_fraction_static);
              ///< sglang/srt/model_executor/model_runner.py profile_max_num_token; page size 1
    Trtllm,   ///< free_gpu_memory_fraction x free memory after the engine loads;
              ///< tensorrt_llm KvCacheConfig; 32 tokens per block (64 in older build scripts)
    LlamaCpp, ///< n_ctx cells allocated up front, padded to 256; src/llama-kv-cache*.cpp
    Ollama,   ///< Ollama's estimate memory.required.kv (llm/memory.go): num_ctx x num_parallel
              ///< cells per global layer, num_parallel x window + batch per sliding layer
};

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
    int vllmMajor = 0;                       ///< --vllm-version X.Y: the version family
    int vllmMinor = 11;
    std::optional<qint64> nCtx;              ///< --n-ctx: llama.cpp / Ollama context cells
    int nSeq = 1;                            ///< --n-seq: llama.cpp sequences / Ollama num_parallel
    int nBatch = 512;                        ///< --n-batch: llama.cpp n_ubatch / Ollama batch (both default 512)
    int trtTokensPerBlock = 32;              ///< TensorRT-LLM tokens_per_block

    bool operator==(const EngineSettings &o) const;
    bool operator!=(const EngineSettings &o) const { return !(*this == o); }
};

namespace Engines {

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
/// graphs (shared/validation/engine-logs.md, E05), and the CUDA context itself
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
/// vLLM's non-torch memory when not measured: 0.06 GiB printed at TP 1 (E05);
/// NCCL buffers add a few hundred MiB under TP, so 0.5 GiB when TP > 1.
qint64 defaultNonTorchBytes(int tp);
/// vLLM's CUDA-graph memory when not measured: 0.48 GiB printed for a 7B
/// model (E05). Subtracted only from vLLM 0.11 on (E05's 0.10-era printout
/// lists it but did not subtract it).
constexpr qint64 defaultCudaGraphBytes = 515'396'076; // 0.48 GiB
/// SGLang's default mem_fraction_static by TP size (sglang/srt/server_args.py,
/// __post_init__, 2024-25 releases): 0.88 at TP 1, 0.87 at 2, 0.85 at 4,
/// 0.81 at 8, 0.79 at 16 and above. E07 ran TP 4 with 0.85.
double defaultMemFractionStatic(int tp);
/// llama.cpp pads n_ctx to a multiple of 256 (src/llama-context.cpp).
constexpr int llamaCppContextPadding = 256;
/// llama.cpp's default context when none is given (common/common.h n_ctx = 4096).
constexpr qint64 llamaCppDefaultContext = 4096;
/// Ollama's default num_ctx in 0.6.x (docs/faq.md), used by E14.
constexpr qint64 ollamaDefaultContext = 2048;

} // namespace Engines
} // namespace Headroom
