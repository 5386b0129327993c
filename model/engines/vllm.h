// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/enginerule.h"

namespace Headroom {

/// vLLM: floor(card x gpu_memory_utilization) - weights - activation peak -
/// non-torch [- CUDA graphs] (vllm/v1/worker/gpu_worker.py,
/// determine_available_memory); --workspace replaces the last three;
/// --kv-cache-memory pins the result. Blocks and groups per
/// vllm/v1/core/kv_cache_utils.py (get_kv_cache_configs).
class VllmRule : public EngineRule
{
public:
    Engine id() const override { return Engine::Vllm; }
    QString name() const override { return QStringLiteral("vllm"); }
    QString describe() const override;
    QString title() const override { return QStringLiteral("vLLM"); }
    /// Its KV-cache formats by release (EngineRule::kvDtypes), cited in kvDtypeSource().
    QVector<KvDtypeSupport> kvDtypes() const override;
    QString kvDtypeSource() const override;
    /// Its own settings (EngineRule::settings).
    QList<Input> settings() const override { return {Input::GpuMemoryUtilization, Input::KvCacheMemory, Input::MaxNumSeqs, Input::MaxNumBatchedTokens, Input::ActivationPeak, Input::NonTorch, Input::CudaGraph}; }
    /// vLLM 0.11 (E03, E24, E26, E27: the llm-d study ran vllm/vllm-openai:v0.11.0).
    EngineVersion checkedVersion() const override { return {0, 11}; }
    /// --vllm-version / --engine-version, kept as vllmMajor.vllmMinor.
    EngineVersion version(const Scenario &s) const override { return {s.engineSettings.vllmMajor, s.engineSettings.vllmMinor}; }
    /// vLLM's version is always set (0.11 unless given): its formats are that release's.
    EngineVersion kvDtypeVersion(const Scenario &s) const override { return version(s); }
    /// How it admits sessions (EngineRule::admission).
    AdmissionRule admission(const Scenario &s) const override;
    std::optional<RunningCap> runningCap(const Scenario &s) const override;
    /// gpu_memory_utilization (EngineRule::memoryFraction).
    std::optional<std::pair<RealInput, double>> memoryFraction(const Scenario &s) const override
    {
        return std::make_pair(RealInput::GpuMemoryUtilization, s.gpuMemoryUtilization);
    }
    void setMemoryFraction(Scenario &s, double fraction) const override
    {
        s.gpuMemoryUtilization = fraction;
        s.gpuMemoryUtilizationGiven = true;
    }
    EngineBudget budget(const Scenario &s, qint64 weightsPerGpu) const override;
    EngineFigures figures(const Scenario &s, const KvCost &cost, qint64 budgetPerGpu) const override;
    void addJson(const EngineFigures &f, QJsonObject &o) const override;
    QStringList derivation(const Scenario &s, const EngineFigures &f, UnitSystem u) const override;
    void addLogPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field) const override;
    void applyLog(const LogReading &r, Scenario &s) const override;
    void applyMeasurements(const LogReading &r, Scenario &s) const override;

    /// True when the version subtracts the CUDA-graph memory from the budget.
    static bool subtractsCudaGraphs(const EngineSettings &e);

private:
    /// The budget's spread before hardware into `b` (EngineBudget::spreadDown/Up): for each
    /// term vLLM measures at start-up that `s` does not give (the card as torch sees it,
    /// quantized weights as loaded, activation peak, non-torch memory by TP and release, CUDA
    /// graphs where subtracted), the range that term was seen in across public logs, cited at
    /// each term in vllm.cpp. Nothing when --kv-cache-memory pins the budget.
    void addBudgetSpread(EngineBudget &b, const Scenario &s, qint64 weightsPerGpu) const;
};

namespace Vllm {
/// True for the V1 engine, the default from vLLM 0.8 on.
bool isV1(EngineVersion v);
/// vLLM's larger defaults for cards of at least 70 GiB that are not A100s
/// (vllm/engine/arg_utils.py, _set_default_args: "For GPUs like H100 and MI300x").
bool largeCard(const Scenario &s);
/// max_num_seqs in force: --max-num-seqs, else 1024 on a large card in V1, else 256.
qint64 maxNumSeqs(const Scenario &s);
/// max_num_batched_tokens in force: --max-num-batched-tokens; else V0 (before 0.8)
/// without chunked prefill takes max(max_model_len, 2048) up to 32K and 2048
/// beyond (vllm/config.py, SchedulerConfig); V1: 8192 (the LLM-class default).
qint64 maxNumBatchedTokens(const Scenario &s);
/// The forward pass's peak per GPU at T = max_num_batched_tokens, bytes:
/// T x (3 x I / TP + 3 x hidden) x 2 B: gate, up and the activated intermediate
/// (I, or experts-per-token x the expert size) plus three hidden-size tensors in
/// bf16. Fitted on two V0 runs of Llama-3.1-8B on an RTX 3090 (max_model_len
/// 20,000 and 29,000: 110,100 B per batched token between them; this gives
/// 110,592).
qint64 forwardPeakBytes(const Scenario &s);
/// The sampler's dummy pass from vLLM 0.10 on (vllm/v1/worker/gpu_model_runner.py,
/// _dummy_sampler_run): max_num_seqs x vocab x 38.6 B, about ten fp32 copies
/// of the logits (logits, softmax, top-k/top-p sort and its indices). Fitted on
/// the llm-d study's vLLM 0.11 H100 runs at max_num_seqs 1024 (Llama-3.1-8B
/// 4.76 GiB, Qwen3-0.6B 5.56, gpt-oss-20b 7.38, Qwen3-32B 5.64: 38.4 to 38.9 B
/// each) and matches vLLM 0.10.2's 5.58 GiB for Qwen3-Next on an H200.
/// Before 0.10: the fp32 logits of 256 dummy sequences, 256 x vocab x 4 B.
qint64 samplerPeakBytes(const Scenario &s);
/// vLLM's non-torch memory when not measured: 1 GiB per GPU at TP >= 2 (NCCL
/// buffers and the custom all-reduce: 0.54-0.55 GiB in the llm-d H100 TP2 runs,
/// 1.38 GiB in vLLM 0.10.2 on H200 TP2, about 2 GiB in the 57-run H100 study the
/// issue cites); at TP 1 0.13 GiB in V1 (llm-d, vLLM 0.11) and 0.35 GiB in V0
/// (the RTX 3090 runs above, whose CUDA context grew during profiling).
qint64 defaultNonTorchBytes(const Scenario &s);
/// vLLM's CUDA-graph memory when not measured: 0.48 GiB printed for a 7B
/// model (E05).
constexpr qint64 defaultCudaGraphBytes = 515'396'076; // 0.48 GiB
} // namespace Vllm

/// vLLM's activation peak estimate per GPU, bytes: from 0.10 on the larger of
/// the forward peak and the sampler's dummy pass (they run one after the
/// other); before, the forward peak plus 256 sequences' fp32 logits.
/// Falls back to the default activation workspace when the shape lacks
/// intermediate_size or vocab_size.
qint64 vllmActivationEstimate(const Scenario &s);

} // namespace Headroom
