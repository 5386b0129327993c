// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "commandline.h"

#include <QCommandLineParser>
#include <QTextStream>

namespace Headroom {

/// One command of `headroom COMMAND ...`, as git's builtins: (the parsed flags of the one
/// shared option table, stdout, stderr, the report writer) -> the process exit code: 0 done,
/// 1 bad input (a field named on stderr), 2 a usage error. Throws InputError naming the flag
/// of a value it refuses. Each is defined in app/commands/<command>.cpp and listed once in
/// the dispatcher's table (commandline.cpp).
using CommandRunner = int (*)(const QCommandLineParser &p, QTextStream &out, QTextStream &err,
                              const CommandLine::ReportWriterHook &writeReport);

/// `plan`: the capacity of one scenario, as text or --json; --solve, --save.
int runPlan(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &);
/// `presets list|add|edit|remove|export|import`: the preset store's commands.
int runPresets(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &);
/// `calibrate LOG`: an engine's start-up log's printed figures against the predicted ones, or a
/// benchmark's times with the card's achieved fractions fitted to them.
int runCalibrate(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &);
/// `report -o FILE`: the PDF capacity report, drawn through `writeReport`.
int runReport(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &writeReport);
/// `levers`: the four levers priced against the scenario.
int runLevers(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &);
/// `replay --trace FILE`: the trace's arrivals on a fleet of replicas of the plan's shape.
int runReplay(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &);
/// `diagnose`: why a service failed at --failed-at-sessions N.
int runDiagnose(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &);

} // namespace Headroom
