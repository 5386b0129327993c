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
    if (f.size() == 0) // an empty file holds nothing to lose (a name made ready with touch)
        return true;
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

// The name to suggest for `path` holding `kind`: in the folder as typed, the name without
// trailing dots or blanks, a foreign extension dropped (r.txt: r.pdf; s.headroom.bak:
// s.headroom), the kind's own extension added unless the name already ends in it, and the
// kind's example name where nothing of a name is left (" ", ".pdf").
QString suggestion(const QString &path, Kind kind)
{
    const QStringList own = extensions(kind);
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    const QString folder = path.left(slash + 1);
    QString name = path.mid(slash + 1);
    auto trim = [&name] {
        while (!name.isEmpty() && (name.back() == QLatin1Char('.') || name.back().isSpace()))
            name.chop(1);
        name = name.trimmed();
    };
    trim();
    if (const QString suffix = QFileInfo(name).suffix(); !suffix.isEmpty() && !own.contains(suffix.toLower())) {
        name.chop(suffix.size() + 1);
        trim();
    }
    if (QFileInfo(name).completeBaseName().isEmpty())
        return folder + example(kind);
    if (!own.contains(QFileInfo(name).suffix().toLower()))
        name += QLatin1Char('.') + own.first();
    return folder + name;
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
    // A name the terminal's bytes did not decode as UTF-8 (\xff\xfe) holds U+FFFD: the file
    // would be created under another name than the one typed.
    // A newline or a tab in a name is a paste gone wrong, and no listing shows it.
    if (const qsizetype i = Units::firstControlCharacter(path); i >= 0)
        throw InputError(field, QStringLiteral("\"%1\" holds the control character U+%2; nothing was written: give the name without it")
                                    .arg(QString(path).replace(QLatin1Char('\n'), QStringLiteral("\\n")).replace(QLatin1Char('\t'), QStringLiteral("\\t")))
                                    .arg(path.at(i).unicode(), 4, 16, QLatin1Char('0')));
    if (path.contains(QChar::ReplacementCharacter))
        throw InputError(field, QStringLiteral("%1 holds bytes that are not UTF-8 text (shown as U+FFFD); nothing was written: "
                                               "give a name in UTF-8").arg(path));
    const QFileInfo target(path);
    // `-o r.pdf/` names a folder: the file's name is missing, not its extension. An existing
    // folder takes a file in it; else the name without the slash is meant (r.pdf/ for r.pdf).
    if (target.isDir())
        throw InputError(field, QStringLiteral("%1 is a folder, not a file name; nothing was written: give a file in it, e.g. %2")
                                    .arg(path, QDir(path).filePath(example(kind))));
    if (target.fileName().isEmpty()) {
        QString file = path;
        while (file.endsWith(QLatin1Char('/')))
            file.chop(1);
        throw InputError(field, QStringLiteral("%1 ends in /, which names a folder, and no folder %2 exists; nothing was written: did you mean %3?")
                                    .arg(path, file, suggestion(file, kind)));
    }
    if (target.isSymLink() && !target.exists())
        throw InputError(field, QStringLiteral("%1 is a link to %2, which does not exist; it was left untouched: give the file itself")
                                    .arg(path, target.symLinkTarget()));
    if (target.exists())
        checkExisting(path, target, kind, protect, field);
    // `report -o r.txt` wrote a PDF named .txt: a name must say what the file holds.
    const QStringList own = extensions(kind);
    if (!own.contains(target.suffix().toLower()))
        throw InputError(field, QStringLiteral("%1 would hold %2, whose name ends in .%3; nothing was written: name it %4")
                                    .arg(path, what(kind), own.first(), suggestion(path, kind)));
    // ".pdf" alone is a hidden file with no name; "r .pdf", " r.pdf" are names no one means.
    if (target.completeBaseName().trimmed().isEmpty() || target.fileName() != target.fileName().trimmed())
        throw InputError(field, QStringLiteral("\"%1\" has no name before .%2, or blanks around it; nothing was written: name it %3")
                                    .arg(target.fileName(), target.suffix(), suggestion(path, kind)));
}

QString commitFailed(const QString &path, const QString &reason)
{
    return QStringLiteral("cannot write %1: %2 (%3)")
        .arg(path, reason, QFileInfo::exists(path) ? QStringLiteral("the file as it was is kept") : QStringLiteral("nothing was written"));
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
        return commitFailed(path, f.errorString());
    return {};
}

} // namespace Headroom::OutputTarget
