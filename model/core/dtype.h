// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QtGlobal>

namespace Headroom {

/// A storage format for weights, KV-cache entries or recurrent state.
/// Every format is an exact block: `valuesPerBlock` values take `bytesPerBlock`
/// bytes, scale factors included, so byte counts stay integers.
enum class Dtype { FP32, BF16, FP16, FP8, INT8, INT4, NVFP4, MXFP4, Q8_0, Q4_0 };

/// The block layout of one format and where it is defined.
struct DtypeInfo
{
    Dtype dtype;
    const char *name;      ///< command-line and JSON spelling, e.g. "bf16", "q8_0"
    int valuesPerBlock;    ///< values in one block
    int bytesPerBlock;     ///< bytes one block takes, scales included
    const char *source;    ///< where the layout is specified
};

namespace Dtypes {

/// The layout of `d`. Sources: IEEE 754 (fp32/fp16), bfloat16 (Google Brain);
/// fp8 E4M3/E5M2 (Micikevicius et al. 2022, "FP8 Formats for Deep Learning");
/// int4 as two 4-bit values a byte, group scales not counted (a quantised
/// checkpoint's real size is the preset's checkpoint_bytes); nvfp4 = 16 E2M1
/// values + one FP8 E4M3 scale = 9 bytes per 16 (NVIDIA, "Introducing NVFP4",
/// 2025; 72 bytes per 128 values); mxfp4 = 32 E2M1 values + one E8M0 scale =
/// 17 bytes per 32 (OCP Microscaling Formats v1.0, 2023); q8_0 = fp16 scale +
/// 32 int8 = 34 bytes per 32 and q4_0 = fp16 scale + 16 bytes = 18 bytes per 32
/// (ggml/src/ggml-common.h, block_q8_0 and block_q4_0).
const DtypeInfo &info(Dtype d);
/// The spelling used on the command line and in JSON ("bf16").
QString name(Dtype d);
/// Parses a spelling: the names above and config.json's torch_dtype words
/// ("bfloat16", "float16", "float32", "fp8_e4m3", "f16", "f32"), and vLLM's
/// "fp8_ds_mla" as fp8 (KvCost gives a sparse-MLA latent that layout). Throws
/// InputError(field) naming every accepted spelling when unknown.
Dtype parse(const QString &text, const QString &field);
/// Bytes taken by `values` values: ceil(values / block) x bytes per block.
/// Throws InputError(field) on overflow or a negative count.
qint64 bytesFor(Dtype d, qint64 values, const QString &field);
/// "2 B" for whole-byte formats, "9 B per 16 values" for block formats.
QString describeSize(Dtype d);
/// The formats offered for weights and KV cache, by increasing bytes per value,
/// as the precision sliders show them (q8_0/q4_0 are llama.cpp cache formats).
QList<Dtype> offered();
/// All accepted spellings, for error messages and --help.
QStringList names();

} // namespace Dtypes
} // namespace Headroom
