// SPDX-License-Identifier: GPL-3.0-or-later
#include "presetbundle.h"

#include "core/inputerror.h"
#include "core/units.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QSet>

namespace Headroom::PresetBundle {

QByteArray toJson(const QVector<PresetRecord> &presets)
{
    QJsonArray list;
    for (const PresetRecord &r : presets)
        list.append(r.json);
    const QJsonObject doc{{QStringLiteral("format"), QLatin1String(format)},
                          {QStringLiteral("version"), version},
                          {QStringLiteral("exported"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
                          {QStringLiteral("presets"), list}};
    return QJsonDocument(doc).toJson(QJsonDocument::Indented);
}

bool save(const QString &path, const QVector<PresetRecord> &presets, QString *error)
{
    // Only an earlier bundle is replaced: never a device, the store or another file given by mistake.
    const QFileInfo info(path);
    if (info.exists()) {
        QFile old(path);
        if (!info.isFile()) {
            *error = QStringLiteral("%1 is not a regular file; choose a .json file to write").arg(path);
            return false;
        }
        if (info.size() > 16 * Units::MiB || !old.open(QIODevice::ReadOnly)
            || QJsonDocument::fromJson(old.readAll()).object().value(QStringLiteral("format")).toString() != QLatin1String(format)) {
            *error = QStringLiteral("%1 exists and is not a preset bundle; it was left untouched: choose another name").arg(path);
            return false;
        }
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    const QByteArray bytes = toJson(presets);
    if (f.write(bytes) != bytes.size() || !f.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

QVector<QJsonObject> fromJson(const QByteArray &bytes, const QString &name)
{
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parse);
    if (parse.error != QJsonParseError::NoError) {
        const QByteArray before = bytes.left(parse.offset);
        throw InputError(QStringLiteral("FILE"), QStringLiteral("%1 is not valid JSON: %2 at line %3, column %4")
                                                     .arg(name, parse.errorString())
                                                     .arg(before.count('\n') + 1)
                                                     .arg(parse.offset - before.lastIndexOf('\n')));
    }
    if (!doc.isObject())
        throw InputError(QStringLiteral("FILE"), QStringLiteral("%1 must hold a JSON object, a preset bundle").arg(name));
    const QJsonObject o = doc.object();
    if (o.value(QStringLiteral("format")).toString() != QLatin1String(format))
        throw InputError(QStringLiteral("format"), QStringLiteral("%1 is not a Headroom preset bundle (\"format\" must be \"%2\"; "
                                                                  "`headroom presets export` writes one)")
                                                       .arg(name, QLatin1String(format)));
    const QJsonValue v = o.value(QStringLiteral("version"));
    if (!v.isDouble() || v.toDouble() != double(v.toInt()) || v.toInt() < 1)
        throw InputError(QStringLiteral("version"), QStringLiteral("must be a whole number from 1 (in %1)").arg(name));
    if (v.toInt() > version)
        throw InputError(QStringLiteral("version"), QStringLiteral("%1 is bundle version %2, written by a newer Headroom; this one reads "
                                                                   "version %3 and older")
                                                        .arg(name)
                                                        .arg(v.toInt())
                                                        .arg(version));
    if (!o.value(QStringLiteral("presets")).isArray())
        throw InputError(QStringLiteral("presets"), QStringLiteral("must be a list of presets (in %1)").arg(name));
    const QJsonArray list = o.value(QStringLiteral("presets")).toArray();
    QVector<QJsonObject> out;
    QSet<QString> ids;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("presets[%1]").arg(i);
        if (!list.at(i).isObject())
            throw InputError(where, QStringLiteral("must be a preset (a JSON object) (in %1)").arg(name));
        const QJsonObject p = list.at(i).toObject();
        const QString id = p.value(QStringLiteral("id")).toString();
        try {
            PresetStore::validate(p);
        } catch (const InputError &e) {
            throw InputError(where + QLatin1Char('.') + e.field(),
                             QStringLiteral("%1 (preset \"%2\" in %3)").arg(e.message(), id, name));
        }
        if (ids.contains(id))
            throw InputError(where + QStringLiteral(".id"), QStringLiteral("\"%1\" appears twice in %2").arg(id, name));
        ids.insert(id);
        out << p;
    }
    return out;
}

QVector<QJsonObject> read(const QString &path)
{
    constexpr qint64 maxBundleBytes = 16 * Units::MiB;
    const QFileInfo info(path);
    QFile f(path);
    if (!info.isFile() || info.size() > maxBundleBytes || !f.open(QIODevice::ReadOnly))
        throw InputError(QStringLiteral("FILE"), QStringLiteral("cannot read %1 (a preset bundle of at most 16 MiB)").arg(path));
    return fromJson(f.read(maxBundleBytes + 1), path);
}

} // namespace Headroom::PresetBundle
