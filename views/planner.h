// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"
#include "plan/levers.h"
#include "inputs/scenario.h"
#include "scenariocommand.h"
#include "core/units.h"

#include <QObject>
#include <QUndoStack>
#include <functional>

namespace Headroom {

/// Owns the current scenario (the document): every edit goes through a
/// setter that pushes a ScenarioCommand on the undo stack, the engine reruns
/// (computeCapacity, microseconds) and resultChanged() carries the answer.
/// Views observe it; they never compute capacity themselves.
class Planner : public QObject
{
    Q_OBJECT
public:
    explicit Planner(QObject *parent = nullptr);

    const Scenario &scenario() const { return m_scenario; }
    const CapacityResult &result() const { return m_result; }
    QUndoStack *undoStack() { return &m_undo; }
    /// Display units (GB or GiB) for every figure the views format.
    UnitSystem units() const { return m_units; }

    /// Replaces the scenario without an undo step (start-up, opening a file).
    void reset(const Scenario &scenario);
    /// Applies `next` as one undo step named `text`; `mergeable` joins it
    /// with the previous step on the same input in the same drag (a slider drag).
    void edit(const Scenario &next, ScenarioCommand::Id id, const QString &text, bool mergeable = false);
    /// A slider was pressed: its drag's steps join each other, not the last drag's.
    void beginDrag();

    void setModel(const ModelShape &model);
    void setGpu(const GpuSpec &gpu);
    void setContextTokens(qint64 tokens, bool dragging = false);
    void setSessions(qint64 sessions, bool dragging = false);
    void setTp(int tp);
    void setKvDtype(Dtype dtype);
    void setWeightsDtype(Dtype dtype);
    /// A what-if num_key_value_heads; std::nullopt restores the preset's.
    void setKvHeadsOverride(std::optional<int> heads);
    void setEngine(Engine engine);
    /// The session-length distribution (std::nullopt: every session at the context).
    void setDistribution(std::optional<LengthDistribution> distribution, bool dragging = false);
    void setRetainTokens(std::optional<qint64> tokens);
    /// The accepted risk, one undo step: each replica's (`ofFleet` false; the fleet risk is
    /// cleared) or the whole fleet's (Scenario::fleetRisk; each replica's is then solved from it).
    void setRisk(double risk, bool ofFleet = false);
    void setLengthScale(double scale);
    /// True while a result is being computed off the GUI thread (for the
    /// latest scenario, or for an older one that a newer request waits on).
    bool busy() const { return m_results.running; }
    void setUnits(UnitSystem units);

    /// Used by ScenarioCommand: sets the scenario and recomputes, no undo step.
    void apply(const Scenario &scenario);

    /// A scenario pinned for comparison, with its result.
    struct Pinned
    {
        QString name;
        Scenario scenario;
        CapacityResult result;
    };
    /// Pins the current scenario for comparison (up to 3 besides the current one).
    /// Returns false when 3 are pinned already.
    bool pinCurrent();
    /// Removes the pinned scenario at `index`.
    void unpin(int index);
    const QVector<Pinned> &pinned() const { return m_pinned; }

    /// The presets the levers draw other models and cards from.
    void setPresets(QVector<ModelShape> models, QVector<GpuSpec> gpus);
    /// The four levers priced for the current scenario (evaluateLevers) off the GUI thread (tens of capacity runs sharing
    /// their risk work, about one frame against a distribution): leversChanged() carries the report for the latest request.
    /// The latest wins: one pricing runs at a time; a request made meanwhile waits as the only queued one (replacing, never
    /// running, any older waiting request), and the running pricing's report is dropped when a newer one is queued, so a
    /// drag never queues work.
    void requestLevers(const LeverTarget &target, qint64 sharedPrefixTokens, qint64 hostMemoryPerGpu);
    /// True while a levers request is being priced (or waits for an older one to finish).
    bool leversBusy() const { return m_levers.running; }
    /// The same pricing for the window's "what to do now" (its own latest-wins
    /// channel, so it never cancels the Levers tab's request): adviceChanged(), only while
    /// the scenario is still the one priced (a report for a scenario edited since is dropped).
    void requestAdvice(const LeverTarget &target);
    /// Sessions at the risk with the retention cap lifted (against a
    /// distribution with a cap; else std::nullopt), per TP group: what the cap buys.
    std::optional<qint64> uncappedSessionsAtRisk() const { return m_uncapped; }
    /// A failure at `sessions` sessions of `tokens` explained (diagnoseFailure); throws InputError.
    Diagnosis diagnose(qint64 sessions, qint64 tokens) const;

Q_SIGNALS:
    void pinnedChanged();
    void scenarioChanged(const Headroom::Scenario &scenario);
    void resultChanged(const Headroom::CapacityResult &result);
    void unitsChanged(Headroom::UnitSystem units);
    void leversChanged(const Headroom::LeverReport &report);
    void adviceChanged(const Headroom::LeverReport &report);
    /// An input the planner changed beside the one asked, in one sentence for the status bar
    /// (lengths loaded set the context to their longest session).
    void noted(const QString &text);

private:
    Scenario m_scenario;
    CapacityResult m_result;
    QUndoStack m_undo;
    int m_drag = 0; // the drag under way (beginDrag), or the last one
    UnitSystem m_units = UnitSystem::Decimal;
    QVector<Pinned> m_pinned;
    QVector<ModelShape> m_models;
    QVector<GpuSpec> m_gpus;
    /// One latest-wins channel of work off the GUI thread: whether a job runs,
    /// and the one request waiting for it (empty when none; a newer request replaces it).
    struct Channel
    {
        bool running = false;
        std::function<void()> queued;
    };
    /// Runs `job` on `channel` (QtConcurrent) and hands its result to `done` on the
    /// GUI thread unless a newer request was queued meanwhile; while a job runs the
    /// request waits as the channel's queued one.
    template<typename Job, typename Done>
    void runLatest(Channel &channel, Job job, Done done);
    quint64 m_generation = 0;
    Channel m_results;
    Channel m_levers;
    Channel m_advice;
    std::optional<qint64> m_uncapped;
};

} // namespace Headroom
