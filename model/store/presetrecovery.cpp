// SPDX-License-Identifier: GPL-3.0-or-later
// The preset store's recovery of a damaged file (PresetStore::recover): what SQLite and the
// pages still hold, kept aside, restored into a fresh store and told to the user.
#include "presetstore.h"
#include "presetstoreparts.h"
#include "pagescan.h"

#include "core/inputerror.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <algorithm>
#include <limits>

namespace Headroom {

using namespace PresetStoreParts;

namespace {

/// What a recovery could still read of a damaged store, gathered stage by stage
/// (PresetStore::recover).
struct Salvage
{
    QVector<QPair<QString, QJsonObject>> userRows; ///< (kind, preset) of the user's presets that read, SQLite's first
    QSet<QString> seen;      ///< every id SQLite read from the table
    QSet<qint64> rowids;     ///< every rowid some reading accounts for
    QStringList lost;        ///< the user's ids named (a row, the index, a page) whose figures do not read
    QSet<QString> metaKeys;  ///< the meta table's keys: the other TEXT PRIMARY KEY's index, not preset ids
    qint64 top = -1;         ///< the table's largest rowid, -1 when even that is unreadable
    bool indexRead = false;  ///< SQLite walked the whole id index: it named every row
    PageScan::Extent extent; ///< the header's page count against the file's length: a cut-off end
};

/// Stage 1a: every row that still reads, scanning the table in rowid order and
/// stepping past rowids on damaged pages (NOT INDEXED: the index may be the
/// damaged part). The store holds a few hundred rows; the steps are bounded by
/// its largest rowid (into s->top), or 1,000 when even that is unreadable. The
/// user's rows that read go to s->userRows, those whose id reads but whose JSON
/// does not to s->lost.
void scanTable(QSqlDatabase &db, Salvage *s)
{
    {
        QSqlQuery q(db);
        if (q.exec(QStringLiteral("SELECT max(rowid) FROM presets NOT INDEXED")) && q.next())
            s->top = q.value(0).toLongLong();
    }
    qint64 next = 0; // the lowest rowid not yet read or skipped
    const int maxMisses = s->top < 0 ? 1000 : 100000; // without a top, the page scan (stage 2) does the rest
    for (int misses = 0; misses <= maxMisses && (s->top < 0 || next <= s->top);) {
        QSqlQuery q(db);
        q.setForwardOnly(true);
        // ">=" so the seek lands on the page holding `next`, not on the damaged one before it.
        q.prepare(QStringLiteral("SELECT rowid, id, kind, origin, json FROM presets NOT INDEXED WHERE rowid >= ? ORDER BY rowid"));
        q.addBindValue(next);
        if (q.exec()) {
            while (q.next()) {
                // rowid is at most 2^63 - 1 (SQLite); the last one ends the scan rather than wrap.
                next = std::min(q.value(0).toLongLong(), std::numeric_limits<qint64>::max() - 1) + 1;
                const QString id = q.value(1).toString();
                s->seen.insert(id);
                s->rowids.insert(q.value(0).toLongLong());
                if (q.value(3).toString() != QLatin1String("user"))
                    continue;
                if (const auto o = readableRow(id, q.value(2).toString(), q.value(4).toString()))
                    s->userRows.append({q.value(2).toString(), *o});
                else if (!s->lost.contains(id))
                    s->lost << id; // the row reads, its JSON does not
            }
            if (!q.lastError().isValid())
                break; // reached the end
            // Failed stepping onto a damaged page: seek again from the first rowid not read.
        } else {
            ++next; // the seek itself lands on a damaged page: step past this rowid
        }
        ++misses;
    }
}

/// Stage 1b: the ids the index still lists, to name the user presets that could not be
/// read (into s->lost; s->indexRead when SQLite walked it whole), and the meta table's keys.
void readIndexes(QSqlDatabase &db, Salvage *s)
{
    {
        QSqlQuery q(db);
        q.setForwardOnly(true);
        if (q.exec(QStringLiteral("SELECT id FROM presets INDEXED BY sqlite_autoindex_presets_1"))) {
            while (q.next())
                if (!s->seen.contains(q.value(0).toString()) && !PresetStore::isBuiltInId(q.value(0).toString()))
                    s->lost << q.value(0).toString();
            s->indexRead = !q.lastError().isValid();
        }
    }
    QSqlQuery q(db);
    if (q.exec(QStringLiteral("SELECT key FROM meta NOT INDEXED")))
        while (q.next())
            s->metaKeys.insert(q.value(0).toString());
}

/// Stage 2a: the user's rows read from the table's leaf pages of `bytes` (the whole file,
/// PageScan) that SQLite did not read; `have` holds the ids recovered so far and gains these.
void takePageRows(const QByteArray &bytes, Salvage *s, QSet<QString> *have)
{
    for (const PageScan::Row &row : PageScan::textRows(bytes, 4)) { // id, kind, origin, json
        const QString &id = row.values.at(0);
        s->rowids.insert(row.rowid);
        if (row.values.at(2) != QLatin1String("user") || have->contains(id))
            continue;
        if (const auto o = readableRow(id, row.values.at(1), row.values.at(3))) {
            s->userRows.append({row.values.at(1), *o});
            have->insert(id);
            s->lost.removeAll(id);
        } else if (!id.isEmpty() && !s->lost.contains(id)) {
            s->lost << id; // its id still reads, its figures do not
        }
    }
}

/// Stage 2b: the id index read from its own pages of `bytes`: it names rows whose table
/// page is lost (into s->lost unless in `have`), even when SQLite can no longer walk the
/// index (a damaged interior page).
void nameIndexKeys(const QByteArray &bytes, Salvage *s, const QSet<QString> &have)
{
    for (const PageScan::Row &key : PageScan::indexTextKeys(bytes)) {
        const QString &id = key.values.at(0);
        if (s->metaKeys.contains(id) || s->rowids.contains(key.rowid) || s->seen.contains(id) || PresetStore::isBuiltInId(id))
            continue;
        s->rowids.insert(key.rowid);
        if (!have.contains(id) && !s->lost.contains(id))
            s->lost << id;
    }
}

/// Stage 2: what SQLite could not reach (a damaged interior page, a truncated file) read
/// from the pages of the closed file at `path` themselves; rows SQLite read come first.
/// Sets s->extent; a file over 256 MB (a preset store is well under 1 MB) is not read.
void scanPages(const QString &path, Salvage *s)
{
    QFile raw(path);
    constexpr qint64 maxScan = 256 * 1024 * 1024;
    if (raw.size() > maxScan || !raw.open(QIODevice::ReadOnly))
        return;
    QSet<QString> have;
    for (const auto &row : std::as_const(s->userRows))
        have.insert(row.second.value(QStringLiteral("id")).toString());
    const QByteArray bytes = raw.readAll();
    takePageRows(bytes, s, &have);
    nameIndexKeys(bytes, s, have);
    // A damaged copy may sit on a page beside a whole one: only what stayed unread is lost.
    for (const QString &id : std::as_const(have))
        s->lost.removeAll(id);
    s->extent = PageScan::extentOf(bytes);
    raw.close();
}

/// Rows no reading accounts for, 0 when the index was read: with the index unreadable too,
/// nothing names them. Rowids run 1 up to the largest (SQLite gives each new row the
/// largest + 1), so the gaps below the largest seen (at most the first 1,000,000) are rows
/// lost unnamed, or presets removed before the damage.
qint64 unnamedRows(const Salvage &s)
{
    qint64 unnamed = 0;
    if (!s.indexRead && !s.rowids.isEmpty()) {
        const qint64 last = std::max(s.top, *std::max_element(s.rowids.cbegin(), s.rowids.cend()));
        for (qint64 r = 1; r <= last && r <= 1'000'000; ++r)
            unnamed += s.rowids.contains(r) ? 0 : 1;
    }
    return unnamed;
}

/// Stage 4b: the user's presets of `rows` written to the fresh store open on `db` (at
/// `path`), in one transaction. A preset that fails PresetStore::validate is not written:
/// its id joins *lost and `refused` gives why. The ids written are appended to *recovered.
/// False with *error when the store cannot be written (rolled back).
bool restoreUserPresets(QSqlDatabase &db, const QString &path, const QVector<QPair<QString, QJsonObject>> &rows, QStringList *lost,
                        QHash<QString, QString> *refused, QStringList *recovered, QString *error)
{
    if (!db.transaction()) {
        *error = QStringLiteral("Cannot write the preset database %1: %2").arg(path, db.lastError().text());
        return false;
    }
    QSqlQuery ins(db);
    ins.prepare(QStringLiteral("INSERT INTO presets (id, kind, origin, json) VALUES (?, ?, 'user', ?) ON CONFLICT(id) DO NOTHING"));
    for (const auto &row : rows) {
        // Only what the store could have accepted goes back in, so every preset in it exports and imports.
        try {
            PresetStore::validate(row.second);
        } catch (const InputError &e) {
            *lost << row.second.value(QStringLiteral("id")).toString();
            refused->insert(lost->last(), e.text());
            continue;
        }
        ins.addBindValue(row.second.value(QStringLiteral("id")).toString());
        ins.addBindValue(row.first);
        ins.addBindValue(compact(row.second));
        if (!ins.exec()) {
            *error = QStringLiteral("Cannot write the recovered presets to %1: %2").arg(path, sqlError(ins));
            db.rollback();
            return false;
        }
        *recovered << row.second.value(QStringLiteral("id")).toString();
    }
    if (!db.commit()) {
        *error = QStringLiteral("Cannot write the preset database %1: %2").arg(path, db.lastError().text());
        return false;
    }
    return true;
}

/// Stage 5: what the user is told of a recovery of the store at `path` whose integrity
/// check found `damage`, kept as `aside`: the presets `recovered`, those lost (with why
/// each of `refused` was), the `unnamed` rows and the pages a cut-off file lacks.
QString recoveryWarning(const QString &path, const QString &damage, const QString &aside, const QStringList &recovered,
                        const Salvage &s, const QHash<QString, QString> &refused, qint64 unnamed)
{
    QString warning = QStringLiteral("The preset database %1 was damaged (%2). It was kept as %3; "
                                     "the built-in presets were rebuilt and %4 of your presets %5 recovered%6.")
                          .arg(path, damage, aside)
                          .arg(recovered.size())
                          .arg(recovered.size() == 1 ? QStringLiteral("was") : QStringLiteral("were"))
                          .arg(recovered.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(recovered.join(QStringLiteral(", "))));
    QStringList named;
    for (const QString &id : std::as_const(s.lost))
        named << (refused.contains(id) ? QStringLiteral("%1 (%2)").arg(id, refused.value(id)) : id);
    if (!s.lost.isEmpty())
        warning += QStringLiteral(" Lost (named by the index or found on a page, but their figures no longer read or pass the checks): %1; "
                                  "the kept file may still hold them.")
                       .arg(named.join(QStringLiteral(", ")));
    if (unnamed > 0)
        warning += QStringLiteral(" The index of preset ids could not be read either, so up to %1 %2 could not be named "
                                  "(rows missing between the first and the last that read; a preset removed earlier leaves such a gap too); "
                                  "the kept file may still hold %3.")
                       .arg(unnamed)
                       .arg(unnamed == 1 ? QStringLiteral("preset") : QStringLiteral("presets"))
                       .arg(unnamed == 1 ? QStringLiteral("it") : QStringLiteral("them"));
    // Rows past the last page the file holds leave no gap below the largest rowid read, so
    // only the header's own page count tells of them.
    const qint64 missing = s.extent.missingPages();
    if (missing > 0)
        warning += QStringLiteral(" The file is also cut short: it holds %1 whole pages of the %2 of %3 bytes its header gives, "
                                  "so %4 could not be read%5.")
                       .arg(s.extent.wholePages)
                       .arg(s.extent.headerPages)
                       .arg(s.extent.pageSize)
                       .arg(missing == 1 ? QStringLiteral("the last page") : QStringLiteral("the last %1 pages").arg(missing))
                       .arg(s.indexRead ? QString()
                                        : QStringLiteral(", and with the index of preset ids unreadable, the presets %1 held "
                                                         "could not be named or counted; the kept file does not hold them either")
                                              .arg(missing == 1 ? QStringLiteral("it") : QStringLiteral("they")));
    return warning;
}

} // namespace

bool PresetStore::recover(const QString &damage, QString *error)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    Salvage salvage;
    scanTable(db, &salvage);
    readIndexes(db, &salvage);
    db.close();
    scanPages(m_path, &salvage);
    const qint64 unnamed = unnamedRows(salvage);
    if (!keepDamagedAside(damage, error))
        return false;
    // Stage 4a: a fresh store for the recovered presets (the built-ins follow in open()).
    db.setDatabaseName(m_path);
    if (!db.open() || !migrate(error)) {
        if (error->isEmpty())
            *error = QStringLiteral("Cannot create a fresh preset database %1: %2").arg(m_path, db.lastError().text());
        return false;
    }
    QHash<QString, QString> refused; // id -> why a preset that reads was not restored
    if (!restoreUserPresets(db, m_path, salvage.userRows, &salvage.lost, &refused, &m_recovered, error))
        return false;
    m_warning = recoveryWarning(m_path, damage, m_damagedCopy, m_recovered, salvage, refused, unnamed);
    m_lost = salvage.lost;
    m_unnamed = unnamed;
    m_missingPages = salvage.extent.missingPages();
    return true;
}

bool PresetStore::keepDamagedAside(const QString &damage, QString *error)
{
    const QString aside = freeName(m_path + QStringLiteral(".damaged-") + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss")), QString());
    if (!QFile::rename(m_path, aside)) {
        *error = QStringLiteral("The preset database %1 is damaged (%2) and could not be moved aside. "
                                "It was left untouched; move it away and Headroom will create a fresh one.")
                     .arg(m_path, damage);
        return false;
    }
    if (QFileInfo::exists(m_path + QStringLiteral("-journal")))
        QFile::rename(m_path + QStringLiteral("-journal"), aside + QStringLiteral("-journal"));
    m_damagedCopy = aside;
    return true;
}

} // namespace Headroom
