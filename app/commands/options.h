// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QTextStream>

namespace Headroom {

// The one option table every command shares (as git's parse-options), and its readers.

/// An option from C strings: `name` (no dashes), its --help line, and the name of its value
/// (nullptr: a switch).
QCommandLineOption opt(const char *name, const char *help, const char *valueName = nullptr);

/// Adds the plan flags, which every command that builds a scenario reads (planflags.h), and
/// the options of single commands (--save, --solve, -o, ...), in --help's order. The presets'
/// field flags are added by addPresetOptions (presetflags.h).
void addCommandOptions(QCommandLineParser &p);

/// The value of --`name` (empty when not given).
QString value(const QCommandLineParser &p, const char *name);
/// Whether --`name` was given.
bool isSet(const QCommandLineParser &p, const char *name);
/// --`name` as a count of at least `minimum` (Units::parseCount). Throws InputError naming the flag.
qint64 countOpt(const QCommandLineParser &p, const char *name, qint64 minimum = 1);
/// A token count (--context, --retain, --max-model-len) as countOpt reads it; one typed with a
/// decimal k or M says on standard error how it was read ("note: --retain 32K read as 32,000
/// (k = 1,000); 32 Ki would be 32,768"), as the window's token boxes do in their tooltip.
qint64 tokenOpt(const QCommandLineParser &p, const char *name);
/// --`name` as a count from 1 to 1,000,000 (layers, heads, GPUs). Throws InputError naming the flag.
int smallOpt(const QCommandLineParser &p, const char *name);

/// False, with the error line on `err`, when a flag was given more than once
/// (QCommandLineParser::value keeps the last in silence); `--clear` alone may repeat.
bool refuseRepeatedOptions(const QCommandLineParser &p, QTextStream &err);
/// False, with the error line on `err`, when an option that only another command reads
/// was given to `command` (`plan -o x.txt` would print the plan and write no file).
bool refuseOtherCommandsOptions(const QCommandLineParser &p, const QString &command, QTextStream &err);

} // namespace Headroom
