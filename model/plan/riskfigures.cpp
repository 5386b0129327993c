// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/capacityparts.h"
#include "plan/fleetrisk.h"
#include "engines/enginerule.h"
#include "plan/speedfigures.h"
#include "plan/servingestimate.h"
#include "core/inputerror.h"
#include "core/inputranges.h"

#include <cmath>
#include <limits>

namespace Headroom::CapacityParts {

using Units::formatCount;

namespace {

// The inputs the risk-based count reads, checked: the risk (1e-6 to 0.5), the admission
// margin (0 to below 1) and the retention cap (at least 1 token). Throws InputError naming the field.
void checkRiskInputs(const Scenario &s)
{
    if (!(s.risk >= 1e-6 && s.risk <= 0.5))
        throw InputError(s.field(Input::Risk), QStringLiteral("must be between 1e-6 and 0.5, got %1").arg(s.risk));
    if (!(s.marginFraction >= 0 && s.marginFraction < 1))
        throw InputError(s.field(Input::Margin), QStringLiteral("must be at least 0 and below 1"));
    if (s.retainTokens && *s.retainTokens < 1)
        throw InputError(s.field(Input::Retain), QStringLiteral("must be at least 1 token"));
    if (s.outputTokens && *s.outputTokens < 1)
        throw InputError(s.field(Input::OutputTokens), QStringLiteral("must be at least 1 token"));
    if (s.outputTokens && !s.distribution && *s.outputTokens > s.contextTokens)
        throw InputError(s.field(Input::OutputTokens), QStringLiteral("%1 tokens is more than the context, %2 tokens: the output is part of "
                                                                      "each session's length (prompt + output)")
                                                           .arg(Units::formatCount(*s.outputTokens), Units::formatCount(s.contextTokens)));
}

// The lengths' own figures into `d` (tokens): mean, quantiles and maximum, what the retention
// `cap` (0: none) drops, and the shares longer than the context or than max_model_len.
void addLengthFigures(DistributionFigures &d, const Scenario &s, const LengthDistribution &lengths, qint64 cap)
{
    d.meanTokens = lengths.mean();
    d.p50 = lengths.quantile(0.5);
    d.p90 = lengths.quantile(0.9);
    d.p99 = lengths.quantile(0.99);
    d.maxTokens = lengths.maximum();
    if (cap > 0) {
        d.truncatedShare = lengths.shareAbove(cap);
        d.meanTokensDropped = lengths.meanDropped(cap);
        d.meanTokensDroppedByThoseLosing = lengths.meanDroppedByThoseLosing(cap);
        d.p99TokensDropped = lengths.droppedQuantile(cap, 0.99);
    }
    // Lengths past the context or past what an engine holds are counted all the same,
    // and said so (computeCapacity's warnings): the cap, when given, holds them first.
    const qint64 longest = cap > 0 ? std::min(d.maxTokens, cap) : d.maxTokens;
    if (s.distribution && !s.preallocate && !contextIsDistributionLongest(s) && longest > s.contextTokens)
        d.shareLongerThanContext = lengths.shareAbove(s.contextTokens);
    if (const qint64 maxLen = s.effectiveMaxModelLen(); s.distribution && !s.preallocate && maxLen > 0 && longest > maxLen)
        d.shareLongerThanMaxModelLen = lengths.shareAbove(maxLen);
}

// The counts against the KV `budget` per GPU into `d`: the risk-based count and how it was
// settled, the worst case and the count at the mean; unless `work` wants counts only, the
// admission limit, the overflow probability at the asked sessions, and admission by prompt.
void addRiskFigures(DistributionFigures &d, const Scenario &s, const LengthDistribution &lengths, const KvCost &cost, qint64 cap,
                    qint64 budget, RiskWork &work)
{
    // Counted at what each session holds at admission under the engine's rule: its length when
    // the engine pages, its prompt + the reserved output under GUARANTEED_NO_EVICT.
    const std::optional<qint64> reserved = reservedOutput(s);
    const bool reservesOutput = reserved.has_value();
    if (reserved) {
        const LengthDistribution admitted = admittedLengths(s, lengths, cap);
        d.reservedOutputTokens = *reserved;
        d.reservedMaxTokens = admitted.maximum();
        d.reservedMeanTokens = admitted.mean();
    }
    RiskWork::Law &law = admittedLaw(work, s, lengths, cost, cap);
    d.meanSessionBytesPerGpu = law.risk().meanBytes();
    const double atMean = double(s.sessions) * d.meanSessionBytesPerGpu;
    d.kvBytesForSessionsAtMeanPerGpu = atMean < 9.2e18 ? qint64(std::llround(atMean)) : std::numeric_limits<qint64>::max();
    const RiskCount count = law.sessionsAtRisk(budget, s.risk);
    d.sessionsAtRisk = count.sessions;
    d.riskMethod = count.method;
    d.riskTailAt = count.tailAt;
    // The engine runs no more sessions at once than its cap, whatever the KV cache holds (vLLM's
    // max_num_seqs, TensorRT-LLM's max_batch_size, llama.cpp's slots): the count is held to it and
    // its overflow probability is the cap's (an attacker read 20 sessions at the 76's 9.5e-3).
    const std::optional<RunningCap> running = Engines::rule(s.engine).runningCap(s);
    if (running && d.sessionsAtRisk > running->sessions) {
        d.kvSessionsAtRisk = d.sessionsAtRisk;
        d.sessionsAtRisk = running->sessions;
        d.riskTailAt = law.overflowProbability(running->sessions, budget);
    }
    d.riskTailAbove = d.kvSessionsAtRisk > 0 ? law.overflowProbability(d.sessionsAtRisk + 1, budget) : count.tailAbove;
    d.riskErrorBound = count.errorBound;
    d.riskRoundingBytes = count.roundingBytes;
    d.sessionsWorstCase = std::min(law.risk().sessionsWorstCase(budget), running ? running->sessions : std::numeric_limits<qint64>::max());
    d.sessionsAtMean = std::min(law.risk().sessionsAtMean(budget), running ? running->sessions : std::numeric_limits<qint64>::max());
    if (work.figures() != RiskWork::Figures::Counts) {
        // The margin's bytes taken off (at most 0.9 of the budget, so within 64 bits): the
        // budget times (1 - margin) as a double rounds up to 2^63 within 512 B of it.
        const qint64 admissionBudget = budget - std::min(budget, qint64(std::ceil(double(budget) * s.marginFraction)));
        d.admissionLimit = std::min(law.sessionsAtRisk(admissionBudget, s.risk).sessions, running ? running->sessions : std::numeric_limits<qint64>::max());
        d.overflowProbability = law.overflowProbability(s.sessions, budget);
    }
    if (!lengths.promptLengths.isEmpty() && !s.preallocate && !reservesOutput && work.figures() != RiskWork::Figures::Counts) {
        // Admission that counts prompts only lets in more sessions than their grown size allows.
        LengthDistribution prompts = lengths;
        prompts.lengths = lengths.promptLengths;
        prompts.probabilities = lengths.promptProbabilities;
        d.hasPrompts = true;
        d.admissionByPrompt = std::min(work.law(prompts, cost, cap).sessionsAtRisk(budget, s.risk).sessions,
                                       running ? running->sessions : std::numeric_limits<qint64>::max()); // never past the engine's cap
        d.riskAtGrownSize = law.overflowProbability(d.admissionByPrompt, budget);
    }
}

// The sessions the fleet is sized for (DistributionFigures::fleetTargetSessions): the target,
// else the sessions asked when one replica holds fewer than them (`perReplica` at the risk)
// and no --dp fleet is given.
std::optional<qint64> fleetTarget(const Scenario &s, qint64 perReplica)
{
    if (s.targetSessions)
        return s.targetSessions;
    if (s.dp <= 1 && s.sessions > perReplica && perReplica > 0)
        return s.sessions;
    return std::nullopt;
}

// The fleet for the scenario's target sessions into `d`: whole replicas at the risk-based count
// and at the admission limit, and its cost per hour and per month (730 hours) at the price.
// Throws InputError naming --target-sessions when the GPU count passes 2^63 - 1.
void addFleetFigures(DistributionFigures &d, const Scenario &s)
{
    // Each replica's overflow probability at the sessions it holds, and the fleet's over its
    // replicas (independent: plan/fleetrisk.h): the target's fleet, else --dp replicas.
    d.replicaRisk = s.risk;
    d.riskOfFleet = s.fleetRisk.has_value();
    d.replicaOverflowProbability = d.sessionsAtRisk > 0 ? d.riskTailAt : 0.0;
    d.fleetTargetSessions = fleetTarget(s, d.sessionsAtRisk);
    d.fleetTargetFromSessions = d.fleetTargetSessions && !s.targetSessions;
    const std::optional<qint64> target = d.fleetTargetSessions;
    if (target && d.sessionsAtRisk > 0)
        d.fleetReplicas = Units::ceilDiv(*target, d.sessionsAtRisk);
    else if (!target)
        d.fleetReplicas = s.dp;
    if (d.fleetReplicas) {
        d.fleetGpus = Units::mul(*d.fleetReplicas, s.gpusPerReplica(),
                                 s.field(s.targetSessions ? Input::TargetSessions : target ? Input::Sessions : Input::Dp), "GPU count");
        d.fleetOverflowProbability = FleetRisk::fleetOverflowProbability(d.replicaOverflowProbability, *d.fleetReplicas);
        if (const auto price = s.effectivePrice()) {
            d.fleetCostPerHourUsd = *price * double(*d.fleetGpus);
            d.fleetCostPerMonthUsd = *d.fleetCostPerHourUsd * 730.0;
        }
    }
    if (!target || d.sessionsAtRisk <= 0)
        return;
    d.gpusNeeded = d.fleetGpus;
    if (d.fleetTargetFromSessions && d.fleetReplicas && *d.fleetReplicas > 0) {
        d.sessionsPerReplica = Units::ceilDiv(*target, *d.fleetReplicas);
        d.kvBytesForReplicaSessionsAtMeanPerGpu = qint64(std::llround(double(d.sessionsPerReplica) * d.meanSessionBytesPerGpu));
    }
    if (d.admissionLimit > 0)
        d.gpusNeededAtAdmissionLimit = Units::mul(Units::ceilDiv(*target, d.admissionLimit), s.gpusPerReplica(),
                                                  s.field(s.targetSessions ? Input::TargetSessions : Input::Sessions), "GPU count");
}

// Little's law on a trace with arrival times, into `d` (trafficConcurrency, plan/servingestimate.h).
void addTrafficFigures(DistributionFigures &d, const Scenario &s, const LengthDistribution &lengths, qint64 weightsPerGpu)
{
    if (lengths.arrivalRatePerSecond <= 0)
        return;
    d.arrivalRatePerSecond = lengths.arrivalRatePerSecond * s.trafficMultiplier;
    if (!d.ttftMs)
        return;
    if (const auto c = trafficConcurrency(s, weightsPerGpu, d.meanSessionBytesPerGpu, *d.arrivalRatePerSecond, *d.ttftMs, lengths.meanOutputTokens,
                                          1000.0 * double(std::max<qint64>(1, d.sessionsAtRisk)))) {
        d.concurrencyFromTraffic = c->requests;
        d.concurrencyItlMs = c->itlMs;
    }
}

} // namespace

Scenario withReplicaRisk(const Scenario &s, const KvCost &cost, const CapacityResult &r, RiskWork &work)
{
    if (s.targetSessions && s.dp > 1)
        throw InputError(s.field(Input::Dp), QStringLiteral("%1 replicas and %2 %3 both size the fleet: give one (the target sizes it "
                                                             "from the sessions each replica holds; %4 is the fleet without a target)")
                                                 .arg(Units::formatCount(s.dp), s.field(Input::TargetSessions), Units::formatCount(*s.targetSessions),
                                                      s.field(Input::Dp)));
    if (!s.fleetRisk)
        return s;
    Scenario v = s;
    const double fleet = InputRanges::check(RealInput::FleetRisk, *s.fleetRisk, s.field(Input::FleetRisk));
    const qint64 cap = s.preallocate ? 0 : s.retainTokens.value_or(0);
    RiskWork::Law &law = admittedLaw(work, s, lengthsOf(s, r.reservedTokensPerSession), cost, cap);
    const qint64 budget = sessionsBudget(s, cost, r.kvBudgetBytesPerGpu);
    const FleetRisk::Solution solved = FleetRisk::solve(
        fleet, s.targetSessions ? s.targetSessions : s.dp <= 1 && s.sessions > 1 ? std::optional<qint64>(s.sessions) : std::nullopt, s.dp,
        [&](double p) { return law.sessionsAtRisk(budget, p).sessions; },
        InputRanges::of(RealInput::Risk).low, s.field(Input::FleetRisk));
    v.risk = solved.replicaRisk;
    return v;
}

DistributionFigures distributionFigures(const Scenario &s, const KvCost &cost, const Budget &b, const CapacityResult &r, RiskWork &work)
{
    DistributionFigures d;
    checkRiskInputs(s);
    const LengthDistribution lengths = lengthsOf(s, r.reservedTokensPerSession);
    const qint64 cap = s.preallocate ? 0 : s.retainTokens.value_or(0);
    addLengthFigures(d, s, lengths, cap);
    d.conversations = lengths.conversations;
    d.sharedPrefixTokens = s.preallocate ? 0 : lengths.sharedPrefixTokens;
    d.sharedPrefixBytesPerGpu = sharedPrefixBytes(s, cost);
    addRiskFigures(d, s, lengths, cost, cap, sessionsBudget(s, cost, r.kvBudgetBytesPerGpu), work);
    // Throughput and cost at the risk-based count.
    addFleetFigures(d, s);
    addSpeedFigures(d, s, lengths, b.weightsPerGpu);
    addTrafficFigures(d, s, lengths, b.weightsPerGpu);
    return d;
}

} // namespace Headroom::CapacityParts
