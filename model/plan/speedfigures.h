// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "lengths/lengthdistribution.h"
#include "plan/capacityresult.h"

namespace Headroom {

/// Decode speed and cost into `d` (plan/servingestimate.h, with `weightsPerGpu` bytes of weights
/// per GPU): the inter-token latency at the asked sessions (their replica's share when the
/// fleet splits them: d's fleet figures come first) and at the risk-based count, tokens per
/// second and cost per million tokens there, the batch-versus-latency curve, and the time to
/// first token of the mean prompt, each time with its band. The sessions turn over with their
/// prompt and output: --output-tokens of the mean length, else a trace's own mean prompt and
/// output, else half the mean length each, at least one token of output.
void addSpeedFigures(DistributionFigures &d, const Scenario &s, const LengthDistribution &lengths, qint64 weightsPerGpu);

} // namespace Headroom
