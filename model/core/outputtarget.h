// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>

namespace Headroom {

/// The one rule every writer of a user-named file follows (the PDF report,
/// presets export, scenario save and plan --save, in the command line and
/// the window): an output never destroys data it was not made from.
namespace OutputTarget {

/// What a writer writes, and so what an existing file must already be before
/// it is replaced.
enum class Kind {
    Pdf,          ///< a report: an existing file must start with the PDF magic "%PDF-" (ISO 32000-1, 7.5.2)
    PresetBundle, ///< presets export: an existing file must be a bundle ({"format": "headroom-presets"})
    Scenario,     ///< a .headroom file: an existing file must be a scenario ({"format": "headroom-scenario"})
    Png,          ///< a chart image: an existing file must start with the PNG signature (RFC 2083, 3.1)
    Svg,          ///< a chart drawing: an existing file must be XML holding an <svg> element
    FiguresCsv,   ///< the figures table: an existing file must start with its header "scenario,"
};

/// True when `path` names standard output: "-", as POSIX utilities take it
/// (XBD 12.2, Utility Syntax Guidelines, guideline 13).
bool isStandardOutput(const QString &path);

/// Whether `kind` may go to standard output: the text outputs the command
/// line writes through write() (a scenario, a preset bundle). A PDF or an
/// image is binary, and nothing that writes them takes "-".
bool streams(Kind kind);

/// A file an output must never replace, and what it is to the user.
struct Protected
{
    QString path; ///< as given (resolved by check())
    QString role; ///< "the preset store", "the --scenario file"
};

/// Checks that `path` may be written as `kind`; throws InputError(field)
/// with a sentence to act on, and leaves the file untouched, when:
/// - `path` is empty (`-o ''`);
/// - `path` is "-" (standard output) and `kind` does not stream (a PDF);
///   "-" for a kind that streams passes without further checks;
/// - `path` is a symbolic link to nothing (writing would create a file
///   wherever the link points);
/// - it exists and is not a regular file (a folder, a device such as /dev/sda);
/// - it is, after resolving links and "..", the same file as any of
///   `protect` (the preset store, the command's input files: config.json,
///   trace, scenario); entries that do not exist are skipped;
/// - it exists and holds something other than `kind` (checked by content,
///   never by the name's extension);
/// - its name does not end in the extension of `kind` (.pdf, .json for a
///   preset bundle, .headroom or .json for a scenario, .png, .svg, .csv;
///   any case): the message names the file to give instead ("name it
///   r.pdf", "name it s.headroom" for s.headroom.bak). Nothing appends an
///   extension behind the user's back;
/// - it ends in "/" (a folder that does not exist: "did you mean r.pdf?"),
///   has no name before its extension (".pdf") or blanks around it, or holds
///   bytes that did not decode as UTF-8 (U+FFFD: the file would get another
///   name than the one typed).
/// A writer then writes with QSaveFile (or write()), so a failure leaves the
/// old file whole.
void check(const QString &path, Kind kind, const QVector<Protected> &protect, const QString &field);

/// Writes `bytes` where check() allowed: "-" to standard output (flushed,
/// so a full disk, a closed pipe or /dev/full is an error here), else
/// through QSaveFile, so a failure leaves the previous file whole. Returns
/// an empty string, or the sentence saying what failed ("cannot write
/// x.headroom: No space left on device (the file as it was is kept)", or "(nothing was written)" for a new file).
QString write(const QString &path, const QByteArray &bytes);

/// The sentence for a QSaveFile at `path` whose commit failed with `reason`: "cannot write
/// PATH: REASON (the file as it was is kept)", or "(nothing was written)" where no file was
/// there (a failed commit leaves the earlier file, if any, in place).
QString commitFailed(const QString &path, const QString &reason);

} // namespace OutputTarget
} // namespace Headroom
