// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace Headroom {

/// The real-valued inputs of a scenario that a person types (a flag, a file
/// field, a spin box), each with ONE range rule shared by the command line,
/// the scenario file reader and the window, so that whatever one of them
/// accepts the others reopen.
enum class RealInput {
    GpuMemoryUtilization,  ///< vLLM gpu_memory_utilization
    MemFractionStatic,     ///< SGLang mem_fraction_static
    FreeGpuMemoryFraction, ///< TensorRT-LLM free_gpu_memory_fraction
    LengthScale,           ///< every length x this factor
    TrafficMultiplier,     ///< scales a trace's arrival rate
    Price,                 ///< dollars per GPU-hour
    BandwidthEfficiency,   ///< achieved / peak memory bandwidth
    ComputeUtilization,    ///< achieved / peak dense TFLOPS
    Risk,                  ///< accepted P(KV pool overflows)
    Margin,                ///< share of the budget kept free at admission
    DecodingShare,         ///< share of retained sessions decoding at once (host tier)
    // File fields only (no flag) follow: loops over the flags end at DecodingShare.
    ArrivalRate,           ///< a trace's requests per second (a file field; no flag)
    MeanOutputTokens,      ///< a trace's mean generated tokens per request (a file field; no flag)
};

/// One input's rule: its command-line flag, its scenario-file key, and the
/// closed range [low, high] of values it takes. NaN, infinities and values
/// outside are refused.
struct RealRange
{
    RealInput input;
    const char *flag; ///< "--gpu-memory-utilization" (empty: a file field only)
    const char *key;  ///< "gpu_memory_utilization" (the .headroom field, under "engine." or "inputs.")
    double low;
    double high;
};

/// The whole-number side-pool inputs (speculative decoding, LoRA slots), each
/// with ONE range rule like RealInput's, shared by the command line, the
/// scenario file and the window.
enum class CountInput {
    SpeculativeTokens, ///< --num-speculative-tokens (0 = off)
    DraftLayers,       ///< --draft-layers (MTP / EAGLE layers; 0 = none)
    MaxLoras,          ///< --max-loras (0 = off)
    MaxLoraRank,       ///< --max-lora-rank
};

/// One whole-number input's rule: flag, scenario-file key, closed range.
struct CountRange
{
    CountInput input;
    const char *flag; ///< "--max-loras"
    const char *key;  ///< "max_loras" (the .headroom field, under "speculative." or "lora.")
    qint64 low;
    qint64 high;
};

namespace InputRanges {

/// The rule of `input`. Ranges: speculative tokens 0 to 64 (engines propose
/// 1 to about 10 per step; EAGLE trees stay under 64); draft layers 0 to 256
/// (MTP modules are 1 to a few layers; 256 is past any model's depth); LoRA
/// slots 0 to 1,024; rank 1 to 1,024 (vLLM accepts 1 to 512, SGLang any).
const CountRange &of(CountInput input);
/// `value` when it lies in the input's range, narrowed to int; else
/// InputError(field) with the range in the message.
int check(CountInput input, qint64 value, const QString &field);

/// The rule of `input`. Ranges: fractions of memory, bandwidth and compute
/// from 1e-6 to 1 (a share of 0 leaves no memory and divides by zero in the
/// serving estimate; engines refuse values above 1); scale and traffic
/// multiplier from 1e-6 to 1e6; a price from $1e-9 to $1e6 per GPU-hour;
/// risk from 1e-6 (the overflow solver's floor, lengths/overflowrisk) to 0.5;
/// margin from 0 to 0.9; a trace's arrival rate from 0 (not known) to 10^9
/// requests per second (LengthDistribution::maxArrivalRatePerSecond) and its
/// mean output from 0 to 2^53 tokens, so that rate x multiplier x latency
/// stays finite in every derived figure; the decoding share from 1e-6 to 1 (a
/// share of 0 would retain sessions without end). These are the ranges .headroom files have been read
/// with since version 1, so every saved file still opens.
const RealRange &of(RealInput input);
/// `value` when it lies in the input's range; else InputError(field) with
/// the range in the message (field as the caller spells the input).
double check(RealInput input, double value, const QString &field);
/// Parses `text` (a decimal such as "0.9" or "1e-3") and checks it; throws
/// InputError(field) for text that is not a finite number or out of range.
double parse(RealInput input, const QString &text, const QString &field);

} // namespace InputRanges
} // namespace Headroom
