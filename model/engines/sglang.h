// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/enginerule.h"

namespace Headroom {

/// SGLang: free after load - free before load x (1 - mem_fraction_static)
/// (sglang/srt/model_executor/model_runner.py, profile_max_num_token);
/// page size 1. Before hardware, "before" defaults to card - runtime reserve
/// and "after" to before - weights.
class SglangRule : public EngineRule
{
public:
    Engine id() const override { return Engine::Sglang; }
    QString name() const override { return QStringLiteral("sglang"); }
    QString describe() const override;
    QString title() const override { return QStringLiteral("SGLang"); }
    /// Its KV-cache formats by release (EngineRule::kvDtypes), cited in kvDtypeSource().
    QVector<KvDtypeSupport> kvDtypes() const override;
    QString kvDtypeSource() const override;
    /// Its own settings (EngineRule::settings).
    QList<Input> settings() const override { return {Input::MemFractionStatic, Input::KvCacheMemory, Input::FreeMemoryBefore, Input::FreeMemoryAfter}; }
    /// SGLang 0.5 (2026, hybrid linear-attention backend, E18); E07 ran 0.4 (Mar 2025): same budget rule.
    EngineVersion checkedVersion() const override { return {0, 5}; }
    EngineBudget budget(const Scenario &s, qint64 weightsPerGpu) const override;
    EngineFigures figures(const Scenario &s, const KvCost &cost, qint64 budgetPerGpu) const override;
    QStringList derivation(const Scenario &s, const EngineFigures &f, UnitSystem u) const override;
    void addLogPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field) const override;
    void applyLog(const LogReading &r, Scenario &s) const override;
    QString tokensFigure() const override { return QStringLiteral("#tokens"); }
    /// How it admits sessions (EngineRule::admission).
    AdmissionRule admission(const Scenario &s) const override;
    /// mem_fraction_static, its default by card and TP when unset (EngineRule::memoryFraction).
    std::optional<std::pair<RealInput, double>> memoryFraction(const Scenario &s) const override;
    void setMemoryFraction(Scenario &s, double fraction) const override { s.engineSettings.memFractionStatic = fraction; }
};

namespace Sglang {
/// SGLang's default mem_fraction_static by TP size (sglang/srt/server_args.py,
/// __post_init__, 2024-25 releases): 0.88 at TP 1, 0.87 at 2, 0.85 at 4,
/// 0.81 at 8, 0.79 at 16 and above. E07 ran TP 4 with 0.85.
double defaultMemFractionStatic(int tp);
/// SGLang 0.5's default mem_fraction_static by card and TP (sglang/srt/server_args.py,
/// _handle_gpu_memory_settings): with the card's memory G in MiB (the driver total) it
/// picks chunked_prefill_size and cuda_graph_max_bs by tier (< 20 GiB: 2048, 8; < 35 GiB:
/// 2048, 24 or 80 at TP >= 4; < 60 GiB: 4096, 32 or 160; < 160 GiB: 8192, 256 or 512;
/// else 16384, 512), reserves 512 + 1.5 x max(chunked, 2048) + 2 x cuda_graph_max_bs +
/// TP x PP / 8 x 1024 MiB (at least 10 GiB on cards above 60 GiB) and returns
/// round((G - reserved) / G, 3). Releases before 0.5 use the TP table above.
double defaultMemFractionStatic(const Scenario &s);
/// SGLang's mamba_full_memory_ratio default (sglang/srt/server_args.py): for
/// hybrid linear-attention models the pool is split so the recurrent-state
/// cache gets 0.9 x what the full-attention KV gets (E18: 4.48 GiB of state,
/// 5.00 GiB of K + V from a 9.49 GiB budget).
constexpr double mambaFullMemoryRatio = 0.9;
/// What the CUDA context and NCCL take before SGLang measures "avail mem" at
/// "Load weight begin", per GPU (EngineMath::cudaContextBytes, fitted on E07 and E18).
constexpr qint64 startupBytes = EngineMath::cudaContextBytes;
} // namespace Sglang

} // namespace Headroom
