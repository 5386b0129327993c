// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/servingestimate.h"

#include <cmath>

namespace Headroom {

std::optional<DecodeStep> decodeStep(const Scenario &s, qint64 weightsBytesPerGpu, double kvBytesPerSession, qint64 batch)
{
    const GpuSpec &g = s.gpu;
    if (g.bandwidthBytesPerSecond <= 0 || batch <= 0 || !(s.bandwidthEfficiency > 0))
        return std::nullopt;
    const ModelShape &m = s.model;
    DecodeStep d;
    double weightsRead = double(weightsBytesPerGpu);
    if (m.numExperts > 0 && m.expertsPerToken > 0 && m.totalParams > m.activeParams && m.numExperts > m.expertsPerToken) {
        // Parameters of one expert slot over all layers: total - active = (E - k) slots.
        const double E = m.numExperts, k = m.expertsPerToken;
        const double slot = double(m.totalParams - m.activeParams) / (E - k);
        const double touched = E * (1.0 - std::pow(1.0 - k / E, double(batch)));
        const double read = double(m.activeParams) - k * slot + touched * slot;
        weightsRead *= std::min(1.0, read / double(m.totalParams));
    }
    d.weightsReadBytes = weightsRead;
    d.kvReadBytes = kvBytesPerSession * double(batch);
    d.memorySeconds = (d.weightsReadBytes + d.kvReadBytes) / (double(g.bandwidthBytesPerSecond) * s.bandwidthEfficiency);
    if (g.bf16DenseTflops > 0 && s.computeUtilization > 0 && m.activeParams > 0)
        d.computeSeconds = 2.0 * double(m.activeParams) * double(batch) / double(std::max(1, s.tp))
            / (g.bf16DenseTflops * 1e12 * s.computeUtilization);
    d.computeBound = d.computeSeconds > d.memorySeconds;
    d.seconds = std::max(d.memorySeconds, d.computeSeconds);
    d.tokensPerSecondPerGpu = double(batch) / d.seconds / double(std::max(1, s.tp));
    d.tokensPerSecondPerSession = 1.0 / d.seconds;
    return d;
}

std::optional<double> timeToFirstToken(const Scenario &s, qint64 weightsBytesPerGpu, double tokens)
{
    const GpuSpec &g = s.gpu;
    if (g.bandwidthBytesPerSecond <= 0 || g.bf16DenseTflops <= 0 || s.model.activeParams <= 0)
        return std::nullopt;
    const double compute = 2.0 * double(s.model.activeParams) * tokens / double(std::max(1, s.tp))
        / (g.bf16DenseTflops * 1e12 * s.computeUtilization);
    const double read = double(weightsBytesPerGpu) / (double(g.bandwidthBytesPerSecond) * s.bandwidthEfficiency);
    return std::max(compute, read);
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
