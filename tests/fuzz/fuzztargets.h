// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace Headroom::FuzzTargets {

/// One entry per parser a fuzzer drives (README.md, "Fuzzing and sanitizers"):
/// config (a config.json or model preset), distribution (a --distribution
/// spec), trace (a trace file), scenario (a .headroom file or plan --json
/// output), calibration (an engine start-up log), units (sizes, counts,
/// fractions, real-valued flags, dtypes and engine names; the first byte picks),
/// bundle (a preset bundle, presets import), pagescan (the bytes of a damaged
/// preset store, read page by page in its recovery).
QStringList names();

/// Feeds `input` to the parser `target` and checks what comes back: an
/// InputError must name a field and say something; an accepted input must
/// satisfy the parser's invariants (sorted lengths summing to probability 1,
/// a scenario that saves and reopens as itself, byte counts that are not
/// negative). Returns an empty string when all holds, else what failed.
/// A crash, hang or sanitizer report is a failure too (seen by the runner).
QString run(const QString &target, const QByteArray &input);

} // namespace Headroom::FuzzTargets
