// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/enginerule.h"

namespace Headroom {

/// The textbook rule, no engine: budget = card - weights - workspace, pages of
/// --block-size tokens (seed-figures.md, "Rules").
class PlainRule : public EngineRule
{
public:
    Engine id() const override { return Engine::Plain; }
    QString name() const override { return QStringLiteral("plain"); }
    QString describe() const override;
    QString title() const override { return QStringLiteral("the plain rule"); }
    /// Its KV-cache formats by release (EngineRule::kvDtypes), cited in kvDtypeSource().
    QVector<KvDtypeSupport> kvDtypes() const override;
    QString kvDtypeSource() const override;
    EngineVersion checkedVersion() const override { return {}; }
    EngineBudget budget(const Scenario &s, qint64 weightsPerGpu) const override;
    EngineFigures figures(const Scenario &s, const KvCost &cost, qint64 budgetPerGpu) const override;
    QStringList derivation(const Scenario &, const EngineFigures &, UnitSystem) const override { return {}; }

    /// card - weights - workspace (the override, else reserve + activations), per GPU.
    static EngineBudget cardMinusWorkspace(const Scenario &s, qint64 weightsPerGpu);
};

} // namespace Headroom
