// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

namespace Headroom {

/// One row of the preset store.
struct PresetRecord
{
    QString id;       ///< lower-case kebab id
    QString kind;     ///< "model" or "gpu"
    QString name;     ///< display name
    QString source;   ///< where its figures come from
    bool builtIn = false; ///< shipped with Headroom (false: created or edited by the user)
    QJsonObject json; ///< the whole preset
};

/// The SQLite preset store (QSQLITE). Lives at defaultPath() under the user's
/// application-data folder, carries a schema version (PRAGMA user_version),
/// is seeded from the built-in presets (presets/*.json compiled in as Qt
/// resources under :/presets) on first open, refreshes built-ins whenever the
/// shipped set changes (a hash kept in the meta table), and never touches a
/// preset the user created or edited. Every write is one transaction.
///
/// A file that is not a Headroom database, or one from a newer Headroom, is
/// refused with a message naming the file and left untouched.
class PresetStore
{
public:
    /// The store at `path` (created on open() if missing).
    explicit PresetStore(QString path);
    ~PresetStore();
    PresetStore(const PresetStore &) = delete;
    PresetStore &operator=(const PresetStore &) = delete;

    /// <AppDataLocation>/presets.sqlite (QStandardPaths).
    static QString defaultPath();
    /// The built-in presets as shipped (from the resources), in id order.
    static QVector<PresetRecord> builtInPresets();

    /// Opens, creates or migrates the schema and refreshes built-ins when the
    /// shipped set differs from the stored one (nothing is written otherwise).
    /// Returns false with *error set (naming the file) when the file cannot be
    /// used; a store that opens but cannot be refreshed (read-only) is used as
    /// stored, with warning() saying so.
    bool open(QString *error);
    /// Why the store is used as stored (empty when all is well).
    QString warning() const { return m_warning; }
    /// Rows list() had to skip, one sentence each.
    QStringList problems() const { return m_problems; }
    /// The path of the database file.
    QString path() const { return m_path; }

    /// Presets of `kind` ("model", "gpu", or empty for all), sorted by name.
    QVector<PresetRecord> list(const QString &kind = {}) const;
    /// The preset with `id`, or an empty record (id empty) when absent.
    PresetRecord find(const QString &id) const;
    /// Saves a user preset (new, or an edit of a built-in that then stays the
    /// user's). `preset` needs "id" (lower-case kebab) and "kind". Returns
    /// false with *error on failure; nothing is written then.
    bool saveUserPreset(const QJsonObject &preset, QString *error);
    /// Removes a user preset; a built-in edited by the user reverts to the
    /// shipped version. Returns false with *error on failure.
    bool removeUserPreset(const QString &id, QString *error);

    /// The schema version this build writes.
    static constexpr int schemaVersion = 1;

private:
    bool migrate(QString *error);
    bool refreshBuiltIns(QString *error);
    QString m_path;
    QString m_connection;
    QString m_warning;
    mutable QStringList m_problems;
};

} // namespace Headroom
