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
    QString title() const override { return QStringLiteral("TensorRT-LLM"); }
    /// Its KV-cache formats by release (EngineRule::kvDtypes), cited in kvDtypeSource().
    QVector<KvDtypeSupport> kvDtypes() const override;
    QString kvDtypeSource() const override;
    /// NVIDIA cards only (CUDA and TensorRT: the installation guide's requirements).
    QPair<QStringList, QString> cardVendors() const override
    {
        return {{QStringLiteral("NVIDIA")}, QStringLiteral("TensorRT-LLM builds on CUDA and TensorRT: NVIDIA GPUs only (docs, installation)")};
    }
    /// Its own settings (EngineRule::settings).
    QList<Input> settings() const override { return {Input::FreeGpuMemoryFraction, Input::KvCacheMemory, Input::FreeMemoryAfter, Input::TokensPerBlock, Input::MaxBatchSize, Input::MaxNumTokens, Input::MaxSeqLen, Input::SchedulerPolicy, Input::MaxOutputTokens}; }
    /// TensorRT-LLM 0.8 (E08).
    EngineVersion checkedVersion() const override { return {0, 8}; }
    /// Its KV-cache formats were read at 1.3 (kvDtypeSource), the budget rule at 0.8.
    EngineVersion kvDtypesCheckedVersion() const override { return {1, 3}; }
    EngineBudget budget(const Scenario &s, qint64 weightsPerGpu) const override;
    EngineFigures figures(const Scenario &s, const KvCost &cost, qint64 budgetPerGpu) const override;
    QStringList derivation(const Scenario &s, const EngineFigures &f, UnitSystem u) const override;
    void addLogPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field) const override;
    void applyLog(const LogReading &r, Scenario &s) const override;
    QString tokensFigure() const override { return QStringLiteral("tokens in paged KV cache"); }
    /// Its capacity scheduler: GUARANTEED_NO_EVICT reserves prompt + --max-output-tokens (EngineRule::admission).
    AdmissionRule admission(const Scenario &s) const override;
    std::optional<RunningCap> runningCap(const Scenario &s) const override;
    /// free_gpu_memory_fraction (EngineRule::memoryFraction).
    std::optional<std::pair<RealInput, double>> memoryFraction(const Scenario &s) const override
    {
        return std::make_pair(RealInput::FreeGpuMemoryFraction, s.engineSettings.freeGpuMemoryFraction);
    }
    void setMemoryFraction(Scenario &s, double fraction) const override { s.engineSettings.freeGpuMemoryFraction = fraction; }
};

namespace Trtllm {
/// trtllm-build's defaults (tensorrt_llm/builder.py BuildConfig): max_batch_size 2048,
/// max_num_tokens 8192.
constexpr qint64 defaultMaxBatchSize = 2048;
constexpr qint64 defaultMaxNumTokens = 8192;
/// What the runtime holds besides weights and KV before it sizes the pool, per GPU,
/// bytes, from the build settings: the CUDA context (0.45 GiB, as SGLang's start-up),
/// the engine's activation buffers at max_num_tokens (4 x hidden + 2 x intermediate / TP
/// values per token in 16-bit: the fused QKV/attention output and the MLP's gate-up and
/// activated halves), and the decoder's buffers for max_batch_size sequences (two fp32
/// logits rows of vocab values and the int32 output ids of max_seq_len tokens each).
/// E08 (TensorRT-LLM 0.8, Llama-2-7B int8 on an A100 80GB): 0.9 x what remains gives
/// 69.2e9 B against the 69.52e9 B allocated.
qint64 runtimeBytes(const Scenario &s);
} // namespace Trtllm

} // namespace Headroom
