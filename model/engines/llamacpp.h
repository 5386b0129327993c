// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/plain.h"

namespace Headroom {

/// llama.cpp: n_ctx cells allocated up front, padded to 256, for the whole
/// model (src/llama-kv-cache.cpp, llama-kv-cache-iswa.cpp); q8_0/q4_0 as ggml
/// blocks. The budget is the plain rule's.
class LlamaCppRule : public EngineRule
{
public:
    Engine id() const override { return Engine::LlamaCpp; }
    QString name() const override { return QStringLiteral("llamacpp"); }
    QStringList aliases() const override { return {QStringLiteral("llama.cpp"), QStringLiteral("llama-cpp")}; }
    QString describe() const override;
    QString title() const override { return QStringLiteral("llama.cpp"); }
    /// Its KV-cache formats by release (EngineRule::kvDtypes), cited in kvDtypeSource().
    QVector<KvDtypeSupport> kvDtypes() const override;
    QString kvDtypeSource() const override;
    /// Its own settings (EngineRule::settings).
    QList<Input> settings() const override { return {Input::NCtx, Input::NSeq, Input::NBatch}; }
    /// llama.cpp numbers builds (b4462), not releases: its cache rule has not changed across the checked builds.
    EngineVersion checkedVersion() const override { return {}; }
    EngineBudget budget(const Scenario &s, qint64 weightsPerGpu) const override { return PlainRule::cardMinusWorkspace(s, weightsPerGpu); }
    EngineFigures figures(const Scenario &s, const KvCost &cost, qint64 budgetPerGpu) const override;
    void addJson(const EngineFigures &f, QJsonObject &o) const override;
    QStringList derivation(const Scenario &s, const EngineFigures &f, UnitSystem u) const override;
    void addLogPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field) const override;
    void applyLog(const LogReading &r, Scenario &s) const override;
    /// How it admits sessions (EngineRule::admission).
    AdmissionRule admission(const Scenario &s) const override;
    std::optional<RunningCap> runningCap(const Scenario &s) const override;
};

namespace LlamaCpp {
/// llama.cpp pads n_ctx to a multiple of 256 (src/llama-context.cpp).
constexpr int contextPadding = 256;
/// llama.cpp's default context when none is given (common/common.h n_ctx = 4096).
constexpr qint64 defaultContext = 4096;
/// The admission rule of llama.cpp's server and of Ollama, which runs it (EngineRule::admission):
/// n_ctx cells split over n_seq slots, named for the engine `title`.
AdmissionRule slotAdmission(const QString &title, const Scenario &s);
/// The running cap of llama.cpp's server and of Ollama once --n-ctx is set: n_seq slots, one
/// sequence each (tools/server/server.cpp); nothing without --n-ctx (counted against the memory).
std::optional<RunningCap> slotCap(const Scenario &s);
} // namespace LlamaCpp

} // namespace Headroom
