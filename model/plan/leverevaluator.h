// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/levers.h"

#include <QCoreApplication>

namespace Headroom {

/// The translation context of the levers' options, side effects and answer
/// (lupdate reads Levers::tr into build/translations/headroom.ts).
struct Levers
{
    Q_DECLARE_TR_FUNCTIONS(Levers)
};

/// What every lever's evaluator reads: the scenario as planned and its plan,
/// the presets to draw other models and cards from, the user's target and the
/// what-if amounts, and the risk work every option's plan shares.
struct LeverContext
{
    RiskWork &work;                   ///< shared by every option's plan (RiskWork::Figures::Counts)
    const Scenario &now;              ///< the scenario as planned
    const CapacityResult &base;       ///< its plan (ok: evaluateLevers stops before the levers otherwise)
    const LeverOption &current;       ///< that plan as the report's reference row
    const QVector<ModelShape> &models;
    const QVector<GpuSpec> &gpus;
    const LeverTarget &target;
    qint64 sharedPrefixTokens = 0;    ///< a shared system prompt, tokens (0: none)
    qint64 hostMemoryPerGpu = 0;      ///< host memory per card, bytes (0: none)
};

/// One lever's options, each priced by its own plan: one class per lever
/// (model/plan/<lever>lever.cpp), the way an EngineRule is one engine's rule.
/// Stateless: one instance per lever (LeverEvaluators::all).
class LeverEvaluator
{
public:
    virtual ~LeverEvaluator() = default;

    /// The lever as LeverOption::lever spells it ("precision", "memory", ...).
    virtual QString lever() const = 0;
    /// The lever's options for `c.now`, in the order the report lists options of
    /// equal price (its sort is stable).
    virtual QVector<LeverOption> options(const LeverContext &c) const = 0;

    /// An option's figures from its plan `r` (computeCapacity of `s`): sessions per TP
    /// group and per GPU, cost and latency at the risk-based count; a plan that failed
    /// leaves them 0 and says its error as the side effect.
    static LeverOption priced(const QString &lever, const QString &option, const Scenario &s, const QString &sideEffect,
                              const CapacityResult &r);
    /// The option `s` of this lever priced by its own plan, its risk work shared with
    /// the other options' (`c.work`).
    LeverOption price(const LeverContext &c, const QString &option, const Scenario &s, const QString &sideEffect) const;
    /// A share (0 to 1) as a percentage, two decimals below 1%, else one: "0.25%", "12.5%".
    static QString percent(double share);
};

namespace LeverEvaluators {
/// Every lever's evaluator, in the report's order: precision, attention, retention,
/// memory, side pools (the dispatcher: one line per lever, plan/leverevaluator.cpp).
const QVector<const LeverEvaluator *> &all();
} // namespace LeverEvaluators

} // namespace Headroom
