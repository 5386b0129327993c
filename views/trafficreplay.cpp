// SPDX-License-Identifier: GPL-3.0-or-later
#include "trafficreplay.h"

#include "planner.h"
#include "core/inputerror.h"

#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include "traffic/replaysummary.h"

#include <algorithm>
#include <utility>

namespace Headroom {

QString trafficSentence(const TrafficAnswer &a)
{
    if (!a.ok)
        return {};
    const ReplayResult &r = a.result;
    QString money = r.fleetCostPerMonthUsd ? TrafficReplay::tr("%1 a month").arg(Units::formatUsd(*r.fleetCostPerMonthUsd))
                                           : TrafficReplay::tr("set a price per GPU-hour for the money");
    // A fleet that preempts is no fleet the traffic "needs": said beside the money.
    if (r.preemptions > 0)
        money += TrafficReplay::tr("; %1").arg(Units::plural(r.preemptions, TrafficReplay::tr("preemption"), TrafficReplay::tr("preemptions")));
    // Nor one the arrivals outrun (the summary's "Cannot keep up"), said with its wait.
    if (r.cannotKeepUp())
        money += TrafficReplay::tr("; cannot keep up: requests still wait at the trace's end (p99 queue wait %1)").arg(formatWaitMs(r.queueMsP99));
    const QString group = Units::plural(a.tp, TrafficReplay::tr("GPU"), TrafficReplay::tr("GPUs"));
    const QString replicas = Units::plural(r.replicas, TrafficReplay::tr("replica"), TrafficReplay::tr("replicas"));
    if (a.users) {
        const QString gpus = a.tp > 1 ? TrafficReplay::tr("%1 × %2 = %3").arg(Units::formatCount(r.replicas), group, Units::formatCount(r.gpus))
                                      : TrafficReplay::tr("%1 × %2").arg(Units::formatCount(r.replicas), group);
        const QString users = Units::formatDecimal(*a.users, 0);
        return a.solved ? TrafficReplay::tr("%1 users like this trace need %2 (%3), %4").arg(users, gpus, replicas, money)
                        : TrafficReplay::tr("%1 users like this trace on %2 (%3): %4").arg(users, gpus, replicas, money);
    }
    return TrafficReplay::tr("The trace at its recorded arrivals on %1 of %2: %3, %4")
        .arg(replicas, group, Units::plural(r.gpus, TrafficReplay::tr("GPU"), TrafficReplay::tr("GPUs")), money);
}

TrafficReplay::TrafficReplay(Planner *planner, QObject *parent)
    : QObject(parent), m_planner(planner), m_timer(new QTimer(this))
{
    qRegisterMetaType<Headroom::TrafficAnswer>();
    m_timer->setSingleShot(true);
    m_timer->setInterval(150); // a drag replays once it pauses
    connect(m_timer, &QTimer::timeout, this, [this] { request(false); });
    // Every new plan (model, card, TP, KV precision, engine, ...) replays the trace on its shape.
    // A result for the scenario replayed already (the units switched) replays nothing.
    connect(m_planner, &Planner::resultChanged, this, [this] {
        if (!m_inputs.path.isEmpty() && !(m_planner->scenario() == m_asked && (m_answer.ok || m_running || m_timer->isActive())))
            m_timer->start();
    });
}

bool TrafficReplay::busy() const
{
    return m_running || m_timer->isActive();
}

bool TrafficReplay::answersThePlan() const
{
    return m_answer.ok && !busy() && m_asked == m_planner->scenario();
}

void TrafficReplay::setInputs(const TrafficInputs &inputs)
{
    if (inputs == m_inputs && (m_answer.ok || !m_answer.error.isEmpty()))
        return;
    m_inputs = inputs;
    m_inputs.replicas = std::max(1, m_inputs.replicas);
    m_timer->start();
    Q_EMIT busyChanged(true);
}

void TrafficReplay::solveMinReplicas(std::optional<double> maxQueueMs)
{
    if (m_inputs.path.isEmpty())
        return;
    m_timer->stop();
    request(true, maxQueueMs);
}

namespace {

// The replay of trace `t` into `a` (its maxQueueMs the solve's target), as `headroom replay` runs
// it: `users` find their own multiplier (replayForUsers), else the scenario's `multiplier`
// scales the trace; `solve` then finds the fewest replicas that keep up with no preemption (and the p99 queue
// wait within the target), up to one per conversation (at most 65,536). A refusal (InputError)
// or a solve that finds none leaves a.ok false and a.error saying why. Runs off the GUI thread.
void replayInto(TrafficAnswer &a, const TrafficTrace &t, const ReplayShape &shape, const ReplayOptions &o, std::optional<double> users,
                double multiplier, bool solve)
{
    try {
        const QString usersField = TrafficReplay::tr("Users");
        TrafficTrace scaled;
        const TrafficTrace *traffic = &t;
        if (users) {
            auto [k, at] = replayForUsers(t, shape, o, *users, usersField);
            a.multiplier = k;
            a.result = std::move(at);
            if (solve) {
                scaled = scaledTraffic(t, k, usersField);
                traffic = &scaled;
            }
        } else if (multiplier != 1.0) {
            a.multiplier = multiplier;
            scaled = scaledTraffic(t, multiplier, TrafficReplay::tr("Traffic multiplier"));
            traffic = &scaled;
        }
        if (solve) {
            const int most = int(std::min<qint64>(65536, std::max<qint64>(1, traffic->conversations)));
            const std::optional<ReplayResult> found = Headroom::solveMinReplicas(*traffic, shape, o, 0, a.maxQueueMs, most);
            const QString replicas = Units::plural(most, TrafficReplay::tr("replica"), TrafficReplay::tr("replicas"));
            if (found) {
                a.result = *found;
                a.solved = true;
            } else {
                a.error = a.maxQueueMs ? TrafficReplay::tr("Solve: even %1 miss the target (keeping up, no preemption, p99 queue wait at most %2 ms)")
                                             .arg(replicas, Units::formatDecimal(*a.maxQueueMs, 1))
                                       : TrafficReplay::tr("Solve: even %1 miss the target (keeping up, no preemption)").arg(replicas);
            }
        } else if (!users) {
            a.result = replay(*traffic, shape, o);
        }
        a.ok = a.error.isEmpty();
    } catch (const InputError &e) {
        a.error = e.text();
    }
}

} // namespace

void TrafficReplay::request(bool solve, std::optional<double> maxQueueMs)
{
    const quint64 generation = ++m_generation;
    const TrafficInputs in = m_inputs;
    if (in.path.isEmpty()) {
        m_answer = {};
        Q_EMIT answerChanged(m_answer);
        Q_EMIT busyChanged(busy());
        return;
    }
    const Scenario &s = m_planner->scenario();
    const CapacityResult &r = m_planner->result();
    m_asked = s;
    TrafficAnswer base;
    base.path = in.path;
    base.users = in.users;
    base.tp = int(s.gpusPerReplica());
    base.gpuName = s.gpu.name;
    base.kvBudgetBytesPerGpu = r.kvBudgetBytesPerGpu;
    base.maxQueueMs = maxQueueMs;
    ReplayShape shape;
    QString planError = r.ok ? QString() : r.error;
    if (r.ok) {
        try {
            shape = replayShape(s, r);
        } catch (const InputError &e) {
            planError = e.text();
        }
    }
    ReplayOptions o;
    o.replicas = in.replicas;
    o.keepIdleSeconds = in.keepIdleSeconds;
    o.maxRunningPerReplica = Engines::rule(s.engine).runningCap(s).value_or(RunningCap{}).sessions; // as plan holds it

    const double multiplier = s.trafficMultiplier;
    std::shared_ptr<const TrafficTrace> held = m_trace && m_trace->path == in.path ? m_trace : nullptr;
    run([=]() {
        Outcome out;
        out.generation = generation;
        out.trace = held;
        if (!out.trace) {
            try {
                out.trace = std::make_shared<const TrafficTrace>(TrafficTrace::read(in.path, tr("Trace")));
            } catch (const InputError &e) {
                out.readError = e.text();
                return out;
            }
        }
        const TrafficTrace &t = *out.trace;
        TrafficAnswer a = base;
        a.traceRequests = t.requests.size();
        a.traceConversations = t.conversations;
        a.conversationRule = t.conversationRule();
        a.sharedPrefixTokens = t.commonPrefixTokens();
        a.sharedPrefixBlocks = t.commonPrefixBlocks;
        if (!planError.isEmpty()) {
            a.error = planError;
            out.answer = a;
            return out;
        }
        replayInto(a, t, shape, o, in.users, multiplier, solve);
        out.answer = a;
        return out;
    });
}

void TrafficReplay::run(std::function<Outcome()> job)
{
    if (m_running) {
        // The only queued request: it replaces an older one, which never runs.
        m_queued = [this, job] { run(job); };
        return;
    }
    m_running = true;
    Q_EMIT busyChanged(true);
    auto *watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher] {
        m_running = false;
        const Outcome outcome = watcher->result();
        watcher->deleteLater();
        // A newer request waited: its answer replaces this one, which is dropped (its trace,
        // read already, is still kept when it is the one asked for).
        if (const std::function<void()> next = std::exchange(m_queued, {})) {
            if (outcome.trace && outcome.readError.isEmpty() && outcome.trace->path == m_inputs.path)
                m_trace = outcome.trace;
            next();
            return;
        }
        finished(outcome);
    });
    watcher->setFuture(QtConcurrent::run(std::move(job)));
}

void TrafficReplay::finished(const Outcome &outcome)
{
    if (outcome.generation != m_generation) { // answered since (a plan with no answer, no trace)
        Q_EMIT busyChanged(busy());
        return;
    }
    if (!outcome.readError.isEmpty()) {
        // A bad file loses nothing: the trace read before stays, and is replayed again on the plan now.
        const QString asked = m_inputs.path;
        m_inputs.path = m_trace ? m_trace->path : QString();
        Q_EMIT traceFailed(asked, outcome.readError);
        if (m_trace)
            request(false);
        else
            Q_EMIT busyChanged(busy());
        return;
    }
    m_trace = outcome.trace;
    m_answer = outcome.answer;
    if (m_answer.solved)
        m_inputs.replicas = m_answer.result.replicas; // later plans replay at the count found
    Q_EMIT answerChanged(m_answer);
    Q_EMIT busyChanged(busy());
}

} // namespace Headroom
