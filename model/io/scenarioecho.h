// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"

#include <QJsonObject>

namespace Headroom {

/// The resolved inputs of `s` as JSON: the command line's "inputs" echo in `plan --json` and
/// `calibrate --json`, which ScenarioFile reopens as a scenario. Ids, numbers and bytes as
/// integers (bytes per GPU unless a key says otherwise); an input left to its default is null
/// where the default is not a figure of its own. It names the engine's release in force, which
/// the engine rule resolves: that is why the echo sits above engines/, not in the Scenario.
QJsonObject scenarioEcho(const Scenario &s);

} // namespace Headroom
