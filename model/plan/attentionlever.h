// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/leverevaluator.h"

namespace Headroom {

/// Fewer entries per token: fewer KV heads (a GQA or MQA what-if: a retrained model),
/// and the presets of similar size (0.5x to 2x the parameters) with fewer KV bytes per
/// token that serve the sessions' longest length (another model). Both change the requirement.
class AttentionLever : public LeverEvaluator
{
public:
    QString lever() const override { return QStringLiteral("attention"); }
    QVector<LeverOption> options(const LeverContext &c) const override;
};

} // namespace Headroom
