// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/capacityresult.h"
#include "core/jsonnumbers.h"

#include <QJsonArray>
#include <cmath>

namespace Headroom {

QString DistributionFigures::reservationWords() const
{
    return reservedOutputTokens > 0 ? QStringLiteral(", each its prompt + %1 reserved output tokens").arg(Units::formatCount(reservedOutputTokens))
                                    : QString();
}


InputError CapacityResult::refusal() const
{
    const QString prefix = errorField + QStringLiteral(": ");
    return InputError(errorField, !errorField.isEmpty() && error.startsWith(prefix) ? error.mid(prefix.size()) : error);
}

namespace {

// A figure rounded to 1 / `scale` (millionths by default), or null when there is none.
QJsonValue rounded(const std::optional<double> &v, double scale = 1e6)
{
    return v ? QJsonValue(std::round(*v * scale) / scale) : QJsonValue();
}

// The KV figures: per token, the recurrent state, one session at the context and at its reserved length.
void addKvJson(const CapacityResult &r, QJsonObject &o)
{
    o.insert(QStringLiteral("kv_bytes_per_token"), r.kvBytesPerToken);
    o.insert(QStringLiteral("kv_bytes_per_token_per_gpu"), r.kvBytesPerTokenPerGpu);
    o.insert(QStringLiteral("indexer_kv_bytes_per_token"), r.indexerKvBytesPerToken);
    o.insert(QStringLiteral("state_bytes_per_session"), r.stateBytesPerSession);
    o.insert(QStringLiteral("session_bytes"), r.sessionBytes);
    o.insert(QStringLiteral("session_bytes_per_gpu"), r.sessionBytesPerGpu);
    o.insert(QStringLiteral("reserved_tokens_per_session"), r.reservedTokensPerSession);
    o.insert(QStringLiteral("reserved_session_bytes_per_gpu"), r.reservedSessionBytesPerGpu);
}

// The card's carving: weights, workspace, the memory in force and the KV budget per GPU.
void addMemoryJson(const CapacityResult &r, QJsonObject &o)
{
    o.insert(QStringLiteral("weights_bytes"), r.weightsBytes);
    o.insert(QStringLiteral("weights_bytes_per_gpu"), r.weightsBytesPerGpu);
    o.insert(QStringLiteral("workspace_bytes_per_gpu"), r.workspaceBytesPerGpu);
    o.insert(QStringLiteral("gpu_memory_bytes"), r.gpuMemoryBytes);
    o.insert(QStringLiteral("usable_memory_bytes_per_gpu"), r.usableMemoryBytes);
    o.insert(QStringLiteral("held_back_bytes_per_gpu"), r.heldBackBytesPerGpu);
    o.insert(QStringLiteral("engine_memory_bytes"), r.engineMemoryBytes);
    o.insert(QStringLiteral("kv_budget_bytes_per_gpu"), r.kvBudgetBytesPerGpu);
    o.insert(QStringLiteral("shortfall_bytes_per_gpu"), r.shortfallBytesPerGpu);
}

// The sessions: tokens the budget holds, the sessions that fit, and the asked sessions' KV.
void addSessionsJson(const CapacityResult &r, QJsonObject &o)
{
    o.insert(QStringLiteral("kv_capacity_tokens"), r.kvCapacityTokens);
    o.insert(QStringLiteral("max_sessions"), r.maxSessions);
    o.insert(QStringLiteral("sessions"), r.sessions);
    o.insert(QStringLiteral("kv_bytes_for_sessions_per_gpu"), r.kvBytesForSessionsPerGpu);
    o.insert(QStringLiteral("indexer_kv_bytes_for_sessions_per_gpu"), r.indexerBytesForSessionsPerGpu);
}

// The vision encoder (plan/visionpool.h): its weights, image tokens and cache.
void addVisionJson(const CapacityResult &r, QJsonObject &o)
{
    o.insert(QStringLiteral("encoder_weights_bytes"), r.encoderWeightsBytes);
    o.insert(QStringLiteral("encoder_weights_bytes_per_gpu"), r.encoderWeightsBytesPerGpu);
    o.insert(QStringLiteral("encoder_loaded"), r.encoderLoaded);
    o.insert(QStringLiteral("image_tokens_per_request"), r.imageTokensPerRequest);
    o.insert(QStringLiteral("encoder_cache_tokens"), r.encoderCacheTokens);
    o.insert(QStringLiteral("encoder_cache_bytes_per_gpu"), r.encoderCacheBytesPerGpu);
}

// The side pools (plan/sidepools.h): the draft's weights and KV, the lookahead, the LoRA slots.
void addSidePoolsJson(const CapacityResult &r, QJsonObject &o)
{
    o.insert(QStringLiteral("draft_weights_bytes"), r.draftWeightsBytes);
    o.insert(QStringLiteral("draft_weights_bytes_per_gpu"), r.draftWeightsBytesPerGpu);
    o.insert(QStringLiteral("draft_kv_bytes_per_token"), r.draftKvBytesPerToken);
    o.insert(QStringLiteral("draft_kv_bytes_per_token_per_gpu"), r.draftKvBytesPerTokenPerGpu);
    o.insert(QStringLiteral("draft_kv_bytes_for_sessions_per_gpu"), r.draftKvBytesForSessionsPerGpu);
    o.insert(QStringLiteral("lookahead_tokens_per_session"), r.lookaheadTokens);
    o.insert(QStringLiteral("lora_bytes"), r.loraBytes);
    o.insert(QStringLiteral("lora_bytes_per_gpu"), r.loraBytesPerGpu);
}

// The answer: what is left or overflows, whether the sessions fit, the dtypes, the cost per
// session-hour, the verdict, fixes, warnings and the engine's budget rule.
void addVerdictJson(const CapacityResult &r, QJsonObject &o)
{
    o.insert(QStringLiteral("free_bytes_per_gpu"), r.freeBytesPerGpu);
    o.insert(QStringLiteral("overflow_bytes_per_gpu"), r.overflowBytesPerGpu);
    o.insert(QStringLiteral("fits"), r.fits);
    o.insert(QStringLiteral("asked_sessions_fit"), r.askedFit);
    o.insert(QStringLiteral("context_beyond_max"), r.contextBeyondMax);
    o.insert(QStringLiteral("weights_dtype"), Dtypes::name(r.weightsDtype));
    o.insert(QStringLiteral("kv_dtype"), Dtypes::name(r.kvDtype));
    o.insert(QStringLiteral("runnable"), r.runnable);
    o.insert(QStringLiteral("runnable_reason"), r.runnableReason);
    o.insert(QStringLiteral("cost_per_session_hour_usd"), rounded(r.costPerSessionHourUsd));
    o.insert(QStringLiteral("verdict"), r.verdict);
    o.insert(QStringLiteral("fixes"), QJsonArray::fromStringList(r.fixes));
    o.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(r.warnings));
    o.insert(QStringLiteral("budget_rule"), r.budgetRule);
    o.insert(QStringLiteral("admission_rule"), r.admission.name);
    o.insert(QStringLiteral("admission_rule_text"), r.admission.text);
    // The engine's cap on sessions running at once where it cut the KV cache's count (else null).
    o.insert(QStringLiteral("running_cap"), r.runningCap ? QJsonValue(r.runningCap->sessions) : QJsonValue());
    o.insert(QStringLiteral("running_cap_setting"), r.runningCap ? QJsonValue(r.runningCap->setting) : QJsonValue());
    o.insert(QStringLiteral("kv_sessions_before_running_cap"), r.runningCap ? QJsonValue(r.kvSessions) : QJsonValue());
    o.insert(QStringLiteral("admission_reserved_output_tokens"),
             r.admission.reservedOutputTokens ? QJsonValue(*r.admission.reservedOutputTokens) : QJsonValue());
}

// The counts against the distribution: at the risk and how it was settled, worst case, at the
// mean, admission, what a cap drops, the lengths' figures, and admission by prompt.
void addRiskJson(const DistributionFigures &d, QJsonObject &o)
{
    o.insert(QStringLiteral("sessions_at_risk"), d.sessionsAtRisk);
    o.insert(QStringLiteral("sessions_worst_case"), d.sessionsWorstCase);
    // Under an admission rule that reserves output, the lengths the counts are at.
    o.insert(QStringLiteral("reserved_max_tokens"), d.reservedOutputTokens > 0 ? QJsonValue(d.reservedMaxTokens) : QJsonValue());
    o.insert(QStringLiteral("reserved_mean_tokens"), d.reservedOutputTokens > 0 ? QJsonValue(d.reservedMeanTokens) : QJsonValue());
    o.insert(QStringLiteral("sessions_at_mean"), d.sessionsAtMean);
    o.insert(QStringLiteral("risk_method"), RiskCount::methodName(d.riskMethod));
    o.insert(QStringLiteral("risk_error_bound"), d.riskErrorBound);
    o.insert(QStringLiteral("risk_rounding_bytes"), d.riskRoundingBytes);
    o.insert(QStringLiteral("admission_limit"), d.admissionLimit);
    o.insert(QStringLiteral("overflow_probability"), d.overflowProbability);
    o.insert(QStringLiteral("truncated_share"), d.truncatedShare);
    o.insert(QStringLiteral("mean_tokens_dropped"), d.meanTokensDropped);
    o.insert(QStringLiteral("mean_tokens_dropped_by_those_losing"), d.meanTokensDroppedByThoseLosing);
    o.insert(QStringLiteral("share_longer_than_context"), d.shareLongerThanContext);
    o.insert(QStringLiteral("share_longer_than_max_model_len"), d.shareLongerThanMaxModelLen);
    o.insert(QStringLiteral("p99_tokens_dropped"), d.p99TokensDropped);
    o.insert(QStringLiteral("mean_session_bytes_per_gpu"), JsonNumbers::wholeValue(d.meanSessionBytesPerGpu)); // bytes: an integer
    o.insert(QStringLiteral("kv_bytes_for_sessions_at_mean_per_gpu"), d.kvBytesForSessionsAtMeanPerGpu);
    o.insert(QStringLiteral("distribution"), QJsonObject{{QStringLiteral("mean"), d.meanTokens},
                                                         {QStringLiteral("p50"), d.p50},
                                                         {QStringLiteral("p90"), d.p90},
                                                         {QStringLiteral("p99"), d.p99},
                                                         {QStringLiteral("max"), d.maxTokens}});
    if (d.hasPrompts) {
        o.insert(QStringLiteral("admission_by_prompt"), d.admissionByPrompt);
        o.insert(QStringLiteral("risk_at_grown_size"), d.riskAtGrownSize);
    }
}

// Speed and fleet: latency, throughput, time to first token, cost per million tokens, the GPUs
// for the target sessions and their cost, and the traffic's arrival rate and concurrency.
void addSpeedAndFleetJson(const DistributionFigures &d, QJsonObject &o)
{
    o.insert(QStringLiteral("itl_ms"), rounded(d.itlMs, 1e4));
    o.insert(QStringLiteral("itl_ms_at_risk"), rounded(d.itlMsAtRisk, 1e4));
    o.insert(QStringLiteral("tokens_per_second_per_gpu"), rounded(d.tokensPerSecondPerGpu, 1e3));
    o.insert(QStringLiteral("ttft_ms"), rounded(d.ttftMs, 1e4));
    // Issue 30: each time figure's band, and the decode step term by term.
    const auto band = [&o](const char *key, const std::optional<TimeBand> &b, double scale) {
        o.insert(QLatin1String(key) + QLatin1String("_low"), b ? rounded(b->low, scale) : QJsonValue());
        o.insert(QLatin1String(key) + QLatin1String("_high"), b ? rounded(b->high, scale) : QJsonValue());
    };
    band("itl_ms", d.itlBand, 1e4);
    band("itl_ms_at_risk", d.itlAtRiskBand, 1e4);
    band("ttft_ms", d.ttftBand, 1e4);
    band("tokens_per_second_per_gpu", d.tokensPerSecondBand, 1e3);
    if (d.step)
        o.insert(QStringLiteral("itl_terms"), QJsonObject{{QStringLiteral("memory_ms"), rounded(d.step->memorySeconds * 1e3, 1e4)},
                                                          {QStringLiteral("compute_ms"), rounded(d.step->computeSeconds * 1e3, 1e4)},
                                                          {QStringLiteral("fixed_ms"), rounded(d.step->fixedSeconds * 1e3, 1e4)},
                                                          {QStringLiteral("collective_ms"), rounded(d.step->collectiveSeconds * 1e3, 1e4)},
                                                          {QStringLiteral("weights_read_bytes"), JsonNumbers::wholeValue(d.step->weightsReadBytes)},
                                                          {QStringLiteral("kv_read_bytes"), JsonNumbers::wholeValue(d.step->kvReadBytes)},
                                                          {QStringLiteral("flops"), d.step->flops},
                                                          {QStringLiteral("turnover_flops"), d.step->turnoverFlops},
                                                          {QStringLiteral("collectives"), d.step->collectives},
                                                          {QStringLiteral("collective_bytes"), JsonNumbers::wholeValue(d.step->collectiveBytes)},
                                                          {QStringLiteral("layers_per_stage"), d.step->layers},
                                                          {QStringLiteral("moe"), d.step->moe},
                                                          {QStringLiteral("stages"), d.step->stages},
                                                          {QStringLiteral("link_bytes_per_s"), JsonNumbers::wholeValue(d.step->linkBytesPerSecond)}});
    o.insert(QStringLiteral("cost_per_million_tokens_usd"), rounded(d.costPerMillionTokensUsd));
    o.insert(QStringLiteral("gpus_needed"), d.gpusNeeded ? QJsonValue(*d.gpusNeeded) : QJsonValue());
    o.insert(QStringLiteral("fleet_target_sessions"), d.fleetTargetSessions ? QJsonValue(*d.fleetTargetSessions) : QJsonValue());
    o.insert(QStringLiteral("fleet_target_from_sessions"), d.fleetTargetFromSessions);
    o.insert(QStringLiteral("sessions_per_replica"), d.sessionsPerReplica > 0 ? QJsonValue(d.sessionsPerReplica) : QJsonValue());
    o.insert(QStringLiteral("gpus_needed_at_admission_limit"), d.gpusNeededAtAdmissionLimit ? QJsonValue(*d.gpusNeededAtAdmissionLimit) : QJsonValue());
    o.insert(QStringLiteral("fleet_cost_per_hour_usd"), rounded(d.fleetCostPerHourUsd));
    o.insert(QStringLiteral("fleet_cost_per_month_usd"), rounded(d.fleetCostPerMonthUsd));
    // The fleet's risk (issue 29): which risk the plan holds and what the other comes to.
    o.insert(QStringLiteral("risk_applies_to"), d.riskOfFleet ? QStringLiteral("fleet") : QStringLiteral("replica"));
    o.insert(QStringLiteral("replica_risk"), d.replicaRisk);
    o.insert(QStringLiteral("replica_overflow_probability"), d.replicaOverflowProbability);
    o.insert(QStringLiteral("fleet_replicas"), d.fleetReplicas ? QJsonValue(*d.fleetReplicas) : QJsonValue());
    o.insert(QStringLiteral("fleet_gpus"), d.fleetGpus ? QJsonValue(*d.fleetGpus) : QJsonValue());
    o.insert(QStringLiteral("fleet_overflow_probability"), d.fleetOverflowProbability ? QJsonValue(*d.fleetOverflowProbability) : QJsonValue());
    o.insert(QStringLiteral("arrival_rate_per_second"), rounded(d.arrivalRatePerSecond));
    o.insert(QStringLiteral("concurrency_from_traffic"), rounded(d.concurrencyFromTraffic));
    o.insert(QStringLiteral("concurrency_itl_ms"), rounded(d.concurrencyItlMs, 1e4));
    // A conversation trace (issue 29): conversations, and the shared prefix held once per card.
    o.insert(QStringLiteral("conversations"), d.conversations > 0 ? QJsonValue(d.conversations) : QJsonValue());
    o.insert(QStringLiteral("shared_prefix_tokens"), d.sharedPrefixTokens);
    o.insert(QStringLiteral("shared_prefix_bytes_per_gpu"), d.sharedPrefixBytesPerGpu);
}

} // namespace

QJsonObject CapacityResult::toJson() const
{
    QJsonObject o;
    if (!ok) {
        o.insert(QStringLiteral("error"), error);
        o.insert(QStringLiteral("error_field"), errorField);
        return o;
    }
    addKvJson(*this, o);
    addMemoryJson(*this, o);
    addSessionsJson(*this, o);
    addVisionJson(*this, o);
    warm.addJson(o);
    addSidePoolsJson(*this, o);
    addVerdictJson(*this, o);
    addRiskJson(distribution, o);
    addSpeedAndFleetJson(distribution, o);
    engineFigures.addTo(o);
    return o;
}

QDebug operator<<(QDebug dbg, const CapacityResult &r)
{
    QDebugStateSaver saver(dbg);
    if (!r.ok)
        dbg.nospace() << "CapacityResult(error " << r.errorField << ": " << r.error << ')';
    else
        dbg.nospace() << "CapacityResult(" << r.kvBytesPerToken << " B/token, session " << r.sessionBytes
                      << " B, budget " << r.kvBudgetBytesPerGpu << " B, max " << r.maxSessions << " sessions)";
    return dbg;
}

} // namespace Headroom
