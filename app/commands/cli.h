// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCoreApplication>

namespace Headroom {

/// The translation context of the command line's human output (lupdate reads
/// Cli::tr into build/translations/headroom.ts as "CommandLine"). The command files include
/// it as "cli.h", beside them: lupdate follows an include only by a path it can resolve from
/// the including file, and without this declaration files the strings under "Cli".
struct Cli
{
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

} // namespace Headroom
