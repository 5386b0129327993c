// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/units.h"
#include "inputs/scenario.h"
#include "traffic/replay.h"

#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

QT_BEGIN_NAMESPACE
class QTimer;
QT_END_NAMESPACE

namespace Headroom {

class Planner;

/// What the Traffic tab asks of a replay (view state, not part of the scenario or its undo).
struct TrafficInputs
{
    QString path;                          ///< the trace file (.jsonl or .csv); empty: no replay
    int replicas = 1;                      ///< data-parallel replicas of the plan's shape, at least 1
    std::optional<double> users;           ///< "N users like this trace": replayForUsers finds the multiplier
    std::optional<double> keepIdleSeconds; ///< an idle conversation's blocks dropped after this many seconds
    bool operator==(const TrafficInputs &o) const
    {
        return path == o.path && replicas == o.replicas && users == o.users && keepIdleSeconds == o.keepIdleSeconds;
    }
};

/// The replay's answer as the views show it: the trace as read, the replay at the inputs (or
/// at the fewest replicas a solve found), and what the fleet is.
struct TrafficAnswer
{
    bool ok = false;               ///< a replay ran; else `error` says why not (or nothing when no trace is set)
    QString error;                 ///< InputError::text() of the shape, the users or the solve
    QString path;                  ///< the trace the replay ran
    qint64 traceRequests = 0;      ///< the trace as read (TrafficTrace::read), before any multiplier
    qint64 traceConversations = 0;
    QString conversationRule;      ///< TrafficTrace::conversationRule(): "conversation_id", "hash_ids" or "none"
    qint64 sharedPrefixTokens = 0; ///< TrafficTrace::commonPrefixTokens()
    int sharedPrefixBlocks = 0;    ///< TrafficTrace::commonPrefixBlocks
    double multiplier = 1;         ///< the trace's conversation arrivals were multiplied by this
    std::optional<double> users;   ///< the users asked for (the multiplier was found for them)
    bool solved = false;           ///< `result` is solveMinReplicas' (the fewest replicas meeting the target)
    std::optional<double> maxQueueMs; ///< the solve's p99 queue-wait target, when one was given
    int tp = 1;                    ///< GPUs per replica: TP x PP of the scenario replayed
    QString gpuName;               ///< the card's name
    qint64 kvBudgetBytesPerGpu = 0; ///< the plan's KV budget per GPU (CapacityResult::kvBudgetBytesPerGpu)
    ReplayResult result;
};

/// The answer in the field's words, one sentence: after a solve, "3,000 users like this trace
/// need 4 × 1 GPU (4 replicas), $8,614 a month"; at the replicas asked, "3,000 users like this
/// trace on 1 × 1 GPU (1 replica): $2,154 a month; 390 preemptions" or, without users, "This
/// trace on 8 replicas of 1 GPU: 8 GPUs, $17,228 a month" (preemptions said when there are
/// any; "set a price per GPU-hour for the money" when the card has none). Empty when `a` is
/// not ok. Money by Units::formatUsd, counts by Units::formatCount.
QString trafficSentence(const TrafficAnswer &a);

/// Runs the Traffic tab's replay off the GUI thread: the trace read once per path
/// (TrafficTrace::read, itself off the GUI thread), the shape from replayShape(planner's
/// scenario, result) so that every change of the plan (model, card, TP, KV precision, engine)
/// replays again, 150 ms after the last change (a drag replays once it pauses). One replay
/// runs at a time; a request made meanwhile waits as the only queued one and the running
/// one's answer is dropped (the latest wins, as Planner's channels do). Views observe
/// answerChanged(); they never replay themselves.
class TrafficReplay : public QObject
{
    Q_OBJECT
public:
    explicit TrafficReplay(Planner *planner, QObject *parent = nullptr);

    /// The inputs in force (the last set; their path is the trace last loaded or asked for).
    const TrafficInputs &inputs() const { return m_inputs; }
    /// Sets the inputs and replays (debounced). A new path is read off the GUI thread; a file
    /// that cannot be read reports traceFailed() and keeps the trace and answer before it.
    void setInputs(const TrafficInputs &inputs);
    /// Finds the fewest replicas (1 to the conversations, at most 65,536) with no preemption
    /// and, when given, a p99 queue wait of at most `maxQueueMs` (solveMinReplicas), at once.
    void solveMinReplicas(std::optional<double> maxQueueMs);
    /// The latest answer (ok false until a replay has run).
    const TrafficAnswer &answer() const { return m_answer; }
    /// True while a replay (or the read of a trace) runs off the GUI thread or waits to.
    bool busy() const;
    /// True when answer() is a replay of the planner's scenario now (none runs or waits since).
    bool answersThePlan() const;
    /// The path of the trace read and held (empty: none yet).
    QString loadedPath() const { return m_trace ? m_trace->path : QString(); }

Q_SIGNALS:
    /// A replay finished for the latest request (ok or with its error).
    void answerChanged(const Headroom::TrafficAnswer &answer);
    /// The file at `path` could not be read: `error` names the field and line (InputError::text()).
    void traceFailed(const QString &path, const QString &error);
    /// A replay started (true) or the last one finished (false).
    void busyChanged(bool busy);

private:
    /// What one job returns: the trace it ran on (read now or held), and its answer or the
    /// read's error.
    struct Outcome
    {
        quint64 generation = 0; ///< the request's: an answer to an older one is dropped
        std::shared_ptr<const TrafficTrace> trace;
        QString readError; ///< the trace could not be read: nothing else ran
        TrafficAnswer answer;
    };
    /// Builds the job for the inputs now and the planner's plan, and runs it (latest wins).
    void request(bool solve, std::optional<double> maxQueueMs = {});
    void run(std::function<Outcome()> job);
    void finished(const Outcome &outcome);

    Planner *m_planner;
    TrafficInputs m_inputs;
    std::shared_ptr<const TrafficTrace> m_trace; ///< the trace last read (its path is m_trace->path)
    TrafficAnswer m_answer;
    Scenario m_asked; ///< the scenario of the last request
    QTimer *m_timer = nullptr;
    bool m_running = false;
    std::function<void()> m_queued;
    quint64 m_generation = 0;
};

} // namespace Headroom

Q_DECLARE_METATYPE(Headroom::TrafficAnswer)
