// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLocale>
#include <QString>
#include <QtGlobal>
#include <array>

namespace Headroom {

/// Limits that a range rule below and the length distributions (lengths/) share.
namespace InputLimits {
/// The longest session length any distribution holds: 2^53 tokens, the
/// largest count a double (means, scaling, the discretising grid) still
/// holds exactly. Longer lengths are refused with the field named.
constexpr qint64 maxTokens = qint64(1) << 53;
/// The highest arrival rate a trace may give: 10^9 requests per second
/// (one a nanosecond, the finest timestamp a trace carries); beyond it the
/// trace is refused with the field named, so that rate x traffic
/// multiplier (<= 10^6) x latency stays a finite figure.
constexpr double maxArrivalRatePerSecond = 1e9;
/// The most memory a card may have: 2^50 B (1 PiB), over 3,000 times the
/// largest card sold (288 GB, B300 / MI355X). Every engine rule's sums of
/// the card's bytes (budget, band, fleet) stay far inside 64 bits below it;
/// a larger card is refused naming the field that gave it.
constexpr qint64 maxCardBytes = qint64(1) << 50;
} // namespace InputLimits

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
    Risk,                  ///< accepted P(KV pool overflows), per replica (TP group)
    FleetRisk,             ///< accepted P(some replica of the fleet overflows)
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

/// Where one of a scenario's values came from, for naming it in an error the
/// way that place spells it.
enum class InputSource {
    Flag,         ///< the command line (and the window, which shows the flags' names)
    ScenarioFile, ///< a .headroom file: "inputs.sessions", "engine.n_ctx"
    PlanOutput,   ///< a saved `plan --json` (scenario version 0): "inputs.kv_cache_memory_bytes"
    Preset,       ///< a GPU or model preset's own field: "memory_bytes"
};

/// The inputs of a scenario a plan can refuse: whole numbers, sizes, shapes,
/// the real-valued inputs the plan checks again (their ranges are RealInput's)
/// and the side pools, each named in errors as its source spells it.
enum class Input {
    Context, Sessions, Tp, Pp, Dp, Ep, GpuMemory, Weights, Workspace, RuntimeReserve, Activation,
    MaxModelLen, Retain, OutputTokens, TargetSessions, KvHeads, BlockSize, NCtx, NSeq, NBatch, TokensPerBlock,
    MaxNumBatchedTokens, KvCacheMemory, FreeMemoryBefore, FreeMemoryAfter, ActivationPeak, NonTorch,
    CudaGraph, MaxNumSeqs, MaxBatchSize, MaxNumTokens, MaxSeqLen, Params, Model, Distribution,
    // The real-valued inputs the plan checks (their range rules are RealInput's) and the
    // side pools (issue 14): named as their source spells them like every other input.
    GpuMemoryUtilization, MemFractionStatic, FreeGpuMemoryFraction, LengthScale, Risk, FleetRisk, Margin, DecodingShare,
    HostKvMemory, GpusPerNode, ImagesPerRequest, DraftModel, DraftLayers, SpeculativeTokens, MaxLoras, MaxLoraRank,
    LoraModules,
    // Admission (issue 32): TensorRT-LLM's capacity scheduler and the output it reserves.
    MaxOutputTokens, SchedulerPolicy,
    // A trace's arrivals scaled (Little's law, the replay).
    TrafficMultiplier,
};
constexpr int inputCount = int(Input::TrafficMultiplier) + 1;

/// One input's spellings: its command-line flag, its .headroom field, its
/// field in a saved plan --json, and its preset field (nullptr where that
/// source cannot hold it).
struct InputSpelling
{
    Input input;
    const char *flag;    ///< "--sessions"
    const char *fileKey; ///< "inputs.sessions"
    const char *planKey; ///< "inputs.sessions"
    const char *presetKey; ///< "memory_bytes", or nullptr
};

/// The names a scenario's inputs carry in errors: each input as the place
/// its value came from spells it (the flag unless a reader said otherwise).
/// A log reading names its figures by line ("LOGFILE line 12:
/// tensor_parallel_size=3"). Not part of the scenario's value (==).
class InputNames
{
public:
    /// The input's name as its source spells it.
    QString of(Input input) const;
    /// Names `input` `name` (a log line, a preset's field).
    void set(Input input, const QString &name) { m_names[size_t(input)] = name; }
    /// Names `input` as `source` spells it.
    void use(Input input, InputSource source);
    /// Names every input as `source` spells it (a scenario file read whole).
    void useAll(InputSource source);

private:
    std::array<QString, inputCount> m_names; // empty: the flag
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
/// A small whole-number setting (TP, PP, a block size, sequences, a batch, heads, layers) as
/// the command line and the window take it: `value` when at most 1,000,000, narrowed to int;
/// else InputError(field) "must be at most 1,000,000, got N". The caller has checked it is at least 1.
int small(qint64 value, const QString &field);
/// The spellings of `input`.
const InputSpelling &spelling(Input input);
/// `input` as `source` spells it; the flag where the source has no field of its own.
QString name(Input input, InputSource source);

/// The rule of `input`. Ranges: fractions of memory, bandwidth and compute
/// from 1e-6 to 1 (a share of 0 leaves no memory and divides by zero in the
/// serving estimate; engines refuse values above 1); scale and traffic
/// multiplier from 1e-6 to 1e6; a price from $1e-9 to $1e6 per GPU-hour;
/// risk from 1e-6 (the overflow solver's floor, lengths/overflowrisk) to 0.5, and
/// the fleet's risk in the same range (each replica's is at most the fleet's);
/// margin from 0 to 0.9; a trace's arrival rate from 0 (not known) to 10^9
/// requests per second (LengthDistribution::maxArrivalRatePerSecond) and its
/// mean output from 0 to 2^53 tokens, so that rate x multiplier x latency
/// stays finite in every derived figure; the decoding share from 1e-6 to 1 (a
/// share of 0 would retain sessions without end). These are the ranges .headroom files have been read
/// with since version 1, so every saved file still opens.
const RealRange &of(RealInput input);
/// "a number from LOW to HIGH": the input's range as every refusal of it words it.
QString describe(RealInput input);
/// `value` when it lies in the input's range; else InputError(field) with
/// the range in the message (field as the caller spells the input).
double check(RealInput input, double value, const QString &field);
/// Parses `text` (a decimal such as "0.9" or "1e-3") and checks it; throws
/// InputError(field) for text that is not a finite number or out of range.
double parse(RealInput input, const QString &text, const QString &field);
/// A risk as a person types it, the one reader of the command line (--risk) and the
/// window's risk box: "1 in 5,000" (the count as Units::parseCount reads it, in `locale`
/// first when one is given), the shown form "1 in 5,000 (2e-4)" (the figure in brackets is
/// the same risk rounded, not read), a percentage "0.2%" (C locale, then `locale`), or a
/// probability "0.0002" / "2e-4". Checked against the range of `input` (RealInput::Risk,
/// or RealInput::FleetRisk for --fleet-risk: the same forms); throws InputError(field)
/// naming the form it failed to read.
double parseRisk(const QString &text, const QString &field, const QLocale *locale = nullptr, RealInput input = RealInput::Risk);

} // namespace InputRanges
} // namespace Headroom
