// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>
#include <QTextStream>

namespace Headroom {

/// The command-line mode: `headroom plan ...` and `headroom presets list`.
/// A stable contract for scripts and tests: JSON fields are added, never
/// renamed. Errors print one line naming the field to stderr.
class CommandLine
{
public:
    /// True when `arguments` (argv, program name first) ask for the command
    /// line rather than the window: a known subcommand, --help or --version.
    static bool wants(const QStringList &arguments);
    /// Runs the subcommand; returns the process exit code: 0 done, 1 bad
    /// input (a field named on stderr), 2 a usage error.
    static int run(const QStringList &arguments, QTextStream &out, QTextStream &err);
};

} // namespace Headroom
