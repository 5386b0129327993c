// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/levers.h"
#include "plan/servingestimate.h"
#include "engines/runnability.h"
#include "plan/capacity.h"
#include "plan/leverevaluator.h"
#include "plan/riskwork.h"
#include "core/inputerror.h"
#include "core/units.h"

#include <QJsonArray>
#include <cmath>

namespace Headroom {

namespace {

using Units::formatCount;

// Each option's change in sessions per GPU against `current` (a ratio - 1, inf from 0) and
// whether it meets `target`; a latency past an explicit target changes the requirement.
void judge(QVector<LeverOption> &options, const LeverOption &current, const LeverTarget &target)
{
    for (LeverOption &o : options) {
        o.change = current.sessionsPerGpu > 0 ? o.sessionsPerGpu / current.sessionsPerGpu - 1.0
                                              : (o.sessionsPerGpu > 0 ? INFINITY : 0.0);
        // Without a latency target, 200 ms per token (5 tokens/s, too slow to read along) is the
        // ceiling; an explicit target needs a known latency (a card with a bandwidth figure).
        const double maxItl = target.maxItlMs.value_or(defaultLeverMaxItlMs);
        const bool latencyOk = o.itlMs ? *o.itlMs <= maxItl : !target.maxItlMs;
        const bool sessionsOk = !target.sessionsPerGpu || o.sessionsPerGpu >= *target.sessionsPerGpu;
        o.meetsTarget = o.sessionsPerGroup > 0 && sessionsOk && latencyOk;
        o.missesTargetReason = o.sessionsPerGroup <= 0 ? Levers::tr("holds no session")
            : !latencyOk && o.itlMs ? Levers::tr("%1 ms per token, past the %2 ms %3").arg(QString::number(*o.itlMs, 'f', 1), QString::number(maxItl, 'f', 1),
                                                                                        target.maxItlMs ? Levers::tr("target") : Levers::tr("ceiling (5 tokens/s)"))
            : !latencyOk ? Levers::tr("no latency figure for the card, and a latency target is set")
            : !sessionsOk ? Levers::tr("%1, below the target of %2 sessions per GPU").arg(sessionsPerGpus(o.sessionsPerGroup, o.scenario.gpusPerReplica()), Units::formatDecimal(*target.sessionsPerGpu))
                          : QString();
        if (target.maxItlMs && o.itlMs && *o.itlMs > *target.maxItlMs && !o.changesRequirement) {
            o.changesRequirement = true;
            o.changesRequirementReason = Levers::tr("%1 ms per token, past the %2 ms target")
                                             .arg(QString::number(*o.itlMs, 'f', 1), QString::number(*target.maxItlMs, 'f', 1));
        }
    }
}

// Orders the options by cost per session-hour, those unpriced or holding no session last;
// options of equal cost keep the levers' order (a stable sort).
void sortByCost(QVector<LeverOption> &options)
{
    std::stable_sort(options.begin(), options.end(), [](const LeverOption &a, const LeverOption &b) {
        const double ca = a.sessionsPerGroup > 0 && a.costPerSessionHourUsd ? *a.costPerSessionHourUsd : INFINITY;
        const double cb = b.sessionsPerGroup > 0 && b.costPerSessionHourUsd ? *b.costPerSessionHourUsd : INFINITY;
        return ca < cb;
    });
}

// Flags the first (so, sorted, the cheapest) priced option that meets the target, keeps the
// requirement and runs on the engine and card.
void flagCheapest(QVector<LeverOption> &options)
{
    for (LeverOption &o : options) {
        if (o.offerable() && o.costPerSessionHourUsd) {
            o.cheapest = true;
            break;
        }
    }
}

// The kind of option `o` is, in the answer's words ("a larger card", "shorter memory", ...),
// a memory option told apart by what it changes against `now`.
QString kindOf(const LeverOption &o, const Scenario &now)
{
    if (o.lever == QLatin1String("memory"))
        return o.scenario.gpu.id != now.gpu.id ? Levers::tr("a larger card")
             : o.scenario.tp != now.tp          ? Levers::tr("more GPUs per replica")
                                                : Levers::tr("more memory");
    if (o.lever == QLatin1String("retention"))
        return Levers::tr("shorter memory");
    if (o.lever == QLatin1String("precision"))
        return Levers::tr("lower precision");
    if (o.lever == QLatin1String("side pools"))
        return Levers::tr("a smaller side pool");
    return Levers::tr("a leaner attention design");
}

// The option as the answer names it: a larger card by name and price per GPU-hour
// ("more silicon" said nothing), any other option by its own words.
QString named(const LeverOption &o, const Scenario &now)
{
    const auto cardPrice = o.scenario.gpu.id != now.gpu.id ? o.scenario.effectivePrice() : std::nullopt;
    return cardPrice ? Levers::tr("%1 at %2 per GPU-hour").arg(o.option, Units::formatUsd(*cardPrice)) : o.option;
}

// A price of `usd` per session-hour, in the one money form (Units::formatUsdPer).
QString perSessionHour(double usd)
{
    return Units::formatUsdPer(usd, Levers::tr("session-hour"));
}

// The answer in one sentence: the cheapest, then the best of each other kind of option,
// each named with its price; or why none is the answer.
QString answerOf(const LeverReport &report, const Scenario &now, const LeverTarget &target)
{
    const QVector<LeverOption> &out = report.options;
    const auto cheapest = std::find_if(out.cbegin(), out.cend(), [](const LeverOption &o) { return o.cheapest; });
    QStringList kinds, parts;
    if (cheapest != out.cend())
        kinds << kindOf(*cheapest, now);
    for (const LeverOption &o : out) {
        if (o.sessionsPerGroup <= 0 || !o.costPerSessionHourUsd || !o.offerable() || kinds.contains(kindOf(o, now)))
            continue;
        kinds << kindOf(o, now);
        parts << Levers::tr("%1 (%2) %3").arg(kindOf(o, now), named(o, now), perSessionHour(*o.costPerSessionHourUsd));
    }
    const bool targetSet = target.sessionsPerGpu || target.maxItlMs;
    // Why none is the answer, the first cause first: the plan itself cannot run, or no price.
    if (cheapest == out.cend()) {
        if (const Runnability run = Runnability::of(now); !run.runnable)
            return Levers::tr("Nothing here is advised: the plan itself is a what-if (%1). Take an option marked runnable, or another "
                              "engine or card.").arg(run.reason);
        if (std::none_of(out.cbegin(), out.cend(), [](const LeverOption &o) { return o.costPerSessionHourUsd.has_value(); }))
            return Levers::tr("No option here has a price: set one (--price, or the GPU preset's price) to compare them.");
    }
    if (cheapest == out.cend())
        return targetSet ? Levers::tr("No option here meets the target without changing the requirement: relax it, or combine levers.")
                         : Levers::tr("No option here holds a session within 200 ms per token without changing the requirement: combine levers.");
    return Levers::tr("The cheapest here is %1 (%2)%3, at %4 and %5%6")
        .arg(named(*cheapest, now), cheapest->lever, targetSet ? Levers::tr(" meeting the target") : QString(),
             perSessionHour(*cheapest->costPerSessionHourUsd), sessionsPerGpus(cheapest->sessionsPerGroup, cheapest->scenario.gpusPerReplica()),
             parts.isEmpty() ? Levers::tr(".") : Levers::tr("; next by kind of option: %1.").arg(parts.join(Levers::tr(", "))));
}

} // namespace

QVector<int> tensorParallelSizes()
{
    return {1, 2, 4, 8};
}

bool isLargerCard(const GpuSpec &card, qint64 memoryBytes)
{
    return double(card.memoryBytes) >= 1.1 * double(memoryBytes);
}

LeverReport evaluateLevers(const Scenario &now, const QVector<ModelShape> &models, const QVector<GpuSpec> &gpus,
                           const LeverTarget &target, qint64 sharedPrefixTokens, qint64 hostMemoryPerGpu)
{
    // Every option's plan shares one RiskWork: most options change the budget or the
    // bytes per token, not the lengths, and each distinct law and tail is settled once.
    // A levers row reads the count, latency and cost only (Figures::Counts).
    RiskWork work(RiskWork::Figures::Counts);
    return evaluateLevers(work, now, models, gpus, target, sharedPrefixTokens, hostMemoryPerGpu);
}

LeverReport evaluateLevers(RiskWork &work, const Scenario &now, const QVector<ModelShape> &models, const QVector<GpuSpec> &gpus,
                           const LeverTarget &target, qint64 sharedPrefixTokens, qint64 hostMemoryPerGpu)
{
    LeverReport report;
    const CapacityResult base = computeCapacity(now, work);
    report.current = LeverEvaluator::priced(QStringLiteral("now"), QStringLiteral("as planned"), now, QString(), base);
    if (!base.ok) {
        report.answer = base.error;
        return report;
    }
    // Every lever's options (one evaluator per lever), then the change against now, the
    // target, the order by cost, and the answer.
    const LeverContext context{work, now, base, report.current, models, gpus, target, sharedPrefixTokens, hostMemoryPerGpu};
    for (const LeverEvaluator *lever : LeverEvaluators::all())
        report.options << lever->options(context);
    judge(report.options, report.current, target);
    sortByCost(report.options);
    flagCheapest(report.options);
    report.answer = answerOf(report, now, target);
    return report;
}

QJsonObject LeverReport::toJson() const
{
    QJsonArray a;
    auto opt = [](const std::optional<double> &v) { return v ? QJsonValue(std::round(*v * 1e6) / 1e6) : QJsonValue(); };
    for (const LeverOption &o : options)
        a.append(QJsonObject{{QStringLiteral("lever"), o.lever},
                             {QStringLiteral("option"), o.option},
                             {QStringLiteral("sessions_per_group"), o.sessionsPerGroup},
                             {QStringLiteral("sessions_per_gpu"), o.sessionsPerGpu},
                             {QStringLiteral("tp"), o.scenario.tp},
                             {QStringLiteral("change"), std::isfinite(o.change) ? QJsonValue(o.change) : QJsonValue()},
                             {QStringLiteral("cost_per_session_hour_usd"), opt(o.costPerSessionHourUsd)},
                             {QStringLiteral("cost_per_million_tokens_usd"), opt(o.costPerMillionTokensUsd)},
                             {QStringLiteral("itl_ms"), opt(o.itlMs)},
                             {QStringLiteral("itl_ms_low"), o.itlMs ? QJsonValue(timeBand(o.scenario, *o.itlMs).low) : QJsonValue()},
                             {QStringLiteral("itl_ms_high"), o.itlMs ? QJsonValue(timeBand(o.scenario, *o.itlMs).high) : QJsonValue()},
                             {QStringLiteral("misses_target_reason"), o.missesTargetReason},
                             {QStringLiteral("side_effect"), o.sideEffect},
                             {QStringLiteral("meets_target"), o.meetsTarget},
                             {QStringLiteral("changes_requirement"), o.changesRequirement},
                             {QStringLiteral("changes_requirement_reason"), o.changesRequirementReason},
                             {QStringLiteral("runnable"), o.runnable},
                             {QStringLiteral("runnable_reason"), o.runnableReason},
                             {QStringLiteral("cheapest"), o.cheapest}});
    return QJsonObject{{QStringLiteral("options"), a},
                       {QStringLiteral("sessions_per_gpu_now"), current.sessionsPerGpu},
                       {QStringLiteral("cost_per_session_hour_usd_now"), opt(current.costPerSessionHourUsd)},
                       {QStringLiteral("runnable_now"), current.runnable},
                       {QStringLiteral("runnable_reason_now"), current.runnableReason},
                       {QStringLiteral("answer"), answer}};
}

Diagnosis diagnoseFailure(const Scenario &s, qint64 failedAt, qint64 context, const QVector<ModelShape> &models, const QVector<GpuSpec> &gpus)
{
    if (failedAt < 1)
        throw InputError(QStringLiteral("--failed-at-sessions"), QStringLiteral("must be at least 1"));
    if (context < 1)
        throw InputError(QStringLiteral("--context"), QStringLiteral("must be at least 1 token"));
    Scenario at = s;
    at.contextTokens = context;
    at.sessions = failedAt;
    at.distribution.reset();
    at.preallocate = s.preallocate;
    const CapacityResult r = computeCapacity(at);
    if (!r.ok) // the sessions asked about are the failed-at count here
        throw InputError(r.errorField == QLatin1String("--sessions") ? QStringLiteral("--failed-at-sessions") : r.errorField,
                         r.error.mid(r.errorField.size() + 2));
    Diagnosis d;
    d.residentTokens = Units::mul(failedAt, r.reservedTokensPerSession, QStringLiteral("--failed-at-sessions"));
    if (r.kvBudgetBytesPerGpu <= 0) {
        d.kvBudgetTokens = 0;
        d.budgetShare = 0;
        d.explainedByKv = false;
        d.expectedFailureSessions = 1;
        d.cheapestFix = Levers::tr("a card, or more GPUs per replica (TP or PP), that holds the weights (%1 short per GPU)")
                            .arg(Units::formatBytes(r.shortfallBytesPerGpu, UnitSystem::Decimal));
        d.sentence = Levers::tr("Not the KV cache: weights and workspace alone exceed the card by %1 per GPU, so it cannot start. Fix: %2.")
                         .arg(Units::formatBytes(r.shortfallBytesPerGpu, UnitSystem::Decimal), d.cheapestFix);
        return d;
    }
    d.kvBudgetTokens = r.kvCapacityTokens;
    const double resident = double(r.reservedSessionBytesPerGpu) * double(failedAt);
    d.budgetShare = r.kvBudgetBytesPerGpu > 0 ? resident / double(r.kvBudgetBytesPerGpu) : INFINITY;
    d.explainedByKv = d.budgetShare >= 0.95;
    d.expectedFailureSessions = r.maxSessions < std::numeric_limits<qint64>::max() ? r.maxSessions + 1 : r.maxSessions; // no wrap at 2^63
    const LeverReport levers = evaluateLevers(at, models, gpus, LeverTarget{double(failedAt) / double(at.gpusPerReplica()), std::nullopt});
    const auto fix = std::find_if(levers.options.cbegin(), levers.options.cend(), [](const LeverOption &o) { return o.cheapest; });
    if (fix != levers.options.cend())
        d.cheapestFix = Levers::tr("%1 (%2): %3, %4; price paid: %5")
                            .arg(fix->option, fix->lever, sessionsPerGpus(fix->sessionsPerGroup, fix->scenario.gpusPerReplica()),
                                 Units::formatUsdPer(*fix->costPerSessionHourUsd, Levers::tr("session-hour")),
                                 fix->sideEffect);
    else
        d.cheapestFix = Levers::tr("no single lever holds %1 sessions of %2 tokens: combine them").arg(formatCount(failedAt), formatCount(context));
    d.sentence = d.explainedByKv
        ? Levers::tr("KV exhaustion explains it: %1 sessions of %2 tokens hold %3 tokens (%4 of the KV budget of %5 tokens); "
                         "it should fail from %6 sessions%7. Cheapest fix: %8.")
              .arg(formatCount(failedAt), formatCount(context), formatCount(d.residentTokens), LeverEvaluator::percent(d.budgetShare),
                   formatCount(d.kvBudgetTokens), formatCount(d.expectedFailureSessions),
                   // It held more than fit at that length: either its sessions were shorter than
                   // the length given when it failed, or its budget is larger than planned.
                   failedAt > d.expectedFailureSessions
                       ? Levers::tr(" (it held %1, which at %2 tokens each is %3 of the planned budget: either its sessions were "
                                    "shorter than that when it failed, about %4 tokens each at most, or the engine's budget is larger "
                                    "than planned: calibrate from its start-up log)")
                             .arg(formatCount(failedAt - 1), formatCount(context),
                                  LeverEvaluator::percent(double(r.reservedSessionBytesPerGpu) * double(failedAt - 1) / double(r.kvBudgetBytesPerGpu)),
                                  formatCount(d.kvBudgetTokens / (failedAt - 1)))
                       : QString(),
                   d.cheapestFix)
        : Levers::tr("KV exhaustion does not explain it: %1 sessions of %2 tokens fill only %3 of the KV budget (%4 tokens). "
                         "Look elsewhere: activation peaks from long prefills, fragmentation, another process on the card, or a "
                         "workspace larger than planned.")
              .arg(formatCount(failedAt), formatCount(context), LeverEvaluator::percent(d.budgetShare), formatCount(d.kvBudgetTokens));
    return d;
}

QJsonObject Diagnosis::toJson() const
{
    return QJsonObject{{QStringLiteral("resident_tokens"), residentTokens},
                       {QStringLiteral("kv_budget_tokens"), kvBudgetTokens},
                       {QStringLiteral("budget_share"), std::isfinite(budgetShare) ? QJsonValue(budgetShare) : QJsonValue()},
                       {QStringLiteral("explained_by_kv"), explainedByKv},
                       {QStringLiteral("expected_failure_sessions"), expectedFailureSessions},
                       {QStringLiteral("cheapest_fix"), cheapestFix},
                       {QStringLiteral("explanation"), sentence}};
}

qint64 solveMaxContext(const Scenario &s, qint64 sessions)
{
    if (sessions < 1)
        throw InputError(QStringLiteral("--sessions"), QStringLiteral("must be at least 1"));
    // More sessions than the engine runs at once fit no context (its cap, not the KV cache).
    if (const auto cap = Engines::rule(s.engine).runningCap(s); cap && sessions > cap->sessions)
        return 0;
    const qint64 modelMax = s.model.maxPositionEmbeddings > 0 ? s.model.maxPositionEmbeddings : std::numeric_limits<qint64>::max();
    if (!s.distribution) {
        // Every session at the answer: paged, not capped (the cap is what is being solved for).
        Scenario v = s;
        v.preallocate = false;
        v.retainTokens.reset();
        return std::min(maxContextFor(v, sessions), modelMax);
    }
    // Against a distribution: the largest retention cap at which the sessions fit at the risk.
    auto fits = [&](qint64 cap) {
        Scenario v = s;
        v.retainTokens = cap;
        const CapacityResult r = computeCapacity(v);
        return r.ok && r.distribution.sessionsAtRisk >= sessions;
    };
    qint64 hi = std::min(s.distribution->scaled(s.lengthScale, s.field(Input::LengthScale)).maximum(), modelMax);
    if (fits(hi))
        return hi;
    qint64 lo = 0;
    while (hi - lo > 1) {
        const qint64 mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

QPair<qint64, int> solveMinGpus(const Scenario &s, qint64 target)
{
    if (target < 1)
        throw InputError(QStringLiteral("--target-sessions"), QStringLiteral("must be at least 1"));
    QPair<qint64, int> best{0, 0};
    for (int tp : tensorParallelSizes()) {
        Scenario v = s;
        v.tp = tp;
        const CapacityResult r = computeCapacity(v);
        if (!r.ok || r.distribution.sessionsAtRisk < 1)
            continue;
        const qint64 gpus = Units::mul(Units::ceilDiv(target, r.distribution.sessionsAtRisk), tp, QStringLiteral("--target-sessions"));
        if (best.first == 0 || gpus < best.first)
            best = {gpus, tp};
    }
    return best;
}

qint64 solveMaxModelLen(const Scenario &s)
{
    Scenario v = s;
    v.distribution.reset();
    v.preallocate = false;
    v.retainTokens.reset();
    const qint64 fits = maxContextFor(v, 1);
    // No engine starts past the model's own maximum, unless --max-model-len raises it
    // (RoPE scaling, or an engine told to go beyond the config).
    const qint64 cap = std::max(s.model.maxPositionEmbeddings, s.maxModelLen.value_or(0));
    return cap > 0 ? std::min(fits, cap) : fits;
}

} // namespace Headroom
