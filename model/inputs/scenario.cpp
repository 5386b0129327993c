// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/scenario.h"
#include "core/units.h"

namespace Headroom {

Dtype Scenario::effectiveWeightsDtype() const
{
    if (weightsDtype)
        return *weightsDtype;
    // A float32 checkpoint is served in bf16, as engines' dtype "auto" does.
    return model.weightsDtype == Dtype::FP32 ? Dtype::BF16 : model.weightsDtype;
}

Dtype Scenario::effectiveKvDtype() const
{
    if (kvDtype)
        return *kvDtype;
    const Dtype w = effectiveWeightsDtype();
    return (w == Dtype::FP16 || w == Dtype::BF16) ? w : Dtype::BF16;
}

qint64 Scenario::effectiveWorkspaceBytes() const
{
    if (workspaceBytes)
        return *workspaceBytes;
    return Units::add(runtimeReserveBytes, field(Input::RuntimeReserve), activationBytes, field(Input::Activation));
}

ModelShape Scenario::stageModel() const
{
    if (pp <= 1)
        return model;
    ModelShape m = model;
    m.groups.clear();
    for (LayerGroup g : model.groups) {
        const int count = int(Units::ceilDiv(g.count, pp));
        g.count = 0;
        m.addLayers(g, count);
    }
    return m;
}

bool Scenario::operator==(const Scenario &o) const
{
    return model == o.model && gpu == o.gpu && tp == o.tp && pp == o.pp && dp == o.dp && ep == o.ep && contextTokens == o.contextTokens
        && sessions == o.sessions && weightsDtype == o.weightsDtype && kvDtype == o.kvDtype
        && kvHeadsOverride == o.kvHeadsOverride && gpuMemoryBytes == o.gpuMemoryBytes
        && weightsBytes == o.weightsBytes && workspaceBytes == o.workspaceBytes
        && runtimeReserveBytes == o.runtimeReserveBytes && activationBytes == o.activationBytes
        && engine == o.engine && engineSettings == o.engineSettings && gpuMemoryUtilization == o.gpuMemoryUtilization && gpuMemoryUtilizationGiven == o.gpuMemoryUtilizationGiven && blockSize == o.blockSize
        && maxModelLen == o.maxModelLen && preallocate == o.preallocate
        && priceUsdPerGpuHour == o.priceUsdPerGpuHour && distribution == o.distribution && lengthScale == o.lengthScale
        && retainTokens == o.retainTokens && outputTokens == o.outputTokens && risk == o.risk && fleetRisk == o.fleetRisk && marginFraction == o.marginFraction
        && targetSessions == o.targetSessions && bandwidthEfficiency == o.bandwidthEfficiency
        && computeUtilization == o.computeUtilization && trafficMultiplier == o.trafficMultiplier
        && imagesPerRequest == o.imagesPerRequest && decodingShare == o.decodingShare
        && hostKvMemoryBytes == o.hostKvMemoryBytes && gpusPerNode == o.gpusPerNode
        && speculative == o.speculative && lora == o.lora;
}

QDebug operator<<(QDebug dbg, const Scenario &s)
{
    QDebugStateSaver saver(dbg);
    dbg.nospace() << "Scenario(" << s.model.id << " on " << s.gpu.id << ", TP " << s.tp << ", " << s.contextTokens
                  << " tokens x " << s.sessions << ", kv " << Dtypes::name(s.effectiveKvDtype()) << ", engine "
                  << Engines::name(s.engine) << ')';
    return dbg;
}

} // namespace Headroom
