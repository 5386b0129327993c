// SPDX-License-Identifier: GPL-3.0-or-later
#include "planner.h"
#include "plan/capacity.h"
#include "plan/riskwork.h"
#include "core/inputerror.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

namespace Headroom {

Planner::Planner(QObject *parent)
    : QObject(parent)
{
    m_result = computeCapacity(m_scenario);
}

void Planner::reset(const Scenario &scenario)
{
    m_undo.clear();
    apply(scenario);
}

template<typename Job, typename Done>
void Planner::runLatest(Channel &channel, Job job, Done done)
{
    if (channel.running) {
        channel.queued = [this, &channel, job, done] { runLatest(channel, job, done); };
        return;
    }
    using Result = decltype(job());
    channel.running = true;
    auto *watcher = new QFutureWatcher<Result>(this);
    connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher, &channel, done] {
        channel.running = false;
        // A newer request waited: its answer replaces this one, which is dropped.
        if (const std::function<void()> next = std::exchange(channel.queued, {}))
            next();
        else
            done(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(std::move(job)));
}

void Planner::apply(const Scenario &scenario)
{
    m_scenario = scenario;
    Q_EMIT scenarioChanged(m_scenario);
    const quint64 generation = ++m_generation;
    if (!scenario.distribution) {
        // Microseconds: answer at once (a request still waiting is older: it never runs).
        m_results.queued = {};
        m_result = computeCapacity(m_scenario);
        // With a cap, the count without it too (a trial saw 4 become 15 with no word of it).
        m_uncapped = uncappedSessions(m_scenario);
        Q_EMIT resultChanged(m_result);
        return;
    }
    // The tail estimate takes milliseconds: run it off the GUI thread so a drag
    // never blocks; only the latest scenario is computed (runLatest), and a result
    // for an older one (one answered at once since) is dropped.
    // With a cap, the uncapped count comes along: what the cap buys.
    using Answer = QPair<CapacityResult, std::optional<qint64>>;
    runLatest(
        m_results,
        [scenario] {
            const std::optional<qint64> uncapped = uncappedSessions(scenario);
            // The window shows no fixes (its levers are priced apart): a heavy tail's take seconds.
            RiskWork window(RiskWork::Figures::Window);
            return Answer(computeCapacity(scenario, window), uncapped);
        },
        [this, generation](const Answer &answer) {
            if (generation != m_generation)
                return;
            m_result = answer.first;
            m_uncapped = answer.second;
            Q_EMIT resultChanged(m_result);
        });
}

void Planner::edit(const Scenario &next, ScenarioCommand::Id id, const QString &text, bool mergeable)
{
    if (next == m_scenario)
        return;
    m_undo.push(new ScenarioCommand(this, m_scenario, next, id, mergeable, text, m_drag));
}

void Planner::beginDrag()
{
    ++m_drag;
}

void Planner::setModel(const ModelShape &model)
{
    Scenario s = m_scenario;
    s.model = model;
    // The what-if heads and the weights' format belong to the old model; the
    // cache precision is a serving choice and stays, so models compare fairly.
    s.kvHeadsOverride.reset();
    s.weightsDtype.reset();
    edit(s, ScenarioCommand::Model, tr("Choose model %1").arg(model.name));
}

void Planner::setGpu(const GpuSpec &gpu)
{
    Scenario s = m_scenario;
    s.gpu = gpu;
    s.gpuMemoryBytes.reset();
    edit(s, ScenarioCommand::Gpu, tr("Choose GPU %1").arg(gpu.name));
}

void Planner::setContextTokens(qint64 tokens, bool dragging)
{
    Scenario s = m_scenario;
    s.contextTokens = tokens;
    edit(s, ScenarioCommand::Context, tr("Change context length"), dragging);
}

void Planner::setSessions(qint64 sessions, bool dragging)
{
    Scenario s = m_scenario;
    s.sessions = sessions;
    edit(s, ScenarioCommand::Sessions, tr("Change sessions"), dragging);
}

void Planner::setTp(int tp)
{
    Scenario s = m_scenario;
    s.tp = tp;
    edit(s, ScenarioCommand::Tp, tr("Change tensor parallelism"), true);
}

void Planner::setKvDtype(Dtype dtype)
{
    Scenario s = m_scenario;
    s.kvDtype = dtype;
    edit(s, ScenarioCommand::KvDtype, tr("Change KV-cache precision"), true);
}

void Planner::setWeightsDtype(Dtype dtype)
{
    Scenario s = m_scenario;
    s.weightsDtype = dtype;
    edit(s, ScenarioCommand::WeightsDtype, tr("Change weight precision"), true);
}

void Planner::setKvHeadsOverride(std::optional<int> heads)
{
    Scenario s = m_scenario;
    if (heads && *heads == s.model.kvHeads)
        heads.reset();
    s.kvHeadsOverride = heads;
    edit(s, ScenarioCommand::KvHeads, heads ? tr("What-if KV heads") : tr("Reset KV heads"), bool(heads));
}

void Planner::setEngine(Engine engine)
{
    Scenario s = m_scenario;
    s.engine = engine;
    edit(s, ScenarioCommand::Engine, tr("Change engine rule"));
}

void Planner::setDistribution(std::optional<LengthDistribution> distribution, bool dragging)
{
    Scenario s = m_scenario;
    s.distribution = std::move(distribution);
    // Lengths loaded (not dragged) bring their longest session as the context, as the command
    // line takes it without --context: a trial read per-session rows at a 100,000-token context
    // beside a trace whose longest is 14,089. One undo step with the lengths.
    if (s.distribution && !dragging) {
        try {
            s.contextTokens = distributionLongest(s);
        } catch (const InputError &) {
            // Lengths the scale cannot hold: the plan says so, naming --length-scale.
        }
    }
    const qint64 was = m_scenario.contextTokens;
    edit(s, ScenarioCommand::Distribution, tr("Change session lengths"), dragging);
    // Said, not done in silence (a trial saw its 100,000 become 14,089 with no word).
    if (s.contextTokens != was)
        Q_EMIT noted(tr("Context set to %1 tokens, the longest session of these lengths (it was %2; Undo puts it back).")
                         .arg(Units::formatCount(s.contextTokens), Units::formatCount(was)));
}

void Planner::setRetainTokens(std::optional<qint64> tokens)
{
    Scenario s = m_scenario;
    s.retainTokens = tokens;
    edit(s, ScenarioCommand::Retain, tr("Change retention cap"), true);
}

void Planner::setRisk(double risk, bool ofFleet)
{
    Scenario s = m_scenario;
    if (ofFleet) {
        s.fleetRisk = risk;
    } else {
        s.risk = risk;
        s.fleetRisk.reset();
    }
    edit(s, ScenarioCommand::Risk, tr("Change risk"));
}

void Planner::setLengthScale(double scale)
{
    Scenario s = m_scenario;
    s.lengthScale = scale;
    edit(s, ScenarioCommand::LengthScale, tr("Change length scale"), true);
}

void Planner::setPresets(QVector<ModelShape> models, QVector<GpuSpec> gpus)
{
    m_models = std::move(models);
    m_gpus = std::move(gpus);
}

void Planner::requestLevers(const LeverTarget &target, qint64 sharedPrefixTokens, qint64 hostMemoryPerGpu)
{
    runLatest(
        m_levers,
        [s = m_scenario, models = m_models, gpus = m_gpus, target, sharedPrefixTokens, hostMemoryPerGpu] {
            return evaluateLevers(s, models, gpus, target, sharedPrefixTokens, hostMemoryPerGpu);
        },
        [this](const LeverReport &report) { Q_EMIT leversChanged(report); });
}

void Planner::requestAdvice(const LeverTarget &target)
{
    // A report priced for a scenario an edit has replaced since is never shown beside the new
    // one (the calibrated machine under the estimate's options): it is dropped, and the
    // requester asks again once the new scenario's result is in.
    runLatest(
        m_advice, [s = m_scenario, models = m_models, gpus = m_gpus, target] { return evaluateLevers(s, models, gpus, target, 0, 0); },
        [this, asked = m_scenario](const LeverReport &report) {
            if (asked == m_scenario)
                Q_EMIT adviceChanged(report);
        });
}

Diagnosis Planner::diagnose(qint64 sessions, qint64 tokens) const
{
    return diagnoseFailure(m_scenario, sessions, tokens, m_models, m_gpus);
}

bool Planner::pinCurrent()
{
    if (m_pinned.size() >= 3)
        return false;
    const QString name = QString(QLatin1Char(char('A' + m_pinned.size())));
    m_pinned.append(Pinned{name, m_scenario, computeCapacity(m_scenario)});
    Q_EMIT pinnedChanged();
    return true;
}

void Planner::unpin(int index)
{
    if (index < 0 || index >= m_pinned.size())
        return;
    m_pinned.remove(index);
    for (int i = 0; i < m_pinned.size(); ++i)
        m_pinned[i].name = QString(QLatin1Char(char('A' + i)));
    Q_EMIT pinnedChanged();
}

void Planner::setUnits(UnitSystem units)
{
    if (units == m_units)
        return;
    m_units = units;
    Q_EMIT unitsChanged(units);
    Q_EMIT resultChanged(m_result);
}

} // namespace Headroom
