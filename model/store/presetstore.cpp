// SPDX-License-Identifier: GPL-3.0-or-later
#include "presetstore.h"
#include "presetstoreparts.h"
#include "core/units.h"
#include "pagescan.h"
#include "presetbundle.h"

#include "core/inputerror.h"
#include "io/configimporter.h"
#include "kv/gpuspec.h"

#include <QCryptographicHash>
#include <algorithm>
#include <QDate>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QSet>
#include <QUuid>
#include <algorithm>
#include <limits>
#include <optional>

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

} // namespace

namespace PresetStoreParts {

QString sqlError(const QSqlQuery &q)
{
    return q.lastError().text();
}

// Another program holds the file's lock (SQLITE_BUSY 5, SQLITE_LOCKED 6, sqlite.org/rescode.html)
// past the busy timeout: the store is in use, not damaged, and is never moved aside for it.
bool inUse(const QSqlError &e)
{
    const QString code = e.nativeErrorCode();
    return code == QLatin1String("5") || code == QLatin1String("6");
}

QString inUseError(const QString &path, const QSqlError &e)
{
    return QStringLiteral("The preset database %1 is in use by another program (SQLite: %2). Nothing was changed; "
                          "close the other program (another Headroom, a backup) and try again.")
        .arg(path, e.text());
}

bool beginWrite(QSqlDatabase &db, const QString &path, QString *error)
{
    QSqlQuery begin(db);
    if (begin.exec(QStringLiteral("BEGIN IMMEDIATE")))
        return true;
    *error = inUse(begin.lastError()) ? inUseError(path, begin.lastError())
                                      : QStringLiteral("Cannot write the preset database %1: %2").arg(path, sqlError(begin));
    return false;
}

QString compact(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

// A stored row that still reads: its JSON is an object whose id and kind agree with the columns.
std::optional<QJsonObject> readableRow(const QString &id, const QString &kind, const QString &json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(json.toUtf8());
    if (!doc.isObject() || (kind != QLatin1String("model") && kind != QLatin1String("gpu")))
        return std::nullopt;
    const QJsonObject o = doc.object();
    if (o.value(QStringLiteral("id")).toString() != id || o.value(QStringLiteral("kind")).toString() != kind)
        return std::nullopt;
    return o;
}

// `path` with `suffix`, or with -2, -3, ... before the suffix when that name is taken (never
// overwritten): "replaced-presets-20261207-204501-2.json" keeps the extension its kind is read by
// (a second import in the same second named its backup "....json-2", which the bundle writer
// refused as no .json name).
QString freeName(const QString &path, const QString &suffix)
{
    QString candidate = path + suffix;
    for (int n = 2; QFileInfo::exists(candidate) || QFileInfo::exists(candidate + QStringLiteral("-journal")); ++n)
        candidate = path + QStringLiteral("-%1").arg(n) + suffix;
    return candidate;
}

bool writeImported(QSqlDatabase &db, const QString &path, const QVector<QJsonObject> &presets, const QStringList &unchanged, QString *error)
{
    QSqlQuery q(db);
    q.prepare(QStringLiteral("INSERT INTO presets (id, kind, origin, json) VALUES (?, ?, 'user', ?) "
                             "ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, origin = 'user', json = excluded.json"));
    for (const QJsonObject &p : presets) {
        const QString id = p.value(QStringLiteral("id")).toString();
        if (unchanged.contains(id))
            continue;
        q.addBindValue(id);
        q.addBindValue(p.value(QStringLiteral("kind")).toString());
        q.addBindValue(compact(p));
        if (!q.exec()) {
            *error = QStringLiteral("Cannot import preset %1 into %2: %3. Nothing was imported.").arg(id, path, sqlError(q));
            db.rollback();
            return false;
        }
    }
    if (!db.commit()) {
        *error = QStringLiteral("Cannot write the preset database %1: %2. Nothing was imported.").arg(path, db.lastError().text());
        return false;
    }
    return true;
}

} // namespace PresetStoreParts

using namespace PresetStoreParts;

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
        m_warning += (m_warning.isEmpty() ? QString() : QStringLiteral(" ")) + refreshError + QStringLiteral(" The presets as stored are used.");
    return true;
}

bool PresetStore::integrityFailure(QString *report, QSqlError *lock)
{
    // integrity_check rather than quick_check: it also compares every index
    // with its table (a damaged index page otherwise hides rows from find()).
    // The store is a few hundred kB, so the full check costs milliseconds.
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.setForwardOnly(true);
    if (!q.exec(QStringLiteral("PRAGMA integrity_check(20)"))) {
        *report = sqlError(q);
        if (!inUse(q.lastError()))
            return true;
        *lock = q.lastError();
        return false;
    }
    QStringList lines;
    static const QRegularExpression heading(QStringLiteral("^\\*\\*\\* in database \\S+ \\*\\*\\*\\s*"));
    while (q.next()) // findings, one a line, after SQLite's heading
        for (const QString &line : q.value(0).toString().remove(heading).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            lines << line.simplified();
    if (q.lastError().isValid())
        lines << sqlError(q);
    if (lines == QStringList{QStringLiteral("ok")})
        return false;
    *report = lines.isEmpty() ? QStringLiteral("no answer") : lines.first();
    if (lines.size() > 1)
        *report += QStringLiteral(" (and further findings)"); // integrity_check(20) stops at 20
    return true;
}

bool PresetStore::migrate(QString *error)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    QSqlQuery q(db);
    // Reading the header is the first thing that fails on a damaged file.
    if (!q.exec(QStringLiteral("PRAGMA user_version")) || !q.next()) {
        if (inUse(q.lastError())) {
            *error = inUseError(m_path, q.lastError());
            return false;
        }
        // SQLite cannot read it; a file whose header still says it is our store
        // (a truncated one, say) is recovered from its pages.
        QFile raw(m_path);
        if (raw.open(QIODevice::ReadOnly) && PageScan::userVersion(raw.read(100)) == schemaVersion)
            return recover(QStringLiteral("SQLite: ") + sqlError(q), error);
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
    if (version == schemaVersion)
        return checkStored(error);
    q.finish(); // no read lock of ours while create() asks for the write lock
    return create(version, error);
}

bool PresetStore::checkStored(QString *error)
{
    QSqlQuery q(QSqlDatabase::database(m_connection));
    // Ours: damage found by the integrity check is repaired aside.
    QString damage;
    QSqlError lock;
    if (integrityFailure(&damage, &lock))
        return recover(QStringLiteral("SQLite integrity check: ") + damage, error);
    if (lock.isValid()) {
        *error = inUseError(m_path, lock);
        return false;
    }
    // The tables must be there, or the file is not ours.
    if (!q.exec(QStringLiteral("SELECT id, kind, origin, json FROM presets LIMIT 1"))) {
        *error = QStringLiteral("The preset database %1 is damaged: %2. It was left untouched; move it aside and "
                                "Headroom will create a fresh one.")
                     .arg(m_path, sqlError(q));
        return false;
    }
    // Damage SQLite cannot see: bytes changed inside a row's JSON (its id or kind no
    // longer the row's, or the text no longer JSON) pass integrity_check.
    if (!q.exec(QStringLiteral("SELECT id, kind, json FROM presets WHERE origin = 'user'")) && inUse(q.lastError())) {
        *error = inUseError(m_path, q.lastError());
        return false;
    }
    if (q.isActive())
        while (q.next())
            if (!readableRow(q.value(0).toString(), q.value(1).toString(), q.value(2).toString()))
                return recover(QStringLiteral("the preset \"%1\" no longer reads as itself").arg(q.value(0).toString()), error);
    return true;
}

bool PresetStore::create(int version, QString *error)
{
    // A new store is made under the write lock, looked at again once it is held: another
    // process starting at the same moment may have made it meanwhile (concurrent first runs read
    // one another's half-made store as "not a Headroom preset store", or failed as locked).
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    if (!beginWrite(db, m_path, error))
        return false;
    QSqlQuery q(db);
    if (q.exec(QStringLiteral("PRAGMA user_version")) && q.next() && q.value(0).toInt() != 0) {
        db.rollback();
        return migrate(error); // made by another process since the first look
    }
    if (version == 0 && q.exec(QStringLiteral("SELECT count(*) FROM sqlite_master")) && q.next() && q.value(0).toInt() > 0) {
        db.rollback();
        *error = QStringLiteral("%1 is an SQLite database but not a Headroom preset store. It was left untouched.").arg(m_path);
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
        ins.addBindValue(compact(r.json));
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
    q.prepare(kind.isEmpty() ? QStringLiteral("SELECT json, origin, id FROM presets")
                             : QStringLiteral("SELECT json, origin, id FROM presets WHERE kind = ?"));
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
            m_problems << QStringLiteral("Preset \"%1\" in %2 is damaged and was skipped.").arg(q.value(2).toString(), m_path);
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

void PresetStore::validate(const QJsonObject &preset)
{
    static const QRegularExpression kebab(QStringLiteral("^[a-z0-9]+([.-][a-z0-9]+)*\\z"));
    const QJsonValue id = preset.value(QStringLiteral("id"));
    if (!id.isString() || !kebab.match(id.toString()).hasMatch() || id.toString().size() > 64)
        throw InputError(QStringLiteral("id"), QStringLiteral("\"%1\" must be lower-case kebab-case of at most 64 characters, e.g. my-model-7b")
                                                   .arg(id.isString() ? id.toString() : QStringLiteral("(not a string)")));
    const QString kind = preset.value(QStringLiteral("kind")).toString();
    if (kind != QLatin1String("model") && kind != QLatin1String("gpu"))
        throw InputError(QStringLiteral("kind"), QStringLiteral("must be \"model\" or \"gpu\", got \"%1\"").arg(kind));
    const QJsonValue name = preset.value(QStringLiteral("name"));
    if (!name.isString() || name.toString().trimmed().isEmpty())
        throw InputError(QStringLiteral("name"), QStringLiteral("give the name shown in the pickers, e.g. \"ACME H100 (contract)\""));
    // A name is printed by `presets list` and `plan`: an escape sequence in it would run in the
    // user's terminal (an attacker's bundle set the title and cleared the screen).
    if (const qsizetype i = Units::firstControlCharacter(name.toString()); i >= 0)
        throw InputError(QStringLiteral("name"), QStringLiteral("holds the control character U+%1 at character %2: give the name without it")
                                                     .arg(uint(name.toString().at(i).unicode()), 4, 16, QLatin1Char('0')).arg(i + 1));
    if (name.toString().size() > 200)
        throw InputError(QStringLiteral("name"), QStringLiteral("is %1 characters long: at most 200").arg(name.toString().size()));
    // Text fields as the built-ins use them (presets/*.json): a string or null.
    static const char *const text[] = {"vendor", "memory_source", "marketed_memory", "native_formats_source", "host_link", "peer_link", "source", "price_source",
                                       "hf_id", "params_source", "checkpoint_source", "notes", "source_date", "price_date"};
    for (const char *key : text) {
        const QJsonValue v = preset.value(QLatin1String(key));
        if (!v.isUndefined() && !v.isNull() && !v.isString())
            throw InputError(QString::fromLatin1(key), QStringLiteral("must be text (a JSON string) or null"));
    }
    for (const char *key : {"source_date", "price_date"}) {
        const QString date = preset.value(QLatin1String(key)).toString();
        // Exactly ten characters: Qt's ISO reader also takes "2026-11-01\n" and "2026-11-01T10:00".
        if (!date.isEmpty() && (date.size() != 10 || !QDate::fromString(date, Qt::ISODate).isValid()))
            throw InputError(QString::fromLatin1(key), QStringLiteral("\"%1\" must be a date written YYYY-MM-DD, e.g. 2026-11-30").arg(date));
    }
    if (kind == QLatin1String("gpu"))
        GpuSpec::fromPreset(preset);
    else
        ConfigImporter::fromPreset(preset);
}

QStringList PresetStore::unknownKeys(const QJsonObject &preset)
{
    static const QSet<QString> common{QStringLiteral("id"), QStringLiteral("kind"), QStringLiteral("name"), QStringLiteral("source"),
                                      QStringLiteral("source_date"), QStringLiteral("notes")};
    static const QSet<QString> gpu{QStringLiteral("vendor"), QStringLiteral("memory_bytes"), QStringLiteral("memory_source"),
                                   QStringLiteral("marketed_memory"), QStringLiteral("torch_memory_bytes"), QStringLiteral("torch_memory_source"),
                                   QStringLiteral("bandwidth_bytes_per_s"), QStringLiteral("bf16_dense_tflops"), QStringLiteral("native_formats"),
                                   QStringLiteral("native_formats_source"), QStringLiteral("host_link"),
                                   QStringLiteral("host_link_bytes_per_s"), QStringLiteral("peer_link"), QStringLiteral("peer_link_bytes_per_s"), QStringLiteral("price_usd_per_hour"), QStringLiteral("price_source"),
                                   QStringLiteral("price_date")};
    static const QSet<QString> model{QStringLiteral("hf_id"), QStringLiteral("config"), QStringLiteral("total_params"),
                                     QStringLiteral("active_params"), QStringLiteral("params_source"), QStringLiteral("checkpoint_bytes"),
                                     QStringLiteral("checkpoint_source")};
    const QSet<QString> &own = preset.value(QStringLiteral("kind")).toString() == QLatin1String("gpu") ? gpu : model;
    QStringList out;
    for (const QString &key : preset.keys())
        if (!common.contains(key) && !own.contains(key))
            out << key;
    return out;
}

QJsonObject PresetStore::modelPresetFromFile(const QString &path, const QString &field)
{
    const QJsonObject o = ConfigImporter::readFile(path, field);
    QJsonObject preset;
    if (o.value(QStringLiteral("kind")).toString() == QLatin1String("model")) {
        preset = o;
    } else {
        preset.insert(QStringLiteral("kind"), QStringLiteral("model"));
        const QString hfName = o.value(QStringLiteral("_name_or_path")).toString();
        if (!hfName.isEmpty())
            preset.insert(QStringLiteral("name"), hfName.section(QLatin1Char('/'), -1));
        preset.insert(QStringLiteral("source"), QStringLiteral("config.json imported from %1").arg(QFileInfo(path).absoluteFilePath()));
        preset.insert(QStringLiteral("config"), o);
    }
    try {
        ConfigImporter::fromPreset(preset);
    } catch (const InputError &e) {
        throw InputError(e.field(), QStringLiteral("%1 (in %2)").arg(e.message(), path));
    }
    return preset;
}

bool PresetStore::isBuiltInId(const QString &id)
{
    static const QSet<QString> ids = [] {
        QSet<QString> out;
        for (const PresetRecord &r : builtInPresets())
            out.insert(r.id);
        return out;
    }();
    return ids.contains(id);
}

bool PresetStore::saveUserPreset(const QJsonObject &preset, QString *error)
{
    try {
        validate(preset);
    } catch (const InputError &e) {
        *error = e.text();
        return false;
    }
    const QString id = preset.value(QStringLiteral("id")).toString();
    const QString kind = preset.value(QStringLiteral("kind")).toString();
    const PresetRecord existing = find(id);
    if (isBuiltInId(id) && (existing.id.isEmpty() || existing.builtIn)) {
        *error = QStringLiteral("id: \"%1\" is a built-in preset, which cannot be edited; duplicate it under a new id").arg(id);
        return false;
    }
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    QSqlQuery q(db);
    q.prepare(QStringLiteral("INSERT INTO presets (id, kind, origin, json) VALUES (?, ?, 'user', ?) "
                             "ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, origin = 'user', json = excluded.json"));
    q.addBindValue(id);
    q.addBindValue(kind);
    q.addBindValue(compact(preset));
    if (!q.exec()) {
        *error = QStringLiteral("Cannot save preset %1 in %2: %3").arg(id, m_path, sqlError(q));
        return false;
    }
    return true;
}

bool PresetStore::importPresets(const QVector<QJsonObject> &presets, bool replace, ImportResult *result, QString *error)
{
    *result = {};
    for (qsizetype i = 0; i < presets.size(); ++i) {
        try {
            validate(presets.at(i));
        } catch (const InputError &e) {
            *error = QStringLiteral("presets[%1].%2: %3").arg(i).arg(e.field(), e.message());
            return false;
        }
    }
    // The store's write lock before the first look at what it holds: another import between the
    // look and the write overwrote presets in silence (an attacker's ten concurrent imports of one
    // id: three said "1 added"), and two --replace runs named their backups alike. BEGIN IMMEDIATE
    // waits out another writer for the busy timeout (sqlite.org/lang_transaction.html).
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    if (!beginWrite(db, m_path, error))
        return false;
    const auto fail = [&db, error](const QString &why) {
        *error = why;
        db.rollback();
        return false;
    };
    QStringList builtIns, conflicts, otherKinds;
    QVector<PresetRecord> toReplace;
    for (qsizetype i = 0; i < presets.size(); ++i) {
        const QJsonObject &p = presets.at(i);
        const QString where = QStringLiteral("presets[%1]").arg(i);
        const QString id = p.value(QStringLiteral("id")).toString();
        const PresetRecord existing = find(id);
        if (isBuiltInId(id) || existing.builtIn)
            builtIns << QStringLiteral("%1.id \"%2\"").arg(where, id);
        else if (existing.id.isEmpty())
            result->added << id;
        else if (existing.kind != p.value(QStringLiteral("kind")).toString())
            otherKinds << QStringLiteral("%1.id \"%2\" (your %3 preset; this one is a %4)").arg(where, id, existing.kind, p.value(QStringLiteral("kind")).toString());
        else if (existing.json == p)
            result->unchanged << id;
        else if (replace)
            toReplace << existing;
        else
            conflicts << QStringLiteral("%1.id \"%2\"").arg(where, id);
    }
    if (!otherKinds.isEmpty())
        return fail(QStringLiteral("%1: an import keeps a preset's kind, even with --replace; give it another id. Nothing was imported.")
                        .arg(otherKinds.join(QStringLiteral(", "))));
    if (!builtIns.isEmpty())
        return fail(QStringLiteral("%1: %2 built-in, which an import cannot overwrite; give your copy another id. Nothing was imported.")
                        .arg(builtIns.join(QStringLiteral(", ")), builtIns.size() == 1 ? QStringLiteral("is") : QStringLiteral("are")));
    if (!conflicts.isEmpty())
        return fail(QStringLiteral("%1: already your preset with other figures; import with --replace to overwrite (the current ones "
                                   "are kept in a backup bundle). Nothing was imported.")
                        .arg(conflicts.join(QStringLiteral(", "))));
    if (!toReplace.isEmpty()) {
        // The presets about to be overwritten, kept as a bundle first.
        const QString backup = freeName(QFileInfo(m_path).absolutePath() + QStringLiteral("/replaced-presets-")
                                            + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss")),
                                        QStringLiteral(".json"));
        if (!PresetBundle::save(backup, toReplace, error))
            return fail(QStringLiteral("Nothing was imported: the presets it would replace could not be backed up first (%1)").arg(*error));
        result->backupPath = backup;
        for (const PresetRecord &r : toReplace)
            result->replaced << r.id;
    }
    return writeImported(db, m_path, presets, result->unchanged, error);
}

bool PresetStore::removeUserPreset(const QString &id, QString *error)
{
    const PresetRecord existing = find(id);
    if (existing.id.isEmpty()) {
        *error = QStringLiteral("id: there is no preset \"%1\"; `headroom presets list` shows the ids").arg(id);
        return false;
    }
    if (existing.builtIn) {
        *error = QStringLiteral("id: \"%1\" is a built-in preset, which cannot be removed (built-ins are refreshed with each release)").arg(id);
        return false;
    }
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
        ins.addBindValue(compact(r.json));
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
