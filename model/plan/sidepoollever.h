// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/leverevaluator.h"

namespace Headroom {

/// Smaller side pools (issue #14): a smaller draft of the same vocabulary, one MTP / EAGLE
/// layer, half the speculative tokens, no speculative decoding (changes the requirement),
/// half the LoRA slots, half the rank and LoRA on attention only (both need retrained adapters).
class SidePoolLever : public LeverEvaluator
{
public:
    QString lever() const override { return QStringLiteral("side pools"); }
    QVector<LeverOption> options(const LeverContext &c) const override;
};

} // namespace Headroom
