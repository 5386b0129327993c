// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/dtype.h"

#include <QDebug>
#include <QJsonArray>
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
    qint64 torchMemoryBytes = 0;      ///< total as torch.cuda.mem_get_info reports it inside an engine (0 = no cited figure)
    QString torchMemorySource;        ///< the public engine log that printed it
    QString marketedMemory;           ///< e.g. "80 GB HBM3"
    qint64 bandwidthBytesPerSecond = 0; ///< HBM/GDDR bandwidth, bytes/s
    double bf16DenseTflops = 0;       ///< dense BF16 tensor TFLOPS (no sparsity)
    /// The formats the card's tensor (matrix) cores run natively, as the architecture's
    /// whitepaper or datasheet lists them (fp8 from Ada/Hopper and CDNA3, nvfp4 and mxfp4
    /// from Blackwell, mxfp4 from CDNA4). Empty: not stated (a custom card, or a preset
    /// written before the field), which restricts nothing (Runnability::of).
    std::optional<QList<Dtype>> nativeFormats;
    QString nativeFormatsSource;      ///< the whitepaper or datasheet that lists them
    qint64 hostLinkBytesPerSecond = 0; ///< host link, one direction, bytes/s
    /// GPU-to-GPU link (NVLink, Infinity Fabric), one direction, bytes/s; 0: the cards talk
    /// over the host link (PCIe), as a card without a peer link does. The TP and EP collectives
    /// of the decode step cross it (plan/servingestimate.h).
    qint64 peerLinkBytesPerSecond = 0;
    /// The link the TP group's collectives cross: the peer link, else the host link (0: unknown).
    qint64 collectiveLinkBytesPerSecond() const { return peerLinkBytesPerSecond > 0 ? peerLinkBytesPerSecond : hostLinkBytesPerSecond; }
    QString source;                   ///< datasheet for bandwidth and TFLOPS
    QString sourceDate;
    std::optional<double> priceUsdPerHour; ///< on-demand $/GPU-hour, if published
    QString priceSource;
    QString priceDate;

    /// Reads a GPU preset (presets/gpus/*.json) or, with `decimalStrings`, a
    /// .headroom file's "gpu", whose byte figures above 2^53 are decimal strings
    /// (kept exact; a preset's are JSON numbers). Throws InputError naming the field when
    /// memory_bytes is missing or not a positive whole number, torch_memory_bytes
    /// is above memory_bytes, a bandwidth is not a positive whole number of bytes/s, bf16_dense_tflops
    /// is not in [0, 10^6] (0: not known), or price_usd_per_hour is not in (0, 10^6] dollars
    /// (null or absent: no published price), or native_formats is not a list of format
    /// names (Dtypes::parse; null or absent: not stated).
    static GpuSpec fromPreset(const QJsonObject &preset, bool decimalStrings = false);
    /// Whether the card's tensor cores run `d` natively: nothing when the card does not say
    /// (nativeFormats empty), else whether nativeFormats lists it.
    std::optional<bool> runsNatively(Dtype d) const;
    /// native_formats as a preset holds it: the format names, in the order given.
    static QJsonArray formatsToJson(const QList<Dtype> &formats);
    /// Reads native_formats typed as text ("fp8, int8, nvfp4": commas or spaces between
    /// names, as `presets add --native-formats` and the preset manager take them) into
    /// the preset's JSON list; throws InputError(field) naming an unknown format.
    static QJsonArray formatsFromText(const QString &text, const QString &field);
    /// A preset's native_formats list as text ("fp8, int8"), for the preset manager's field.
    static QString formatsText(const QJsonValue &formats);
    /// The card's memory as the engines see it (torch's total, what vLLM prints as
    /// total_gpu_memory), bytes: the cited torch figure, else for an NVIDIA preset
    /// the driver total less 0.5 GiB (the driver and ECC reservation; the cited
    /// pairs differ by 0.42 GiB on an RTX 3090, 0.47 on an H100, 0.57 on an L40S,
    /// 0.59 on an H200), else the driver total (custom cards: what the user gave;
    /// ROCm reports the whole card).
    qint64 engineVisibleBytes() const;
    /// The size marketedMemory opens with, in bytes as datasheets count them ("80 GB HBM3" ->
    /// 80 x 10^9, "128 GB LPDDR5x unified" -> 128 x 10^9; GB = 10^9, TB = 10^12, GiB = 2^30,
    /// through Units::parseSize), or nothing when it opens with no size (empty, or words).
    std::optional<qint64> marketedBytes() const;
    /// Whether memoryBytes is the marketed figure itself (no driver total was found, as for
    /// the H20's 96 GB and the MI300X's 192 GB), rather than what the driver reports.
    bool memoryIsMarketed() const { return marketedBytes() == memoryBytes; }
    /// A custom card of `memoryBytes` bytes with no other figures.
    static GpuSpec custom(qint64 memoryBytes);

    bool operator==(const GpuSpec &o) const;
    bool operator!=(const GpuSpec &o) const { return !(*this == o); }
};

QDebug operator<<(QDebug dbg, const GpuSpec &g);

} // namespace Headroom
