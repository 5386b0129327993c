// SPDX-License-Identifier: GPL-3.0-or-later
#include "presetmanager.h"

#include "core/inputerror.h"
#include "core/units.h"
#include "io/configimporter.h"
#include "kv/gpuspec.h"
#include "presetbundle.h"

#include <QAction>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QScreen>
#include <QScrollArea>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <cmath>

namespace Headroom {

namespace {

/// One field of the form: the preset's JSON key, its label and how its text reads.
struct Field
{
    enum Type { Text, LongText, Size, Rate, Count, Number, Price, Json, Formats };
    const char *key;
    const char *label;
    Type type;
};

// The fields shown, in the order of presets/gpus/*.json and presets/models/*.json.
const Field gpuFields[] = {
    {"name", QT_TRANSLATE_NOOP("PresetManager", "&Name"), Field::Text},
    {"vendor", QT_TRANSLATE_NOOP("PresetManager", "V&endor"), Field::Text},
    {"memory_bytes", QT_TRANSLATE_NOOP("PresetManager", "Memor&y per card"), Field::Size},
    {"memory_source", QT_TRANSLATE_NOOP("PresetManager", "Memory source"), Field::Text},
    {"marketed_memory", QT_TRANSLATE_NOOP("PresetManager", "Marketed memory"), Field::Text},
    {"bandwidth_bytes_per_s", QT_TRANSLATE_NOOP("PresetManager", "Band&width"), Field::Rate},
    {"bf16_dense_tflops", QT_TRANSLATE_NOOP("PresetManager", "BF16 dense &TFLOPS"), Field::Number},
    {"native_formats", QT_TRANSLATE_NOOP("PresetManager", "Native formats"), Field::Formats},
    {"native_formats_source", QT_TRANSLATE_NOOP("PresetManager", "Native formats source"), Field::Text},
    {"host_link", QT_TRANSLATE_NOOP("PresetManager", "Host link"), Field::Text},
    {"host_link_bytes_per_s", QT_TRANSLATE_NOOP("PresetManager", "Host link bandwidth"), Field::Rate},
    {"peer_link", QT_TRANSLATE_NOOP("PresetManager", "GPU-to-GPU link"), Field::Text},
    {"peer_link_bytes_per_s", QT_TRANSLATE_NOOP("PresetManager", "GPU-to-GPU link bandwidth"), Field::Rate},
    {"price_usd_per_hour", QT_TRANSLATE_NOOP("PresetManager", "Price, $ per GPU-&hour"), Field::Price},
    {"price_source", QT_TRANSLATE_NOOP("PresetManager", "Price source"), Field::Text},
    {"price_date", QT_TRANSLATE_NOOP("PresetManager", "Price d&ate"), Field::Text},
    {"source", QT_TRANSLATE_NOOP("PresetManager", "Source"), Field::Text},
    {"source_date", QT_TRANSLATE_NOOP("PresetManager", "Source date"), Field::Text},
    {"notes", QT_TRANSLATE_NOOP("PresetManager", "Notes"), Field::LongText},
};
const Field modelFields[] = {
    {"name", QT_TRANSLATE_NOOP("PresetManager", "&Name"), Field::Text},
    {"hf_id", QT_TRANSLATE_NOOP("PresetManager", "&HuggingFace id"), Field::Text},
    {"total_params", QT_TRANSLATE_NOOP("PresetManager", "P&arameters"), Field::Count},
    {"active_params", QT_TRANSLATE_NOOP("PresetManager", "Ac&tive parameters"), Field::Count},
    {"params_source", QT_TRANSLATE_NOOP("PresetManager", "Parameters source"), Field::Text},
    {"source", QT_TRANSLATE_NOOP("PresetManager", "Source"), Field::Text},
    {"source_date", QT_TRANSLATE_NOOP("PresetManager", "Source date"), Field::Text},
    {"notes", QT_TRANSLATE_NOOP("PresetManager", "Notes"), Field::LongText},
    {"config", QT_TRANSLATE_NOOP("PresetManager", "config.&json"), Field::Json},
};

// A byte count as text that parses back to the same count: 81559MiB, 3.35TB, else bytes.
QString exactSize(qint64 bytes)
{
    if (bytes % Units::GiB == 0 && bytes % 1'000'000'000 != 0)
        return QStringLiteral("%1GiB").arg(bytes / Units::GiB);
    if (bytes % Units::MiB == 0 && bytes % 1'000'000 != 0)
        return QStringLiteral("%1MiB").arg(bytes / Units::MiB);
    for (const auto &[unit, scale] : {std::pair{"TB", 1e12}, std::pair{"GB", 1e9}, std::pair{"MB", 1e6}}) {
        const QString text = QString::number(double(bytes) / scale, 'g', 15) + QLatin1String(unit);
        if (double(bytes) >= scale && Units::parseSize(text, QString()) == bytes)
            return text;
    }
    return QStringLiteral("%1B").arg(bytes);
}

/// The editor of field `f`, named by its JSON key (tests and the error marks use it): a
/// plain-text box for notes and config.json (Tab moves on), else a line whose placeholder
/// says how the figure is written.
QWidget *makeEditor(const Field &f)
{
    QWidget *editor;
    if (f.type == Field::LongText || f.type == Field::Json) {
        auto *text = new QPlainTextEdit;
        text->setTabChangesFocus(true);
        text->setMaximumHeight(f.type == Field::Json ? 220 : 60);
        if (f.type == Field::Json)
            text->setFont(QFont(QStringLiteral("monospace")));
        editor = text;
    } else {
        auto *line = new QLineEdit;
        if (f.type == Field::Size)
            line->setPlaceholderText(PresetManager::tr("with a unit: 81559MiB, 80GB"));
        else if (f.type == Field::Rate)
            line->setPlaceholderText(PresetManager::tr("per second: 3.35TB/s"));
        else if (f.type == Field::Price)
            line->setPlaceholderText(PresetManager::tr("empty: no published price"));
        else if (f.type == Field::Formats)
            line->setPlaceholderText(PresetManager::tr("bf16, fp16, fp8, int8 (empty: not stated)"));
        else if (QByteArray(f.key).endsWith("_date"))
            line->setPlaceholderText(PresetManager::tr("YYYY-MM-DD"));
        editor = line;
    }
    editor->setObjectName(QString::fromLatin1(f.key));
    editor->setToolTip(QString::fromLatin1(f.key));
    return editor;
}

/// One form per kind: the id, then an editor per field of `fields`, each under its label
/// with its mnemonic. `editors` receives every editor by JSON key, `idEdit` the id's.
template <std::size_t N>
QWidget *makeForm(const Field (&fields)[N], QHash<QString, QWidget *> &editors, QLineEdit *&idEdit)
{
    auto *form = new QWidget;
    auto *layout = new QFormLayout(form);
    idEdit = new QLineEdit;
    idEdit->setObjectName(QStringLiteral("id"));
    idEdit->setToolTip(PresetManager::tr("Lower-case kebab-case, e.g. acme-h100-contract; fixed once saved"));
    auto *idLabel = new QLabel(PresetManager::tr("&Id:"));
    idLabel->setBuddy(idEdit);
    layout->addRow(idLabel, idEdit);
    editors.insert(QStringLiteral("id"), idEdit);
    for (const Field &f : fields) {
        QWidget *editor = makeEditor(f);
        auto *label = new QLabel(PresetManager::tr(f.label));
        label->setBuddy(editor);
        layout->addRow(label, editor);
        editors.insert(QString::fromLatin1(f.key), editor);
    }
    return form;
}

QString textOf(const QWidget *w)
{
    if (auto *line = qobject_cast<const QLineEdit *>(w))
        return line->text();
    return static_cast<const QPlainTextEdit *>(w)->toPlainText();
}

} // namespace

/// One undo step: presets put back to what they were (before) or made what
/// they became (after); nullopt stands for "absent". The change is already in
/// the store when pushed, so the first redo() does nothing.
class PresetCommand : public QUndoCommand
{
public:
    struct Change
    {
        QString id;
        std::optional<QJsonObject> before;
        std::optional<QJsonObject> after;
    };
    PresetCommand(PresetManager *dialog, QVector<Change> changes, const QString &text)
        : QUndoCommand(text), m_dialog(dialog), m_changes(std::move(changes))
    {
    }
    void redo() override
    {
        if (m_applied) {
            m_applied = false;
            return;
        }
        for (const Change &c : m_changes)
            m_dialog->apply(c.id, c.after);
        m_dialog->refresh(m_changes.size() == 1 && m_changes.first().after ? m_changes.first().id : QString());
    }
    void undo() override
    {
        for (auto it = m_changes.crbegin(); it != m_changes.crend(); ++it)
            m_dialog->apply(it->id, it->before);
        m_dialog->refresh(m_changes.size() == 1 && m_changes.first().before ? m_changes.first().id : QString());
    }

private:
    PresetManager *m_dialog;
    QVector<Change> m_changes;
    bool m_applied = true;
};

/// The buttons the constructor's steps share (the others are members).
struct PresetManager::Buttons
{
    QPushButton *newGpu;
    QPushButton *newModel;
    QPushButton *undo;
    QPushButton *redo;
    QPushButton *exportBundle;
    QPushButton *importBundle;
    QDialogButtonBox *bottom; ///< Close, then undo, redo, export and import
};

PresetManager::PresetManager(const QString &storePath, QWidget *parent)
    : QDialog(parent), m_store(std::make_unique<PresetStore>(storePath.isEmpty() ? PresetStore::defaultPath() : storePath)),
      m_undo(new QUndoStack(this))
{
    setWindowTitle(tr("Presets"));
    QString error;
    m_storeOpen = m_store->open(&error);

    QWidget *browser = buildBrowser();
    QWidget *detail = buildDetail();
    buildStatusLine();
    const Buttons buttons = buildButtons();
    layOut(browser, detail, buttons);
    connectBrowser();
    connectButtons(buttons);
    for (QPushButton *b : {buttons.exportBundle, buttons.importBundle, buttons.newGpu, buttons.newModel})
        b->setEnabled(m_storeOpen);

    if (!m_storeOpen)
        setStatus(error + tr(" The built-in presets are shown, read-only."), true);
    else if (!m_store->warning().isEmpty())
        setStatus(m_store->warning(), true);
    refresh();
    m_search->setFocus();
    // 1180 x 660, within the screen it opens on (less room for a title bar).
    const QRect room = (parent ? parent->screen() : screen())->availableGeometry();
    resize(std::min(1180, room.width()), std::min(660, room.height() - 40));
}

QHBoxLayout *PresetManager::buildFilters()
{
    m_search = new QLineEdit;
    m_search->setPlaceholderText(tr("Name, id or source"));
    m_search->setClearButtonEnabled(true);
    auto *searchLabel = new QLabel(tr("&Search:"));
    searchLabel->setBuddy(m_search);
    m_show = new QComboBox;
    m_show->addItems({tr("All presets"), tr("Models"), tr("GPUs"), tr("Yours only")});
    auto *showLabel = new QLabel(tr("Sh&ow:"));
    showLabel->setBuddy(m_show);
    auto *filters = new QHBoxLayout;
    filters->addWidget(searchLabel);
    filters->addWidget(m_search, 1);
    filters->addWidget(showLabel);
    filters->addWidget(m_show);
    return filters;
}

QWidget *PresetManager::buildBrowser()
{
    QHBoxLayout *filters = buildFilters();
    m_table = new QTableWidget(0, 5);
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("Id"), tr("Kind"), tr("Origin"), tr("Source")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(4, QHeaderView::Stretch);
    m_table->setWordWrap(false);
    auto *tableLabel = new QLabel(tr("&Presets:"));
    tableLabel->setBuddy(m_table);
    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addLayout(filters);
    leftLayout->addWidget(tableLabel);
    leftLayout->addWidget(m_table, 1);
    return left;
}

QWidget *PresetManager::buildDetail()
{
    m_forms = new QStackedWidget;
    m_forms->addWidget(makeForm(gpuFields, m_gpuEditors, m_gpuId));
    m_forms->addWidget(makeForm(modelFields, m_modelEditors, m_modelId));
    m_origin = new QLabel;
    m_origin->setWordWrap(true);
    auto *detail = new QGroupBox(tr("Preset"));
    auto *detailLayout = new QVBoxLayout(detail);
    detailLayout->addWidget(m_origin);
    // The forms scroll: a model's fields are taller than a 720-pixel screen at a larger font.
    auto *scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_forms);
    detailLayout->addWidget(scroll, 1);
    return detail;
}

void PresetManager::buildStatusLine()
{
    m_status = new QLabel;
    m_status->setWordWrap(true);
    m_status->setMinimumHeight(2 * fontMetrics().height() + 10); // two lines and the padding of an error
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
}

PresetManager::Buttons PresetManager::buildButtons()
{
    Buttons b;
    b.newGpu = new QPushButton(tr("New &GPU"));
    b.newModel = new QPushButton(tr("New &model from config.json…"));
    m_duplicate = new QPushButton(tr("Dupli&cate"));
    m_delete = new QPushButton(tr("&Delete"));
    m_save = new QPushButton(tr("Sa&ve"));
    m_save->setDefault(true);
    b.undo = new QPushButton(tr("&Undo"));
    b.redo = new QPushButton(tr("&Redo"));
    b.exportBundle = new QPushButton(tr("E&xport bundle…"));
    b.importBundle = new QPushButton(tr("Import bund&le…"));
    connectUndo(b.undo, b.redo);
    b.bottom = new QDialogButtonBox(QDialogButtonBox::Close);
    b.bottom->button(QDialogButtonBox::Close)->setText(tr("Close")); // Esc; its usual &C is Duplicate's
    for (QPushButton *button : {b.undo, b.redo, b.exportBundle, b.importBundle})
        b.bottom->addButton(button, QDialogButtonBox::ActionRole);
    return b;
}

void PresetManager::connectUndo(QPushButton *undoButton, QPushButton *redoButton)
{
    auto *undo = m_undo->createUndoAction(this, tr("Undo"));
    undo->setShortcut(QKeySequence::Undo);
    auto *redo = m_undo->createRedoAction(this, tr("Redo"));
    redo->setShortcut(QKeySequence::Redo);
    addAction(undo);
    addAction(redo);
    connect(undoButton, &QPushButton::clicked, undo, &QAction::trigger);
    connect(redoButton, &QPushButton::clicked, redo, &QAction::trigger);
    connect(m_undo, &QUndoStack::canUndoChanged, undoButton, &QWidget::setEnabled);
    connect(m_undo, &QUndoStack::canRedoChanged, redoButton, &QWidget::setEnabled);
    connect(m_undo, &QUndoStack::undoTextChanged, undoButton, [undoButton](const QString &t) { undoButton->setToolTip(t); });
    connect(m_undo, &QUndoStack::redoTextChanged, redoButton, [redoButton](const QString &t) { redoButton->setToolTip(t); });
    undoButton->setEnabled(false);
    redoButton->setEnabled(false);
}

void PresetManager::layOut(QWidget *browser, QWidget *detail, const Buttons &b)
{
    auto *editButtons = new QHBoxLayout;
    for (QPushButton *button : {b.newGpu, b.newModel, m_duplicate, m_delete})
        editButtons->addWidget(button);
    editButtons->addStretch();
    editButtons->addWidget(m_save);
    auto *splitter = new QSplitter;
    splitter->addWidget(browser);
    splitter->addWidget(detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter, 1);
    layout->addLayout(editButtons);
    layout->addWidget(m_status);
    layout->addWidget(b.bottom);
}

void PresetManager::connectBrowser()
{
    connect(m_search, &QLineEdit::textChanged, this, [this] { refresh(currentId()); });
    connect(m_show, &QComboBox::currentIndexChanged, this, [this] { refresh(currentId()); });
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const int row = m_table->currentRow();
        if (row < 0 || m_table->selectedItems().isEmpty() || idAt(row) == currentId())
            return;
        if (!keepEdits())
            return;
        for (const PresetRecord &r : std::as_const(m_records))
            if (r.id == idAt(row))
                showPreset(r.json, r.builtIn, false);
    });
}

void PresetManager::connectButtons(const Buttons &b)
{
    connect(b.newGpu, &QPushButton::clicked, this, &PresetManager::newGpu);
    connect(b.newModel, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Import a model from config.json"), QString(), tr("JSON (*.json)"));
        if (!path.isEmpty())
            importConfig(path);
    });
    connect(m_duplicate, &QPushButton::clicked, this, &PresetManager::duplicateCurrent);
    connect(m_delete, &QPushButton::clicked, this, &PresetManager::deleteCurrent);
    connect(m_save, &QPushButton::clicked, this, &PresetManager::saveForm);
    connect(b.exportBundle, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export your presets"), tr("team-presets.json"), tr("JSON (*.json)"));
        if (!path.isEmpty())
            exportBundle(path);
    });
    connect(b.importBundle, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Import a preset bundle"), QString(), tr("JSON (*.json)"));
        if (path.isEmpty() || importBundle(path, false) || !statusText().contains(QLatin1String("--replace")))
            return;
        if (QMessageBox::question(this, tr("Replace your presets?"),
                                  statusText() + tr("\n\nReplace them? Your current versions are kept in a backup bundle first."))
            == QMessageBox::Yes)
            importBundle(path, true);
    });
    connect(b.bottom, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

PresetManager::~PresetManager() = default;

bool PresetManager::formEdited() const
{
    if (m_builtIn || !m_storeOpen)
        return false;
    // What the user typed since the form was filled (filling it resets the flags).
    for (const QWidget *w : m_forms->currentIndex() == 0 ? m_gpuEditors : m_modelEditors) {
        if (auto *line = qobject_cast<const QLineEdit *>(w); line && line->isModified())
            return true;
        if (auto *plain = qobject_cast<const QPlainTextEdit *>(w); plain && plain->document()->isModified())
            return true;
    }
    return false;
}

bool PresetManager::keepEdits()
{
    if (!formEdited())
        return true;
    const auto answer = QMessageBox::question(this, tr("Unsaved preset"), tr("Discard the changes to %1?").arg(currentId()),
                                              QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer == QMessageBox::Discard) {
        m_isNew = false;
        return true;
    }
    // Back to the preset being edited.
    const QSignalBlocker block(m_table);
    m_table->clearSelection();
    selectPreset(currentId());
    return false;
}

void PresetManager::reject()
{
    if (keepEdits())
        QDialog::reject();
}

void PresetManager::refresh(const QString &select)
{
    m_records = m_storeOpen ? m_store->list() : PresetStore::builtInPresets();
    const QString needle = m_search->text().trimmed();
    const int show = m_show->currentIndex();
    const QSignalBlocker block(m_table);
    m_table->setRowCount(0);
    int selectRow = -1;
    for (const PresetRecord &r : std::as_const(m_records)) {
        if ((show == 1 && r.kind != QLatin1String("model")) || (show == 2 && r.kind != QLatin1String("gpu")) || (show == 3 && r.builtIn))
            continue;
        if (!needle.isEmpty() && !r.name.contains(needle, Qt::CaseInsensitive) && !r.id.contains(needle, Qt::CaseInsensitive)
            && !r.source.contains(needle, Qt::CaseInsensitive))
            continue;
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        const QStringList cells{r.name, r.id, r.kind == QLatin1String("gpu") ? tr("GPU") : tr("model"), r.builtIn ? tr("built-in") : tr("yours"), r.source};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells.at(c));
            item->setToolTip(c == 4 ? r.source : cells.at(c));
            m_table->setItem(row, c, item);
        }
        if (r.id == select)
            selectRow = row;
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(4, QHeaderView::Stretch);
    // The form shows a preset of the list: the one asked for, else the first
    // (a new preset being typed in stays in the form whatever the search).
    if (selectRow < 0 && !m_isNew && m_table->rowCount() > 0)
        selectRow = 0;
    if (selectRow >= 0) {
        m_table->selectRow(selectRow);
        for (const PresetRecord &r : std::as_const(m_records))
            if (r.id == idAt(selectRow))
                showPreset(r.json, r.builtIn, false);
    } else if (!m_isNew) {
        m_base = {};
        m_forms->setEnabled(false);
        m_origin->setText(tr("No preset matches the search."));
    }
    updateButtons();
}

void PresetManager::setSearch(const QString &text)
{
    m_search->setText(text);
}

int PresetManager::rowCount() const
{
    return m_table->rowCount();
}

QString PresetManager::idAt(int row) const
{
    const QTableWidgetItem *item = m_table->item(row, 1);
    return item ? item->text() : QString();
}

bool PresetManager::selectPreset(const QString &id)
{
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (idAt(row) == id) {
            m_table->selectRow(row);
            return true;
        }
    return false;
}

QString PresetManager::currentId() const
{
    return m_base.value(QStringLiteral("id")).toString();
}

void PresetManager::showPreset(const QJsonObject &preset, bool builtIn, bool isNew)
{
    m_base = preset;
    m_builtIn = builtIn;
    m_isNew = isNew;
    m_forms->setEnabled(true);
    markField(QString());
    const bool gpu = preset.value(QStringLiteral("kind")).toString() == QLatin1String("gpu");
    m_forms->setCurrentIndex(gpu ? 0 : 1);
    const QHash<QString, QWidget *> &editors = gpu ? m_gpuEditors : m_modelEditors;
    auto fill = [&](const auto &fields) {
        for (const Field &f : fields) {
            QWidget *w = editors.value(QString::fromLatin1(f.key));
            const QJsonValue v = preset.value(QLatin1String(f.key));
            QString text;
            if (f.type == Field::Json)
                text = QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Indented));
            else if (f.type == Field::Formats)
                text = GpuSpec::formatsText(v);
            else if (v.isString())
                text = v.toString();
            else if (v.isDouble() && (f.type == Field::Size || f.type == Field::Rate))
                text = exactSize(v.toInteger()) + (f.type == Field::Rate ? QStringLiteral("/s") : QString());
            else if (v.isDouble() && f.type == Field::Count)
                text = QString::number(v.toInteger());
            else if (v.isDouble())
                text = QString::number(v.toDouble(), 'g', 15);
            if (auto *line = qobject_cast<QLineEdit *>(w)) {
                line->setText(text);
                line->setCursorPosition(0); // long sources read from their start
                line->setReadOnly(builtIn);
            } else if (auto *plain = qobject_cast<QPlainTextEdit *>(w)) {
                plain->setPlainText(text);
                plain->document()->setModified(false);
                plain->setReadOnly(builtIn);
            }
        }
    };
    if (gpu) {
        fill(gpuFields);
    } else {
        fill(modelFields);
        // Without published counts, the ones derived from the config are used: say which.
        QString total, active;
        try {
            const ModelShape m = ConfigImporter::fromPreset(preset);
            total = tr("empty: %1 derived from config.json").arg(Units::formatCount(m.derivedParams));
            active = tr("empty: %1 derived from config.json").arg(Units::formatCount(m.derivedActiveParams));
        } catch (const InputError &) {
            // Shown as it is; Save names the field.
        }
        static_cast<QLineEdit *>(m_modelEditors.value(QStringLiteral("total_params")))->setPlaceholderText(total);
        static_cast<QLineEdit *>(m_modelEditors.value(QStringLiteral("active_params")))->setPlaceholderText(active);
    }
    QLineEdit *id = gpu ? m_gpuId : m_modelId;
    id->setText(preset.value(QStringLiteral("id")).toString()); // (setText clears isModified())
    id->setReadOnly(!isNew);
    m_origin->setText(builtIn ? tr("Built-in, refreshed with each release: read-only. Duplicate it to make your own copy.")
                      : isNew ? tr("New: give it an id and the figures, then Save.")
                              : tr("Yours: edit the fields and Save (Ctrl+Z undoes)."));
    updateButtons();
}

QJsonObject PresetManager::formPreset() const
{
    QJsonObject p = m_base; // fields the form does not show are kept as they are
    const bool gpu = m_forms->currentIndex() == 0;
    const QHash<QString, QWidget *> &editors = gpu ? m_gpuEditors : m_modelEditors;
    p.insert(QStringLiteral("id"), (gpu ? m_gpuId : m_modelId)->text().trimmed());
    auto read = [&](const auto &fields) {
        for (const Field &f : fields) {
            const QString key = QString::fromLatin1(f.key);
            const QString text = textOf(editors.value(key)).trimmed();
            if (text.isEmpty() && f.type != Field::Json) {
                if (f.type == Field::Price)
                    p.insert(key, QJsonValue::Null); // as the built-ins say "set a price"
                else
                    p.remove(key);
                continue;
            }
            switch (f.type) {
            case Field::Text:
            case Field::LongText: p.insert(key, text); break;
            case Field::Size: p.insert(key, QJsonValue(Units::parseSize(text, key))); break; // qint64, kept exact
            case Field::Rate: {
                QString size = text;
                if (size.endsWith(QLatin1String("/s")))
                    size.chop(2);
                p.insert(key, QJsonValue(Units::parseSize(size, key)));
                break;
            }
            case Field::Count: p.insert(key, QJsonValue(Units::parseCount(text, key))); break;
            case Field::Number:
            case Field::Price: p.insert(key, Units::parseFraction(text, key, 0, 1e6)); break;
            case Field::Formats: p.insert(key, GpuSpec::formatsFromText(text, key)); break;
            case Field::Json: {
                QJsonParseError error{};
                const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &error);
                if (error.error != QJsonParseError::NoError || !doc.isObject())
                    throw InputError(key, tr("must be a JSON object (the model's config.json): %1")
                                              .arg(error.error != QJsonParseError::NoError ? error.errorString() : tr("not an object")));
                p.insert(key, doc.object());
                break;
            }
            }
        }
    };
    if (gpu)
        read(gpuFields);
    else
        read(modelFields);
    return p;
}

void PresetManager::setStatus(const QString &text, bool error)
{
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color: white; background: #b3261e; padding: 4px;") : QString());
}

void PresetManager::markField(const QString &key)
{
    const QHash<QString, QWidget *> &editors = m_forms->currentIndex() == 0 ? m_gpuEditors : m_modelEditors;
    if (QWidget *old = editors.value(m_marked))
        old->setStyleSheet(QString());
    m_marked = key;
    if (QWidget *w = editors.value(key)) {
        w->setStyleSheet(QStringLiteral("border: 2px solid #b3261e;"));
        w->setFocus();
    }
}

QString PresetManager::fieldLabel(const QString &key) const
{
    const auto *form = static_cast<QFormLayout *>(m_forms->currentWidget()->layout());
    QWidget *editor = fieldEditor(key);
    const auto *label = editor ? qobject_cast<QLabel *>(form->labelForField(editor)) : nullptr;
    return label ? label->text().remove(QLatin1Char('&')).remove(QLatin1Char(':')) : QString();
}

QWidget *PresetManager::fieldEditor(const QString &key) const
{
    return (m_forms->currentIndex() == 0 ? m_gpuEditors : m_modelEditors).value(key);
}

QString PresetManager::statusText() const
{
    return m_status->text();
}

void PresetManager::updateButtons()
{
    const bool shown = !currentId().isEmpty() || m_isNew;
    m_save->setEnabled(m_storeOpen && shown && !m_builtIn);
    m_duplicate->setEnabled(m_storeOpen && shown && !m_isNew);
    m_delete->setEnabled(m_storeOpen && shown && !m_builtIn && !m_isNew);
}

QString PresetManager::freeId(const QString &wanted) const
{
    QString base = wanted.toLower();
    base.replace(QRegularExpression(QStringLiteral("[^a-z0-9.]+")), QStringLiteral("-"));
    base.remove(QRegularExpression(QStringLiteral("^[-.]+|[-.]+$")));
    if (base.isEmpty())
        base = QStringLiteral("my-preset");
    QString id = base;
    for (int n = 2; !m_store->find(id).id.isEmpty() || PresetStore::isBuiltInId(id); ++n)
        id = QStringLiteral("%1-%2").arg(base).arg(n);
    return id;
}

void PresetManager::newGpu()
{
    if (!keepEdits())
        return;
    m_table->clearSelection();
    showPreset({{QStringLiteral("kind"), QStringLiteral("gpu")}, {QStringLiteral("id"), freeId(QStringLiteral("my-gpu"))}}, false, true);
    m_gpuEditors.value(QStringLiteral("name"))->setFocus();
    setStatus(tr("A new GPU: fill in at least the name and the memory per card, then Save."), false);
}

void PresetManager::duplicateCurrent()
{
    if (currentId().isEmpty() || !keepEdits())
        return;
    QJsonObject copy = m_base;
    copy.insert(QStringLiteral("id"), freeId(currentId() + QStringLiteral("-copy")));
    copy.insert(QStringLiteral("name"), tr("%1 (copy)").arg(m_base.value(QStringLiteral("name")).toString(currentId())));
    m_table->clearSelection();
    showPreset(copy, false, true);
    setStatus(tr("A copy of %1: change what differs (a negotiated price, say), then Save.").arg(m_base.value(QStringLiteral("name")).toString()), false);
    fieldEditor(QStringLiteral("name"))->setFocus();
}

bool PresetManager::apply(const QString &id, const std::optional<QJsonObject> &state)
{
    QString error;
    const bool ok = state ? m_store->saveUserPreset(*state, &error) : m_store->removeUserPreset(id, &error);
    if (!ok)
        setStatus(error, true);
    m_changed = m_changed || ok;
    return ok;
}

bool PresetManager::saveForm()
{
    if (!m_storeOpen || m_builtIn)
        return false;
    QJsonObject preset;
    try {
        preset = formPreset();
        PresetStore::validate(preset);
    } catch (const InputError &e) {
        // The field as labelled in the form, then as named in the preset file.
        const QString label = fieldLabel(e.field());
        setStatus(label.isEmpty() ? e.text() : tr("%1 (%2): %3").arg(label, e.field(), e.message()), true);
        markField(e.field());
        return false;
    }
    const QString id = preset.value(QStringLiteral("id")).toString();
    const PresetRecord existing = m_store->find(id);
    if (m_isNew && (!existing.id.isEmpty() || PresetStore::isBuiltInId(id))) {
        setStatus(tr("id: \"%1\" is already taken by %2; choose another").arg(id, existing.builtIn || existing.id.isEmpty() ? tr("a built-in preset") : tr("one of your presets")), true);
        markField(QStringLiteral("id"));
        return false;
    }
    if (!m_isNew && existing.json == preset) {
        setStatus(tr("Nothing changed."), false);
        return true;
    }
    const std::optional<QJsonObject> before = m_isNew ? std::nullopt : std::optional<QJsonObject>(existing.json);
    if (!apply(id, preset)) {
        markField(m_status->text().section(QLatin1Char(':'), 0, 0));
        return false;
    }
    m_undo->push(new PresetCommand(this, {{id, before, preset}}, m_isNew ? tr("Add %1").arg(id) : tr("Edit %1").arg(id)));
    refresh(id);
    setStatus(tr("Saved %1.").arg(id), false);
    return true;
}

bool PresetManager::deleteCurrent()
{
    const QString id = currentId();
    const PresetRecord existing = m_store->find(id);
    if (id.isEmpty() || m_isNew || existing.builtIn || existing.id.isEmpty()) {
        setStatus(tr("\"%1\" is a built-in preset, which cannot be deleted.").arg(id), true);
        return false;
    }
    if (!apply(id, std::nullopt))
        return false;
    m_undo->push(new PresetCommand(this, {{id, existing.json, std::nullopt}}, tr("Delete %1").arg(id)));
    m_base = {};
    refresh();
    setStatus(tr("Deleted %1 (Ctrl+Z brings it back).").arg(id), false);
    return true;
}

bool PresetManager::importConfig(const QString &path)
{
    if (!keepEdits())
        return false;
    QJsonObject preset;
    try {
        preset = PresetStore::modelPresetFromFile(path, tr("config.json"));
    } catch (const InputError &e) {
        setStatus(e.text(), true);
        return false;
    }
    const QString name = preset.value(QStringLiteral("name")).toString(QFileInfo(path).dir().dirName());
    preset.insert(QStringLiteral("name"), name);
    preset.insert(QStringLiteral("id"), freeId(preset.value(QStringLiteral("id")).toString(name)));
    m_table->clearSelection();
    showPreset(preset, false, true);
    setStatus(tr("Read %1: check the id, name and parameter count, then Save.").arg(path), false);
    fieldEditor(QStringLiteral("name"))->setFocus();
    return true;
}

bool PresetManager::exportBundle(const QString &path)
{
    QVector<PresetRecord> mine;
    for (const PresetRecord &r : m_store->list())
        if (!r.builtIn)
            mine << r;
    if (mine.isEmpty()) {
        setStatus(tr("You have no presets of your own to export yet."), true);
        return false;
    }
    QString error;
    if (!PresetBundle::save(path, mine, &error, {{m_store->path(), tr("the preset store")}})) {
        setStatus(error, true);
        return false;
    }
    setStatus(tr("Exported %n preset(s) to %1.", nullptr, int(mine.size())).arg(path), false);
    return true;
}

bool PresetManager::importBundle(const QString &path, bool replace)
{
    QVector<QJsonObject> presets;
    QStringList warnings;
    try {
        presets = PresetBundle::read(path, &warnings);
    } catch (const InputError &e) {
        setStatus(e.text(), true);
        return false;
    }
    QVector<PresetCommand::Change> changes;
    for (const QJsonObject &p : presets) {
        const PresetRecord existing = m_store->find(p.value(QStringLiteral("id")).toString());
        changes.append({p.value(QStringLiteral("id")).toString(),
                        existing.id.isEmpty() ? std::nullopt : std::optional<QJsonObject>(existing.json), p});
    }
    PresetStore::ImportResult result;
    QString error;
    if (!m_store->importPresets(presets, replace, &result, &error)) {
        setStatus(error, true);
        return false;
    }
    m_changed = true;
    changes.erase(std::remove_if(changes.begin(), changes.end(), [&](const PresetCommand::Change &c) { return result.unchanged.contains(c.id); }),
                  changes.end());
    if (!changes.isEmpty())
        m_undo->push(new PresetCommand(this, changes, tr("Import %1").arg(QFileInfo(path).fileName())));
    refresh(currentId());
    setStatus(tr("Imported %1: %2 added, %3 replaced, %4 unchanged.%5")
                  .arg(path)
                  .arg(result.added.size())
                  .arg(result.replaced.size())
                  .arg(result.unchanged.size())
                  .arg(result.backupPath.isEmpty() ? QString() : tr(" The replaced ones as they were: %1").arg(result.backupPath))
                  + (warnings.isEmpty() ? QString() : QLatin1Char(' ') + warnings.join(QStringLiteral("; ")) + QLatin1Char('.')),
              false);
    return true;
}

} // namespace Headroom
