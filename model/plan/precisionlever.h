// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/leverevaluator.h"

namespace Headroom {

/// Fewer bytes per entry: fp8, int8, nvfp4 and int4 KV caches smaller than the
/// current one (a quality risk to measure).
class PrecisionLever : public LeverEvaluator
{
public:
    QString lever() const override { return QStringLiteral("precision"); }
    QVector<LeverOption> options(const LeverContext &c) const override;
};

} // namespace Headroom
