// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "lengths/traffictrace.h"

#include <QString>
#include <QVector>
#include <algorithm>
#include <functional>
#include <optional>

namespace Headroom {

struct Scenario;
struct CapacityResult;

/// One replica of the plan as the replay runs it: its KV pool in the engine's blocks, the
/// cost of a token, and the plan's own timing (plan/servingestimate.h).
struct ReplayShape
{
    qint64 poolBlocks = 0;          ///< engine blocks the KV budget holds, per replica (each GPU holds its share of every block)
    qint64 engineBlockTokens = 16;  ///< tokens per engine block (vLLM --block-size)
    qint64 kvBytesPerTokenPerGpu = 0;
    qint64 maxPromptTokens = 0;     ///< max_model_len: a longer prompt is refused (0: none)
    int gpusPerReplica = 1;         ///< TP x PP
    qint64 hostBlocks = 0;          ///< engine blocks host memory holds for this replica (0: no host tier)
    double hostLinkBytesPerSecond = 0; ///< per GPU, one direction (the GPU preset's host link)
    std::optional<double> gpuHourUsd; ///< price per GPU-hour; empty when unknown
    /// One decode step of `batch` running requests holding `meanTokens` each on average, seconds.
    std::function<double(qint64 batch, double meanTokens)> stepSeconds;
    /// The prefill of `tokens` prompt tokens, seconds.
    std::function<double(qint64 tokens)> prefillSeconds;
};

/// The shape of one replica of `s` as `r` (its capacity) sizes it: the pool is
/// r.kvCapacityTokens / r.blockSize blocks; timing is decodeStep and timeToFirstToken at the
/// plan's weights; host memory is --host-kv-memory per node shared by --gpus-per-node cards.
/// Throws InputError("--gpu") when the card has no bandwidth or compute figure (the replay
/// needs the plan's time), and InputError naming the budget when no block fits.
ReplayShape replayShape(const Scenario &s, const CapacityResult &r);

/// What the replay varies beyond the shape.
struct ReplayOptions
{
    int replicas = 1;                      ///< data-parallel replicas; conversation c runs on replica c mod replicas
    std::optional<double> keepIdleSeconds; ///< how long an idle conversation's blocks stay; empty: until evicted
    qint64 maxRunningPerReplica = 0;       ///< the engine's running-request cap (EngineRule::runningCap); 0: none
    double sampleSeconds = 10;             ///< the timeline's step
};

/// One point of the replay's timeline (the fleet at `tSeconds`).
struct ReplayPoint
{
    double tSeconds = 0;
    qint64 running = 0;           ///< requests decoding, all replicas
    qint64 waiting = 0;           ///< requests queued, all replicas
    double kvBytesPerGpu = 0;     ///< KV held by admitted requests, mean over replicas
    qint64 kvBytesPerGpuMax = 0;  ///< the fullest replica
    qint64 prefixHitTokens = 0;   ///< GPU prefix hits since the previous point
    qint64 preemptions = 0;       ///< since the previous point
};

/// The hour on the fleet.
struct ReplayResult
{
    qint64 requests = 0, conversations = 0;
    double durationSeconds = 0;        ///< the trace's span (first to last arrival)
    double endSeconds = 0;             ///< when the last request finished
    qint64 promptTokens = 0;
    qint64 prefixHitTokens = 0;        ///< served from GPU prefix blocks at first admission
    qint64 hostHitTokens = 0;          ///< resumed from host memory
    qint64 ceilingTokens = 0;          ///< TrafficTrace::prefixHitCeilingTokens
    qint64 preemptions = 0;
    qint64 recomputedTokens = 0;       ///< prompt + output recomputed after preemptions
    qint64 rejected = 0;               ///< requests larger than a whole replica's pool (never admitted)
    double queueMsP50 = 0, queueMsP99 = 0, ttftMsP50 = 0, ttftMsP99 = 0;
    qint64 peakKvBytesPerGpu = 0;
    double meanKvBytesPerGpu = 0;      ///< time average over the trace's span (0 to its last arrival), mean over replicas
    qint64 peakRunningPerReplica = 0;
    double meanRunning = 0;            ///< requests running, time average over the trace's span, whole fleet
    double meanAliveConversations = 0; ///< meanAliveConversations(): conversations alive on average over the span
    int replicas = 1;
    qint64 gpus = 0;
    std::optional<double> fleetCostPerMonthUsd; ///< gpus x price x 730 hours
    QVector<ReplayPoint> timeline;

    double prefixHitShare() const { return promptTokens > 0 ? double(prefixHitTokens + hostHitTokens) / double(promptTokens) : 0; }
    double ceilingShare() const { return promptTokens > 0 ? double(ceilingTokens) / double(promptTokens) : 0; }
    /// The arrivals outrun the fleet: requests still wait at the end of the trace's span and
    /// the last one ends past 1.5 times it (the summary's "Cannot keep up", the window's caption).
    bool cannotKeepUp() const
    {
        for (const ReplayPoint &p : timeline)
            if (p.tSeconds >= durationSeconds)
                return p.waiting > 0 && endSeconds > 1.5 * std::max(1.0, durationSeconds);
        return false;
    }
};

/// Replays `trace` on `o.replicas` replicas of `shape`. Per replica: requests are admitted
/// first come, first served when the blocks their prompt misses fit (free blocks, then the
/// least recently used idle prefix blocks evicted, to host memory when it has room); the
/// prompt's leading blocks still resident are hits (GPU, then host, resumed over the host
/// link); the prefill of the rest stalls the replica's decode for prefillSeconds; each
/// decode step adds a token to every running request at stepSeconds(batch, mean length), a
/// new engine block each engineBlockTokens; when a step finds no free block, the newest
/// running request is preempted and recomputed later (vLLM's recompute preemption,
/// vllm/v1/core/sched/scheduler.py). A finished request's prompt blocks stay as prefix
/// cache; its output blocks are freed (the next turn's prompt carries them as new blocks).
/// Deterministic; no I/O. A request whose prompt alone exceeds the pool is rejected.
ReplayResult replay(const TrafficTrace &trace, const ReplayShape &shape, const ReplayOptions &o);

/// `trace` at `k` times its conversation arrivals, each conversation's own timing kept. From
/// k = 1 up: k copies of the span laid end to end (a fractional last copy holds the
/// conversations that start in its first share) and compressed back into the span, so the
/// later turns of the last conversations may run past it. Below 1: every conversation c with
/// floor((c + 1) k) > floor(c k), at its own times. Prefix blocks shared by several
/// conversations (the system prompt) stay shared; a conversation's own blocks are renamed per
/// copy. Throws InputError(field) when k is not a positive finite number, the trace spans no
/// time, or the copies would hold more than TrafficTrace::maxRequests requests.
TrafficTrace scaledTraffic(const TrafficTrace &trace, double k, const QString &field);

/// Conversations alive on average over the trace's span: each from its first arrival to its
/// last request's end on an idle replica (arrival + prefillSeconds(prompt) + output x
/// stepSeconds(1, prompt)), plus `keepIdleSeconds` when given, summed over conversations and
/// divided by the span (Little's law). The fleet's own queueing is left out, so that users
/// name traffic, not a fleet's backlog. 0 when the span is 0.
double meanAliveConversations(const TrafficTrace &trace, const ReplayShape &shape, std::optional<double> keepIdleSeconds);

/// The multiplier, and the replay at it, at which on average `users` conversations are alive
/// (meanAliveConversations within 0.5%, or the last of 8 corrections): starts at users / alive
/// at 1 and corrects by the ratio measured on the scaled trace. Throws InputError(field) when
/// the trace has no conversation alive (a span of 0) or users < 1.
std::pair<double, ReplayResult> replayForUsers(const TrafficTrace &trace, const ReplayShape &shape, const ReplayOptions &o,
                                               double users, const QString &field);

/// A fewest count of replicas (1 to `most`) whose replay keeps up with the arrivals
/// (ReplayResult::cannotKeepUp is false), has at most `maxPreemptionsPerHour` preemptions per
/// hour of the trace and, when given, a p99 queue wait of at most `maxQueueMs`; with the
/// replay at that count. Doubling finds a count that meets it,
/// bisection the smallest between the last miss and it, then counts below are tried while
/// they still meet it: the one below the answer misses. The measures need not fall steadily
/// with replicas (which conversations share a replica changes with the count), so a much
/// smaller count may meet it too. Empty when doubling up to `most` replicas finds none.
std::optional<ReplayResult> solveMinReplicas(const TrafficTrace &trace, const ReplayShape &shape, ReplayOptions o,
                                             double maxPreemptionsPerHour, std::optional<double> maxQueueMs, int most);

} // namespace Headroom
