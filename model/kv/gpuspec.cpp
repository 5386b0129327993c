// SPDX-License-Identifier: GPL-3.0-or-later
#include "kv/gpuspec.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "inputs/inputranges.h"

#include <cmath>

namespace Headroom {

namespace {
qint64 wholeBytes(const QJsonObject &o, const char *key, bool required)
{
    const QString k = QString::fromLatin1(key);
    const QJsonValue v = o.value(k);
    if (v.isUndefined() || v.isNull()) {
        if (required)
            throw InputError(k, QStringLiteral("is missing from the GPU preset"));
        return 0;
    }
    const double d = v.toDouble(-1);
    if (!v.isDouble() || d <= 0 || d != std::floor(d) || d >= 9.2e18)
        throw InputError(k, QStringLiteral("must be a positive whole number of bytes"));
    return qint64(d);
}
} // namespace

GpuSpec GpuSpec::fromPreset(const QJsonObject &p)
{
    GpuSpec g;
    g.id = p.value(QStringLiteral("id")).toString();
    g.name = p.value(QStringLiteral("name")).toString(g.id);
    g.vendor = p.value(QStringLiteral("vendor")).toString();
    g.memoryBytes = wholeBytes(p, "memory_bytes", true);
    g.memorySource = p.value(QStringLiteral("memory_source")).toString();
    g.torchMemoryBytes = wholeBytes(p, "torch_memory_bytes", false);
    g.torchMemorySource = p.value(QStringLiteral("torch_memory_source")).toString();
    g.marketedMemory = p.value(QStringLiteral("marketed_memory")).toString();
    g.bandwidthBytesPerSecond = wholeBytes(p, "bandwidth_bytes_per_s", false);
    const QJsonValue tflops = p.value(QStringLiteral("bf16_dense_tflops"));
    if (!tflops.isUndefined() && !tflops.isNull())
        g.bf16DenseTflops = JsonNumbers::real(tflops, QStringLiteral("bf16_dense_tflops"), 0, 1e9);
    g.hostLinkBytesPerSecond = wholeBytes(p, "host_link_bytes_per_s", false);
    g.source = p.value(QStringLiteral("source")).toString();
    g.sourceDate = p.value(QStringLiteral("source_date")).toString();
    const QJsonValue price = p.value(QStringLiteral("price_usd_per_hour"));
    if (price.isDouble())
        g.priceUsdPerHour = InputRanges::check(RealInput::Price, price.toDouble(), QStringLiteral("price_usd_per_hour"));
    else if (!price.isUndefined() && !price.isNull())
        throw InputError(QStringLiteral("price_usd_per_hour"), QStringLiteral("must be a number of dollars, or null"));
    g.priceSource = p.value(QStringLiteral("price_source")).toString();
    g.priceDate = p.value(QStringLiteral("price_date")).toString();
    return g;
}

qint64 GpuSpec::engineVisibleBytes() const
{
    if (torchMemoryBytes > 0)
        return torchMemoryBytes;
    if (vendor == QLatin1String("NVIDIA") && memoryBytes > 4 * (qint64(1) << 30))
        return memoryBytes - (qint64(1) << 29);
    return memoryBytes;
}

GpuSpec GpuSpec::custom(qint64 memoryBytes)
{
    GpuSpec g;
    g.id = QStringLiteral("custom");
    g.name = QStringLiteral("Custom card");
    g.memoryBytes = memoryBytes;
    g.memorySource = QStringLiteral("given by the user");
    return g;
}

bool GpuSpec::operator==(const GpuSpec &o) const
{
    return id == o.id && name == o.name && vendor == o.vendor && memoryBytes == o.memoryBytes
        && memorySource == o.memorySource && torchMemoryBytes == o.torchMemoryBytes
        && torchMemorySource == o.torchMemorySource && marketedMemory == o.marketedMemory
        && bandwidthBytesPerSecond == o.bandwidthBytesPerSecond && bf16DenseTflops == o.bf16DenseTflops
        && hostLinkBytesPerSecond == o.hostLinkBytesPerSecond && source == o.source && sourceDate == o.sourceDate
        && priceUsdPerHour == o.priceUsdPerHour && priceSource == o.priceSource && priceDate == o.priceDate;
}

QDebug operator<<(QDebug dbg, const GpuSpec &g)
{
    QDebugStateSaver saver(dbg);
    dbg.nospace() << "GpuSpec(" << g.id << ", " << g.memoryBytes << " B, " << g.bandwidthBytesPerSecond << " B/s, $"
                  << g.priceUsdPerHour.value_or(-1) << "/h)";
    return dbg;
}

} // namespace Headroom
