// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/speedfigures.h"
#include "plan/servingestimate.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace Headroom {

namespace {

// The sessions' prompt and output (tokens): --output-tokens of the mean length, else a trace's
// own mean prompt and output, else half the mean length each.
Turnover turnoverOf(const Scenario &s, const DistributionFigures &d, const LengthDistribution &lengths)
{
    // A session outputs at least one token (a length scale can take a trace's mean below one).
    if (s.outputTokens)
        return Turnover{std::max(0.0, d.meanTokens - double(*s.outputTokens)), std::max(1.0, std::min(double(*s.outputTokens), d.meanTokens))};
    if (!lengths.promptLengths.isEmpty() && lengths.meanOutputTokens > 0) {
        double prompt = 0;
        for (int i = 0; i < lengths.promptLengths.size(); ++i)
            prompt += double(lengths.promptLengths.at(i)) * lengths.promptProbabilities.at(i);
        return Turnover{prompt, std::max(1.0, lengths.meanOutputTokens)};
    }
    return Turnover{d.meanTokens / 2.0, std::max(1.0, d.meanTokens / 2.0)};
}

} // namespace

void addSpeedFigures(DistributionFigures &d, const Scenario &s, const LengthDistribution &lengths, qint64 weightsPerGpu)
{
    const Turnover turnover = turnoverOf(s, d, lengths);
    // The sessions asked, or their replica's share when they are beyond one replica (the fleet
    // splits them: addFleetFigures runs first).
    d.step = decodeStep(s, weightsPerGpu, d.meanSessionBytesPerGpu, d.sessionsPerReplica > 0 ? d.sessionsPerReplica : s.sessions, turnover);
    if (d.step) {
        d.itlMs = d.step->seconds * 1e3;
        d.itlBand = timeBand(s, *d.itlMs);
    }
    const auto atRisk = decodeStep(s, weightsPerGpu, d.meanSessionBytesPerGpu, d.sessionsAtRisk, turnover);
    const auto price = s.effectivePrice();
    if (atRisk) {
        d.itlMsAtRisk = atRisk->seconds * 1e3;
        d.itlAtRiskBand = timeBand(s, *d.itlMsAtRisk);
        d.tokensPerSecondPerGpu = atRisk->tokensPerSecondPerGpu;
        const TimeBand step = timeBand(s, 1.0);
        d.tokensPerSecondBand = TimeBand{atRisk->tokensPerSecondPerGpu / step.high, atRisk->tokensPerSecondPerGpu / step.low};
        if (price)
            d.costPerMillionTokensUsd = *price / (atRisk->tokensPerSecondPerGpu * 3600.0) * 1e6;
    }
    // Batch versus latency: 24 points from 1 session to 1.5 x the risk-based count.
    // (1.5 x the count, held below 2^63: a count near 2^63 must not wrap.)
    const qint64 top = std::max<qint64>(8, d.sessionsAtRisk + std::min(d.sessionsAtRisk / 2, std::numeric_limits<qint64>::max() - d.sessionsAtRisk));
    for (int i = 0; i < 24; ++i) {
        const qint64 batch = std::max<qint64>(1, qint64(std::llround(std::pow(double(top), i / 23.0))));
        if (!d.throughputCurve.isEmpty() && d.throughputCurve.last().sessions == batch)
            continue;
        if (const auto step = decodeStep(s, weightsPerGpu, d.meanSessionBytesPerGpu, batch, turnover))
            d.throughputCurve << ThroughputPoint{batch, step->seconds * 1e3, step->tokensPerSecondPerGpu};
    }
    if (const auto ttft = timeToFirstToken(s, weightsPerGpu, std::max(1.0, turnover.promptTokens))) {
        d.ttftMs = *ttft * 1e3;
        d.ttftBand = timeBand(s, *d.ttftMs, true);
    }
}

} // namespace Headroom
