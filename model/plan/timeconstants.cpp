// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/timeconstants.h"

namespace Headroom {

namespace {

// Rows of tests/data/latency-rows.csv the constants were fitted on: the "fit" half of the
// AIConfigurator silicon_sample.csv rows (ai-dynamo/aiconfigurator@095f58a5, split by a CRC of
// the row id) and, for llama.cpp, the llama-bench rows F01-F05. Never the latency.md rows.
constexpr const char *fitRows = "tests/data/latency-rows.csv, set \"fit\" (silicon_sample.csv@095f58a5 rows and F01-F05)";

// The collective latency and compute fraction are shared; the band (5th-95th percentile of
// measured / predicted on the 280 held-out rows) is one for every engine. The TTFT band is the
// same percentiles over the 168 rows at 8 sessions or fewer (tools/fit_time.py --check): their
// TTFT holds the wait behind other requests' prefills, which the plan's unloaded figure leaves
// out, so it is wide and mostly above.
constexpr double collectiveUs = 18.05;
constexpr double computeFraction = 0.523;
constexpr double bandLow = 0.633, bandHigh = 1.519;
constexpr double ttftBandLow = 0.694, ttftBandHigh = 8.04;

// Fitted by tools/fit_time.py: per engine the bandwidth fraction and the per-layer, per-MoE-layer
// and per-step costs (us). Plain (no engine's own rows) takes the mean of the four.
TimeConstants fitted(Engine e)
{
    TimeConstants c;
    switch (e) {
    case Engine::Vllm:
        c = {0.813, computeFraction, 48.8, 5.0, 61.6, collectiveUs};
        break;
    case Engine::Sglang:
        c = {0.634, computeFraction, 23.1, 14.5, 1000.0, collectiveUs};
        break;
    case Engine::Trtllm:
        c = {0.694, computeFraction, 21.9, 24.9, 546.5, collectiveUs};
        break;
    case Engine::LlamaCpp:
    case Engine::Ollama: // Ollama runs llama.cpp's kernels
        c = {0.95, computeFraction, 60.0, 5.0, 723.5, collectiveUs};
        break;
    case Engine::Plain:
        c = {0.773, computeFraction, 38.4, 12.3, 582.9, collectiveUs};
        break;
    }
    c.bandLow = bandLow;
    c.bandHigh = bandHigh;
    c.ttftBandLow = ttftBandLow;
    c.ttftBandHigh = ttftBandHigh;
    c.fittedOn = fitRows;
    return c;
}

} // namespace

TimeConstants timeConstants(const Scenario &s)
{
    TimeConstants c = fitted(s.engine);
    if (s.bandwidthEfficiency)
        c.bandwidthFraction = *s.bandwidthEfficiency;
    if (s.computeUtilization)
        c.computeFraction = *s.computeUtilization;
    return c;
}

} // namespace Headroom
