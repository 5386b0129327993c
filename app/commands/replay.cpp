// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom replay --trace FILE`: a trace's arrivals on a fleet of replicas of the plan's shape.
#include "commands/commands.h"

#include "cli.h"
#include "commands/options.h"
#include "commands/planflags.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "plan/capacity.h"
#include "traffic/replay.h"
#include "traffic/replaysummary.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cmath>

namespace Headroom {

namespace {

/// The replay's options from its flags: --replicas (default --dp), --keep-idle, --max-num-seqs.
/// Throws InputError naming the flag.
ReplayOptions replayOptionsFrom(const QCommandLineParser &p, const Scenario &s)
{
    if (isSet(p, "replicas") && isSet(p, "dp"))
        throw InputError(QStringLiteral("--replicas"), QStringLiteral("and --dp both give the replicas: give one"));
    if (isSet(p, "replicas") && isSet(p, "solve"))
        throw InputError(QStringLiteral("--replicas"), QStringLiteral("is what --solve min-replicas finds: give one or the other"));
    ReplayOptions o;
    o.replicas = isSet(p, "replicas") ? smallOpt(p, "replicas") : std::max(1, s.dp);
    if (o.replicas < 1)
        throw InputError(QStringLiteral("--replicas"), QStringLiteral("must be at least 1"));
    if (isSet(p, "keep-idle"))
        o.keepIdleSeconds = Units::parseFraction(value(p, "keep-idle"), QStringLiteral("--keep-idle"), 0, 31.0 * 86400.0);
    // The engine's running cap, as plan holds it (vLLM's max_num_seqs given or its default, ...).
    o.maxRunningPerReplica = Engines::rule(s.engine).runningCap(s).value_or(RunningCap{}).sessions;
    return o;
}

/// The replay as plan --json's sibling: the contract's keys (issue 29), then added ones.
QJsonObject replayJson(const ReplayResult &r, const TrafficTrace &t, double multiplier, std::optional<double> users)
{
    QJsonObject o;
    o.insert(QStringLiteral("requests"), r.requests);
    o.insert(QStringLiteral("conversations"), r.conversations);
    o.insert(QStringLiteral("duration_seconds"), r.durationSeconds);
    o.insert(QStringLiteral("prompt_tokens"), r.promptTokens);
    o.insert(QStringLiteral("prefix_hit_tokens"), r.prefixHitTokens);
    o.insert(QStringLiteral("prefix_hit_share"), r.prefixHitShare());
    o.insert(QStringLiteral("prefix_hit_share_ceiling"), r.ceilingShare());
    o.insert(QStringLiteral("host_hit_tokens"), r.hostHitTokens);
    o.insert(QStringLiteral("preemptions"), r.preemptions);
    o.insert(QStringLiteral("queue_ms_p50"), r.queueMsP50);
    o.insert(QStringLiteral("queue_ms_p99"), r.queueMsP99);
    o.insert(QStringLiteral("ttft_ms_p50"), r.ttftMsP50);
    o.insert(QStringLiteral("ttft_ms_p99"), r.ttftMsP99);
    o.insert(QStringLiteral("peak_kv_bytes_per_gpu"), r.peakKvBytesPerGpu);
    o.insert(QStringLiteral("mean_kv_bytes_per_gpu"), JsonNumbers::wholeValue(r.meanKvBytesPerGpu));
    o.insert(QStringLiteral("peak_running_per_replica"), r.peakRunningPerReplica);
    o.insert(QStringLiteral("replicas"), r.replicas);
    o.insert(QStringLiteral("gpus"), r.gpus);
    o.insert(QStringLiteral("fleet_cost_per_month_usd"), r.fleetCostPerMonthUsd ? QJsonValue(std::round(*r.fleetCostPerMonthUsd * 100) / 100) : QJsonValue());
    QJsonArray timeline;
    for (const ReplayPoint &p : r.timeline)
        timeline.append(QJsonObject{{QStringLiteral("t_seconds"), p.tSeconds},
                                    {QStringLiteral("running"), p.running},
                                    {QStringLiteral("waiting"), p.waiting},
                                    {QStringLiteral("kv_bytes_per_gpu"), JsonNumbers::wholeValue(p.kvBytesPerGpu)},
                                    {QStringLiteral("kv_bytes_per_gpu_max"), p.kvBytesPerGpuMax},
                                    {QStringLiteral("prefix_hit_tokens"), p.prefixHitTokens},
                                    {QStringLiteral("preemptions"), p.preemptions}});
    o.insert(QStringLiteral("timeline"), timeline);
    // Added beyond the contract.
    o.insert(QStringLiteral("conversation_rule"), t.conversationRule());
    o.insert(QStringLiteral("shared_prefix_tokens"), t.commonPrefixTokens());
    o.insert(QStringLiteral("prefix_hit_ceiling_tokens"), r.ceilingTokens);
    o.insert(QStringLiteral("recomputed_tokens"), r.recomputedTokens);
    o.insert(QStringLiteral("rejected_requests"), r.rejected);
    o.insert(QStringLiteral("end_seconds"), r.endSeconds);
    o.insert(QStringLiteral("mean_running"), r.meanRunning);
    o.insert(QStringLiteral("mean_alive_conversations"), r.meanAliveConversations);
    o.insert(QStringLiteral("traffic_multiplier"), multiplier);
    o.insert(QStringLiteral("users"), users ? QJsonValue(*users) : QJsonValue());
    return o;
}

/// The replay as aligned text rows (replaySummary's).
void printText(QTextStream &out, const ReplayResult &r, const ReplaySummaryInput &in)
{
    const QVector<QPair<QString, QString>> rows = replaySummary(r, in);
    qsizetype width = 0;
    for (const auto &x : rows)
        width = std::max(width, x.first.size());
    for (const auto &x : rows)
        out << x.first.leftJustified(width + 2) << x.second << '\n';
}

} // namespace

/// The plan flags the replay does not read (its lengths, arrivals and sessions are the
/// trace's), refused by name rather than ignored. Throws InputError naming the first given.
void refusePlanOnlyFlags(const QCommandLineParser &p)
{
    for (const char *flag : {"context", "sessions", "target-sessions", "distribution", "length-scale", "retain", "output-tokens", "risk", "fleet-risk",
                             "margin", "decoding-share", "turn-seconds", "think-seconds"})
        if (isSet(p, flag))
            throw InputError(QStringLiteral("--") + QLatin1String(flag),
                             QStringLiteral("is a plan input; replay takes the lengths, arrivals and sessions from --trace"));
}

int runReplay(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &)
{
    refusePlanOnlyFlags(p);
    if (!isSet(p, "trace"))
        throw InputError(QStringLiteral("--trace"), QStringLiteral("is required: a trace with arrivals, e.g. --trace mooncake-fast25-conversation.jsonl"));
    const UnitSystem units = unitsFrom(p);
    Scenario s = scenarioFrom(p, err, false);
    if (s.model.name.isEmpty())
        throw InputError(QStringLiteral("--model"), QStringLiteral("give a preset id or config.json path, or a custom shape with --layers, --kv-heads and --head-dim"));
    if (s.gpu.memoryBytes <= 0)
        throw InputError(QStringLiteral("--gpu"), QStringLiteral("give a GPU preset id, e.g. h100-sxm-80gb, or --gpu-memory"));
    const TrafficTrace trace = TrafficTrace::read(value(p, "trace"), QStringLiteral("--trace"));
    qint64 longest = 1;
    for (const TrafficRequest &r : trace.requests)
        longest = std::max(longest, r.promptTokens + r.outputTokens);
    s.contextTokens = longest;
    const CapacityResult capacity = computeCapacity(s);
    if (!capacity.ok)
        throw InputError(capacity.errorField, capacity.error);
    if (capacity.kvBudgetBytesPerGpu <= 0)
        throw InputError(isSet(p, "gpu-memory") ? QStringLiteral("--gpu-memory") : QStringLiteral("--gpu"), capacity.verdict);
    const ReplayShape shape = replayShape(s, capacity);
    ReplayOptions o = replayOptionsFrom(p, s);

    std::optional<double> users;
    if (isSet(p, "users"))
        users = double(countOpt(p, "users", 1));
    if (users && isSet(p, "traffic-multiplier"))
        throw InputError(QStringLiteral("--users"), QStringLiteral("sets the traffic multiplier itself; give --users or --traffic-multiplier, not both"));
    double multiplier = s.trafficMultiplier;
    TrafficTrace traffic = scaledTraffic(trace, multiplier, QStringLiteral("--traffic-multiplier"));
    ReplayResult result;
    std::optional<QString> solvedFor;
    const bool solving = isSet(p, "solve");
    if (solving && value(p, "solve") != QLatin1String("min-replicas"))
        throw InputError(QStringLiteral("--solve"), QStringLiteral("replay solves min-replicas, got \"%1\"").arg(value(p, "solve")));
    if (!solving && (isSet(p, "max-preemptions-per-hour") || isSet(p, "max-queue-ms")))
        throw InputError(isSet(p, "max-queue-ms") ? QStringLiteral("--max-queue-ms") : QStringLiteral("--max-preemptions-per-hour"),
                         QStringLiteral("is a target of --solve min-replicas; give --solve min-replicas with it"));
    if (users) {
        auto [k, at] = replayForUsers(trace, shape, o, *users, QStringLiteral("--users"));
        multiplier = k;
        traffic = scaledTraffic(trace, k, QStringLiteral("--users"));
        result = std::move(at);
    }
    if (solving) {
        double preemptions = 0; // 0 (the default) allowed: parseFraction wants a positive number
        if (isSet(p, "max-preemptions-per-hour")) {
            bool ok = false;
            preemptions = value(p, "max-preemptions-per-hour").trimmed().toDouble(&ok);
            if (!ok || !(preemptions >= 0 && preemptions <= 1e12))
                throw InputError(QStringLiteral("--max-preemptions-per-hour"),
                                 QStringLiteral("must be a number from 0 to 10^12, got \"%1\"").arg(value(p, "max-preemptions-per-hour")));
        }
        std::optional<double> queueMs;
        if (isSet(p, "max-queue-ms"))
            queueMs = Units::parseFraction(value(p, "max-queue-ms"), QStringLiteral("--max-queue-ms"), 0, 1e12);
        const int most = int(std::min<qint64>(65536, std::max<qint64>(1, traffic.conversations)));
        const std::optional<ReplayResult> solved = solveMinReplicas(traffic, shape, o, preemptions, queueMs, most);
        if (!solved) {
            err << "error: --solve: even " << most << " replicas miss the target (keeping up, preemptions per hour at most " << preemptions
                << (queueMs ? QStringLiteral(", p99 queue wait at most %1 ms").arg(*queueMs) : QString()) << ")\n";
            return 1;
        }
        result = *solved;
        solvedFor = solvedForText(preemptions, queueMs);
    } else if (!users) {
        result = replay(traffic, shape, o);
    }
    if (isSet(p, "json")) {
        QJsonObject o = replayJson(result, trace, multiplier, users);
        o.insert(QStringLiteral("solved_for"), solvedFor ? QJsonValue(*solvedFor) : QJsonValue());
        out << QString::fromUtf8(JsonNumbers::toJson(o));
    } else {
        printText(out, result,
                  ReplaySummaryInput{trace.conversationRule(), trace.conversations, trace.commonPrefixTokens(), trace.commonPrefixBlocks, multiplier,
                                     users, s.tp, s.pp, s.gpu.name, capacity.kvBudgetBytesPerGpu, solvedFor, units});
    }
    return 0;
}

} // namespace Headroom
