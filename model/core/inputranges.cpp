// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/inputranges.h"
#include <QRegularExpression>
#include "core/inputerror.h"
#include "core/units.h"

#include <QLocale>
#include <cmath>

namespace Headroom::InputRanges {

namespace {
// In the enum's order (checked by of()).
const RealRange ranges[] = {
    {RealInput::GpuMemoryUtilization, "--gpu-memory-utilization", "gpu_memory_utilization", 1e-6, 1},
    {RealInput::MemFractionStatic, "--mem-fraction-static", "mem_fraction_static", 1e-6, 1},
    {RealInput::FreeGpuMemoryFraction, "--free-gpu-memory-fraction", "free_gpu_memory_fraction", 1e-6, 1},
    {RealInput::LengthScale, "--length-scale", "length_scale", 1e-6, 1e6},
    {RealInput::TrafficMultiplier, "--traffic-multiplier", "traffic_multiplier", 1e-6, 1e6},
    {RealInput::Price, "--price", "price_usd_per_gpu_hour", 1e-9, 1e6},
    {RealInput::BandwidthEfficiency, "--bandwidth-efficiency", "bandwidth_efficiency", 1e-6, 1},
    {RealInput::ComputeUtilization, "--compute-utilization", "compute_utilization", 1e-6, 1},
    {RealInput::Risk, "--risk", "risk", 1e-6, 0.5},
    {RealInput::FleetRisk, "--fleet-risk", "fleet_risk", 1e-6, 0.5},
    {RealInput::Margin, "--margin", "margin", 0, 0.9},
    {RealInput::DecodingShare, "--decoding-share", "decoding_share", 1e-6, 1},
    {RealInput::ArrivalRate, "", "arrival_rate_per_second", 0, InputLimits::maxArrivalRatePerSecond},
    {RealInput::MeanOutputTokens, "", "mean_output_tokens", 0, double(InputLimits::maxTokens)},
};
// In the enum's order (checked by of()).
const CountRange counts[] = {
    {CountInput::SpeculativeTokens, "--num-speculative-tokens", "num_speculative_tokens", 0, 64},
    {CountInput::DraftLayers, "--draft-layers", "draft_layers", 0, 256},
    {CountInput::MaxLoras, "--max-loras", "max_loras", 0, 1024},
    {CountInput::MaxLoraRank, "--max-lora-rank", "max_lora_rank", 1, 1024},
};
// In the enum's order (checked by spelling()).
const InputSpelling spellings[] = {
    {Input::Context, "--context", "inputs.context_tokens", "inputs.context_tokens", nullptr},
    {Input::Sessions, "--sessions", "inputs.sessions", "inputs.sessions", nullptr},
    {Input::Tp, "--tp", "inputs.tp", "inputs.tp", nullptr},
    {Input::Pp, "--pp", "engine.pp", "inputs.pp", nullptr},
    {Input::Dp, "--dp", "engine.dp", "inputs.dp", nullptr},
    {Input::Ep, "--ep", "engine.ep", "inputs.ep", nullptr},
    {Input::GpuMemory, "--gpu-memory", "inputs.gpu_memory_bytes", "inputs.gpu_memory_bytes", "memory_bytes"},
    {Input::Weights, "--weights", "inputs.weights_bytes", "inputs.weights_bytes_override", nullptr},
    {Input::Workspace, "--workspace", "inputs.workspace_bytes", "inputs.workspace_bytes_per_gpu", nullptr},
    // No flag of their own: --workspace stands for both parts.
    {Input::RuntimeReserve, "--workspace", "inputs.runtime_reserve_bytes", "inputs.workspace_bytes_per_gpu", nullptr},
    {Input::Activation, "--workspace", "inputs.activation_bytes", "inputs.workspace_bytes_per_gpu", nullptr},
    {Input::MaxModelLen, "--max-model-len", "inputs.max_model_len", "inputs.max_model_len", "max_position_embeddings"},
    {Input::Retain, "--retain", "inputs.retain_tokens", "inputs.retain_tokens", nullptr},
    {Input::OutputTokens, "--output-tokens", "inputs.output_tokens", "inputs.output_tokens", nullptr},
    {Input::TargetSessions, "--target-sessions", "inputs.target_sessions", "inputs.target_sessions", nullptr},
    {Input::KvHeads, "--kv-heads", "inputs.kv_heads_override", "inputs.kv_heads_override", "num_key_value_heads"},
    {Input::BlockSize, "--block-size", "engine.block_size", "inputs.block_size", nullptr},
    {Input::NCtx, "--n-ctx", "engine.n_ctx", "inputs.n_ctx", nullptr},
    {Input::NSeq, "--n-seq", "engine.n_seq", "inputs.n_seq", nullptr},
    {Input::NBatch, "--n-batch", "engine.n_batch", "inputs.n_batch", nullptr},
    {Input::TokensPerBlock, "--tokens-per-block", "engine.tokens_per_block", "inputs.tokens_per_block", nullptr},
    {Input::MaxNumBatchedTokens, "--max-num-batched-tokens", "engine.max_num_batched_tokens", "inputs.max_num_batched_tokens", nullptr},
    {Input::KvCacheMemory, "--kv-cache-memory", "engine.kv_cache_memory", "inputs.kv_cache_memory_bytes", nullptr},
    {Input::FreeMemoryBefore, "--free-memory-before", "engine.free_memory_before", "inputs.free_memory_before_bytes", nullptr},
    {Input::FreeMemoryAfter, "--free-memory-after", "engine.free_memory_after", "inputs.free_memory_after_bytes", nullptr},
    {Input::ActivationPeak, "--activation-peak", "engine.activation_peak", "inputs.activation_peak_bytes", nullptr},
    {Input::NonTorch, "--non-torch", "engine.non_torch", "inputs.non_torch_bytes", nullptr},
    {Input::CudaGraph, "--cuda-graph", "engine.cuda_graph", "inputs.cuda_graph_bytes", nullptr},
    {Input::MaxNumSeqs, "--max-num-seqs", "engine.max_num_seqs", "inputs.max_num_seqs", nullptr},
    {Input::MaxBatchSize, "--max-batch-size", "engine.max_batch_size", "inputs.max_batch_size", nullptr},
    {Input::MaxNumTokens, "--max-num-tokens", "engine.max_num_tokens", "inputs.max_num_tokens", nullptr},
    {Input::MaxSeqLen, "--max-seq-len", "engine.max_seq_len", "inputs.max_seq_len", nullptr},
    {Input::Params, "--params", "model.total_params", "inputs.model", "total_params"},
    {Input::Model, "--model", "model.groups", "inputs.model", nullptr},
    {Input::Distribution, "--distribution", "distribution", "inputs.distribution", nullptr},
    {Input::GpuMemoryUtilization, "--gpu-memory-utilization", "engine.gpu_memory_utilization", "inputs.gpu_memory_utilization", nullptr},
    {Input::MemFractionStatic, "--mem-fraction-static", "engine.mem_fraction_static", "inputs.mem_fraction_static", nullptr},
    {Input::FreeGpuMemoryFraction, "--free-gpu-memory-fraction", "engine.free_gpu_memory_fraction", "inputs.free_gpu_memory_fraction", nullptr},
    {Input::LengthScale, "--length-scale", "inputs.length_scale", "inputs.length_scale", nullptr},
    {Input::Risk, "--risk", "inputs.risk", "inputs.risk", nullptr},
    {Input::FleetRisk, "--fleet-risk", "inputs.fleet_risk", "inputs.fleet_risk", nullptr},
    {Input::Margin, "--margin", "inputs.margin", "inputs.margin", nullptr},
    {Input::DecodingShare, "--decoding-share", "inputs.decoding_share", "inputs.decoding_share", nullptr},
    {Input::HostKvMemory, "--host-kv-memory", "inputs.host_kv_memory_bytes", "inputs.host_kv_memory_bytes", nullptr},
    {Input::GpusPerNode, "--gpus-per-node", "inputs.gpus_per_node", "inputs.gpus_per_node", nullptr},
    {Input::ImagesPerRequest, "--images-per-request", "inputs.images_per_request", "inputs.images_per_request", nullptr},
    {Input::DraftModel, "--draft-model", "speculative.draft_model", "inputs.draft_model", nullptr},
    {Input::DraftLayers, "--draft-layers", "speculative.draft_layers", "inputs.draft_layers", nullptr},
    {Input::SpeculativeTokens, "--num-speculative-tokens", "speculative.num_speculative_tokens", "inputs.num_speculative_tokens", nullptr},
    {Input::MaxLoras, "--max-loras", "lora.max_loras", "inputs.max_loras", nullptr},
    {Input::MaxLoraRank, "--max-lora-rank", "lora.max_lora_rank", "inputs.max_lora_rank", nullptr},
    {Input::LoraModules, "--lora-modules", "lora.modules", "inputs.lora_modules", nullptr},
    {Input::MaxOutputTokens, "--max-output-tokens", "engine.max_output_tokens", "inputs.max_output_tokens", nullptr},
    {Input::SchedulerPolicy, "--scheduler-policy", "engine.scheduler_policy", "inputs.scheduler_policy", nullptr},
    {Input::TrafficMultiplier, "--traffic-multiplier", "inputs.traffic_multiplier", "inputs.traffic_multiplier", nullptr},
};
static_assert(sizeof(spellings) / sizeof(spellings[0]) == inputCount, "one spelling per Input");

// The shortest text that reads back as the same double: 1000001 stays "1000001" (not the
// "1e+06" of six significant digits), a bound of 1e6 reads "1e+06".
QString shortest(double v)
{
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}
} // namespace

const RealRange &of(RealInput input)
{
    const RealRange &r = ranges[int(input)];
    Q_ASSERT(r.input == input);
    return r;
}

const CountRange &of(CountInput input)
{
    const CountRange &r = counts[int(input)];
    Q_ASSERT(r.input == input);
    return r;
}

const InputSpelling &spelling(Input input)
{
    const InputSpelling &r = spellings[int(input)];
    Q_ASSERT(r.input == input);
    return r;
}

int check(CountInput input, qint64 value, const QString &field)
{
    const CountRange &r = of(input);
    if (value < r.low || value > r.high)
        throw InputError(field, QStringLiteral("must be a whole number from %1 to %2, got %3").arg(Units::formatCount(r.low), Units::formatCount(r.high), Units::formatCount(value)));
    return int(value);
}

int small(qint64 value, const QString &field)
{
    if (value > 1'000'000)
        throw InputError(field, QStringLiteral("must be at most 1,000,000, got %1").arg(Units::formatCount(value)));
    return int(value);
}

QString name(Input input, InputSource source)
{
    const InputSpelling &r = spelling(input);
    const char *n = source == InputSource::ScenarioFile ? r.fileKey
        : source == InputSource::PlanOutput             ? r.planKey
        : source == InputSource::Preset                 ? r.presetKey
                                                        : r.flag;
    return QString::fromLatin1(n ? n : r.flag);
}

QString describe(RealInput input)
{
    const RealRange &r = of(input);
    return QStringLiteral("a number from %1 to %2").arg(shortest(r.low), shortest(r.high));
}

double check(RealInput input, double value, const QString &field)
{
    const RealRange &r = of(input);
    // -0 is 0: it takes the same rule (and is stored as 0).
    if (!std::isfinite(value) || value < r.low || value > r.high)
        throw InputError(field, QStringLiteral("must be a number from %1 to %2, got %3").arg(shortest(r.low), shortest(r.high), shortest(value)));
    return value == 0 ? 0.0 : value;
}

double parse(RealInput input, const QString &text, const QString &field)
{
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(v))
        throw InputError(field, QStringLiteral("\"%1\" is not a number").arg(text));
    const RealRange &r = of(input);
    if (v < r.low || v > r.high)
        throw InputError(field, QStringLiteral("must be a number from %1 to %2, got %3").arg(shortest(r.low), shortest(r.high), text));
    return v == 0 ? 0.0 : v;
}

double parseRisk(const QString &typed, const QString &field, const QLocale *locale, RealInput input)
{
    const QString text = typed.trimmed();
    double p = 0;
    static const QRegularExpression oneIn(QStringLiteral("^1\\s+in\\s+([^()]+?)\\s*(\\(.*\\))?$"), QRegularExpression::CaseInsensitiveOption);
    if (const QRegularExpressionMatch m = oneIn.match(text); m.hasMatch()) {
        p = 1.0 / double(locale ? Units::parseCount(m.captured(1), field, 1, *locale) : Units::parseCount(m.captured(1), field, 1));
    } else if (text.endsWith(QLatin1Char('%'))) {
        const QString number = text.chopped(1).trimmed();
        bool ok = false;
        const double percent = QLocale::c().toDouble(number, &ok);
        p = percent / 100.0;
        if (!ok && locale)
            p = locale->toDouble(number, &ok) / 100.0;
        if (!ok || !std::isfinite(p))
            throw InputError(field, QStringLiteral("\"%1\" is not a percentage").arg(text));
    } else {
        p = parse(input, text, field);
    }
    return check(input, p, field);
}

} // namespace Headroom::InputRanges

namespace Headroom {

QString InputNames::of(Input input) const
{
    const QString &n = m_names[size_t(input)];
    return n.isEmpty() ? InputRanges::name(input, InputSource::Flag) : n;
}

void InputNames::use(Input input, InputSource source)
{
    set(input, source == InputSource::Flag ? QString() : InputRanges::name(input, source));
}

void InputNames::useAll(InputSource source)
{
    for (int i = 0; i < inputCount; ++i)
        use(Input(i), source);
}

} // namespace Headroom
