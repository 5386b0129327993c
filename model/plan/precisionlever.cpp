// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/precisionlever.h"
#include "engines/enginerule.h"
#include "engines/runnability.h"

namespace Headroom {

namespace {

// The KV-cache formats the lever tries: fp8, int8, nvfp4 and int4 (the serving engines'
// common ones, offered under every engine so that one it cannot run says so), then, under a
// named engine, the other formats below 16 bits it takes in some release (llama.cpp's and
// Ollama's q8_0 and q4_0, SGLang's mxfp4; a later release's says which), each once. The
// plain rule names no engine and takes every format: it offers the common four.
QVector<Dtype> candidates(const Scenario &s)
{
    QVector<Dtype> out{Dtype::FP8, Dtype::INT8, Dtype::NVFP4, Dtype::INT4};
    if (s.engine == Engine::Plain)
        return out;
    for (const KvDtypeSupport &k : Engines::rule(s.engine).kvDtypes())
        if (!out.contains(k.dtype) && Dtypes::bytesFor(k.dtype, 1024, {}) < 2048)
            out << k.dtype;
    return out;
}

// The KV cache in each candidate format smaller than the plan's KV dtype; when the plan's own
// format does not run (Runnability), every candidate and the model's 16-bit type, whatever
// their size: a format that runs is the fix.
QVector<LeverOption> smallerKvDtypes(const LeverEvaluator &lever, const LeverContext &c)
{
    QVector<LeverOption> out;
    const Dtype kv = c.base.kvDtype;
    const bool runs = Runnability::of(c.now).runnable;
    QVector<Dtype> formats = candidates(c.now);
    if (!runs)
        formats.prepend(c.now.effectiveWeightsDtype() == Dtype::FP16 ? Dtype::FP16 : Dtype::BF16);
    for (Dtype d : formats) {
        if (d == kv || (runs && Dtypes::bytesFor(d, 1024, {}) >= Dtypes::bytesFor(kv, 1024, {})))
            continue;
        Scenario v = c.now;
        v.kvDtype = d;
        // Phrased so no article depends on the dtype's name ("an int4", "a bf16").
        const bool sixteenBit = d == Dtype::BF16 || d == Dtype::FP16;
        out << lever.price(c, Levers::tr("KV cache %1").arg(Dtypes::name(d)), v,
                           sixteenBit ? Levers::tr("none: the model's own 16-bit precision, more memory per session")
                                      : Levers::tr("quality risk of the KV cache in %1, to measure on your evaluations").arg(Dtypes::name(d)));
    }
    return out;
}

} // namespace

QVector<LeverOption> PrecisionLever::options(const LeverContext &c) const
{
    return smallerKvDtypes(*this, c);
}

} // namespace Headroom
