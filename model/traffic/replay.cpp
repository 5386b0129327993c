// SPDX-License-Identifier: GPL-3.0-or-later
#include "traffic/replay.h"

#include "core/inputerror.h"
#include "core/units.h"
#include "plan/capacity.h"
#include "plan/servingestimate.h"

#include <QHash>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <deque>
#include <list>

namespace Headroom {

ReplayShape replayShape(const Scenario &s, const CapacityResult &r)
{
    ReplayShape shape;
    shape.engineBlockTokens = std::max(1, r.blockSize);
    shape.poolBlocks = r.kvCapacityTokens / shape.engineBlockTokens;
    if (shape.poolBlocks < 1)
        throw InputError(QStringLiteral("--kv-cache-memory"),
                         QStringLiteral("the KV budget per GPU (%1) holds no block of %2 tokens: nothing can run")
                             .arg(Units::formatBytes(r.kvBudgetBytesPerGpu, UnitSystem::Decimal))
                             .arg(shape.engineBlockTokens));
    shape.kvBytesPerTokenPerGpu = r.kvBytesPerTokenPerGpu;
    shape.maxPromptTokens = s.effectiveMaxModelLen();
    shape.gpusPerReplica = s.tp * s.pp;
    shape.gpuHourUsd = s.effectivePrice();
    shape.hostLinkBytesPerSecond = double(s.gpu.hostLinkBytesPerSecond);
    if (s.hostKvMemoryBytes && *s.hostKvMemoryBytes > 0) {
        // --host-kv-memory is per node, shared by --gpus-per-node cards; a replica takes its GPUs' share.
        const double share = double(shape.gpusPerReplica) / double(std::max(1, s.gpusPerNode));
        const double tokens = double(*s.hostKvMemoryBytes) * share / double(std::max<qint64>(1, r.kvBytesPerTokenPerGpu * shape.gpusPerReplica));
        shape.hostBlocks = qint64(tokens) / shape.engineBlockTokens;
    }
    const qint64 weights = r.weightsBytesPerGpu;
    const qint64 bytesPerToken = r.kvBytesPerTokenPerGpu;
    if (!decodeStep(s, weights, double(bytesPerToken), 1) || !timeToFirstToken(s, weights, 1))
        throw InputError(QStringLiteral("--gpu"), QStringLiteral("%1 has no memory bandwidth or compute figure: the replay times every step "
                                                                 "with the plan's decode and prefill estimate").arg(s.gpu.name));
    shape.stepSeconds = [s, weights, bytesPerToken](qint64 batch, double meanTokens) {
        return decodeStep(s, weights, meanTokens * double(bytesPerToken), std::max<qint64>(1, batch))->seconds;
    };
    shape.prefillSeconds = [s, weights](qint64 tokens) { return tokens > 0 ? *timeToFirstToken(s, weights, double(tokens)) : 0.0; };
    return shape;
}

namespace {

/// The p-quantile of `v` (nearest rank), 0 when empty; reorders v.
double quantileOf(std::vector<double> &v, double p)
{
    if (v.empty())
        return 0;
    const size_t k = std::min(v.size() - 1, size_t(std::ceil(p * double(v.size()))) - (p > 0 ? 1 : 0));
    std::nth_element(v.begin(), v.begin() + qsizetype(k), v.end());
    return v[k];
}

/// Per replica: the samples of its state at each point of the timeline.
struct Sample
{
    qint64 running = 0, waiting = 0, heldBlocks = 0, hits = 0, preemptions = 0;
};

/// One replica of the fleet, run over the requests routed to it.
class Replica
{
public:
    Replica(const TrafficTrace &t, const ReplayShape &shape, const ReplayOptions &o, std::vector<qsizetype> requests)
        : m_t(t)
        , m_shape(shape)
        , m_o(o)
        , m_requests(std::move(requests))
    {
    }

    /// Runs every request to its end.
    void run()
    {
        const qint64 B = m_shape.engineBlockTokens;
        size_t next = 0;
        for (;;) {
            while (next < m_requests.size() && m_t.requests.at(m_requests[next]).arrivalSeconds <= m_now)
                m_waiting.push_back({m_requests[next++], 0, false});
            admit();
            if (m_running.empty()) {
                Q_ASSERT(m_waiting.empty()); // with nothing running, every head that fits a pool is admitted
                if (next == m_requests.size())
                    break;
                advanceIdle(m_t.requests.at(m_requests[next]).arrivalSeconds);
                continue;
            }
            // The blocks this step needs: one for every request at a block boundary.
            qint64 needed = 0;
            for (const Running &r : m_running)
                needed += r.generated % B == 0 ? 1 : 0;
            while (needed > free() + m_lruBlocks && m_running.size() > 1)
                needed -= preemptNewest();
            if (needed > free() + m_lruBlocks) { // one request alone outgrows the pool: it cannot finish here
                const Running alone = m_running.back();
                m_running.pop_back();
                release(alone);
                ++rejected;
                continue;
            }
            makeRoom(needed);
            for (Running &r : m_running)
                if (r.generated % B == 0) {
                    ++r.privateBlocks;
                    ++m_used;
                }
            peakHeld = std::max(peakHeld, m_used - m_lruBlocks);
            const qint64 batch = qint64(m_running.size());
            const double dt = m_shape.stepSeconds(batch, double(m_resident) / double(batch));
            qint64 k = std::numeric_limits<qint64>::max();
            for (const Running &r : m_running) {
                const qint64 output = m_t.requests.at(r.request).outputTokens;
                k = std::min({k, output - r.generated, B - r.generated % B});
            }
            const auto stepsUntil = [this, dt](double t) { return std::max<qint64>(1, qint64(std::ceil((t - m_now) / dt - 1e-9))); };
            if (m_waiting.empty() && next < m_requests.size())
                k = std::min(k, stepsUntil(m_t.requests.at(m_requests[next]).arrivalSeconds));
            k = std::min(k, stepsUntil(m_nextSample));
            advance(double(k) * dt);
            m_resident += batch * k;
            for (Running &r : m_running)
                r.generated += k;
            retireFinished();
        }
        record(m_now);
        record(m_nextSample); // one point past the end: what happened after the last one is counted
    }

    std::vector<Sample> samples;
    std::vector<double> queueSeconds, ttftSeconds;
    qint64 hits = 0, hostHits = 0, preemptions = 0, recomputed = 0, rejected = 0, peakHeld = 0, peakRunning = 0;
    double heldBlockSeconds = 0, runningSeconds = 0;
    double now() const { return m_now; }

private:
    struct Entry
    {
        qint32 refs = 0;
        qint64 cost = 0; // engine blocks
        double lastUsed = 0;
        std::list<qint64>::iterator lru;
    };
    struct Running
    {
        qsizetype request = 0;
        qint64 generated = 0;
        qint64 privateBlocks = 0;
    };
    struct Waiting
    {
        qsizetype request = 0;
        qint64 generated = 0; // kept across a preemption: recomputed with the prompt
        bool admittedBefore = false;
    };

    qint64 free() const { return m_shape.poolBlocks - m_used; }
    qint64 costOf(qsizetype i, qint32 k) const
    {
        const qint64 B = m_shape.engineBlockTokens;
        return (m_t.blockTokensOf(i, k) + B - 1) / B;
    }

    // Time passes with the state as it is: the timeline's points on the way are recorded.
    void advance(double dt)
    {
        const double to = m_now + dt;
        while (m_nextSample <= to) {
            integrate(m_nextSample - m_now);
            m_now = m_nextSample;
            record(m_now);
        }
        integrate(to - m_now);
        m_now = to;
    }
    void advanceIdle(double to)
    {
        if (to > m_now)
            advance(to - m_now);
    }
    // The time-weighted sums behind the means, within the trace's span only (the drain after
    // the last arrival would dilute them).
    void integrate(double dt)
    {
        const double within = std::max(0.0, std::min(m_now + dt, m_span) - m_now);
        heldBlockSeconds += double(m_used - m_lruBlocks) * within;
        runningSeconds += double(m_running.size()) * within;
    }
    void record(double t)
    {
        while (m_nextSample <= t) {
            samples.push_back({qint64(m_running.size()), qint64(m_waiting.size()), m_used - m_lruBlocks, hits, preemptions});
            m_nextSample += m_o.sampleSeconds;
        }
    }

    // Idle blocks unused for longer than --keep-idle are dropped, from the GPU and the host.
    void expire()
    {
        if (!m_o.keepIdleSeconds)
            return;
        const double before = m_now - *m_o.keepIdleSeconds;
        while (!m_lru.empty() && m_gpu.value(m_lru.front()).lastUsed < before)
            dropGpu(m_lru.front(), false);
        while (!m_hostLru.empty() && m_host.value(m_hostLru.front()).lastUsed < before) {
            m_hostUsed -= m_host.value(m_hostLru.front()).cost;
            m_host.remove(m_hostLru.front());
            m_hostLru.pop_front();
        }
    }
    // Evicts an idle block from the GPU, to host memory when `toHost` and it has a tier.
    void dropGpu(qint64 id, bool toHost)
    {
        const Entry e = m_gpu.take(id);
        m_lru.erase(e.lru);
        m_lruBlocks -= e.cost;
        m_used -= e.cost;
        if (!toHost || m_shape.hostBlocks < e.cost)
            return;
        while (m_hostUsed + e.cost > m_shape.hostBlocks && !m_hostLru.empty()) {
            m_hostUsed -= m_host.value(m_hostLru.front()).cost;
            m_host.remove(m_hostLru.front());
            m_hostLru.pop_front();
        }
        Entry h = e;
        h.refs = 0;
        h.lru = m_hostLru.insert(m_hostLru.end(), id);
        m_host.insert(id, h);
        m_hostUsed += e.cost;
    }
    // Frees `blocks` engine blocks by evicting idle prefix blocks, least recently used first.
    void makeRoom(qint64 blocks)
    {
        while (free() < blocks && !m_lru.empty())
            dropGpu(m_lru.front(), true);
    }
    void pin(qint64 id)
    {
        Entry &e = m_gpu[id];
        if (e.refs++ == 0) {
            m_lru.erase(e.lru);
            m_lruBlocks -= e.cost;
        }
    }
    void unpin(qint64 id)
    {
        Entry &e = m_gpu[id];
        if (--e.refs == 0) {
            e.lastUsed = m_now;
            e.lru = m_lru.insert(m_lru.end(), id);
            m_lruBlocks += e.cost;
        }
    }
    // Releases a running request's blocks: its prompt blocks stay as idle prefix cache.
    void release(const Running &r)
    {
        m_used -= r.privateBlocks;
        const TrafficRequest &q = m_t.requests.at(r.request);
        const qint64 *ids = m_t.blocksOf(r.request);
        for (qint32 k = 0; k < q.blockCount; ++k)
            unpin(ids[k]);
        m_resident -= q.promptTokens + r.generated;
    }
    qint64 preemptNewest()
    {
        const Running r = m_running.back();
        m_running.pop_back();
        release(r);
        m_waiting.push_front({r.request, r.generated, true});
        ++preemptions;
        return r.generated % m_shape.engineBlockTokens == 0 ? 1 : 0;
    }
    void retireFinished()
    {
        for (size_t i = 0; i < m_running.size();) {
            if (m_running[i].generated >= m_t.requests.at(m_running[i].request).outputTokens) {
                release(m_running[i]);
                m_running.erase(m_running.begin() + qsizetype(i));
            } else {
                ++i;
            }
        }
    }

    // Takes request `request`'s prompt blocks [from, to) out of host memory (an id repeated
    // within the prompt is taken once); returns their bytes on one GPU, to resume over the link.
    qint64 takeFromHost(qsizetype request, qint32 from, qint32 to)
    {
        const qint64 *ids = m_t.blocksOf(request);
        qint64 bytes = 0;
        for (qint32 k = from; k < to; ++k) {
            if (!m_host.contains(ids[k]))
                continue;
            const Entry h = m_host.take(ids[k]);
            bytes += m_t.blockTokensOf(request, k) * m_shape.kvBytesPerTokenPerGpu;
            m_hostUsed -= h.cost;
            m_hostLru.erase(h.lru);
        }
        return bytes;
    }

    // Holds request `request`'s prompt blocks from `from` on the GPU, each once and pinned (an id
    // repeated within the prompt pins the block already held).
    void holdOnGpu(qsizetype request, qint32 from)
    {
        const qint64 *ids = m_t.blocksOf(request);
        for (qint32 k = from; k < m_t.requests.at(request).blockCount; ++k) {
            if (m_gpu.contains(ids[k])) {
                pin(ids[k]);
                continue;
            }
            Entry e;
            e.refs = 1;
            e.cost = costOf(request, k);
            m_gpu.insert(ids[k], e);
            m_used += e.cost;
        }
    }

    // Admits the waiting requests, first come first served, while the head's missing blocks fit.
    void admit()
    {
        expire();
        const qint64 B = m_shape.engineBlockTokens;
        while (!m_waiting.empty()) {
            if (m_o.maxRunningPerReplica > 0 && qint64(m_running.size()) >= m_o.maxRunningPerReplica)
                return;
            const Waiting w = m_waiting.front();
            const TrafficRequest &q = m_t.requests.at(w.request);
            const qint64 *ids = m_t.blocksOf(w.request);
            qint32 gpuHit = 0, hostHit = 0;
            qint64 pinnedIdle = 0, hitBlocks = 0;
            while (gpuHit < q.blockCount && m_gpu.contains(ids[gpuHit])) {
                const Entry &e = m_gpu[ids[gpuHit]];
                pinnedIdle += e.refs == 0 ? e.cost : 0;
                hitBlocks += e.cost;
                ++gpuHit;
            }
            while (gpuHit + hostHit < q.blockCount && m_host.contains(ids[gpuHit + hostHit]))
                ++hostHit;
            qint64 need = (w.generated + B - 1) / B;
            for (qint32 k = gpuHit; k < q.blockCount; ++k)
                need += costOf(w.request, k);
            if (q.blockCount == 0)
                need += (q.promptTokens + B - 1) / B;
            // Larger than the whole pool, or a prompt past max_model_len (vLLM refuses it): it never runs here.
            if (need + hitBlocks > m_shape.poolBlocks || (m_shape.maxPromptTokens > 0 && q.promptTokens > m_shape.maxPromptTokens)) {
                ++rejected;
                m_waiting.pop_front();
                continue;
            }
            if (need > free() + m_lruBlocks - pinnedIdle)
                return;
            m_waiting.pop_front();
            for (qint32 k = 0; k < gpuHit; ++k)
                pin(ids[k]);
            // The host's blocks leave the host before room is made on the GPU (whose evictions
            // go to the host and could push them out).
            const qint64 hostBytes = takeFromHost(w.request, gpuHit, gpuHit + hostHit);
            makeRoom(need);
            holdOnGpu(w.request, gpuHit);
            Running r{w.request, w.generated, (w.generated + B - 1) / B + (q.blockCount == 0 ? (q.promptTokens + B - 1) / B : 0)};
            m_used += r.privateBlocks;
            const qint64 gpuTokens = std::min(qint64(gpuHit) * m_t.blockTokens, q.promptTokens);
            const qint64 hostTokens = std::min(qint64(gpuHit + hostHit) * m_t.blockTokens, q.promptTokens) - gpuTokens;
            const qint64 computed = q.promptTokens - gpuTokens - hostTokens + w.generated;
            if (w.admittedBefore) {
                recomputed += computed;
            } else {
                hits += gpuTokens;
                hostHits += hostTokens;
                queueSeconds.push_back(m_now - q.arrivalSeconds);
            }
            m_resident += q.promptTokens + w.generated;
            m_running.push_back(r);
            peakRunning = std::max(peakRunning, qint64(m_running.size()));
            peakHeld = std::max(peakHeld, m_used - m_lruBlocks);
            const double resume = hostBytes > 0 && m_shape.hostLinkBytesPerSecond > 0 ? double(hostBytes) / m_shape.hostLinkBytesPerSecond : 0;
            advance(m_shape.prefillSeconds(computed) + resume);
            if (!w.admittedBefore)
                ttftSeconds.push_back(m_now - q.arrivalSeconds);
            retireFinished(); // a request of no output ends with its prefill
            expire();
        }
    }

    const TrafficTrace &m_t;
    const ReplayShape &m_shape;
    const ReplayOptions &m_o;
    const std::vector<qsizetype> m_requests;
    const double m_span = m_t.durationSeconds > 0 ? m_t.durationSeconds : std::numeric_limits<double>::infinity();
    double m_now = 0, m_nextSample = 0;
    qint64 m_used = 0, m_lruBlocks = 0, m_hostUsed = 0, m_resident = 0;
    QHash<qint64, Entry> m_gpu, m_host;
    std::list<qint64> m_lru, m_hostLru;
    std::vector<Running> m_running;
    std::deque<Waiting> m_waiting;
};

// What scaledTraffic copies a trace by: each conversation's first arrival (seconds), the
// block ids more than one conversation holds (a shared prompt, kept shared in the copies), and
// the largest block id (copies renumber the others past it).
struct TraceBlocks
{
    std::vector<double> start;
    QSet<qint64> shared;
    qint64 top = 0;
};

TraceBlocks traceBlocks(const TrafficTrace &trace)
{
    TraceBlocks t;
    t.start.assign(size_t(trace.conversations), -1);
    QHash<qint64, qint32> owner;
    for (qsizetype i = 0; i < trace.requests.size(); ++i) {
        const TrafficRequest &r = trace.requests.at(i);
        if (t.start[size_t(r.conversation)] < 0)
            t.start[size_t(r.conversation)] = r.arrivalSeconds;
        const qint64 *ids = trace.blocksOf(i);
        for (qint32 b = 0; b < r.blockCount; ++b) {
            t.top = std::max(t.top, ids[b]);
            const auto it = owner.constFind(ids[b]);
            if (it == owner.cend())
                owner.insert(ids[b], r.conversation);
            else if (it.value() != r.conversation)
                t.shared.insert(ids[b]);
        }
    }
    return t;
}

// One request of a scaled trace: its new arrival (seconds), the copy it belongs to, and its
// index in the trace it was copied from.
struct PlacedRequest
{
    double arrival;
    qint64 copy;
    qsizetype request;
};

// The requests of `trace` at `k` times its conversations, in order of arrival: above 1, ceil(k)
// copies whose conversations start k times as densely (each keeping its own gaps), the last
// copy cut at the span; below 1, every conversation c with floor((c + 1) k) > floor(c k), evenly
// spread over the trace's order, at its own times (the first share stretched over the span kept
// the bursts of the trace's first seconds).
std::vector<PlacedRequest> placedRequests(const TrafficTrace &trace, const TraceBlocks &blocks, double k)
{
    const double span = trace.durationSeconds;
    const qint64 copies = qint64(std::ceil(k));
    std::vector<PlacedRequest> placed;
    placed.reserve(size_t(double(trace.requests.size()) * k) + 1);
    for (qint64 j = 0; j < copies; ++j)
        for (qsizetype i = 0; i < trace.requests.size(); ++i) {
            const TrafficRequest &r = trace.requests.at(i);
            const double s = blocks.start[size_t(r.conversation)];
            if (k < 1) {
                const double c = double(r.conversation);
                if (std::floor((c + 1) * k) > std::floor(c * k))
                    placed.push_back({r.arrivalSeconds, 0, i});
                continue;
            }
            if (double(j) * span + s > k * span) // past the last (fractional) copy
                continue;
            placed.push_back({(double(j) * span + s) / k + (r.arrivalSeconds - s), j, i});
        }
    std::stable_sort(placed.begin(), placed.end(), [](const PlacedRequest &a, const PlacedRequest &b) { return a.arrival < b.arrival; });
    return placed;
}

// The trace of the `placed` requests: conversations numbered in order of first arrival, each
// copy's unshared blocks renumbered past `blocks.top`, the shared ones kept.
TrafficTrace placedTrace(const TrafficTrace &trace, const TraceBlocks &blocks, const std::vector<PlacedRequest> &placed)
{
    TrafficTrace out;
    out.path = trace.path;
    out.blockTokens = trace.blockTokens;
    out.hasBlocks = trace.hasBlocks;
    out.hasConversationIds = true; // the copies' conversations are known: numbered below
    out.durationSeconds = trace.durationSeconds;
    out.requests.reserve(qsizetype(placed.size()));
    QHash<qint64, qint32> conversation; // (copy, conversation) -> new number, in order of first arrival
    for (const PlacedRequest &p : placed) {
        TrafficRequest r = trace.requests.at(p.request);
        const qint64 key = p.copy * trace.conversations + r.conversation;
        const auto it = conversation.constFind(key);
        r.conversation = it != conversation.cend() ? it.value() : qint32(conversation.size());
        if (it == conversation.cend())
            conversation.insert(key, r.conversation);
        r.arrivalSeconds = p.arrival;
        const qint64 *ids = trace.blocksOf(p.request);
        r.firstBlock = qint64(out.blocks.size());
        for (qint32 b = 0; b < r.blockCount; ++b)
            out.blocks.push_back(blocks.shared.contains(ids[b]) ? ids[b] : ids[b] + p.copy * (blocks.top + 1));
        out.requests.append(r);
    }
    out.conversations = conversation.size();
    out.commonPrefixBlocks = trace.commonPrefixBlocks;
    return out;
}

} // namespace

ReplayResult replay(const TrafficTrace &trace, const ReplayShape &shape, const ReplayOptions &o)
{
    ReplayResult out;
    out.replicas = std::max(1, o.replicas);
    out.requests = trace.requests.size();
    out.conversations = trace.conversations;
    out.durationSeconds = trace.durationSeconds;
    out.promptTokens = trace.promptTokens();
    out.ceilingTokens = trace.prefixHitCeilingTokens();
    out.gpus = qint64(out.replicas) * shape.gpusPerReplica;
    if (shape.gpuHourUsd)
        out.fleetCostPerMonthUsd = double(out.gpus) * *shape.gpuHourUsd * 730.0;

    std::vector<std::vector<qsizetype>> routed(size_t(out.replicas));
    for (qsizetype i = 0; i < trace.requests.size(); ++i)
        routed[size_t(trace.requests.at(i).conversation % out.replicas)].push_back(i);
    std::vector<double> queue, ttft;
    std::vector<std::vector<Sample>> samples;
    double held = 0, running = 0;
    for (auto &requests : routed) {
        Replica r(trace, shape, o, std::move(requests));
        r.run();
        out.prefixHitTokens += r.hits;
        out.hostHitTokens += r.hostHits;
        out.preemptions += r.preemptions;
        out.recomputedTokens += r.recomputed;
        out.rejected += r.rejected;
        out.peakKvBytesPerGpu = std::max(out.peakKvBytesPerGpu, r.peakHeld * shape.engineBlockTokens * shape.kvBytesPerTokenPerGpu);
        out.peakRunningPerReplica = std::max(out.peakRunningPerReplica, r.peakRunning);
        out.endSeconds = std::max(out.endSeconds, r.now());
        held += r.heldBlockSeconds;
        running += r.runningSeconds;
        queue.insert(queue.end(), r.queueSeconds.begin(), r.queueSeconds.end());
        ttft.insert(ttft.end(), r.ttftSeconds.begin(), r.ttftSeconds.end());
        samples.push_back(std::move(r.samples));
    }
    // Means over the trace's span (its last arrival), or over the run when the span is 0.
    if (const double span = trace.durationSeconds > 0 ? trace.durationSeconds : out.endSeconds; span > 0) {
        out.meanKvBytesPerGpu = held * double(shape.engineBlockTokens * shape.kvBytesPerTokenPerGpu) / span / double(out.replicas);
        out.meanRunning = running / span;
    }
    out.queueMsP50 = quantileOf(queue, 0.50) * 1000;
    out.queueMsP99 = quantileOf(queue, 0.99) * 1000;
    out.ttftMsP50 = quantileOf(ttft, 0.50) * 1000;
    out.ttftMsP99 = quantileOf(ttft, 0.99) * 1000;

    out.meanAliveConversations = meanAliveConversations(trace, shape, o.keepIdleSeconds);

    // The fleet's timeline: the replicas' points summed (running, waiting), averaged (KV).
    size_t points = 0;
    for (const auto &s : samples)
        points = std::max(points, s.size());
    const double bytesPerBlock = double(shape.engineBlockTokens * shape.kvBytesPerTokenPerGpu);
    Sample before;
    for (size_t i = 0; i < points; ++i) {
        ReplayPoint p;
        p.tSeconds = double(i) * o.sampleSeconds;
        Sample sum;
        for (const auto &s : samples) {
            const Sample &x = i < s.size() ? s[i] : s.back();
            const bool over = i >= s.size(); // this replica ended: nothing runs or waits, nothing is held
            sum.running += over ? 0 : x.running;
            sum.waiting += over ? 0 : x.waiting;
            sum.heldBlocks += over ? 0 : x.heldBlocks;
            sum.hits += x.hits;
            sum.preemptions += x.preemptions;
            p.kvBytesPerGpuMax = std::max(p.kvBytesPerGpuMax, over ? 0 : x.heldBlocks * shape.engineBlockTokens * shape.kvBytesPerTokenPerGpu);
        }
        p.running = sum.running;
        p.waiting = sum.waiting;
        p.kvBytesPerGpu = double(sum.heldBlocks) * bytesPerBlock / double(out.replicas);
        p.prefixHitTokens = sum.hits - before.hits;
        p.preemptions = sum.preemptions - before.preemptions;
        before = sum;
        out.timeline << p;
    }
    return out;
}

double meanAliveConversations(const TrafficTrace &trace, const ReplayShape &shape, std::optional<double> keepIdleSeconds)
{
    if (!(trace.durationSeconds > 0))
        return 0;
    std::vector<double> first(size_t(trace.conversations), -1), last(size_t(trace.conversations), 0);
    for (const TrafficRequest &r : trace.requests) {
        const auto c = size_t(r.conversation);
        if (first[c] < 0)
            first[c] = r.arrivalSeconds;
        // The request's own time on an idle replica: its prefill, then its output one step at a time.
        const double alone = shape.prefillSeconds(r.promptTokens) + double(r.outputTokens) * shape.stepSeconds(1, double(r.promptTokens));
        last[c] = std::max(last[c], r.arrivalSeconds + alone);
    }
    double alive = 0;
    for (size_t c = 0; c < first.size(); ++c)
        alive += last[c] - first[c] + keepIdleSeconds.value_or(0.0);
    return alive / trace.durationSeconds;
}

TrafficTrace scaledTraffic(const TrafficTrace &trace, double k, const QString &field)
{
    if (!(k > 0) || !std::isfinite(k))
        throw InputError(field, QStringLiteral("must be a positive number, got %1").arg(k));
    if (k == 1.0)
        return trace;
    if (!(trace.durationSeconds > 0))
        throw InputError(field, QStringLiteral("%1 spans no time (every request arrives at once): there are no arrivals to scale").arg(trace.path));
    if (k * double(trace.requests.size()) > double(TrafficTrace::maxRequests))
        throw InputError(field, QStringLiteral("%1 times %2 requests is more than %3 requests, the most a replay holds")
                                    .arg(Units::formatDecimal(k, 3), Units::formatCount(trace.requests.size()), Units::formatCount(TrafficTrace::maxRequests)));
    const TraceBlocks blocks = traceBlocks(trace);
    const qint64 copies = qint64(std::ceil(k));
    if (copies > 1 && blocks.top >= std::numeric_limits<qint64>::max() / copies)
        throw InputError(field, QStringLiteral("%1's block ids are too large to copy %2 times").arg(trace.path).arg(copies));
    const std::vector<PlacedRequest> placed = placedRequests(trace, blocks, k);
    // Scaled down past its last conversation, the trace is empty: nothing to replay (an attacker's
    // x 1e-6 replayed 0 requests and "solved" a fleet for them).
    if (placed.empty())
        throw InputError(field, QStringLiteral("%1 leaves none of the trace's %2 conversations: at least %3 keeps one")
                                    .arg(Units::formatDecimal(k, 6), Units::formatCount(trace.conversations),
                                         Units::formatDecimal(std::ceil(1e6 / double(std::max<qint64>(1, trace.conversations))) / 1e6, 6)));
    return placedTrace(trace, blocks, placed);
}

std::pair<double, ReplayResult> replayForUsers(const TrafficTrace &trace, const ReplayShape &shape, const ReplayOptions &o,
                                               double users, const QString &field)
{
    if (!(users >= 1) || !std::isfinite(users))
        throw InputError(field, QStringLiteral("must be at least 1 user, got %1").arg(users));
    const double once = meanAliveConversations(trace, shape, o.keepIdleSeconds);
    if (!(once > 0))
        throw InputError(field, QStringLiteral("%1 has no conversation that lasts (the trace spans no time): users cannot be counted in it")
                                    .arg(trace.path));
    // Alive conversations grow with k as the copies do (a fractional last copy adds the
    // conversations that start in its share): correct k by the ratio measured until within 0.5%.
    double k = users / once;
    // Past the most a replay holds, said in users (the copies of the trace are the replay's own).
    if (k * double(trace.requests.size()) > double(TrafficTrace::maxRequests))
        throw InputError(field, QStringLiteral("%1 users are about %2 copies of this trace's %3 requests: more than the %4 requests a replay holds; "
                                               "at most about %5 users of it")
                                    .arg(Units::formatDecimal(users, 0), Units::formatDecimal(k, 0), Units::formatCount(trace.requests.size()),
                                         Units::formatCount(TrafficTrace::maxRequests),
                                         Units::formatDecimal(std::floor(once * double(TrafficTrace::maxRequests) / double(trace.requests.size())), 0)));
    for (int round = 0; round < 8; ++round) {
        const double alive = meanAliveConversations(scaledTraffic(trace, k, field), shape, o.keepIdleSeconds);
        if (std::abs(alive - users) <= 0.005 * users || !(alive > 0))
            break;
        k *= users / alive;
    }
    return {k, replay(scaledTraffic(trace, k, field), shape, o)};
}

std::optional<ReplayResult> solveMinReplicas(const TrafficTrace &trace, const ReplayShape &shape, ReplayOptions o,
                                             double maxPreemptionsPerHour, std::optional<double> maxQueueMs, int most)
{
    const double hours = std::max(trace.durationSeconds, 1.0) / 3600.0;
    std::optional<ReplayResult> found;
    const auto meets = [&](int replicas) {
        o.replicas = replicas;
        ReplayResult r = replay(trace, shape, o);
        // A fleet the arrivals outrun meets no target: its backlog grows past the trace's end
        // (a trial's solve answered 68 GPUs that "cannot keep up" with no preemption).
        const bool ok = double(r.preemptions) / hours <= maxPreemptionsPerHour && (!maxQueueMs || r.queueMsP99 <= *maxQueueMs)
                        && !r.cannotKeepUp();
        if (ok)
            found = std::move(r);
        return ok;
    };
    // Doubling finds a count that meets the target, bisection the smallest that meets it
    // between the last miss and that count, then counts below are tried while they still
    // meet it. The measures need not fall steadily with replicas (which conversations share
    // a replica changes with the count): a much smaller count may meet it too.
    int low = 0, high = 1; // low misses (0 replicas always does)
    while (!meets(high)) {
        low = high;
        if (high >= most)
            return std::nullopt;
        high = std::min(most, high * 2);
    }
    ReplayResult best = *found;
    while (high - low > 1) {
        const int mid = low + (high - low) / 2;
        if (meets(mid)) {
            high = mid;
            best = *found;
        } else {
            low = mid;
        }
    }
    while (high > 1 && meets(high - 1)) {
        --high;
        best = *found;
    }
    return best;
}

} // namespace Headroom
