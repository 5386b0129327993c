// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/inputranges.h"
#include "core/inputerror.h"
#include "lengths/lengthdistribution.h"
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
    {RealInput::Margin, "--margin", "margin", 0, 0.9},
    {RealInput::DecodingShare, "--decoding-share", "decoding_share", 1e-6, 1},
    {RealInput::ArrivalRate, "", "arrival_rate_per_second", 0, LengthDistribution::maxArrivalRatePerSecond},
    {RealInput::MeanOutputTokens, "", "mean_output_tokens", 0, double(LengthDistribution::maxTokens)},
};
// In the enum's order (checked by of()).
const CountRange counts[] = {
    {CountInput::SpeculativeTokens, "--num-speculative-tokens", "num_speculative_tokens", 0, 64},
    {CountInput::DraftLayers, "--draft-layers", "draft_layers", 0, 256},
    {CountInput::MaxLoras, "--max-loras", "max_loras", 0, 1024},
    {CountInput::MaxLoraRank, "--max-lora-rank", "max_lora_rank", 1, 1024},
};
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

int check(CountInput input, qint64 value, const QString &field)
{
    const CountRange &r = of(input);
    if (value < r.low || value > r.high)
        throw InputError(field, QStringLiteral("must be a whole number from %1 to %2, got %3").arg(Units::formatCount(r.low), Units::formatCount(r.high), Units::formatCount(value)));
    return int(value);
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

} // namespace Headroom::InputRanges
