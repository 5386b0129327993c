// SPDX-License-Identifier: GPL-3.0-or-later
#include "presetbundle.h"
#include "core/filekind.h"
#include "core/unknownkeys.h"

#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "core/units.h"
#include "core/outputtarget.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <limits>

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
    return JsonNumbers::toJson(doc);
}

bool save(const QString &path, const QVector<PresetRecord> &presets, QString *error, const QVector<OutputTarget::Protected> &protect)
{
    // Only an earlier bundle is replaced: never a device, the store or another file given by mistake.
    try {
        OutputTarget::check(path, OutputTarget::Kind::PresetBundle, protect, QStringLiteral("FILE"));
    } catch (const InputError &e) {
        *error = e.message();
        return false;
    }
    // A bundle always imports: each preset passes the import's own check first (a row an
    // older Headroom or another tool wrote into the store may not).
    for (const PresetRecord &r : presets) {
        try {
            PresetStore::validate(r.json);
        } catch (const InputError &e) {
            *error = QStringLiteral("preset \"%1\" cannot be exported: %2; nothing was written (`headroom presets edit %1` "
                                    "or the preset manager fixes it, `headroom presets remove %1` drops it)")
                         .arg(r.id, e.text());
            return false;
        }
    }
    QByteArray bytes;
    try {
        bytes = toJson(presets);
    } catch (const InputError &e) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, e.text());
        return false;
    }
    *error = OutputTarget::write(path, bytes);
    return error->isEmpty();
}

QVector<QJsonObject> fromJson(const QByteArray &bytes, const QString &name, QStringList *warnings)
{
    FileKind::expect(name, bytes, {FileKind::Kind::PresetBundle},
                     QStringLiteral("a preset bundle"), QStringLiteral("FILE"));
    // A byte-order mark inside the text (a config.json pasted with its own BOM): Qt's parser keeps it
    // in a key that its own lookups then miss, so such a preset would not export as itself. Refused,
    // naming its line (one at the very start is the file's own and harmless).
    if (const qsizetype bom = bytes.indexOf("\xEF\xBB\xBF", 1); bom > 0)
        throw InputError(QStringLiteral("FILE"), QStringLiteral("%1 holds a byte-order mark (U+FEFF) inside its text, at line %2: an edited "
                                                                "or damaged file (remove the mark)")
                                                     .arg(name)
                                                     .arg(bytes.left(bom).count('\n') + 1));
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
    // Checked as a 64-bit whole number before any narrowing: 4294967297 is a newer version, not 1.
    qint64 v = 0;
    try {
        v = JsonNumbers::whole(o.value(QStringLiteral("version")), QStringLiteral("version"), 1, std::numeric_limits<qint64>::max());
    } catch (const InputError &e) {
        throw InputError(e.field(), QStringLiteral("%1 (in %2)").arg(e.message(), name));
    }
    if (v > version)
        throw InputError(QStringLiteral("version"), QStringLiteral("%1 is bundle version %2, written by a newer Headroom; this one reads "
                                                                   "version %3 and older")
                                                        .arg(name, Units::formatCount(v))
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
    if (warnings) {
        QStringList unknown;
        for (const QString &key : o.keys())
            if (key != QLatin1String("format") && key != QLatin1String("version") && key != QLatin1String("exported") && key != QLatin1String("presets"))
                unknown << key;
        for (qsizetype i = 0; i < out.size(); ++i)
            for (const QString &key : PresetStore::unknownKeys(out.at(i)))
                unknown << QStringLiteral("presets[%1].%2").arg(i).arg(key);
        *warnings << unknownKeyWarnings(unknown, name);
    }
    return out;
}

QVector<QJsonObject> read(const QString &path, QStringList *warnings)
{
    constexpr qint64 maxBundleBytes = 16 * Units::MiB;
    const QFileInfo info(path);
    QFile f(path);
    if (!info.isFile() || info.size() > maxBundleBytes || !f.open(QIODevice::ReadOnly))
        throw InputError(QStringLiteral("FILE"), QStringLiteral("cannot read %1 (a preset bundle of at most 16 MiB)").arg(path));
    return fromJson(f.read(maxBundleBytes + 1), path, warnings);
}

} // namespace Headroom::PresetBundle
