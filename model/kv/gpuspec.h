// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDebug>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace Headroom {

/// One accelerator card as a preset describes it. Memory is what the driver
/// reports (nvidia-smi "Total" MiB x 2^20) where known, else the marketed
/// figure; bandwidth and dense BF16 TFLOPS are datasheet values. Price is an
/// on-demand dollar figure per GPU-hour with its source and date, or absent
/// ("set a price"): never invented.
struct GpuSpec
{
    QString id;                       ///< lower-case kebab id, e.g. "h100-sxm-80gb"
    QString name;                     ///< display name
    QString vendor;
    qint64 memoryBytes = 0;           ///< bytes per card
    QString memorySource;             ///< where memoryBytes comes from
    QString marketedMemory;           ///< e.g. "80 GB HBM3"
    qint64 bandwidthBytesPerSecond = 0; ///< HBM/GDDR bandwidth, bytes/s
    double bf16DenseTflops = 0;       ///< dense BF16 tensor TFLOPS (no sparsity)
    qint64 hostLinkBytesPerSecond = 0; ///< host link, one direction, bytes/s
    QString source;                   ///< datasheet for bandwidth and TFLOPS
    QString sourceDate;
    std::optional<double> priceUsdPerHour; ///< on-demand $/GPU-hour, if published
    QString priceSource;
    QString priceDate;

    /// Reads a GPU preset (presets/gpus/*.json). Throws InputError naming the
    /// field when memory_bytes is missing or not a positive whole number, a
    /// bandwidth is not a positive whole number of bytes/s, bf16_dense_tflops
    /// is not in [0, 10^6] (0: not known), or price_usd_per_hour is not in (0, 10^6] dollars
    /// (null or absent: no published price).
    static GpuSpec fromPreset(const QJsonObject &preset);
    /// A custom card of `memoryBytes` bytes with no other figures.
    static GpuSpec custom(qint64 memoryBytes);

    bool operator==(const GpuSpec &o) const;
    bool operator!=(const GpuSpec &o) const { return !(*this == o); }
};

QDebug operator<<(QDebug dbg, const GpuSpec &g);

} // namespace Headroom
