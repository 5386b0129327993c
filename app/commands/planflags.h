// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/inputerror.h"
#include "core/outputtarget.h"
#include "core/units.h"
#include "inputs/scenario.h"

#include <QCommandLineParser>
#include <QTextStream>
#include <QVector>

namespace Headroom {

// The one reader of the plan flags, which plan, report, levers, diagnose and calibrate share.

/// The scenario the plan flags (and --scenario FILE, which the flags override) give.
/// `requireContext`: refuse flags that leave the model, the card or the context unset (calibrate
/// takes them from its log; --solve max-context needs no context). `checkEngineFlags`: refuse an
/// engine flag the scenario's engine does not read (calibrate checks against the log's engine
/// instead). Throws InputError naming the flag of a value it refuses.
Scenario scenarioFrom(const QCommandLineParser &p, QTextStream &err, bool requireContext = true, bool checkEngineFlags = true);

/// --units: Decimal (GB, the default) or Binary (GiB). Throws InputError naming --units.
UnitSystem unitsFrom(const QCommandLineParser &p);

/// The files this command reads, which none of its outputs may replace (OutputTarget::check):
/// the preset store, --scenario, a --model or --config path, a trace:PATH distribution.
QVector<OutputTarget::Protected> inputFiles(const QCommandLineParser &p);

/// Runs `work` (a file's reading or writing), naming a refusal of the file itself, which the
/// readers call "file" or "FILE", as `field`: the flag or command that gave the file
/// (--scenario, --save, "presets import"), so that every file error names where it came from.
/// Errors about a field inside the file keep that field's name.
template <typename Work>
auto namingTheFile(const QString &field, Work &&work)
{
    try {
        return work();
    } catch (const InputError &e) {
        if (e.field() == QLatin1String("file") || e.field() == QLatin1String("FILE"))
            throw InputError(field, e.message());
        throw;
    }
}

/// An engine flag `engine` does not read is refused, naming the flag and the engines whose
/// setting it is (one check for every engine flag: EngineRule::settings); never ignored.
/// Throws InputError naming the flag.
void refuseForeignFlags(const QCommandLineParser &p, Engine engine);

} // namespace Headroom
