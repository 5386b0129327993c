// SPDX-License-Identifier: GPL-3.0-or-later
#include "kv/gpuspec.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "core/units.h"
#include "core/inputranges.h"

#include <QRegularExpression>
#include <cmath>
#include <limits>

namespace Headroom {

namespace {
// A positive whole number of bytes: a JSON number, or the decimal string a .headroom file
// keeps a figure above 2^53 in (ScenarioFile writes both); 0 when absent and not required.
qint64 wholeBytes(const QJsonObject &o, const char *key, bool required, bool decimalStrings)
{
    const QJsonValue v = o.value(QString::fromLatin1(key));
    if (!required && (v.isUndefined() || v.isNull()))
        return 0;
    if (v.isUndefined() || v.isNull())
        throw InputError(QString::fromLatin1(key), QStringLiteral("is missing from the GPU preset"));
    try {
        return JsonNumbers::whole(v, QString::fromLatin1(key), 1, std::numeric_limits<qint64>::max(), decimalStrings);
    } catch (const InputError &) {
        throw InputError(QString::fromLatin1(key), QStringLiteral("must be a positive whole number of bytes"));
    }
}
// native_formats: a list of format names, or null / absent / empty (not stated: every card runs
// some format natively, so an empty list says nothing).
std::optional<QList<Dtype>> nativeFormatsOf(const QJsonObject &o)
{
    const QJsonValue v = o.value(QStringLiteral("native_formats"));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    if (!v.isArray())
        throw InputError(QStringLiteral("native_formats"), QStringLiteral("must be a list of format names, e.g. [\"fp8\", \"int8\"], or null"));
    QList<Dtype> out;
    for (const QJsonValue &name : v.toArray()) {
        if (!name.isString())
            throw InputError(QStringLiteral("native_formats"), QStringLiteral("must hold format names (text), e.g. \"fp8\""));
        const Dtype d = Dtypes::parse(name.toString(), QStringLiteral("native_formats"));
        if (!out.contains(d))
            out << d;
    }
    if (out.isEmpty())
        return std::nullopt;
    return out;
}
} // namespace

GpuSpec GpuSpec::fromPreset(const QJsonObject &p, bool decimalStrings)
{
    GpuSpec g;
    const QString text = QStringLiteral("a text");
    // A GPU preset's kind, where the object carries one (a preset, a scenario's card).
    if (const QString kind = JsonNumbers::text(p, "kind", QStringLiteral("gpu"), QString(), QStringLiteral("\"gpu\"")); kind != QLatin1String("gpu"))
        throw InputError(QStringLiteral("kind"), QStringLiteral("must be \"gpu\" for a card, got \"%1\"").arg(kind));
    g.id = JsonNumbers::text(p, "id", QString(), QString(), text);
    g.name = JsonNumbers::text(p, "name", g.id, QString(), text);
    g.vendor = JsonNumbers::text(p, "vendor", QString(), QString(), text);
    g.memoryBytes = wholeBytes(p, "memory_bytes", true, decimalStrings);
    g.memorySource = JsonNumbers::text(p, "memory_source", QString(), QString(), text);
    g.torchMemoryBytes = wholeBytes(p, "torch_memory_bytes", false, decimalStrings);
    g.torchMemorySource = JsonNumbers::text(p, "torch_memory_source", QString(), QString(), text);
    // torch sees the card less what the driver keeps: never more than the card holds.
    if (g.torchMemoryBytes > g.memoryBytes)
        throw InputError(QStringLiteral("torch_memory_bytes"), QStringLiteral("%1 is more than the card's memory_bytes %2: torch sees at most the whole card")
                                                                   .arg(Units::formatCount(g.torchMemoryBytes), Units::formatCount(g.memoryBytes)));
    g.marketedMemory = JsonNumbers::text(p, "marketed_memory", QString(), QString(), text);
    g.bandwidthBytesPerSecond = wholeBytes(p, "bandwidth_bytes_per_s", false, decimalStrings);
    const QJsonValue tflops = p.value(QStringLiteral("bf16_dense_tflops"));
    if (!tflops.isUndefined() && !tflops.isNull())
        g.bf16DenseTflops = JsonNumbers::real(tflops, QStringLiteral("bf16_dense_tflops"), 0, 1e9);
    g.nativeFormats = nativeFormatsOf(p);
    g.nativeFormatsSource = JsonNumbers::text(p, "native_formats_source", QString(), QString(), text);
    g.hostLinkBytesPerSecond = wholeBytes(p, "host_link_bytes_per_s", false, decimalStrings);
    g.peerLinkBytesPerSecond = wholeBytes(p, "peer_link_bytes_per_s", false, decimalStrings);
    g.source = JsonNumbers::text(p, "source", QString(), QString(), text);
    g.sourceDate = JsonNumbers::text(p, "source_date", QString(), QString(), text);
    const QJsonValue price = p.value(QStringLiteral("price_usd_per_hour"));
    if (price.isDouble())
        g.priceUsdPerHour = InputRanges::check(RealInput::Price, price.toDouble(), QStringLiteral("price_usd_per_hour"));
    else if (!price.isUndefined() && !price.isNull())
        throw InputError(QStringLiteral("price_usd_per_hour"), QStringLiteral("must be a number of dollars, or null"));
    g.priceSource = JsonNumbers::text(p, "price_source", QString(), QString(), text);
    g.priceDate = JsonNumbers::text(p, "price_date", QString(), QString(), text);
    return g;
}

std::optional<bool> GpuSpec::runsNatively(Dtype d) const
{
    if (!nativeFormats)
        return std::nullopt;
    return nativeFormats->contains(d);
}

QJsonArray GpuSpec::formatsToJson(const QList<Dtype> &formats)
{
    QJsonArray out;
    for (Dtype d : formats)
        out.append(Dtypes::name(d));
    return out;
}

QJsonArray GpuSpec::formatsFromText(const QString &text, const QString &field)
{
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    QList<Dtype> formats;
    for (const QString &name : text.split(separators, Qt::SkipEmptyParts)) {
        const Dtype d = Dtypes::parse(name, field);
        if (!formats.contains(d))
            formats << d;
    }
    return formatsToJson(formats);
}

QString GpuSpec::formatsText(const QJsonValue &formats)
{
    QStringList names;
    for (const QJsonValue &name : formats.toArray())
        names << name.toString();
    return names.join(QStringLiteral(", "));
}

qint64 GpuSpec::engineVisibleBytes() const
{
    if (torchMemoryBytes > 0)
        return torchMemoryBytes;
    if (vendor == QLatin1String("NVIDIA") && memoryBytes > 4 * (qint64(1) << 30))
        return memoryBytes - (qint64(1) << 29);
    return memoryBytes;
}

std::optional<qint64> GpuSpec::marketedBytes() const
{
    static const QRegularExpression size(QStringLiteral("^\\s*([0-9]+(\\.[0-9]+)?\\s*(TB|GB|TiB|GiB))\\b"));
    const QRegularExpressionMatch m = size.match(marketedMemory);
    if (!m.hasMatch())
        return std::nullopt;
    try {
        return Units::parseSize(m.captured(1), QStringLiteral("marketed_memory"));
    } catch (const InputError &) {
        return std::nullopt; // "0 GB": no size
    }
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
        && nativeFormats == o.nativeFormats && nativeFormatsSource == o.nativeFormatsSource
        && hostLinkBytesPerSecond == o.hostLinkBytesPerSecond && peerLinkBytesPerSecond == o.peerLinkBytesPerSecond && source == o.source && sourceDate == o.sourceDate
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
