// SPDX-License-Identifier: GPL-3.0-or-later
#include "capacityresult.h"

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
    o.insert(QStringLiteral("kv_budget_bytes_per_gpu"), kvBudgetBytesPerGpu);
    o.insert(QStringLiteral("shortfall_bytes_per_gpu"), shortfallBytesPerGpu);
    o.insert(QStringLiteral("kv_capacity_tokens"), kvCapacityTokens);
    o.insert(QStringLiteral("max_sessions"), maxSessions);
    o.insert(QStringLiteral("sessions"), sessions);
    o.insert(QStringLiteral("kv_bytes_for_sessions_per_gpu"), kvBytesForSessionsPerGpu);
    o.insert(QStringLiteral("free_bytes_per_gpu"), freeBytesPerGpu);
    o.insert(QStringLiteral("fits"), fits);
    o.insert(QStringLiteral("context_beyond_max"), contextBeyondMax);
    o.insert(QStringLiteral("weights_dtype"), Dtypes::name(weightsDtype));
    o.insert(QStringLiteral("kv_dtype"), Dtypes::name(kvDtype));
    o.insert(QStringLiteral("cost_per_session_hour_usd"),
             costPerSessionHourUsd ? QJsonValue(std::round(*costPerSessionHourUsd * 1e6) / 1e6) : QJsonValue());
    o.insert(QStringLiteral("verdict"), verdict);
    o.insert(QStringLiteral("fixes"), QJsonArray::fromStringList(fixes));
    o.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(warnings));
    o.insert(QStringLiteral("budget_rule"), budgetRule);
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
