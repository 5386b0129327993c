// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"

#include <optional>

namespace Headroom {

/// Decode speed at a batch of concurrent sessions on one replica. One step, per pipeline stage:
///   max(memory, compute) + fixed + collectives
/// - memory: the weights each GPU reads (MoE: the experts the batch touches, E x (1 - (1 -
///   k/E)^B) of E per layer, not the active count) plus every session's KV, at peak bandwidth
///   x the bandwidth fraction (Pope et al., "Efficiently Scaling Transformer Inference", 2022);
/// - compute: 2 x active parameters x B over the TP group, plus attention, 2 FLOPs per cached
///   value read per query head sharing it (GQA: heads / max(kv_heads, TP); MLA absorbed: every
///   head reads the latent twice, for the score and the value; DeepSeek-V2, arXiv 2405.04434
///   s. 2.1), at the card's tensor peak for the weights' format x the compute fraction;
/// - fixed: layers x a per-layer cost (+ a per-MoE-layer cost) + a per-step cost;
/// - collectives: with TP, two all-reduces per layer (after attention and after the MLP;
///   Megatron-LM, Shoeybi et al. 2019), each a latency plus 2 (TP - 1) / TP x B x hidden x 2
///   bytes over the card's GPU-to-GPU link; with EP, a dispatch and a combine per MoE layer of
///   B x k x hidden x 2 bytes x (EP - 1) / EP.
/// - turnover: a session ends every `outputTokens` steps and the one replacing it is prefilled in
///   the running batch (chunked prefill: vLLM V1, SGLang, TensorRT-LLM in-flight batching), so
///   each step also computes batch / output x the prefill FLOPs of a `promptTokens` prompt. This
///   is what a serving benchmark's TPOT holds beside the decode itself (vLLM bench serve: TPOT =
///   (E2E - TTFT) / (output - 1) over requests that run among others' prefills).
/// With PP a token crosses every stage in turn: the step is PP stages long (no micro-batch
/// overlap). The fractions and fixed costs are the engine's TimeConstants.
struct DecodeStep
{
    double seconds = 0;           ///< one decode step = inter-token latency
    double memorySeconds = 0;     ///< per stage
    double computeSeconds = 0;    ///< per stage
    double fixedSeconds = 0;      ///< per stage: layers x per-layer cost + per-step cost
    double collectiveSeconds = 0; ///< per stage: TP all-reduces and EP all-to-alls
    double weightsReadBytes = 0;  ///< per GPU per step
    double kvReadBytes = 0;       ///< per GPU per step
    double flops = 0;             ///< per GPU per step: matrix products and attention, turnover's prefill included
    double turnoverFlops = 0;     ///< per GPU per step: the share of replacing sessions' prefill
    double collectiveBytes = 0;   ///< per GPU per step over the link
    int collectives = 0;          ///< collectives per stage per step
    double layers = 0;            ///< layers per stage
    bool moe = false;             ///< the layers hold routed experts (the MoE per-layer cost applies)
    int stages = 1;               ///< PP: the step is this many stages long
    double linkBytesPerSecond = 0; ///< the link the collectives cross (GpuSpec::collectiveLinkBytesPerSecond)
    bool computeBound = false;
    double tokensPerSecondPerGpu = 0; ///< batch / step / (TP x PP)
    double tokensPerSecondPerSession = 0;
};

/// The sessions' prompt and output, tokens: a session decodes `outputTokens` tokens after its
/// `promptTokens` prompt. Zero output: no turnover (sessions that never end, or the replay, which
/// times each prefill itself).
struct Turnover
{
    double promptTokens = 0;
    double outputTokens = 0;
};

/// The step at `batch` sessions of `kvBytesPerSessionPerGpu` mean resident bytes, turning over
/// as `turnover` says. `weightsBytesPerGpu` as the engine holds them. Empty when the card has no
/// bandwidth figure (a custom card) or the batch is 0.
std::optional<DecodeStep> decodeStep(const Scenario &s, qint64 weightsBytesPerGpu, double kvBytesPerSessionPerGpu, qint64 batch,
                                     const Turnover &turnover = {});

/// Time to first token for a prompt of `tokens` computed (after any prefix hit), seconds: in
/// chunks of 8,192 tokens (vLLM's and SGLang's default chunked-prefill budget), each the longer
/// of its FLOPs (2 x active parameters x tokens plus causal attention, 2 x heads x (K + V
/// head dims; MLA absorbed: latent + RoPE dims) x tokens x tokens / 2 per layer, a window
/// capping the second factor) at the tensor peak x the compute
/// fraction and one read of the weights, plus each chunk's fixed cost and TP collectives;
/// PP stages in turn. Empty when the card has no bandwidth or compute figure.
std::optional<double> timeToFirstToken(const Scenario &s, qint64 weightsBytesPerGpu, double tokens);

/// The card's dense tensor peak the step's compute is timed against, FLOPS: the datasheet's
/// dense BF16 figure, whatever the weights' format. Tried and left: 2 x for fp8 and 4 x for
/// nvfp4/mxfp4 on cards that run them natively (GpuSpec::runsNatively) fitted the measured rows
/// worse (held-out median |error| 18.0% against 15.7%, tools/fit_time.py): at decode's batch
/// sizes the low-precision GEMMs do not reach their doubled peak.
double tensorPeakFlops(const GpuSpec &gpu);

/// A time figure with its band: the prediction and the range the measured figure fell in
/// on the rows held out of the fit (TimeConstants::bandLow/High). ms.
struct TimeBand
{
    double low = 0;
    double high = 0;
};
/// The band around `ms`, a decode step (`prefill` false) or a time to first token, under
/// `s`'s engine.
TimeBand timeBand(const Scenario &s, double ms, bool prefill = false);

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
