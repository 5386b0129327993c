// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dtype.h"
#include "core/inputerror.h"
#include "core/units.h"

namespace Headroom::Dtypes {

namespace {
const DtypeInfo table[] = {
    {Dtype::FP32, "fp32", 1, 4, "IEEE 754 binary32"},
    {Dtype::BF16, "bf16", 1, 2, "bfloat16 (Google Brain)"},
    {Dtype::FP16, "fp16", 1, 2, "IEEE 754 binary16"},
    {Dtype::FP8, "fp8", 1, 1, "FP8 E4M3/E5M2 (Micikevicius et al. 2022)"},
    {Dtype::INT8, "int8", 1, 1, "8-bit integer"},
    {Dtype::INT4, "int4", 2, 1, "two 4-bit integers per byte, group scales not counted"},
    {Dtype::NVFP4, "nvfp4", 16, 9, "NVIDIA NVFP4: 16 E2M1 values + 1 FP8 scale (72 B per 128 values)"},
    {Dtype::MXFP4, "mxfp4", 32, 17, "OCP MX v1.0: 32 E2M1 values + 1 E8M0 scale"},
    {Dtype::Q8_0, "q8_0", 32, 34, "ggml block_q8_0: fp16 scale + 32 int8"},
    {Dtype::Q4_0, "q4_0", 32, 18, "ggml block_q4_0: fp16 scale + 32 4-bit values"},
};
} // namespace

const DtypeInfo &info(Dtype d)
{
    for (const DtypeInfo &i : table)
        if (i.dtype == d)
            return i;
    Q_UNREACHABLE();
}

QString name(Dtype d)
{
    return QString::fromLatin1(info(d).name);
}

QStringList names()
{
    QStringList out;
    for (const DtypeInfo &i : table)
        out << QString::fromLatin1(i.name);
    return out;
}

Dtype parse(const QString &input, const QString &field)
{
    const QString t = input.trimmed().toLower();
    for (const DtypeInfo &i : table)
        if (t == QLatin1String(i.name))
            return i.dtype;
    struct Alias { const char *word; Dtype d; };
    static const Alias aliases[] = {
        {"float32", Dtype::FP32}, {"f32", Dtype::FP32},     {"float", Dtype::FP32},
        {"bfloat16", Dtype::BF16}, {"float16", Dtype::FP16}, {"f16", Dtype::FP16},
        {"half", Dtype::FP16},     {"fp8_e4m3", Dtype::FP8}, {"fp8_e5m2", Dtype::FP8},
        {"float8_e4m3fn", Dtype::FP8}, {"e4m3", Dtype::FP8}, {"q8", Dtype::Q8_0},
        {"q4", Dtype::Q4_0},
        // vLLM's --kv-cache-dtype for DeepSeek-V3.2's sparse MLA, of which "fp8"
        // is an alias (flashmla_sparse.py); KvCost lays an indexed latent out so.
        {"fp8_ds_mla", Dtype::FP8},
    };
    for (const Alias &a : aliases)
        if (t == QLatin1String(a.word))
            return a.d;
    throw InputError(field, QStringLiteral("unknown precision \"%1\"; use one of %2")
                                .arg(input, names().join(QStringLiteral(", "))));
}

qint64 bytesFor(Dtype d, qint64 values, const QString &field)
{
    if (values < 0)
        throw InputError(field, QStringLiteral("must not be negative"));
    const DtypeInfo &i = info(d);
    return Units::mul(Units::ceilDiv(values, i.valuesPerBlock), i.bytesPerBlock, field);
}

QString describeSize(Dtype d)
{
    const DtypeInfo &i = info(d);
    if (i.valuesPerBlock == 1)
        return QStringLiteral("%1 B").arg(i.bytesPerBlock);
    return QStringLiteral("%1 B per %2 values").arg(i.bytesPerBlock).arg(i.valuesPerBlock);
}

QList<Dtype> offered()
{
    // By bytes per value: int4 0.5, mxfp4 0.53, nvfp4 0.5625, q4_0 0.5625, int8/fp8 1, q8_0 1.06, 2, 2, 4.
    return {Dtype::INT4, Dtype::MXFP4, Dtype::NVFP4, Dtype::Q4_0, Dtype::INT8,
            Dtype::FP8,  Dtype::Q8_0,  Dtype::FP16,  Dtype::BF16, Dtype::FP32};
}

} // namespace Headroom::Dtypes
