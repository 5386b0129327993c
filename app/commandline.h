// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"
#include "inputs/scenario.h"
#include "core/units.h"

#include <QStringList>
#include <QTextStream>
#include <functional>

namespace Headroom {

/// The command-line mode: `headroom plan ...` and `headroom presets list`.
/// A stable contract for scripts and tests: JSON fields are added, never
/// renamed. Errors print one line naming the field to stderr.
class CommandLine
{
public:
    /// True when `arguments` (argv, program name first) ask for the command
    /// line rather than the window: a command word (known or not), --help or
    /// --version. A file name opens in the window.
    static bool wants(const QStringList &arguments);
    /// Writes a report: (scenario, its result, name, units, output path,
    /// page size "A4" or "Letter") -> empty on success, else the error line.
    using ReportWriterHook = std::function<QString(const Scenario &, const CapacityResult &, const QString &, UnitSystem,
                                                   const QString &, const QString &)>;
    /// Runs the subcommand; returns the process exit code: 0 done, 1 bad
    /// input (a field named on stderr), 2 a usage error. `report` writes
    /// through `writeReport` (the window libraries draw it).
    static int run(const QStringList &arguments, QTextStream &out, QTextStream &err, const ReportWriterHook &writeReport = {});
};

} // namespace Headroom
