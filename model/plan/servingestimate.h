// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"

#include <optional>

namespace Headroom {

/// Decode speed at a batch of concurrent sessions on one TP group, from the
/// bandwidth-bound model of decode: each step reads the weights once (MoE:
/// the experts the batch touches, E x (1 - (1 - k/E)^B) of E on average
/// with top-k routing) plus every resident session's KV cache, at
/// bandwidth x efficiency; or takes 2 x active parameters x B FLOPs at
/// TFLOPS x utilisation, whichever is longer (roofline; Pope et al.,
/// "Efficiently Scaling Transformer Inference", 2022). Defaults: efficiency
/// 0.8 and utilisation 0.5 (Scenario), editable.
struct DecodeStep
{
    double seconds = 0;           ///< one decode step = inter-token latency
    double memorySeconds = 0;
    double computeSeconds = 0;
    double weightsReadBytes = 0;  ///< per GPU per step
    double kvReadBytes = 0;       ///< per GPU per step
    bool computeBound = false;
    double tokensPerSecondPerGpu = 0; ///< batch / step / TP
    double tokensPerSecondPerSession = 0;
};

/// The step at `batch` sessions of `kvBytesPerSessionPerGpu` mean resident
/// bytes. `weightsBytesPerGpu` as the engine holds them. Empty when the card
/// has no bandwidth figure (a custom card) or the batch is 0.
std::optional<DecodeStep> decodeStep(const Scenario &s, qint64 weightsBytesPerGpu, double kvBytesPerSessionPerGpu, qint64 batch);

/// Time to first token for a prompt of `tokens`, seconds: the prefill's
/// 2 x active parameters x tokens FLOPs over the TP group at TFLOPS x
/// utilisation, or one read of the weights, whichever is longer.
std::optional<double> timeToFirstToken(const Scenario &s, qint64 weightsBytesPerGpu, double tokens);

/// Requests in flight at once by Little's law at their own latency: the fixed point
/// c = rate x (TTFT + mean output x ITL(c)), with ITL(c) the decode step at ceil(c) requests
/// of `kvBytesPerSessionPerGpu` each, found by iteration from c = 1 (ITL grows with the batch,
/// so the sequence rises to it). It depends on the KV precision only through ITL(c), returned
/// beside it (ms). Empty when the card has no bandwidth figure, when c passes `ceiling` (decode
/// cannot keep up with the arrivals: no steady state) or does not settle in 200 rounds.
/// `ratePerSecond`: arrivals; `ttftMs`: time to first token; `meanOutputTokens`: per request.
struct TrafficConcurrency
{
    double requests = 0;
    double itlMs = 0;
};
std::optional<TrafficConcurrency> trafficConcurrency(const Scenario &s, qint64 weightsBytesPerGpu, double kvBytesPerSessionPerGpu, double ratePerSecond,
                                                     double ttftMs, double meanOutputTokens, double ceiling);

} // namespace Headroom
