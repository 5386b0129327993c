// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The helpers the preset store's parts share (presetstore.cpp, presetrecovery.cpp); not an
// interface of the store.

#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

namespace Headroom::PresetStoreParts {

/// The text of `q`'s last error.
QString sqlError(const QSqlQuery &q);
/// True when another program holds the file's lock past the busy timeout (SQLITE_BUSY 5,
/// SQLITE_LOCKED 6, sqlite.org/rescode.html): the store is in use, not damaged.
bool inUse(const QSqlError &e);
/// "The preset database PATH is in use by another program (...). Nothing was changed; ...".
QString inUseError(const QString &path, const QSqlError &e);
/// Takes the store's write lock on `db` (BEGIN IMMEDIATE, waiting out another writer for the
/// busy timeout, sqlite.org/lang_transaction.html), before a look at what the store holds that
/// a write depends on. No statement on `db` may hold its read lock: SQLite then answers "locked"
/// at once (a deadlock it refuses, sqlite.org/lockingv3.html). False with *error naming `path`.
bool beginWrite(QSqlDatabase &db, const QString &path, QString *error);
/// An import's presets written on `db` under the write lock beginWrite took (all but the ids
/// `unchanged`), then committed; rolled back with *error naming the preset or `path` on failure.
bool writeImported(QSqlDatabase &db, const QString &path, const QVector<QJsonObject> &presets, const QStringList &unchanged, QString *error);
/// `o` as compact JSON text, as a row's json column holds it.
QString compact(const QJsonObject &o);
/// A stored row that still reads: its JSON an object whose id and kind agree with the columns.
std::optional<QJsonObject> readableRow(const QString &id, const QString &kind, const QString &json);
/// `path` + `suffix`, or with -2, -3, ... before the suffix when that name (or its journal) is
/// taken: never an existing file.
QString freeName(const QString &path, const QString &suffix);

} // namespace Headroom::PresetStoreParts
