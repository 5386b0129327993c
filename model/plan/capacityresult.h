// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/dtype.h"
#include "core/inputerror.h"
#include "engines/enginerule.h"
#include "kv/kvcost.h"
#include "lengths/overflowrisk.h"
#include "plan/servingestimate.h"
#include "plan/warmsessions.h"

#include <QDebug>
#include <QJsonObject>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <optional>

namespace Headroom {

/// Decode speed at one batch size (a point of the latency / throughput curve).
struct ThroughputPoint
{
    qint64 sessions = 0;
    double itlMs = 0;
    double tokensPerSecondPerGpu = 0;
};

/// Figures against a distribution of session lengths (a fixed length when the
/// scenario gives none), per TP group unless named per GPU.
struct DistributionFigures
{
    qint64 sessionsAtRisk = 0;     ///< largest N with P(KV of N sessions > budget) <= risk, at most the engine's running cap
    qint64 kvSessionsAtRisk = 0;   ///< the KV cache's own count where the engine's running cap cut sessionsAtRisk (else 0)
    RiskCount::Method riskMethod = RiskCount::Method::ClosedForm; ///< what computed the tails that settled it
    double riskTailAt = 0;         ///< P(overflow) at sessionsAtRisk
    double riskTailAbove = 1;      ///< P(overflow) at sessionsAtRisk + 1
    double riskErrorBound = 0;     ///< absolute bound on the error of those two tails
    qint64 riskRoundingBytes = 0;  ///< rounded-convolution: each session's bytes rounded up to a multiple of this, per GPU
    qint64 sessionsWorstCase = 0;  ///< every session at the distribution's maximum (after the cap)
    qint64 sessionsAtMean = 0;     ///< budget / mean session bytes
    qint64 admissionLimit = 0;     ///< sessions at risk against the budget less the margin
    double overflowProbability = 0; ///< at the scenario's sessions
    double meanSessionBytesPerGpu = 0;
    /// The asked sessions at the mean session's bytes, per GPU (sessions x meanSessionBytesPerGpu,
    /// rounded; INT64_MAX past it): what the window's memory chart draws against a distribution.
    qint64 kvBytesForSessionsAtMeanPerGpu = 0;
    double truncatedShare = 0;     ///< sessions that lose history under the cap
    /// Sessions (after the scale and the cap) longer than the context given apart from
    /// the distribution: the risk-based count takes their full length, the per-session
    /// figures stop at the context. 0 when the context is the distribution's longest.
    double shareLongerThanContext = 0;
    /// Sessions (after the scale and the cap) longer than max_model_len (--max-model-len,
    /// else the config's max_position_embeddings), which no engine holds: vLLM refuses
    /// a prompt past it and ends generation at it (vllm/v1/engine/processor.py,
    /// vllm/v1/core/sched/utils.py check_stop). Counted at full length all the same.
    double shareLongerThanMaxModelLen = 0;
    double meanTokensDropped = 0;  ///< tokens dropped on average over all sessions (LengthDistribution::meanDropped)
    /// Tokens dropped on average over the sessions that lose history only
    /// (LengthDistribution::meanDroppedByThoseLosing): E[L - cap | L > cap].
    double meanTokensDroppedByThoseLosing = 0;
    /// The mean session's length as held, tokens: meanTokens less meanTokensDropped when a
    /// retention cap is set (`capped`), rounded, at least 1. The one "at the mean" length the
    /// derivation, the window, its chart and the report name.
    /// Under an admission rule that reserves output (TensorRT-LLM's GUARANTEED_NO_EVICT with
    /// --max-output-tokens) the mean reservation instead, the length the count at the mean is for.
    qint64 meanHeldTokens(bool capped) const
    {
        if (reservedOutputTokens > 0)
            return std::max<qint64>(1, qint64(std::llround(reservedMeanTokens)));
        return std::max<qint64>(1, qint64(std::llround(meanTokens - (capped ? meanTokensDropped : 0.0))));
    }
    /// The length the worst case is counted at, tokens: the longest reservation under an
    /// admission rule that reserves output, else the longest length, at most the cap when one is set.
    qint64 worstCaseTokens(const std::optional<qint64> &cap) const
    {
        if (reservedOutputTokens > 0)
            return reservedMaxTokens;
        return cap ? std::min(maxTokens, *cap) : maxTokens;
    }
    /// ", each its prompt + 1,024 reserved output tokens" under an admission rule that reserves
    /// output, else empty: said after a length the counts are at (worstCaseTokens, meanHeldTokens).
    QString reservationWords() const;
    /// The output tokens the engine reserves beside each prompt at admission (AdmissionRule);
    /// 0 when sessions are counted at their lengths. The two below are then the reservations'.
    qint64 reservedOutputTokens = 0;
    qint64 reservedMaxTokens = 0;   ///< the longest reservation, tokens
    double reservedMeanTokens = 0;  ///< the mean reservation, tokens
    qint64 p99TokensDropped = 0;   ///< p99 over all sessions of the tokens dropped (0 for those kept whole)
    double meanTokens = 0;         ///< distribution after the length scale, before the cap
    qint64 p50 = 0, p90 = 0, p99 = 0, maxTokens = 0;
    bool hasPrompts = false;       ///< the trace gives prompts apart from outputs
    qint64 admissionByPrompt = 0;  ///< sessions admitted at the risk if only prompts are counted
    double riskAtGrownSize = 0;    ///< overflow probability once those sessions have grown to prompt + output
    std::optional<double> itlMs;   ///< inter-token latency at the scenario's sessions (their replica's share, sessionsPerReplica, when beyond one)
    std::optional<double> itlMsAtRisk;          ///< at the risk-based count
    std::optional<double> tokensPerSecondPerGpu; ///< at the risk-based count
    std::optional<double> ttftMs;  ///< time to first token for the mean prompt (or half the mean length)
    /// The bands of the three time figures (timeBand: where the measured figure fell on the rows
    /// held out of the fit); tokens per second is the inverse of the step, so its band is too.
    std::optional<TimeBand> itlBand, ttftBand, tokensPerSecondBand;
    std::optional<TimeBand> itlAtRiskBand; ///< the band of itlMsAtRisk
    std::optional<DecodeStep> step; ///< the decode step at the scenario's sessions, term by term
    std::optional<double> costPerMillionTokensUsd;
    /// The sessions the fleet is sized for: the target (--target-sessions), else the sessions
    /// asked (--sessions) when one replica holds fewer at the risk and no --dp fleet is given
    /// (issue 29: a number asked beyond one replica sizes the fleet everywhere). Empty otherwise.
    std::optional<qint64> fleetTargetSessions;
    bool fleetTargetFromSessions = false; ///< fleetTargetSessions is the sessions asked, not a target
    /// With fleetTargetFromSessions: the sessions one replica holds of them, ceil(asked /
    /// fleetReplicas), and their KV per GPU at the mean session's bytes (what one card of the
    /// fleet draws). 0 otherwise.
    qint64 sessionsPerReplica = 0;
    qint64 kvBytesForReplicaSessionsAtMeanPerGpu = 0;
    std::optional<qint64> gpusNeeded; ///< for fleetTargetSessions, whole TP groups
    /// The same fleet sized at the admission limit (the count to deploy: the risk-based count
    /// against the budget less the margin), so the sessions the engines admit reach the target;
    /// set with gpusNeeded when the admission limit is computed and at least 1.
    std::optional<qint64> gpusNeededAtAdmissionLimit;
    std::optional<double> fleetCostPerHourUsd;  ///< price x fleetGpus
    std::optional<double> fleetCostPerMonthUsd; ///< 730 hours
    // The fleet's risk (issue 29; plan/fleetrisk.h). Replicas are independent (FleetRisk).
    /// The risk each replica (TP x PP group) is admitted at, the one sessionsAtRisk is for:
    /// the scenario's risk, or the one solved from its fleetRisk.
    double replicaRisk = 0.01;
    bool riskOfFleet = false; ///< the risk the plan holds is the fleet's (Scenario::fleetRisk), replicaRisk solved from it
    /// P(one replica overflows) at the sessions it holds, sessionsAtRisk (riskTailAt; at most
    /// replicaRisk). 0 at fixed lengths that fit.
    double replicaOverflowProbability = 0;
    /// Replicas of the fleet: ceil(target / sessionsAtRisk) with target sessions, else the
    /// scenario's dp. Empty when a target is given and no replica holds a session.
    std::optional<qint64> fleetReplicas;
    std::optional<qint64> fleetGpus; ///< fleetReplicas x GPUs per replica (TP x PP)
    /// P(at least one replica of the fleet overflows): 1 - (1 - replicaOverflowProbability)^fleetReplicas
    /// (FleetRisk::fleetOverflowProbability). Empty with fleetReplicas.
    std::optional<double> fleetOverflowProbability;
    std::optional<double> arrivalRatePerSecond;  ///< trace: requests per second x traffic multiplier
    std::optional<double> concurrencyFromTraffic; ///< Little's law: rate x time in system, at the latency of that concurrency
    std::optional<double> concurrencyItlMs;       ///< the inter-token latency concurrencyFromTraffic holds at (its fixed point)
    qint64 conversations = 0;          ///< a conversation trace: the conversations the lengths are of (0: per request)
    qint64 sharedPrefixTokens = 0;     ///< the conversations' shared prefix (system prompt), held once per card
    qint64 sharedPrefixBytesPerGpu = 0; ///< its KV on one GPU, in whole blocks at the full per-token rate, off the sessions' budget
    QVector<ThroughputPoint> throughputCurve;     ///< latency and throughput against concurrency, up to past the risk-based count
};

/// Everything computeCapacity() answers for one Scenario. Bytes are exact
/// integers; "per GPU" means one card of the TP group; session counts are per
/// TP group (one model replica). When ok is false only error/errorField are set.
struct CapacityResult
{
    bool ok = false;
    QString error;       ///< one line for the user, naming the field
    QString errorField;  ///< the offending input, e.g. "--tp"
    /// The refusal of a plan that failed as the InputError it was: errorField, and error
    /// without its leading "field: ".
    InputError refusal() const;
    QStringList warnings; ///< computed anyway, but worth saying (context beyond the model's maximum, ...)
    /// Whether the engine (at its release) and the card run the plan's KV-cache format
    /// (Runnability::of); a plan that does not is a what-if for another engine or card.
    bool runnable = true;
    QString runnableReason; ///< why it runs or not, cited

    Dtype weightsDtype = Dtype::BF16;
    Dtype kvDtype = Dtype::BF16;
    QVector<GroupCost> groups;        ///< per-layer-group costs, for the derivation
    int blockSize = 16;
    qint64 kvBytesPerToken = 0;       ///< model's own per-token KV bytes (TP 1, no window binding)
    qint64 kvBytesPerTokenPerGpu = 0; ///< per GPU, replication included
    qint64 indexerKvBytesPerToken = 0; ///< the sparse-attention indexer's share of kvBytesPerToken (DeepSeek-V3.2; 0 without one)
    qint64 stateBytesPerSession = 0;  ///< recurrent state per session, whole model
    qint64 sessionBytes = 0;          ///< one session at the context, whole model, paged
    qint64 sessionBytesPerGpu = 0;    ///< the same on one GPU
    qint64 reservedTokensPerSession = 0;    ///< context, or the maximum under preallocation
    qint64 reservedSessionBytesPerGpu = 0;  ///< what each session takes on a GPU under the policy
    qint64 weightsBytes = 0;          ///< whole model
    QString weightsBasis;             ///< "8,030,261,248 parameters x 2 B (bf16)", "published checkpoint", "given"
    qint64 weightsBytesPerGpu = 0;    ///< ceil(weights / TP)
    qint64 workspaceBytesPerGpu = 0;
    qint64 gpuMemoryBytes = 0;        ///< card memory in force
    qint64 usableMemoryBytes = 0;     ///< card x gpu_memory_utilization under vLLM, else the card
    /// The card the engine leaves unused by its setting, per GPU: card - usable (vLLM's
    /// 1 - gpu_memory_utilization share), at least 0; neither workspace nor KV.
    qint64 heldBackBytesPerGpu = 0;
    qint64 engineMemoryBytes = 0;     ///< the card as the engine sees it (torch's total; the card for plain/llama.cpp/Ollama)
    qint64 kvBudgetBytesPerGpu = 0;   ///< usable - weights - workspace, at least 0
    qint64 shortfallBytesPerGpu = 0;  ///< how far weights + workspace exceed the usable memory (0 if not)
    qint64 kvCapacityTokens = 0;      ///< whole blocks of tokens the budget holds at the full per-token rate
    qint64 maxSessions = 0;           ///< floor(budget / reserved session bytes), per replica, at most runningCap
    /// The engine's cap on sessions running at once (EngineRule::runningCap) where it is below
    /// the answer the KV cache gives (maxSessions, or sessionsAtRisk against a distribution,
    /// answersByRisk): every session count here is held to it, and kvSessions is the KV cache's
    /// own count it cut. Empty otherwise.
    std::optional<RunningCap> runningCap;
    qint64 kvSessions = 0;
    double sessionsExact = 0;         ///< budget / reserved session bytes, unrounded (display only)
    qint64 sessions = 0;              ///< the sessions asked about
    qint64 kvBytesForSessionsPerGpu = 0; ///< sessions x reserved session bytes
    qint64 indexerBytesForSessionsPerGpu = 0; ///< the sparse-attention indexer's share of kvBytesForSessionsPerGpu
    // Side pools (issue #14; plan/sidepools.h). kvBytesPerToken above is the target's own;
    // session and reserved bytes, the budget and the sessions include these.
    qint64 draftKvBytesPerToken = 0;        ///< the draft's own KV per token, TP 1 (0 without a draft)
    qint64 draftKvBytesPerTokenPerGpu = 0;  ///< the same on one GPU
    qint64 draftKvBytesForSessionsPerGpu = 0; ///< the draft's share of kvBytesForSessionsPerGpu
    qint64 lookaheadTokens = 0;             ///< speculative tokens: slots every session holds beyond its length
    qint64 draftWeightsBytes = 0;           ///< the whole draft's weights
    qint64 draftWeightsBytesPerGpu = 0;     ///< ceil(draft / TP)
    QString draftWeightsBasis;              ///< how the draft's weights were counted
    qint64 loraBytes = 0;                   ///< LoRA slots, whole model (TP 1)
    qint64 loraBytesPerGpu = 0;             ///< LoRA slots on one GPU
    qint64 freeBytesPerGpu = 0;       ///< budget left after the sessions' KV (0 when it overflows)
    qint64 overflowBytesPerGpu = 0;   ///< how far the sessions' KV exceeds the budget (0 when it fits)
    bool fits = false;                ///< the asked sessions fit, every one at reservedTokensPerSession
    bool askedFit = false;            ///< the asked sessions fit by the plan's answer (askedSessionsFit)
    bool contextBeyondMax = false;    ///< context > the model's maximum (computed anyway)
    std::optional<double> costPerSessionHourUsd; ///< price x TP / maxSessions
    QString verdict;                  ///< one sentence: what fits and what limits it
    QStringList fixes;                ///< levers that make one more session fit, when none or too few fit
    QString budgetRule;               ///< the engine's budget rule in words
    AdmissionRule admission;          ///< how the engine admits sessions (EngineRule::admission): what each is counted at
    EngineFigures engineFigures;      ///< what the chosen engine would print
    DistributionFigures distribution; ///< risk-based counts, throughput and fleet

    // Vision encoder (plan/visionpool.h): a share of the weights and of the workspace.
    qint64 encoderWeightsBytes = 0;       ///< the encoder's weights as loaded, whole model (0 when the engine skips it or there is none)
    qint64 encoderWeightsBytesPerGpu = 0; ///< its share of weightsBytesPerGpu
    bool encoderLoaded = false;           ///< a vision model whose encoder the engine loads
    qint64 imageTokensPerRequest = 0;     ///< images x tokens per image, part of the context
    qint64 encoderCacheTokens = 0;        ///< the engine's encoder cache budget in embeddings
    qint64 encoderCacheBytesPerGpu = 0;   ///< its bytes, part of workspaceBytesPerGpu
    // Sessions kept warm in host memory (plan/warmsessions.h).
    WarmSessions warm;

    /// The command line's JSON fields (bytes as integers). Stable contract:
    /// fields are added, never renamed.
    QJsonObject toJson() const;
};

QDebug operator<<(QDebug dbg, const CapacityResult &r);

} // namespace Headroom
