// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/capacityresult.h"
#include "core/jsonnumbers.h"

#include <QJsonArray>
#include <cmath>

namespace Headroom {

QJsonObject CapacityResult::toJson() const
{
    QJsonObject o;
    if (!ok) {
        o.insert(QStringLiteral("error"), error);
        o.insert(QStringLiteral("error_field"), errorField);
        return o;
    }
    o.insert(QStringLiteral("kv_bytes_per_token"), kvBytesPerToken);
    o.insert(QStringLiteral("kv_bytes_per_token_per_gpu"), kvBytesPerTokenPerGpu);
    o.insert(QStringLiteral("indexer_kv_bytes_per_token"), indexerKvBytesPerToken);
    o.insert(QStringLiteral("state_bytes_per_session"), stateBytesPerSession);
    o.insert(QStringLiteral("session_bytes"), sessionBytes);
    o.insert(QStringLiteral("session_bytes_per_gpu"), sessionBytesPerGpu);
    o.insert(QStringLiteral("reserved_tokens_per_session"), reservedTokensPerSession);
    o.insert(QStringLiteral("reserved_session_bytes_per_gpu"), reservedSessionBytesPerGpu);
    o.insert(QStringLiteral("weights_bytes"), weightsBytes);
    o.insert(QStringLiteral("weights_bytes_per_gpu"), weightsBytesPerGpu);
    o.insert(QStringLiteral("workspace_bytes_per_gpu"), workspaceBytesPerGpu);
    o.insert(QStringLiteral("gpu_memory_bytes"), gpuMemoryBytes);
    o.insert(QStringLiteral("usable_memory_bytes_per_gpu"), usableMemoryBytes);
    o.insert(QStringLiteral("engine_memory_bytes"), engineMemoryBytes);
    o.insert(QStringLiteral("kv_budget_bytes_per_gpu"), kvBudgetBytesPerGpu);
    o.insert(QStringLiteral("shortfall_bytes_per_gpu"), shortfallBytesPerGpu);
    o.insert(QStringLiteral("kv_capacity_tokens"), kvCapacityTokens);
    o.insert(QStringLiteral("max_sessions"), maxSessions);
    o.insert(QStringLiteral("sessions"), sessions);
    o.insert(QStringLiteral("kv_bytes_for_sessions_per_gpu"), kvBytesForSessionsPerGpu);
    o.insert(QStringLiteral("indexer_kv_bytes_for_sessions_per_gpu"), indexerBytesForSessionsPerGpu);
    o.insert(QStringLiteral("encoder_weights_bytes"), encoderWeightsBytes);
    o.insert(QStringLiteral("encoder_weights_bytes_per_gpu"), encoderWeightsBytesPerGpu);
    o.insert(QStringLiteral("encoder_loaded"), encoderLoaded);
    o.insert(QStringLiteral("image_tokens_per_request"), imageTokensPerRequest);
    o.insert(QStringLiteral("encoder_cache_tokens"), encoderCacheTokens);
    o.insert(QStringLiteral("encoder_cache_bytes_per_gpu"), encoderCacheBytesPerGpu);
    warm.addJson(o);
    o.insert(QStringLiteral("draft_weights_bytes"), draftWeightsBytes);
    o.insert(QStringLiteral("draft_weights_bytes_per_gpu"), draftWeightsBytesPerGpu);
    o.insert(QStringLiteral("draft_kv_bytes_per_token"), draftKvBytesPerToken);
    o.insert(QStringLiteral("draft_kv_bytes_per_token_per_gpu"), draftKvBytesPerTokenPerGpu);
    o.insert(QStringLiteral("draft_kv_bytes_for_sessions_per_gpu"), draftKvBytesForSessionsPerGpu);
    o.insert(QStringLiteral("lookahead_tokens_per_session"), lookaheadTokens);
    o.insert(QStringLiteral("lora_bytes"), loraBytes);
    o.insert(QStringLiteral("lora_bytes_per_gpu"), loraBytesPerGpu);
    o.insert(QStringLiteral("free_bytes_per_gpu"), freeBytesPerGpu);
    o.insert(QStringLiteral("overflow_bytes_per_gpu"), overflowBytesPerGpu);
    o.insert(QStringLiteral("fits"), fits);
    o.insert(QStringLiteral("asked_sessions_fit"), askedFit);
    o.insert(QStringLiteral("context_beyond_max"), contextBeyondMax);
    o.insert(QStringLiteral("weights_dtype"), Dtypes::name(weightsDtype));
    o.insert(QStringLiteral("kv_dtype"), Dtypes::name(kvDtype));
    o.insert(QStringLiteral("cost_per_session_hour_usd"),
             costPerSessionHourUsd ? QJsonValue(std::round(*costPerSessionHourUsd * 1e6) / 1e6) : QJsonValue());
    o.insert(QStringLiteral("verdict"), verdict);
    o.insert(QStringLiteral("fixes"), QJsonArray::fromStringList(fixes));
    o.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(warnings));
    o.insert(QStringLiteral("budget_rule"), budgetRule);
    const DistributionFigures &d = distribution;
    auto opt = [](const std::optional<double> &v, double scale = 1e6) {
        return v ? QJsonValue(std::round(*v * scale) / scale) : QJsonValue();
    };
    o.insert(QStringLiteral("sessions_at_risk"), d.sessionsAtRisk);
    o.insert(QStringLiteral("sessions_worst_case"), d.sessionsWorstCase);
    o.insert(QStringLiteral("sessions_at_mean"), d.sessionsAtMean);
    o.insert(QStringLiteral("risk_method"), RiskCount::methodName(d.riskMethod));
    o.insert(QStringLiteral("risk_error_bound"), d.riskErrorBound);
    o.insert(QStringLiteral("risk_rounding_bytes"), d.riskRoundingBytes);
    o.insert(QStringLiteral("admission_limit"), d.admissionLimit);
    o.insert(QStringLiteral("overflow_probability"), d.overflowProbability);
    o.insert(QStringLiteral("truncated_share"), d.truncatedShare);
    o.insert(QStringLiteral("mean_tokens_dropped"), d.meanTokensDropped);
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
    o.insert(QStringLiteral("itl_ms"), opt(d.itlMs, 1e4));
    o.insert(QStringLiteral("itl_ms_at_risk"), opt(d.itlMsAtRisk, 1e4));
    o.insert(QStringLiteral("tokens_per_second_per_gpu"), opt(d.tokensPerSecondPerGpu, 1e3));
    o.insert(QStringLiteral("ttft_ms"), opt(d.ttftMs, 1e4));
    o.insert(QStringLiteral("cost_per_million_tokens_usd"), opt(d.costPerMillionTokensUsd));
    o.insert(QStringLiteral("gpus_needed"), d.gpusNeeded ? QJsonValue(*d.gpusNeeded) : QJsonValue());
    o.insert(QStringLiteral("gpus_needed_at_admission_limit"), d.gpusNeededAtAdmissionLimit ? QJsonValue(*d.gpusNeededAtAdmissionLimit) : QJsonValue());
    o.insert(QStringLiteral("fleet_cost_per_hour_usd"), opt(d.fleetCostPerHourUsd));
    o.insert(QStringLiteral("fleet_cost_per_month_usd"), opt(d.fleetCostPerMonthUsd));
    o.insert(QStringLiteral("arrival_rate_per_second"), opt(d.arrivalRatePerSecond));
    o.insert(QStringLiteral("concurrency_from_traffic"), opt(d.concurrencyFromTraffic));
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
