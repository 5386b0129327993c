// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/engineprofile.h"
#include "core/inputerror.h"

#include <QRegularExpression>

namespace Headroom {

EngineVersion EngineVersion::parse(const QString &text, const QString &field)
{
    static const QRegularExpression re(QStringLiteral("^v?(\\d{1,3})\\.(\\d{1,3})(?:\\.(\\d{1,4}))?\\z"));
    const auto m = re.match(text.trimmed());
    if (!m.hasMatch())
        throw InputError(field, QStringLiteral("must look like 0.10 or 0.11.2, got \"%1\"").arg(text));
    return {m.captured(1).toInt(), m.captured(2).toInt(), m.captured(3).toInt()};
}

namespace SchedulerPolicies {

QString name(SchedulerPolicy p)
{
    return p == SchedulerPolicy::MaxUtilization ? QStringLiteral("max-utilization") : QStringLiteral("guaranteed-no-evict");
}

QString engineName(SchedulerPolicy p)
{
    return p == SchedulerPolicy::MaxUtilization ? QStringLiteral("MAX_UTILIZATION") : QStringLiteral("GUARANTEED_NO_EVICT");
}

SchedulerPolicy parse(const QString &text, const QString &field)
{
    const QString t = text.trimmed().toLower().replace(QLatin1Char('_'), QLatin1Char('-'));
    for (const SchedulerPolicy p : {SchedulerPolicy::GuaranteedNoEvict, SchedulerPolicy::MaxUtilization})
        if (t == name(p))
            return p;
    throw InputError(field, QStringLiteral("must be guaranteed-no-evict (TensorRT-LLM's default: each request's prompt and maximum output "
                                           "reserved at admission) or max-utilization (paged), got \"%1\"").arg(text));
}

} // namespace SchedulerPolicies

bool EngineSettings::operator==(const EngineSettings &o) const
{
    return kvCacheMemory == o.kvCacheMemory && freeMemoryBefore == o.freeMemoryBefore
        && freeMemoryAfter == o.freeMemoryAfter && activationPeak == o.activationPeak && nonTorch == o.nonTorch
        && cudaGraph == o.cudaGraph && memFractionStatic == o.memFractionStatic
        && freeGpuMemoryFraction == o.freeGpuMemoryFraction && maxNumBatchedTokens == o.maxNumBatchedTokens
        && maxNumSeqs == o.maxNumSeqs
        && vllmMajor == o.vllmMajor && vllmMinor == o.vllmMinor && nCtx == o.nCtx && nSeq == o.nSeq
        && nBatch == o.nBatch && trtTokensPerBlock == o.trtTokensPerBlock && engineVersion == o.engineVersion
        && trtMaxBatchSize == o.trtMaxBatchSize && trtMaxNumTokens == o.trtMaxNumTokens && trtMaxSeqLen == o.trtMaxSeqLen
        && maxOutputTokens == o.maxOutputTokens && schedulerPolicy == o.schedulerPolicy;
}

} // namespace Headroom
