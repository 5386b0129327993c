// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/visionpool.h"
#include "core/inputerror.h"
#include "core/units.h"
#include "engines/vllm.h"

namespace Headroom::VisionPool {

bool hasEncoder(const Scenario &s)
{
    return s.model.visionParams > 0;
}

bool towerLoaded(const Scenario &s)
{
    return !(s.engine == Engine::Vllm && s.imagesPerRequest == 0);
}

qint64 encoderWeightsBytes(const Scenario &s, qint64 weights)
{
    if (!hasEncoder(s) || s.model.totalParams <= 0 || weights <= 0)
        return 0;
    const qint64 vision = std::min(s.model.visionParams, s.model.totalParams);
    return qint64((long double)weights * (long double)vision / (long double)s.model.totalParams + 0.5L);
}

qint64 imageTokensPerRequest(const Scenario &s)
{
    const QString f = s.field(Input::ImagesPerRequest);
    if (s.imagesPerRequest < 0 || s.imagesPerRequest > maxImagesPerRequest)
        throw InputError(f, QStringLiteral("must be a whole number from 0 to %1, got %2").arg(maxImagesPerRequest).arg(s.imagesPerRequest));
    if (!hasEncoder(s))
        return 0;
    const qint64 tokens = Units::mul(s.imagesPerRequest, s.model.tokensPerImage, f);
    if (tokens > s.contextTokens)
        throw InputError(f, QStringLiteral("%1 × %2 image tokens = %3 do not fit the context of %4 tokens: fewer images or a longer --context")
                                .arg(s.imagesPerRequest).arg(Units::formatCount(s.model.tokensPerImage), Units::formatCount(tokens),
                                     Units::formatCount(s.contextTokens)));
    return tokens;
}

qint64 encoderCacheTokens(const Scenario &s)
{
    if (!hasEncoder(s) || s.imagesPerRequest <= 0 || (s.engine != Engine::Vllm && s.engine != Engine::Plain))
        return 0;
    return std::max(Vllm::maxNumBatchedTokens(s), s.model.tokensPerImage);
}

qint64 encoderCacheBytes(const Scenario &s)
{
    const QString f = s.field(Input::MaxNumBatchedTokens);
    const EngineSettings &e = s.engineSettings;
    if (s.workspaceBytes || e.activationPeak || (e.kvCacheMemory && s.engine == Engine::Vllm))
        return 0; // a measured workspace, peak or pinned budget already holds it
    return Units::mul(Units::mul(encoderCacheTokens(s), s.model.hiddenSize, f), 2, f);
}

} // namespace Headroom::VisionPool
