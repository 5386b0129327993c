// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"

#include <QString>

namespace Headroom {

/// Whether the chosen engine, at the release in force, and the card can run a scenario's
/// KV-cache format, and why, in words that name the engine and release or the card and
/// cite the engine's argument list (EngineRule::kvDtypeSource) or the card's whitepaper
/// (GpuSpec::nativeFormatsSource). A plan that cannot run is a what-if for another engine
/// or card: never the cheapest lever, never advised.
struct Runnability
{
    bool runnable = true;
    QString reason; ///< why it runs, or what stops it

    /// The runnability of `s`'s KV cache (Scenario::effectiveKvDtype) under `s.engine`:
    /// not runnable when the engine does not run on the card's vendor at all
    /// (EngineRule::cardVendors: TensorRT-LLM on an AMD card), when the engine's list at
    /// EngineRule::kvDtypeVersion(s) lacks the
    /// format (or takes it only from a later release), or when the engine runs it only on a
    /// card that runs it natively and the card's native_formats leave it out. A card that
    /// states no native formats (a custom card, an older preset file) restricts nothing.
    static Runnability of(const Scenario &s);
};

} // namespace Headroom
