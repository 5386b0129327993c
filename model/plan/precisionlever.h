// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/leverevaluator.h"

namespace Headroom {

/// Fewer bytes per entry: fp8, int8, nvfp4 and int4 KV caches smaller than the
/// current one, and under a named engine any other format below 16 bits it takes (q8_0
/// and q4_0 under llama.cpp and Ollama, mxfp4 under SGLang); a quality risk to measure. Each
/// says whether the engine and card run it (LeverOption::runnable).
class PrecisionLever : public LeverEvaluator
{
public:
    QString lever() const override { return QStringLiteral("precision"); }
    QVector<LeverOption> options(const LeverContext &c) const override;
};

} // namespace Headroom
