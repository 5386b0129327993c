// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/precisionlever.h"

namespace Headroom {

namespace {

// The KV cache in each of fp8, int8, nvfp4 and int4 smaller than the plan's KV dtype.
QVector<LeverOption> smallerKvDtypes(const LeverEvaluator &lever, const LeverContext &c)
{
    QVector<LeverOption> out;
    const Dtype kv = c.base.kvDtype;
    for (Dtype d : {Dtype::FP8, Dtype::INT8, Dtype::NVFP4, Dtype::INT4}) {
        if (Dtypes::bytesFor(d, 1024, {}) >= Dtypes::bytesFor(kv, 1024, {}))
            continue;
        Scenario v = c.now;
        v.kvDtype = d;
        // Phrased so no article depends on the dtype's name ("an int4", "a bf16").
        out << lever.price(c, Levers::tr("KV cache %1").arg(Dtypes::name(d)), v,
                           Levers::tr("quality risk of the KV cache in %1, to measure on your evaluations").arg(Dtypes::name(d)));
    }
    return out;
}

} // namespace

QVector<LeverOption> PrecisionLever::options(const LeverContext &c) const
{
    return smallerKvDtypes(*this, c);
}

} // namespace Headroom
