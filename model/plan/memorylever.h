// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/leverevaluator.h"

namespace Headroom {

/// More memory: larger cards (isLargerCard), TP 2/4/8 (KV heads replicated past their
/// count), more replicas for the target sessions, and host memory of
/// LeverContext::hostMemoryPerGpu per card, which either keeps idle sessions warm
/// (plan/warmsessions.h) or, with LeverTarget::decodeFromHost, holds cold KV read
/// over the host link every decode step.
class MemoryLever : public LeverEvaluator
{
public:
    QString lever() const override { return QStringLiteral("memory"); }
    QVector<LeverOption> options(const LeverContext &c) const override;
};

} // namespace Headroom
