// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/outputtarget.h"
#include "core/inputerror.h"
#include "core/units.h"

#include <QFile>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <cstdio>
#include <QJsonDocument>
#include <QJsonObject>

namespace Headroom::OutputTarget {

namespace {
// What the file already holds is `kind`: read by content, at most 256 MiB (the largest file
// any of our readers opens: a scenario).
bool holds(const QString &path, Kind kind)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    switch (kind) {
    case Kind::Pdf: return f.read(5) == QByteArrayLiteral("%PDF-");
    case Kind::Png: return f.read(8) == QByteArrayLiteral("\x89PNG\r\n\x1a\n");
    case Kind::Svg: {
        const QByteArray head = f.read(4096);
        return head.trimmed().startsWith("<?xml") && head.contains("<svg");
    }
    case Kind::FiguresCsv: return f.read(9) == QByteArrayLiteral("scenario,");
    case Kind::PresetBundle:
    case Kind::Scenario: break;
    }
    if (f.size() > 256 * Units::MiB)
        return false;
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    const QString format = o.value(QStringLiteral("format")).toString();
    return format == (kind == Kind::PresetBundle ? QLatin1String("headroom-presets") : QLatin1String("headroom-scenario"));
}

// A name to give instead of "-", by kind.
QString example(Kind kind)
{
    switch (kind) {
    case Kind::Pdf: return QStringLiteral("report.pdf");
    case Kind::PresetBundle: return QStringLiteral("presets.json");
    case Kind::Scenario: return QStringLiteral("plan.headroom");
    case Kind::Png: return QStringLiteral("chart.png");
    case Kind::Svg: return QStringLiteral("chart.svg");
    case Kind::FiguresCsv: return QStringLiteral("figures.csv");
    }
    return {};
}

// The extensions a name of `kind` may end in, the usual one first.
QStringList extensions(Kind kind)
{
    switch (kind) {
    case Kind::Pdf: return {QStringLiteral("pdf")};
    case Kind::PresetBundle: return {QStringLiteral("json")};
    case Kind::Scenario: return {QStringLiteral("headroom"), QStringLiteral("json")}; // a plan --json opens as one
    case Kind::Png: return {QStringLiteral("png")};
    case Kind::Svg: return {QStringLiteral("svg")};
    case Kind::FiguresCsv: return {QStringLiteral("csv")};
    }
    return {};
}

QString what(Kind kind)
{
    switch (kind) {
    case Kind::Pdf: return QStringLiteral("a PDF");
    case Kind::PresetBundle: return QStringLiteral("a preset bundle");
    case Kind::Scenario: return QStringLiteral("a Headroom scenario");
    case Kind::Png: return QStringLiteral("a PNG image");
    case Kind::Svg: return QStringLiteral("an SVG drawing");
    case Kind::FiguresCsv: return QStringLiteral("a Headroom figures table");
    }
    return {};
}

// The checks on a file that exists already (check()).
void checkExisting(const QString &path, const QFileInfo &target, Kind kind, const QVector<Protected> &protect, const QString &field)
{
    if (!target.isFile())
        throw InputError(field, QStringLiteral("%1 is not a regular file; it was left untouched: choose a file name to write").arg(path));
    const QString canonical = target.canonicalFilePath();
    for (const Protected &p : protect) {
        const QString other = p.path.isEmpty() ? QString() : QFileInfo(p.path).canonicalFilePath();
        if (!other.isEmpty() && other == canonical)
            throw InputError(field, QStringLiteral("%1 is %2 (%3); it was left untouched: choose another name").arg(path, p.role, other));
    }
    if (!holds(path, kind))
        throw InputError(field, QStringLiteral("%1 exists and is not %2; it was left untouched: choose another name or remove it first")
                                    .arg(path, what(kind)));
}
} // namespace

bool isStandardOutput(const QString &path)
{
    return path == QLatin1String("-");
}

bool streams(Kind kind)
{
    return kind == Kind::Scenario || kind == Kind::PresetBundle;
}

void check(const QString &path, Kind kind, const QVector<Protected> &protect, const QString &field)
{
    if (path.isEmpty())
        throw InputError(field, QStringLiteral("is an empty file name; every file was left untouched: give the file to write"));
    if (isStandardOutput(path)) {
        if (streams(kind))
            return;
        const bool binary = kind == Kind::Pdf || kind == Kind::Png;
        throw InputError(field, QStringLiteral("- (standard output) cannot take %1, which %2; give a file name, e.g. %3")
                                    .arg(what(kind), binary ? QStringLiteral("is binary") : QStringLiteral("is only written to a file"),
                                         example(kind)));
    }
    const QFileInfo target(path);
    // `-o r.pdf/` names a folder: the file's name is missing, not its extension.
    if (target.fileName().isEmpty() || target.isDir())
        throw InputError(field, QStringLiteral("%1 is a folder, not a file name; nothing was written: give a file in it, e.g. %2")
                                    .arg(path, QDir(path).filePath(example(kind))));
    if (target.isSymLink() && !target.exists())
        throw InputError(field, QStringLiteral("%1 is a link to %2, which does not exist; it was left untouched: give the file itself")
                                    .arg(path, target.symLinkTarget()));
    if (target.exists())
        checkExisting(path, target, kind, protect, field);
    // `report -o r.txt` wrote a PDF named .txt: a name must say what the file holds.
    const QString suffix = target.suffix();
    const QStringList own = extensions(kind);
    if (!own.contains(suffix.toLower()))
        throw InputError(field, QStringLiteral("%1 would hold %2, whose name ends in .%3; nothing was written: name it %4")
                                    .arg(path, what(kind), own.first(), (suffix.isEmpty() ? path : path.chopped(suffix.size() + 1))
                                                                            + QLatin1Char('.') + own.first()));
}

QString write(const QString &path, const QByteArray &bytes)
{
    if (isStandardOutput(path)) {
        // Through the C stream the command line's own output also uses, so the two never
        // interleave out of order.
        QFile out;
        if (!out.open(stdout, QIODevice::WriteOnly))
            return QStringLiteral("cannot write to standard output: %1").arg(out.errorString());
        if (out.write(bytes) != bytes.size() || !out.flush())
            return QStringLiteral("cannot write to standard output: %1").arg(out.errorString());
        return {};
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
    if (f.write(bytes) != bytes.size() || !f.commit())
        return QStringLiteral("cannot write %1: %2 (the previous file is unchanged)").arg(path, f.errorString());
    return {};
}

} // namespace Headroom::OutputTarget
