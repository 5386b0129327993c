// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/units.h"
#include "inputs/scenario.h"
#include "plan/capacityresult.h"

#include <QStringList>

namespace Headroom {

/// Derivation lines of the vision encoder (issue 14): its weights with the
/// parameter count and config.json source, whether the engine loads it, the
/// image tokens in the context and the encoder cache with vLLM's sizing rule,
/// numbers plugged in. Empty for a text model.
QStringList explainVisionEncoder(const Scenario &s, const CapacityResult &r, UnitSystem u);

/// Derivation lines of the two tiers of sessions (plan/warmsessions.h): the
/// card's and the host's sessions per node, the retained count against the
/// decoding share, and resume over the host link against recompute at the
/// reserved length, each with its formula. Empty when neither a decoding share
/// nor host KV memory is given.
QStringList explainWarmSessions(const Scenario &s, const CapacityResult &r, UnitSystem u);

} // namespace Headroom
