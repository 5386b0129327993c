// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/servingestimate.h"

#include "plan/timeconstants.h"

#include <algorithm>
#include <cmath>

namespace Headroom {

namespace {

constexpr double activationBytes = 2; // BF16 activations on the wire
constexpr double prefillChunkTokens = 8192;

// Layers per pipeline stage.
double layersPerStage(const Scenario &s)
{
    return std::ceil(double(std::max<qint64>(1, s.model.layers())) / double(std::max(1, s.pp)));
}

// FLOPs per cached value read in decode, per query head sharing it: 2 (a multiply-add), for the
// score of K and again for the value of V; MLA's latent serves both for every head on the GPU.
double attentionFlopsPerCachedValue(const Scenario &s)
{
    const ModelShape &m = s.model;
    const double heads = m.attentionHeads > 0 ? double(m.attentionHeads) : 1.0;
    const int tp = std::max(1, s.tp);
    const bool mla = std::any_of(m.groups.cbegin(), m.groups.cend(), [](const LayerGroup &g) { return g.kind == LayerKind::Mla; });
    if (mla)
        return 2.0 * 2.0 * std::max(1.0, heads / tp);
    const int kvHeads = std::max(1, s.effectiveKvHeads());
    return 2.0 * std::max(1.0, heads / double(std::max(kvHeads, tp)));
}

// The weights one step reads per GPU: all of them for a dense model; for MoE the shared part
// and the experts the batch touches, E x (1 - (1 - k/E)^B) of E (top-k routing, uniform).
double weightsRead(const ModelShape &m, qint64 weightsBytesPerGpu, qint64 batch)
{
    double read = double(weightsBytesPerGpu);
    if (m.numExperts > 0 && m.expertsPerToken > 0 && m.totalParams > m.activeParams && m.numExperts > m.expertsPerToken) {
        // Parameters of one expert slot over all layers: total - active = (E - k) slots.
        const double E = m.numExperts, k = m.expertsPerToken;
        const double slot = double(m.totalParams - m.activeParams) / (E - k);
        const double touched = E * (1.0 - std::pow(1.0 - k / E, double(batch)));
        read *= std::min(1.0, (double(m.activeParams) - k * slot + touched * slot) / double(m.totalParams));
    }
    return read;
}

// The collectives of one stage for `tokens` tokens in flight: count and bytes per GPU.
std::pair<int, double> collectives(const Scenario &s, double tokens)
{
    const double layers = layersPerStage(s);
    const double hidden = double(std::max<qint64>(1, s.model.hiddenSize));
    int count = 0;
    double bytes = 0;
    if (s.tp > 1) {
        count += int(2 * layers);
        bytes += 2 * layers * 2.0 * (s.tp - 1) / s.tp * tokens * hidden * activationBytes;
    }
    const int ep = s.ep.value_or(1);
    if (ep > 1 && s.model.numExperts > 0) {
        count += int(2 * layers);
        bytes += 2 * layers * tokens * std::max(1, s.model.expertsPerToken) * hidden * activationBytes * (ep - 1) / ep;
    }
    return {count, bytes};
}

// Fixed cost of one pass over a stage, seconds.
double fixedSeconds(const Scenario &s, const TimeConstants &c)
{
    const double layers = layersPerStage(s);
    return (layers * c.layerMicroseconds + (s.model.numExperts > 0 ? layers * c.moeLayerMicroseconds : 0.0) + c.stepMicroseconds) * 1e-6;
}

// Seconds the collectives take: each one's latency plus its bytes over the link.
double collectiveSeconds(const Scenario &s, const TimeConstants &c, int count, double bytes)
{
    const qint64 link = s.gpu.collectiveLinkBytesPerSecond();
    return count * c.collectiveMicroseconds * 1e-6 + (link > 0 ? bytes / double(link) : 0.0);
}

// Prefill FLOPs per GPU for one prompt of `tokens`: the matrix products, 2 x active parameters
// per token, and causal attention, 2 x heads x (K + V head dims) per token pair (MLA absorbed:
// latent + RoPE), each token attending to those before it, a window capping the span.
double prefillFlops(const Scenario &s, double tokens)
{
    const ModelShape &m = s.model;
    double attention = 0;
    const double heads = std::max(1, m.attentionHeads);
    for (const LayerGroup &grp : m.groups) {
        if (grp.kind == LayerKind::Recurrent)
            continue;
        const double dims = grp.kind == LayerKind::Mla ? double(grp.latentDim + grp.ropeDim) : double(grp.headDimK + grp.headDimV);
        const double span = grp.kind == LayerKind::SlidingWindow && grp.window > 0 ? std::min(tokens, double(grp.window)) : tokens / 2.0;
        attention += grp.count * 2.0 * heads * dims * tokens * span;
    }
    return (2.0 * double(m.activeParams) * tokens + attention) / double(std::max(1, s.tp) * std::max(1, s.pp));
}

} // namespace

double tensorPeakFlops(const GpuSpec &gpu)
{
    return gpu.bf16DenseTflops * 1e12;
}

std::optional<DecodeStep> decodeStep(const Scenario &s, qint64 weightsBytesPerGpu, double kvBytesPerSession, qint64 batch, const Turnover &turnover)
{
    const GpuSpec &g = s.gpu;
    const TimeConstants c = timeConstants(s);
    if (g.bandwidthBytesPerSecond <= 0 || batch <= 0 || !(c.bandwidthFraction > 0))
        return std::nullopt;
    const ModelShape &m = s.model;
    const int tp = std::max(1, s.tp), pp = std::max(1, s.pp);
    DecodeStep d;
    d.weightsReadBytes = weightsRead(m, weightsBytesPerGpu, batch);
    d.kvReadBytes = kvBytesPerSession * double(batch);
    d.memorySeconds = (d.weightsReadBytes + d.kvReadBytes) / (double(g.bandwidthBytesPerSecond) * c.bandwidthFraction);
    const double cachedValues = d.kvReadBytes / (double(Dtypes::bytesFor(s.effectiveKvDtype(), 1024, {})) / 1024.0);
    if (turnover.outputTokens > 0 && turnover.promptTokens > 0)
        d.turnoverFlops = double(batch) / turnover.outputTokens * prefillFlops(s, turnover.promptTokens);
    d.flops = 2.0 * double(m.activeParams) * double(batch) / double(tp * pp) + cachedValues * attentionFlopsPerCachedValue(s) + d.turnoverFlops;
    const double peak = tensorPeakFlops(g);
    if (peak > 0 && c.computeFraction > 0)
        d.computeSeconds = d.flops / (peak * c.computeFraction);
    d.fixedSeconds = fixedSeconds(s, c);
    const auto [count, bytes] = collectives(s, double(batch));
    d.collectives = count;
    d.layers = layersPerStage(s);
    d.moe = m.numExperts > 0;
    d.stages = pp;
    d.linkBytesPerSecond = double(g.collectiveLinkBytesPerSecond());
    d.collectiveBytes = bytes;
    d.collectiveSeconds = collectiveSeconds(s, c, count, bytes);
    d.computeBound = d.computeSeconds > d.memorySeconds;
    d.seconds = pp * (std::max(d.memorySeconds, d.computeSeconds) + d.fixedSeconds + d.collectiveSeconds);
    d.tokensPerSecondPerGpu = double(batch) / d.seconds / double(tp * pp);
    d.tokensPerSecondPerSession = 1.0 / d.seconds;
    return d;
}

std::optional<double> timeToFirstToken(const Scenario &s, qint64 weightsBytesPerGpu, double tokens)
{
    const GpuSpec &g = s.gpu;
    const TimeConstants c = timeConstants(s);
    const double peak = tensorPeakFlops(g);
    if (g.bandwidthBytesPerSecond <= 0 || peak <= 0 || s.model.activeParams <= 0 || !(c.computeFraction > 0) || !(c.bandwidthFraction > 0))
        return std::nullopt;
    const int pp = std::max(1, s.pp);
    const double flops = prefillFlops(s, tokens);
    const double chunks = std::max(1.0, std::ceil(tokens / prefillChunkTokens));
    const double compute = flops / (peak * c.computeFraction);
    const double read = chunks * double(weightsBytesPerGpu) / (double(g.bandwidthBytesPerSecond) * c.bandwidthFraction);
    const auto [count, bytes] = collectives(s, tokens);
    return pp * (std::max(compute, read) + chunks * (fixedSeconds(s, c) + collectiveSeconds(s, c, count, 0)) + collectiveSeconds(s, c, 0, bytes));
}

TimeBand timeBand(const Scenario &s, double ms, bool prefill)
{
    const TimeConstants c = timeConstants(s);
    return prefill ? TimeBand{ms * c.ttftBandLow, ms * c.ttftBandHigh} : TimeBand{ms * c.bandLow, ms * c.bandHigh};
}

std::optional<TrafficConcurrency> trafficConcurrency(const Scenario &s, qint64 weightsBytesPerGpu, double kvBytesPerSessionPerGpu, double ratePerSecond,
                                                     double ttftMs, double meanOutputTokens, double ceiling)
{
    double c = 1;
    for (int round = 0; round < 200; ++round) {
        const auto step = decodeStep(s, weightsBytesPerGpu, kvBytesPerSessionPerGpu, std::max<qint64>(1, qint64(std::ceil(c))));
        if (!step)
            return std::nullopt;
        const double next = ratePerSecond * (ttftMs + meanOutputTokens * step->seconds * 1e3) / 1e3;
        if (!(next <= ceiling))
            return std::nullopt;
        const bool settled = std::abs(next - c) <= 1e-6 * std::max(1.0, next);
        c = next;
        if (settled)
            return TrafficConcurrency{c, step->seconds * 1e3};
    }
    return std::nullopt;
}

} // namespace Headroom
