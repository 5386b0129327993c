// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/sidepoolderivation.h"
#include "engines/vllm.h"
#include "plan/visionpool.h"

#include <QLocale>

namespace Headroom {

namespace {
using Units::formatCount;
using Units::formatExactBytes;

QString msText(const std::optional<double> &v)
{
    return v ? QStringLiteral("%1 ms").arg(Units::formatDecimal(*v, *v < 10 ? 2 : 1)) : QStringLiteral("unknown");
}
} // namespace

QStringList explainVisionEncoder(const Scenario &s, const CapacityResult &r, UnitSystem u)
{
    QStringList out;
    if (!VisionPool::hasEncoder(s))
        return out;
    auto both = [u](qint64 b) { return QStringLiteral("%1 (%2)").arg(formatExactBytes(b), Units::formatBytes(b, u)); };
    const ModelShape &m = s.model;
    if (r.encoderLoaded)
        out << QStringLiteral("Vision encoder: %1 of the %2 parameters (config.json vision_config: tower + projector) = %3 of the weights%4")
                   .arg(formatCount(m.visionParams), formatCount(m.totalParams), both(r.encoderWeightsBytes),
                        s.gpusPerReplica() > 1 ? QStringLiteral(", %1 per GPU").arg(both(r.encoderWeightsBytesPerGpu)) : QString());
    else
        out << QStringLiteral("Vision encoder: not loaded: vLLM skips the tower with no images (--limit-mm-per-prompt '{\"image\": 0}'; "
                              "vllm/model_executor/models/interfaces.py _mark_tower_model), so the weights leave out its %1 parameters")
                   .arg(formatCount(m.visionParams));
    out << QStringLiteral("Images: %1 per request × %2 tokens each (mm_tokens_per_image) = %3 of the %4 context tokens%5")
               .arg(s.imagesPerRequest).arg(formatCount(m.tokensPerImage), formatCount(r.imageTokensPerRequest), formatCount(s.contextTokens),
                    s.imagesPerRequest == 0 ? QStringLiteral(" (text only: --images-per-request 0)") : QString());
    if (r.encoderCacheTokens > 0) {
        const qint64 batched = Vllm::maxNumBatchedTokens(s);
        out << QStringLiteral("Encoder cache per GPU: max(%1 max_num_batched_tokens, %2 tokens of the largest image) = %3 embeddings × "
                              "%4 hidden_size × 2 B = %5, in the workspace (vllm/v1/core/encoder_cache_manager.py compute_mm_encoder_budget; "
                              "held through the profiling pass, gpu_model_runner.py profile_run)")
                   .arg(formatCount(batched), formatCount(m.tokensPerImage), formatCount(r.encoderCacheTokens), formatCount(m.hiddenSize),
                        both(r.encoderCacheBytesPerGpu));
    } else if (s.imagesPerRequest > 0 && (s.engine == Engine::Vllm || s.engine == Engine::Plain)) {
        out << QStringLiteral("Encoder cache per GPU: inside the measured workspace, activation peak or KV budget given");
    } else if (s.imagesPerRequest > 0) {
        out << QStringLiteral("Encoder cache per GPU: not modelled for %1 (vLLM's rule sizes it from max_num_batched_tokens)").arg(Engines::name(s.engine));
    } else {
        out << QStringLiteral("Encoder cache per GPU: none with no images (vLLM: \"Encoder cache will not be initialized\")");
    }
    return out;
}

QStringList explainWarmSessions(const Scenario &s, const CapacityResult &r, UnitSystem u)
{
    QStringList out;
    if (!s.decodingShare && !s.hostKvMemoryBytes)
        return out;
    const WarmSessions &w = r.warm;
    auto fmt = [u](qint64 b) { return Units::formatBytes(b, u); };
    const QString share = QLocale::c().toString(w.decodingShare, 'g', 4);
    out << QStringLiteral("Host tier, per node of %1 (%2 × %3 GPUs): card %4 sessions × %2 = %5; host %6 ÷ %7 per session "
                          "(%8 per GPU × %3) = %9 sessions (vLLM KV offloading / LMCache; SGLang --hicache-size, else --hicache-ratio × the device pool)")
               .arg(Units::plural(w.gpusPerNode, QStringLiteral("GPU"), QStringLiteral("GPUs")))
               .arg(w.replicasPerNode).arg(s.gpusPerReplica())
               .arg(formatCount(r.maxSessions), formatCount(w.cardSessionsPerNode), fmt(w.hostKvBytesPerNode), fmt(w.sessionBytesPerReplica),
                    fmt(r.reservedSessionBytesPerGpu), formatCount(w.hostSessionsPerNode));
    out << QStringLiteral("Sessions retained warm per node: min(%1 + %2, floor(%1 ÷ %3 decoding share)) = %4; decoding at once: "
                          "min(%1, %3 × %4) ÷ %5 GPUs = %6 per GPU (decoding sessions keep their KV on the card)")
               .arg(formatCount(w.cardSessionsPerNode), formatCount(w.hostSessionsPerNode), share, formatCount(w.retainedPerNode))
               .arg(w.gpusPerNode)
               .arg(Units::formatDecimal(w.decodingPerGpu, 2));
    const ResumePoint &p = w.atContext;
    const QString resume = w.hostLinkBytesPerSecond > 0
        ? QStringLiteral("%1 per GPU ÷ %2/s host link = %3").arg(fmt(r.reservedSessionBytesPerGpu), fmt(w.hostLinkBytesPerSecond), msText(p.resumeMs))
        : QStringLiteral("unknown (the GPU preset gives no host_link_bytes_per_s)");
    out << QStringLiteral("Resuming one session of %1 tokens: %2; recomputing it: prefill of %1 tokens = %3 (the serving roofline: 2 × active "
                          "parameters × tokens at TFLOPS × utilisation); %4")
               .arg(formatCount(p.tokens), resume, msText(p.recomputeMs),
                    p.resumeMs && p.recomputeMs ? (p.resumeFaster() ? QStringLiteral("fetching from host memory is faster")
                                                                    : QStringLiteral("recomputing is faster"))
                                                : QStringLiteral("no comparison"));
    // Where the answer changes along the lengths, if it does.
    for (int i = 1; i < w.byLength.size(); ++i)
        if (w.byLength.at(i).resumeFaster() != w.byLength.at(i - 1).resumeFaster() && w.byLength.at(i).resumeMs && w.byLength.at(i).recomputeMs) {
            out << QStringLiteral("  %1 is faster up to %2 tokens, %3 from %4 tokens")
                       .arg(w.byLength.at(i - 1).resumeFaster() ? QStringLiteral("resume") : QStringLiteral("recompute"),
                            formatCount(w.byLength.at(i - 1).tokens),
                            w.byLength.at(i).resumeFaster() ? QStringLiteral("resume") : QStringLiteral("recompute"), formatCount(w.byLength.at(i).tokens));
            break;
        }
    return out;
}

} // namespace Headroom
