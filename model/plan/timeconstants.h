// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"

namespace Headroom {

/// The achieved fractions and fixed costs of one engine's decode and prefill, fitted to
/// measured rows (tests/data/latency-rows.csv, each row cited; the fit is
/// tools/fit_time.py, its held-out error in the README's "Time" section). The decode step
/// and the prefill (plan/servingestimate.h) take them; --bandwidth-efficiency and
/// --compute-utilization replace the two fractions.
struct TimeConstants
{
    double bandwidthFraction = 0;      ///< achieved / peak memory bandwidth while reading weights and KV
    double computeFraction = 0;        ///< achieved / peak dense tensor FLOPS of the step's matrix products
    double layerMicroseconds = 0;      ///< fixed cost per layer per step: kernel launches, norms, RoPE, the KV write
    double moeLayerMicroseconds = 0;   ///< added per MoE layer: routing, the grouped expert kernels
    double stepMicroseconds = 0;       ///< per step: scheduling, sampling, the host round trip
    double collectiveMicroseconds = 0; ///< latency of one all-reduce or all-to-all over the group
    /// measured / predicted inter-token latency on the rows held out of the fit: the 5th and
    /// 95th percentiles, so a figure's band is [predicted x low, predicted x high].
    double bandLow = 1;
    double bandHigh = 1;
    /// The same for the time to first token.
    double ttftBandLow = 1;
    double ttftBandHigh = 1;
    const char *fittedOn = "";         ///< the rows the constants came from (ids in latency-rows.csv)
};

/// The constants of the engine `s.engine` in force for `s`, with the scenario's own
/// fractions (--bandwidth-efficiency, --compute-utilization) put in place of the fitted ones.
TimeConstants timeConstants(const Scenario &s);

} // namespace Headroom
