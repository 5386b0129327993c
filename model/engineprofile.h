// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QtGlobal>

namespace Headroom {

/// How an engine carves a card's memory into weights, workspace and KV cache.
enum class Engine {
    Plain, ///< budget = card - weights - workspace (the textbook rule)
    Vllm,  ///< budget = card x gpu_memory_utilization - weights - workspace
           ///< (vllm/v1/worker/gpu_worker.py determine_available_memory:
           ///< requested_memory = total x gpu_memory_utilization)
};

namespace Engines {

/// "plain" or "vllm".
QString name(Engine e);
/// Parses "plain" / "vllm"; throws InputError(field) naming the accepted words.
Engine parse(const QString &text, const QString &field);
/// Every accepted spelling.
QStringList names();

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

} // namespace Engines
} // namespace Headroom
