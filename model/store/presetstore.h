// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QSqlError>
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
/// refused with a message naming the file and left untouched. A Headroom store
/// that fails SQLite's integrity check (PRAGMA integrity_check) at open is
/// renamed aside (never deleted or overwritten), a fresh store is built with
/// the built-ins, every user preset that can still be read from the damaged
/// file is copied in (through SQLite, then from the pages SQLite cannot
/// reach: PageScan), and warning() says so with the count and the ids of
/// the presets recovered and of those named but lost. So is a file whose
/// header still names this schema but which SQLite cannot open (truncated).
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
    /// What the user must know about the open (empty when all is well): a
    /// damaged file kept aside and how many of the user's presets were
    /// recovered, or why the store is used as stored (cannot be refreshed).
    QString warning() const { return m_warning; }
    /// Where a damaged file was kept (empty unless open() recovered from one).
    QString damagedCopyPath() const { return m_damagedCopy; }
    /// The ids of the user's presets copied out of a damaged file by open().
    QStringList recoveredIds() const { return m_recovered; }
    /// The ids of the user's presets a damaged file still names (its index, or a
    /// page whose id reads but whose JSON does not) that could not be recovered,
    /// and those that read but fail validate() (kept out so the store always exports).
    QStringList lostIds() const { return m_lost; }
    /// How many rows of a damaged file open() could neither read nor name (its id
    /// index unreadable too): an upper bound, gaps left by removed presets included.
    qint64 unnamedLost() const { return m_unnamed; }
    /// After a recovery: pages the damaged file's header counts that the file
    /// no longer holds whole (PageScan::Extent: a truncated file), 0 when none;
    /// warning() says so, with the page counts.
    qint64 missingPages() const { return m_missingPages; }
    /// Rows list() had to skip, one sentence each.
    QStringList problems() const { return m_problems; }
    /// The path of the database file.
    QString path() const { return m_path; }

    /// Presets of `kind` ("model", "gpu", or empty for all), sorted by name.
    QVector<PresetRecord> list(const QString &kind = {}) const;
    /// The preset with `id`, or an empty record (id empty) when absent.
    PresetRecord find(const QString &id) const;
    /// Saves a user preset, new or an edit of one of the user's. `preset` must
    /// pass validate(); an id shipped as a built-in is refused (built-ins
    /// cannot be edited: duplicate one under a new id) unless the user's row
    /// with that id already exists (an edit made by an older Headroom).
    /// Returns false with *error ("field: message") on failure; nothing is
    /// written then.
    bool saveUserPreset(const QJsonObject &preset, QString *error);
    /// Removes a user preset; a built-in edited by an older Headroom reverts
    /// to the shipped version. Refuses an unknown id and a built-in ("id: ...").
    /// Returns false with *error on failure.
    bool removeUserPreset(const QString &id, QString *error);

    /// What importPresets() did.
    struct ImportResult
    {
        QStringList added;     ///< ids new to this store
        QStringList replaced;  ///< ids of the user's presets overwritten (--replace)
        QStringList unchanged; ///< ids already stored with the same fields
        QString backupPath;    ///< bundle holding the replaced presets as they were (empty: none replaced)
    };
    /// Imports presets (a bundle's, PresetBundle::read) as the user's, all or
    /// nothing in one transaction. Refuses, naming "presets[i].id", an id
    /// shipped as a built-in, and an id that is already one of the user's
    /// presets with other fields unless `replace`; with `replace`, the
    /// presets about to be overwritten are first written as a bundle beside
    /// the database (ImportResult::backupPath), so no figure is lost.
    /// Returns false with *error when nothing was written.
    bool importPresets(const QVector<QJsonObject> &presets, bool replace, ImportResult *result, QString *error);

    /// Checks one preset as a user may give it, throwing InputError naming
    /// the JSON field: "id" lower-case kebab (at most 64 characters), "kind"
    /// "model" or "gpu", "name" a non-empty string; text fields (vendor,
    /// source, notes, ...) strings or null; source_date and price_date
    /// YYYY-MM-DD or null; then the kind's own reader, GpuSpec::fromPreset or
    /// ConfigImporter::fromPreset, with every figure it range-checks.
    static void validate(const QJsonObject &preset);
    /// The top-level keys of a valid `preset` that no reader takes, in the
    /// preset's order: every key but those validate, GpuSpec::fromPreset and
    /// ConfigImporter::fromPreset read, the text fields the built-ins carry
    /// (presets/*.json: notes, host_link, params_source, checkpoint_source)
    /// and the measured torch_memory_* pair. A model's "config" is a
    /// config.json, which legitimately holds many keys Headroom does not use:
    /// it is never looked into.
    static QStringList unknownKeys(const QJsonObject &preset);
    /// A model preset (no id yet) from a file: a Headroom model preset as it
    /// stands, or a HuggingFace config.json wrapped as {"kind": "model",
    /// "name": its _name_or_path when given, "source": the file, "config": ...}.
    /// The shape is read (ConfigImporter) so a config it cannot size is
    /// refused here; InputError names `field` for an unreadable file, else
    /// the config.json field.
    static QJsonObject modelPresetFromFile(const QString &path, const QString &field);
    /// True when `id` is shipped as a built-in preset.
    static bool isBuiltInId(const QString &id);

    /// The schema version this build writes.
    static constexpr int schemaVersion = 1;

private:
    /// Opens the store at its schema: checked when it is ours (checkStored), made when it is new
    /// (create), refused when it is foreign or newer. False with *error.
    bool migrate(QString *error);
    /// The checks of a store at this schema: integrity (damage recovered aside), the tables, every
    /// user row reading as itself; a store another program holds is refused as in use.
    bool checkStored(QString *error);
    /// A new store's tables, under the write lock (`version` as first read: 0 or none).
    bool create(int version, QString *error);
    bool refreshBuiltIns(QString *error);
    /// True with *report when SQLite's integrity check finds damage; false when it finds none,
    /// or when another program holds the file's lock (*lock set: in use, not damaged).
    bool integrityFailure(QString *report, QSqlError *lock);
    /// Rebuilds a damaged store (the integrity check found `damage`): its readable user
    /// presets are kept, the file is moved aside and warning() tells what was lost. False
    /// with *error when the file cannot be moved aside or the fresh store cannot be written.
    bool recover(const QString &damage, QString *error);
    /// Stage 3 of recover(): the damaged file (and its journal) kept aside under a new name
    /// (m_damagedCopy). False with *error, the file left untouched, when it cannot be moved.
    bool keepDamagedAside(const QString &damage, QString *error);
    QString m_path;
    QString m_damagedCopy;
    QStringList m_recovered;
    QStringList m_lost;
    qint64 m_unnamed = 0;
    qint64 m_missingPages = 0;
    QString m_connection;
    QString m_warning;
    mutable QStringList m_problems;
};

} // namespace Headroom
