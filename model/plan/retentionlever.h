// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/leverevaluator.h"

namespace Headroom {

/// Fewer tokens resident: caps at 8,192, 32,768, 65,536 and 131,072 tokens below the
/// longest session (a share losing history, tokens dropped), and a shared system prompt
/// of LeverContext::sharedPrefixTokens stored once per GPU (prefix caching).
class RetentionLever : public LeverEvaluator
{
public:
    QString lever() const override { return QStringLiteral("retention"); }
    QVector<LeverOption> options(const LeverContext &c) const override;
};

} // namespace Headroom
