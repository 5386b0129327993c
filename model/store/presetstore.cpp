// SPDX-License-Identifier: GPL-3.0-or-later
#include "presetstore.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QUuid>
#include <algorithm>

namespace Headroom {

namespace {

PresetRecord recordFrom(const QJsonObject &o, bool builtIn)
{
    PresetRecord r;
    r.id = o.value(QStringLiteral("id")).toString();
    r.kind = o.value(QStringLiteral("kind")).toString();
    r.name = o.value(QStringLiteral("name")).toString(r.id);
    r.source = o.value(QStringLiteral("source")).toString();
    r.builtIn = builtIn;
    r.json = o;
    return r;
}

QString sqlError(const QSqlQuery &q)
{
    return q.lastError().text();
}

} // namespace

PresetStore::PresetStore(QString path)
    : m_path(std::move(path)), m_connection(QStringLiteral("headroom-presets-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
{
}

PresetStore::~PresetStore()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        if (db.isValid())
            db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
}

QString PresetStore::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/presets.sqlite");
}

QVector<PresetRecord> PresetStore::builtInPresets()
{
    QVector<PresetRecord> out;
    QDirIterator it(QStringLiteral(":/presets"), {QStringLiteral("*.json")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
        // Built-ins are checked by tst_store; a malformed one is a build defect.
        Q_ASSERT(doc.isObject());
        out << recordFrom(doc.object(), true);
    }
    std::sort(out.begin(), out.end(), [](const PresetRecord &a, const PresetRecord &b) { return a.id < b.id; });
    return out;
}

bool PresetStore::open(QString *error)
{
    const QFileInfo info(m_path);
    if (!QDir().mkpath(info.absolutePath())) {
        *error = QStringLiteral("Cannot create the folder %1 for the preset database.").arg(info.absolutePath());
        return false;
    }
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    if (!db.isValid()) {
        *error = QStringLiteral("The Qt SQLite driver (QSQLITE) is missing: install libqt6sql6-sqlite.");
        return false;
    }
    db.setDatabaseName(m_path);
    if (!db.open()) {
        *error = QStringLiteral("Cannot open the preset database %1: %2").arg(m_path, db.lastError().text());
        return false;
    }
    if (!migrate(error))
        return false;
    QString refreshError;
    if (!refreshBuiltIns(&refreshError))
        m_warning = refreshError + QStringLiteral(" The presets as stored are used.");
    return true;
}

bool PresetStore::migrate(QString *error)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    QSqlQuery q(db);
    // Reading the header is the first thing that fails on a damaged file.
    if (!q.exec(QStringLiteral("PRAGMA user_version")) || !q.next()) {
        *error = QStringLiteral("The preset database %1 is damaged or not a database (%2). It was left untouched; "
                                "move it aside and Headroom will create a fresh one.")
                     .arg(m_path, sqlError(q));
        return false;
    }
    const int version = q.value(0).toInt();
    if (version > schemaVersion) {
        *error = QStringLiteral("The preset database %1 was written by a newer Headroom (schema %2, this one reads %3). "
                                "It was left untouched.")
                     .arg(m_path).arg(version).arg(schemaVersion);
        return false;
    }
    if (version == schemaVersion) {
        // Same version: the tables must be there, or the file is not ours.
        if (!q.exec(QStringLiteral("SELECT id, kind, origin, json FROM presets LIMIT 1"))) {
            *error = QStringLiteral("The preset database %1 is damaged: %2. It was left untouched; move it aside and "
                                    "Headroom will create a fresh one.")
                         .arg(m_path, sqlError(q));
            return false;
        }
        return true;
    }
    if (version == 0 && q.exec(QStringLiteral("SELECT count(*) FROM sqlite_master")) && q.next() && q.value(0).toInt() > 0) {
        *error = QStringLiteral("%1 is an SQLite database but not a Headroom preset store. It was left untouched.").arg(m_path);
        return false;
    }
    if (!db.transaction()) {
        *error = QStringLiteral("Cannot write the preset database %1: %2").arg(m_path, db.lastError().text());
        return false;
    }
    const char *const schema[] = {
        "CREATE TABLE presets (id TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('model','gpu')), "
        "origin TEXT NOT NULL CHECK (origin IN ('builtin','user')), json TEXT NOT NULL)",
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "PRAGMA user_version = 1",
    };
    for (const char *sql : schema) {
        if (!q.exec(QString::fromLatin1(sql))) {
            *error = QStringLiteral("Cannot create the preset database %1: %2").arg(m_path, sqlError(q));
            db.rollback();
            return false;
        }
    }
    if (!db.commit()) {
        *error = QStringLiteral("Cannot write the preset database %1: %2").arg(m_path, db.lastError().text());
        return false;
    }
    return true;
}

bool PresetStore::refreshBuiltIns(QString *error)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    const QVector<PresetRecord> shipped = builtInPresets();
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const PresetRecord &r : shipped)
        hash.addData(QJsonDocument(r.json).toJson(QJsonDocument::Compact));
    const QString digest = QString::fromLatin1(hash.result().toHex());

    // Up to date when every shipped preset is there, byte for byte as shipped
    // (or edited by the user), and nothing stale is left: then nothing is written.
    QSqlQuery q(db);
    if (q.exec(QStringLiteral("SELECT id, origin, json FROM presets"))) {
        QHash<QString, QPair<QString, QString>> rows;
        while (q.next())
            rows.insert(q.value(0).toString(), {q.value(1).toString(), q.value(2).toString()});
        bool current = true;
        int builtInRows = 0;
        for (auto it = rows.cbegin(); it != rows.cend(); ++it)
            builtInRows += it.value().first == QLatin1String("builtin");
        int expectedBuiltIns = 0;
        for (const PresetRecord &r : shipped) {
            const auto row = rows.constFind(r.id);
            if (row == rows.cend()) {
                current = false;
                break;
            }
            if (row->first == QLatin1String("builtin")) {
                ++expectedBuiltIns;
                if (row->second != QString::fromUtf8(QJsonDocument(r.json).toJson(QJsonDocument::Compact))) {
                    current = false;
                    break;
                }
            }
        }
        if (current && builtInRows == expectedBuiltIns)
            return true;
    }

    if (!db.transaction()) {
        *error = QStringLiteral("Cannot write the preset database %1: %2").arg(m_path, db.lastError().text());
        return false;
    }
    auto fail = [&](const QSqlQuery &failed) {
        *error = QStringLiteral("Cannot refresh the built-in presets in %1: %2").arg(m_path, sqlError(failed));
        db.rollback();
        return false;
    };
    // Built-ins no longer shipped go; the user's rows are never touched.
    QSqlQuery del(db);
    if (!del.exec(QStringLiteral("DELETE FROM presets WHERE origin = 'builtin'")))
        return fail(del);
    QSqlQuery ins(db);
    ins.prepare(QStringLiteral("INSERT INTO presets (id, kind, origin, json) VALUES (?, ?, 'builtin', ?) "
                               "ON CONFLICT(id) DO NOTHING"));
    for (const PresetRecord &r : shipped) {
        ins.addBindValue(r.id);
        ins.addBindValue(r.kind);
        ins.addBindValue(QString::fromUtf8(QJsonDocument(r.json).toJson(QJsonDocument::Compact)));
        if (!ins.exec())
            return fail(ins);
    }
    QSqlQuery meta(db);
    meta.prepare(QStringLiteral("INSERT INTO meta (key, value) VALUES ('builtin_hash', ?) "
                                "ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
    meta.addBindValue(digest);
    if (!meta.exec())
        return fail(meta);
    if (!db.commit()) {
        *error = QStringLiteral("Cannot write the preset database %1: %2").arg(m_path, db.lastError().text());
        return false;
    }
    return true;
}

QVector<PresetRecord> PresetStore::list(const QString &kind) const
{
    QVector<PresetRecord> out;
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare(kind.isEmpty() ? QStringLiteral("SELECT json, origin FROM presets")
                             : QStringLiteral("SELECT json, origin FROM presets WHERE kind = ?"));
    if (!kind.isEmpty())
        q.addBindValue(kind);
    if (!q.exec()) {
        m_problems << QStringLiteral("Cannot read presets from %1: %2").arg(m_path, sqlError(q));
        return out;
    }
    while (q.next()) {
        const QJsonDocument doc = QJsonDocument::fromJson(q.value(0).toString().toUtf8());
        if (doc.isObject())
            out << recordFrom(doc.object(), q.value(1).toString() == QLatin1String("builtin"));
        else
            m_problems << QStringLiteral("A preset in %1 is damaged and was skipped.").arg(m_path);
    }
    std::sort(out.begin(), out.end(), [](const PresetRecord &a, const PresetRecord &b) {
        return a.kind != b.kind ? a.kind < b.kind : QString::localeAwareCompare(a.name, b.name) < 0;
    });
    return out;
}

PresetRecord PresetStore::find(const QString &id) const
{
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare(QStringLiteral("SELECT json, origin FROM presets WHERE id = ?"));
    q.addBindValue(id);
    if (q.exec() && q.next()) {
        const QJsonDocument doc = QJsonDocument::fromJson(q.value(0).toString().toUtf8());
        if (doc.isObject())
            return recordFrom(doc.object(), q.value(1).toString() == QLatin1String("builtin"));
    }
    return {};
}

bool PresetStore::saveUserPreset(const QJsonObject &preset, QString *error)
{
    static const QRegularExpression kebab(QStringLiteral("^[a-z0-9]+([.-][a-z0-9]+)*$"));
    const QString id = preset.value(QStringLiteral("id")).toString();
    const QString kind = preset.value(QStringLiteral("kind")).toString();
    if (!kebab.match(id).hasMatch()) {
        *error = QStringLiteral("id: \"%1\" must be lower-case kebab-case, e.g. my-model-7b").arg(id);
        return false;
    }
    if (kind != QLatin1String("model") && kind != QLatin1String("gpu")) {
        *error = QStringLiteral("kind: must be \"model\" or \"gpu\", got \"%1\"").arg(kind);
        return false;
    }
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    QSqlQuery q(db);
    q.prepare(QStringLiteral("INSERT INTO presets (id, kind, origin, json) VALUES (?, ?, 'user', ?) "
                             "ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, origin = 'user', json = excluded.json"));
    q.addBindValue(id);
    q.addBindValue(kind);
    q.addBindValue(QString::fromUtf8(QJsonDocument(preset).toJson(QJsonDocument::Compact)));
    if (!q.exec()) {
        *error = QStringLiteral("Cannot save preset %1 in %2: %3").arg(id, m_path, sqlError(q));
        return false;
    }
    return true;
}

bool PresetStore::removeUserPreset(const QString &id, QString *error)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    if (!db.transaction()) {
        *error = db.lastError().text();
        return false;
    }
    QSqlQuery q(db);
    q.prepare(QStringLiteral("DELETE FROM presets WHERE id = ? AND origin = 'user'"));
    q.addBindValue(id);
    if (!q.exec()) {
        *error = QStringLiteral("Cannot remove preset %1: %2").arg(id, sqlError(q));
        db.rollback();
        return false;
    }
    // An edited built-in reverts to the shipped version.
    for (const PresetRecord &r : builtInPresets()) {
        if (r.id != id)
            continue;
        QSqlQuery ins(db);
        ins.prepare(QStringLiteral("INSERT INTO presets (id, kind, origin, json) VALUES (?, ?, 'builtin', ?)"));
        ins.addBindValue(r.id);
        ins.addBindValue(r.kind);
        ins.addBindValue(QString::fromUtf8(QJsonDocument(r.json).toJson(QJsonDocument::Compact)));
        if (!ins.exec()) {
            *error = QStringLiteral("Cannot restore built-in preset %1: %2").arg(id, sqlError(ins));
            db.rollback();
            return false;
        }
    }
    if (!db.commit()) {
        *error = db.lastError().text();
        return false;
    }
    return true;
}

} // namespace Headroom
