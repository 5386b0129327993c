// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/plain.h"

namespace Headroom {

/// Ollama's estimate memory.required.kv (llm/memory.go), before it loads the
/// model: num_ctx x num_parallel cells per global layer, num_parallel x
/// window + batch per sliding layer, whole model. The budget is the plain rule's.
class OllamaRule : public EngineRule
{
public:
    Engine id() const override { return Engine::Ollama; }
    QString name() const override { return QStringLiteral("ollama"); }
    QString describe() const override;
    QString title() const override { return QStringLiteral("Ollama"); }
    /// Its KV-cache formats by release (EngineRule::kvDtypes), cited in kvDtypeSource().
    QVector<KvDtypeSupport> kvDtypes() const override;
    QString kvDtypeSource() const override;
    /// Its own settings (EngineRule::settings).
    QList<Input> settings() const override { return {Input::NCtx, Input::NSeq, Input::NBatch}; }
    /// Ollama 0.11 (E19); 0.6.0 (E20) and 0.6.5 (E14) checked as older families.
    EngineVersion checkedVersion() const override { return {0, 11}; }
    EngineBudget budget(const Scenario &s, qint64 weightsPerGpu) const override { return PlainRule::cardMinusWorkspace(s, weightsPerGpu); }
    EngineFigures figures(const Scenario &s, const KvCost &cost, qint64 budgetPerGpu) const override;
    void addJson(const EngineFigures &f, QJsonObject &o) const override;
    QStringList derivation(const Scenario &s, const EngineFigures &f, UnitSystem u) const override;
    void addLogPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field) const override;
    void applyLog(const LogReading &r, Scenario &s) const override;
    QString tokensFigure() const override { return QStringLiteral("cells (--ctx-size)"); }
    /// How it admits sessions (EngineRule::admission).
    AdmissionRule admission(const Scenario &s) const override;
    std::optional<RunningCap> runningCap(const Scenario &s) const override;
};

namespace Ollama {
/// Ollama's default num_ctx in 0.6.x (docs/faq.md), used by E14.
constexpr qint64 defaultContext = 2048;
/// The cells per sequence Ollama's estimate gives a gpt-oss sliding layer (E19,
/// ollama/ollama issue 11711: 12 x 4,608 + 12 x 8,192 cells x 2,048 B = 300 MiB).
constexpr qint64 gptOssSlidingCells = 4096;
} // namespace Ollama

} // namespace Headroom
