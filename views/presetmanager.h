// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "presetstore.h"

#include <QDialog>
#include <QHash>
#include <QJsonObject>
#include <memory>
#include <optional>

QT_BEGIN_NAMESPACE
class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class QTableWidget;
class QUndoStack;
QT_END_NAMESPACE

namespace Headroom {

/// Tools > Presets: browse and search the model and GPU presets with their
/// sources; add, duplicate, edit and delete the user's own (built-ins are
/// read-only: duplicate one to change it); import a model from a
/// config.json; export and import a bundle of the user's presets
/// (PresetBundle). Every field is checked by PresetStore::validate before
/// anything is written, and a refusal names the field and moves the focus to
/// it. Every change to the store is one step on the dialog's undo stack
/// (Ctrl+Z / Ctrl+Shift+Z), an import included.
class PresetManager : public QDialog
{
    Q_OBJECT
public:
    /// storePath: the preset database (PresetStore::defaultPath() when empty).
    explicit PresetManager(const QString &storePath = {}, QWidget *parent = nullptr);
    ~PresetManager() override;

    /// Shows the presets whose name, id or source holds `text` (any case).
    void setSearch(const QString &text);
    /// Rows shown, and the id in `row`.
    int rowCount() const;
    QString idAt(int row) const;
    /// Selects and shows preset `id`; false when it is not in the list.
    bool selectPreset(const QString &id);
    /// The id shown in the form (empty for none).
    QString currentId() const;

    /// Starts a new GPU preset in the form (saved by saveForm()).
    void newGpu();
    /// Starts a copy of the shown preset under a new id.
    void duplicateCurrent();
    /// Saves the form (a new preset, or an edit of the user's). False, with
    /// the field named in statusText() and the focus on it, when it is refused.
    bool saveForm();
    /// Deletes the shown user preset (undoable); false for a built-in.
    bool deleteCurrent();
    /// Imports a config.json as a new model preset of the user's.
    bool importConfig(const QString &path);
    /// Writes every preset of the user's as a bundle to `path`.
    bool exportBundle(const QString &path);
    /// Imports a bundle; `replace` overwrites the user's presets with the same ids.
    bool importBundle(const QString &path, bool replace);

    /// The editor of JSON field `key` in the form shown (nullptr if none).
    QWidget *fieldEditor(const QString &key) const;
    /// The last message: what was done, or what was refused and why.
    QString statusText() const;
    QUndoStack *undoStack() const { return m_undo; }
    /// True once anything was written to the store.
    bool changed() const { return m_changed; }
    /// True when the form holds edits not saved (a new preset counts).
    bool formEdited() const;

    /// Close (Esc): asks before unsaved edits in the form are discarded.
    void reject() override;

private:
    friend class PresetCommand;
    struct Buttons;
    /// The search line and the kind filter, with their labels.
    QHBoxLayout *buildFilters();
    /// The left side: the filters over the table of presets.
    QWidget *buildBrowser();
    /// The right side: the preset's origin over the stacked GPU and model forms.
    QWidget *buildDetail();
    /// The status line under the buttons: two lines, selectable.
    void buildStatusLine();
    /// The edit buttons and the bottom button box (undo wired by connectUndo).
    Buttons buildButtons();
    /// Ctrl+Z / Ctrl+Shift+Z and the Undo and Redo buttons on the undo stack.
    void connectUndo(QPushButton *undoButton, QPushButton *redoButton);
    /// The splitter of `browser` and `detail`, the edit buttons, the status line and the box.
    void layOut(QWidget *browser, QWidget *detail, const Buttons &b);
    /// The filters refresh the table; a row selected shows its preset (unsaved edits asked for).
    void connectBrowser();
    /// Each button to what it does.
    void connectButtons(const Buttons &b);
    void refresh(const QString &select = {});
    void showPreset(const QJsonObject &preset, bool builtIn, bool isNew);
    QJsonObject formPreset() const;
    void setStatus(const QString &text, bool error);
    void markField(const QString &key);
    /// The form's label of JSON field `key` (empty when the form has none).
    QString fieldLabel(const QString &key) const;
    /// Puts `state` (nullopt: absent) in the store for `id`; false with the status set.
    bool apply(const QString &id, const std::optional<QJsonObject> &state);
    QString freeId(const QString &wanted) const;
    void updateButtons();
    /// True when the form may be left: nothing unsaved, or the user discards it.
    bool keepEdits();

    std::unique_ptr<PresetStore> m_store;
    bool m_storeOpen = false;
    QVector<PresetRecord> m_records;
    QUndoStack *m_undo;
    QLineEdit *m_search;
    QComboBox *m_show;
    QTableWidget *m_table;
    QStackedWidget *m_forms;
    QHash<QString, QWidget *> m_gpuEditors;
    QHash<QString, QWidget *> m_modelEditors;
    QLineEdit *m_gpuId;
    QLineEdit *m_modelId;
    QLabel *m_origin;
    QLabel *m_status;
    QPushButton *m_save;
    QPushButton *m_duplicate;
    QPushButton *m_delete;
    QJsonObject m_base;      ///< the preset the form started from (fields it does not show are kept)
    bool m_isNew = false;    ///< the form holds a preset not yet stored
    bool m_builtIn = false;  ///< the form shows a built-in (read-only)
    bool m_changed = false;
    QString m_marked;
};

} // namespace Headroom
