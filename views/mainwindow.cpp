// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"
#include "wrappedlabel.h"
#include "core/outputtarget.h"
#include "io/sampletraces.h"

#include "calibrationdialog.h"
#include "plan/capacity.h"
#include "compareview.h"
#include "leversview.h"
#include "reportwriter.h"
#include "distributionview.h"
#include "io/configimporter.h"
#include "core/inputerror.h"
#include "inputpanel.h"
#include "memorychartview.h"
#include "planner.h"
#include "presetmanager.h"
#include "presetstore.h"
#include "io/scenariofile.h"
#include "chartstyle.h"
#include "settings.h"

#include <QAction>
#include <QClipboard>
#include <QJsonObject>
#include <QPainter>
#include <QPrintPreviewDialog>
#include <QPrinter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QDateTime>
#include <QFile>
#include <QFileDialog>
#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QMimeData>
#include <QUrl>
#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QKeyEvent>
#include <QLockFile>
#include <QFocusEvent>
#include <QMouseEvent>
#include <QSignalBlocker>
#include <QScreen>
#include <QLineEdit>
#include <QAbstractSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>
#include <limits>

namespace Headroom {

namespace {
const QString kDefaultModel = QStringLiteral("llama-3.1-8b");
const QString kDefaultGpu = QStringLiteral("h100-sxm-80gb");

QString html(const QString &s)
{
    return s.toHtmlEscaped();
}

/// Sets `text` as the browser's HTML unless it shows it already: set again, QTextBrowser parses
/// and lays the whole document out anew on every step of a drag (the sources seldom change).
void setHtmlOnce(QTextBrowser *browser, const QString &text)
{
    static const char *const kShown = "headroomShownHtml"; // cleared where plain text is set instead
    if (browser->property(kShown).toString() == text && !text.isEmpty())
        return;
    browser->setHtml(text);
    browser->setProperty(kShown, text);
}

/// The text HTML shows for plain `text`: runs of spaces, tabs and line breaks folded into one
/// space, none at either end (no-break spaces kept, as QString::simplified would not).
QString asHtmlShows(const QString &text)
{
    QString shown;
    bool space = false;
    for (const QChar c : text) {
        if (c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\n') || c == QLatin1Char('\r')) {
            space = !shown.isEmpty();
            continue;
        }
        if (space)
            shown += QLatin1Char(' ');
        space = false;
        shown += c;
    }
    return shown;
}

/// Shows `lines` (plain text) as the browser's numbered list. A drag changes the numbers within the
/// same lines: those blocks are rewritten in place (QTextCursor), so the document lays out and
/// repaints only them, where setHtml would parse, lay out and repaint the whole list on every step.
/// Any other change (another count of lines, plain text shown since) sets the HTML anew.
void showList(QTextBrowser *browser, const QStringList &lines)
{
    static const char *const kLines = "headroomShownLines"; // cleared where plain text is set instead
    QString list = QStringLiteral("<ol>");
    for (const QString &line : lines)
        list += QStringLiteral("<li>%1</li>").arg(html(line));
    list += QStringLiteral("</ol>");
    QStringList texts;
    for (const QString &line : lines)
        texts << asHtmlShows(line);
    const QStringList shown = browser->property(kLines).toStringList();
    QTextDocument *doc = browser->document();
    if (texts.isEmpty() || shown.size() != texts.size() || doc->blockCount() != texts.size()) {
        setHtmlOnce(browser, list);
        // Edited in place next time only when each block shows its line exactly.
        bool same = doc->blockCount() == texts.size();
        QTextBlock block = doc->begin();
        for (int i = 0; same && i < texts.size(); ++i, block = block.next())
            same = block.text() == texts.at(i);
        browser->setProperty(kLines, same ? QVariant(texts) : QVariant());
        return;
    }
    doc->setUndoRedoEnabled(false); // a read-only view: no history grows along a drag
    QTextCursor cursor(doc);
    cursor.beginEditBlock();
    QTextBlock block = doc->begin();
    for (int i = 0; i < texts.size(); ++i, block = block.next())
        if (texts.at(i) != shown.at(i)) {
            cursor.setPosition(block.position());
            cursor.setPosition(block.position() + block.length() - 1, QTextCursor::KeepAnchor);
            cursor.insertText(texts.at(i));
        }
    cursor.endEditBlock();
    browser->setProperty(kLines, texts);
    browser->setProperty("headroomShownHtml", list); // what setHtmlOnce would have set
}

/// A cell of the figures grid: plain text that asks for its width on one line and wraps only when
/// given less, as an HTML table cell does (QLabel's own hint for word-wrapped text is a narrower
/// shape of several lines, which a grid keeps even with room to spare).
class CellLabel : public SelectableLabel
{
public:
    CellLabel() { setTextFormat(Qt::PlainText); }
    QSize sizeHint() const override
    {
        // The width QLabel's own layout of the text needs on one line (the same QFontMetrics
        // call, unbounded), and the height it gives that width.
        const QMargins m = contentsMargins();
        const int width = fontMetrics().boundingRect(QRect(0, 0, QWIDGETSIZE_MAX, QWIDGETSIZE_MAX), int(alignment()), text()).width()
            + m.left() + m.right() + 2 * margin();
        return QSize(width, heightForWidth(width));
    }
};
} // namespace

MainWindow::MainWindow(const QString &storePath, QWidget *parent)
    : QMainWindow(parent), m_planner(new Planner(this))
{
    setWindowIcon(QIcon(QStringLiteral(":/icons/headroom.svg")));
    setAcceptDrops(true);

    m_storePath = storePath.isEmpty() ? PresetStore::defaultPath() : storePath;
    const QStringList skipped = loadPresets(true);
    if (!skipped.isEmpty())
        statusBar()->showMessage(skipped.first());
    m_planner->setPresets(m_models, m_gpus);
    m_planner->reset(defaultScenario());
    // Presets written beside the window (the command line, another window) reach the pickers
    // without a restart: the store's file is watched, and reread once its writes settle.
    m_storeWatcher = new QFileSystemWatcher(this);
    if (QFileInfo::exists(m_storePath))
        m_storeWatcher->addPath(m_storePath);
    m_storeSettle = new QTimer(this);
    m_storeSettle->setSingleShot(true);
    m_storeSettle->setInterval(300);
    connect(m_storeWatcher, &QFileSystemWatcher::fileChanged, m_storeSettle, qOverload<>(&QTimer::start));
    connect(m_storeSettle, &QTimer::timeout, this, &MainWindow::presetStoreChangedOnDisk);

    // Left: inputs.
    m_inputs = new InputPanel(m_planner, m_models, m_gpus);
    auto *scroll = new QScrollArea;
    scroll->setWidget(m_inputs);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_inputsScroll = scroll;
    fitInputsWidth(); // never narrower than the inputs: they scroll down, never sideways nor cut

    // Centre: the answer.
    auto *answer = new QWidget;
    auto *answerLayout = new QVBoxLayout(answer);
    m_sessions = new SelectableLabel;
    m_sessions->setObjectName(QStringLiteral("sessionsLabel"));
    QFont big = m_sessions->font();
    big.setPointSizeF(big.pointSizeF() * 2.2);
    big.setBold(true);
    m_sessions->setFont(big);
    m_verdict = new SelectableLabel;
    m_verdict->setTextFormat(Qt::PlainText);
    m_notes = new SelectableLabel;
    m_notes->setTextFormat(Qt::PlainText);
    m_notes->setVisible(false);
    m_verdictBox = new QWidget;
    auto *verdictLayout = new QVBoxLayout(m_verdictBox);
    verdictLayout->setContentsMargins(0, 0, 0, 0);
    verdictLayout->setSpacing(0); // the notes on the next line, as a line break would put them
    verdictLayout->addWidget(m_verdict);
    verdictLayout->addWidget(m_notes);
    styleVerdict(); // the notes italic from the start
    m_figures = new QWidget;
    auto *figures = new QGridLayout(m_figures);
    figures->setContentsMargins(6, 6, 6, 6); // as the table's cellspacing was
    figures->setSpacing(6);
    figures->setColumnStretch(2, 1); // the columns as wide as their text, the rest of the width empty
    for (int row = 0; row < 4; ++row) {
        m_figureCaptions[row] = new CellLabel;
        m_figureValues[row] = new CellLabel;
        m_figureDetails[row] = new CellLabel;
        QFont bold = m_figureValues[row]->font();
        bold.setBold(true);
        m_figureValues[row]->setFont(bold);
        auto *cell = new QHBoxLayout;
        cell->setSpacing(m_figureDetails[row]->fontMetrics().horizontalAdvance(QLatin1Char(' '))); // "value (detail)"
        cell->addWidget(m_figureValues[row]);
        cell->addWidget(m_figureDetails[row], 1);
        figures->addWidget(m_figureCaptions[row], row, 0);
        figures->addLayout(cell, row, 1);
    }
    m_advice = new WrappedLabel;
    m_advice->setTextFormat(Qt::RichText);
    m_advice->setAccessibleName(tr("What to do now"));
    connect(m_advice, &QLabel::linkActivated, this, [this](const QString &link) { applyAdvice(link.section(QLatin1Char(':'), 1).toInt()); });
    m_adviceTimer = new QTimer(this);
    m_adviceTimer->setSingleShot(true);
    m_adviceTimer->setInterval(150); // a drag asks once it pauses
    connect(m_adviceTimer, &QTimer::timeout, this, &MainWindow::requestAdvice);
    connect(m_planner, &Planner::adviceChanged, this, &MainWindow::showAdvice);
    // Presenter's headline: the three figures a customer repeats, each a large
    // value over its caption (sessions per card, cost per session-hour, what limits it).
    m_headline = new QWidget;
    m_headline->setObjectName(QStringLiteral("presenterHeadline"));
    auto *headlineGrid = new QGridLayout(m_headline);
    headlineGrid->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < 3; ++i) {
        m_headlineValues[i] = new QLabel;
        m_headlineCaptions[i] = new QLabel;
        for (QLabel *l : {m_headlineValues[i], m_headlineCaptions[i]}) {
            l->setAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            l->setWordWrap(true);
            l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        }
        m_headlineCaptions[i]->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
        headlineGrid->addWidget(m_headlineValues[i], 0, i);
        headlineGrid->addWidget(m_headlineCaptions[i], 1, i);
        headlineGrid->setColumnStretch(i, 1);
    }
    m_headline->setVisible(false);
    m_chart = new MemoryChartView;
    answerLayout->addWidget(m_headline);
    answerLayout->addWidget(m_chart, 1);
    answerLayout->addWidget(m_sessions);
    answerLayout->addWidget(m_verdictBox);
    answerLayout->addWidget(m_figures);
    answerLayout->addWidget(m_advice);
    auto *answerScroll = new QScrollArea; // a short window scrolls the answer instead of clipping it
    answerScroll->setWidget(answer);
    answerScroll->setWidgetResizable(true);
    answerScroll->setFrameShape(QFrame::NoFrame);

    // Right: why.
    auto *tabs = new QTabWidget;
    m_derivation = new QTextBrowser;
    m_derivation->setAccessibleName(tr("Derivation"));
    m_derivationTimer = new QTimer(this);
    m_derivationTimer->setSingleShot(true);
    m_derivationTimer->setInterval(150); // as the advice: a drag writes it out once it pauses
    connect(m_derivationTimer, &QTimer::timeout, this, [this] { showDerivation(false); });
    m_sources = new QTextBrowser;
    m_sources->setOpenExternalLinks(true);
    m_sourceDetails = new QCheckBox(tr("Show how each v&alue was checked"));
    connect(m_sourceDetails, &QCheckBox::toggled, this, &MainWindow::showSources);
    auto *sourcesPage = new QWidget;
    auto *sourcesLayout = new QVBoxLayout(sourcesPage);
    sourcesLayout->setContentsMargins(0, 0, 0, 0);
    sourcesLayout->addWidget(m_sources, 1);
    sourcesLayout->addWidget(m_sourceDetails);
    tabs->addTab(m_derivation, tr("&Derivation"));
    tabs->addTab(sourcesPage, tr("S&ources"));
    tabs->setMinimumWidth(220);

    m_distribution = new DistributionView(m_planner);
    m_centre = new QTabWidget;
    // No mnemonics on these tabs (the letters go to the inputs): Ctrl+1 to Ctrl+4, in the View menu.
    m_centre->addTab(answerScroll, tr("Memory per GPU"));
    m_centre->addTab(m_distribution, tr("Lengths and risk"));
    m_compare = new CompareView(m_planner);
    m_centre->addTab(m_compare, tr("Compare"));
    m_levers = new LeversView(m_planner);
    m_centre->addTab(m_levers, tr("Levers"));

    m_split = new QSplitter;
    m_split->setObjectName(QStringLiteral("mainSplitter"));
    m_split->addWidget(scroll);
    m_split->addWidget(m_centre);
    m_split->addWidget(tabs);
    m_why = tabs;
    m_split->setStretchFactor(1, 1);
    m_split->setChildrenCollapsible(false);
    setCentralWidget(m_split);

    createActions();
    rebuildRecentMenu();
    connect(m_planner->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    auto *autosaveTimer = new QTimer(this);
    connect(autosaveTimer, &QTimer::timeout, this, &MainWindow::autosave);
    autosaveTimer->start(30'000);
    updateTitle();
    // One instance owns the autosave; a second one keeps its own and offers no recovery.
    m_lock = std::make_unique<QLockFile>(QFileInfo(m_storePath).absolutePath() + QStringLiteral("/headroom.lock"));
    m_lock->setStaleLockTime(0); // stale only when its process is gone
    if (m_lock->tryLock(0))
        QTimer::singleShot(0, this, &MainWindow::offerRecovery);
    else
        m_lock.reset();
    qApp->installEventFilter(this);
    connect(m_planner, &Planner::resultChanged, this, &MainWindow::showResult);
    showResult(m_planner->result());

    restoreLayout();
    restoreLastScenario();
    setPalette(ChartStyle::activeWhenInactive(palette()));
}

QStringList MainWindow::loadPresets(bool atStart)
{
    // Presets: the store, else the built-ins as shipped (the store stays untouched).
    PresetStore store(m_storePath);
    QString error;
    QVector<PresetRecord> records;
    if (store.open(&error)) {
        records = store.list();
        QStringList problems = store.problems();
        if (!store.warning().isEmpty())
            problems.prepend(store.warning());
        if (!problems.isEmpty() && atStart)
            QTimer::singleShot(0, this, [this, problems] {
                QMessageBox::warning(this, tr("Preset database"), problems.join(QLatin1Char('\n')));
            });
    } else {
        records = PresetStore::builtInPresets();
        if (atStart)
            QTimer::singleShot(0, this, [this, error] {
                QMessageBox::warning(this, tr("Preset database"), error + tr("\n\nHeadroom uses its built-in presets for now."));
            });
        else
            statusBar()->showMessage(error + tr(" Headroom uses its built-in presets for now."));
    }
    QVector<ModelShape> models;
    QVector<GpuSpec> gpus;
    QStringList skipped;
    for (const PresetRecord &r : records) {
        try {
            if (r.kind == QLatin1String("model"))
                models << ConfigImporter::fromPreset(r.json);
            else if (r.kind == QLatin1String("gpu"))
                gpus << GpuSpec::fromPreset(r.json);
        } catch (const InputError &e) {
            skipped << QStringLiteral("%1: %2").arg(r.id, e.text());
        }
    }
    // A store with no usable model or GPU (rows deleted by hand) falls back to the shipped ones.
    const bool noModels = models.isEmpty(), noGpus = gpus.isEmpty();
    for (const PresetRecord &r : (noModels || noGpus) ? PresetStore::builtInPresets() : QVector<PresetRecord>{}) {
        if (noModels && r.kind == QLatin1String("model"))
            models << ConfigImporter::fromPreset(r.json);
        else if (noGpus && r.kind == QLatin1String("gpu"))
            gpus << GpuSpec::fromPreset(r.json);
    }

    m_models = models;
    m_gpus = gpus;
    return skipped.isEmpty() ? QStringList() : QStringList{tr("presets skipped: %1").arg(skipped.join(QStringLiteral("; ")))};
}

void MainWindow::refreshPresets()
{
    const Scenario before = m_planner->scenario();
    QStringList notes = loadPresets(false);
    m_planner->setPresets(m_models, m_gpus);
    m_inputs->setPresets(m_models, m_gpus);
    // An edited preset in use: the plan takes its new values (one undo step each).
    bool modelKept = false, gpuKept = false;
    for (const ModelShape &m : m_models)
        if (m.id == before.model.id) {
            modelKept = true;
            if (!(m == before.model))
                m_planner->setModel(m);
        }
    for (const GpuSpec &g : m_gpus)
        if (g.id == before.gpu.id) {
            gpuKept = true;
            if (!(g == before.gpu))
                m_planner->setGpu(g);
        }
    if (!modelKept)
        notes << tr("the model \"%1\" is no longer a preset; the scenario keeps it").arg(before.model.name);
    if (!gpuKept)
        notes << tr("the GPU \"%1\" is no longer a preset; the scenario keeps it").arg(before.gpu.name);
    statusBar()->showMessage(notes.isEmpty() ? tr("Presets updated: the model and GPU pickers offer them now.")
                                             : tr("Presets updated; %1.").arg(notes.join(QStringLiteral("; "))),
                             10000);
}

void MainWindow::presetStoreChangedOnDisk()
{
    // A file replaced or recreated is no longer watched: watch the path again.
    if (QFileInfo::exists(m_storePath) && !m_storeWatcher->files().contains(m_storePath))
        m_storeWatcher->addPath(m_storePath);
    const QVector<ModelShape> models = m_models;
    const QVector<GpuSpec> gpus = m_gpus;
    loadPresets(false);
    const bool same = m_models == models && m_gpus == gpus;
    m_models = models;
    m_gpus = gpus;
    if (!same)
        refreshPresets();
}

void MainWindow::restoreLastScenario()
{
    const QString last = Settings().lastScenario();
    if (last.isEmpty())
        return;
    if (!QFileInfo::exists(last)) {
        statusBar()->showMessage(tr("The last scenario, %1, is gone: starting from the defaults.").arg(last), 15000);
        return;
    }
    QString error;
    if (!openScenario(last, &error))
        statusBar()->showMessage(tr("Cannot reopen the last scenario, %1: %2").arg(last, error), 15000);
}

void MainWindow::restoreLayout()
{
    Settings settings;
    if (settings.units() == UnitSystem::Binary)
        m_units->setCurrentIndex(1);
    if (!restoreGeometry(settings.windowGeometry())) {
        // First start: the screen's available area, at most 1400 x 820.
        const QRect screen = this->screen() ? this->screen()->availableGeometry() : QRect(0, 0, 1280, 720);
        resize(std::min(1400, screen.width()), std::min(820, screen.height()));
        m_split->setSizes({width() * 28 / 100, width() * 50 / 100, width() * 22 / 100});
    }
    restoreState(settings.windowState(), Settings::kVersion);
    m_split->restoreState(settings.splitterState(m_split->objectName()));
    m_distribution->restoreLayout(settings);
}

void MainWindow::saveLayout() const
{
    Settings settings;
    settings.setWindowGeometry(saveGeometry());
    settings.setWindowState(saveState(Settings::kVersion));
    settings.setSplitterState(m_split->objectName(), m_split->saveState());
    m_distribution->saveLayout(settings);
    settings.setUnits(m_planner->units());
    settings.setDefaultEngine(m_planner->scenario().engine);
}

MainWindow::~MainWindow()
{
    // The planner is a child: QWidget's destructor deletes it after this class's part is
    // gone, and its undo stack then signals cleanChanged; no MainWindow slot may run then
    // (UBSan, -fsanitize=vptr).
    m_planner->undoStack()->disconnect(this);
    m_planner->disconnect(this);
}

void MainWindow::createActions()
{
    QUndoStack *undo = m_planner->undoStack();
    QAction *undoAction = undo->createUndoAction(this, tr("&Undo"));
    undoAction->setShortcut(QKeySequence::Undo);
    QAction *redoAction = undo->createRedoAction(this, tr("&Redo"));
    redoAction->setShortcut(QKeySequence::Redo);
    // The Edit menu names the step ("Undo Choose GPU H20 96GB"); the toolbar keeps a short,
    // steady "Undo" / "Redo" so its buttons never grow and shift the units box along.
    undoAction->setIconText(tr("Undo"));
    redoAction->setIconText(tr("Redo"));
    auto *newScenario = new QAction(tr("&New scenario"), this);
    newScenario->setShortcut(QKeySequence::New);
    connect(newScenario, &QAction::triggered, this, [this] {
        if (!maybeSave())
            return;
        m_path.clear();
        m_planner->reset(defaultScenario());
        updateTitle();
    });
    auto *openScenarioAction = new QAction(tr("&Open scenario…"), this);
    openScenarioAction->setShortcut(QKeySequence::Open);
    connect(openScenarioAction, &QAction::triggered, this, [this] {
        if (!maybeSave())
            return;
        const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(), tr("Headroom scenarios (*.headroom *.json)"));
        if (!path.isEmpty())
            openScenario(path);
    });
    auto *save = new QAction(tr("&Save"), this);
    save->setShortcut(QKeySequence::Save);
    auto *saveAs = new QAction(tr("Save &as…"), this);
    saveAs->setShortcut(QKeySequence::SaveAs);
    connect(saveAs, &QAction::triggered, this, [this] {
        QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), m_path, tr("Headroom scenarios (*.headroom)"));
        if (path.isEmpty())
            return;
        if (!path.endsWith(QLatin1String(".headroom")))
            path += QStringLiteral(".headroom");
        saveScenario(path);
    });
    connect(save, &QAction::triggered, this, [this, saveAs] {
        if (m_path.isEmpty() || !m_path.endsWith(QLatin1String(".headroom")))
            saveAs->trigger();
        else
            saveScenario(m_path);
    });
    auto *open = new QAction(tr("Import &config.json…"), this);
    open->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O)); // Ctrl+O opens a scenario, as everywhere
    open->setToolTip(tr("Import a HuggingFace config.json as the model (or drop one on the window)"));
    connect(open, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open config.json"), QString(), tr("JSON files (*.json)"));
        if (!path.isEmpty())
            openModelFile(path);
    });
    auto *importTrace = new QAction(tr("Import &trace…"), this);
    importTrace->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    importTrace->setToolTip(tr("Session lengths from a request log (Azure trace CSV or one length per line)"));
    connect(importTrace, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Import trace"), QString(), tr("Request traces (*.csv *.jsonl *.txt);;All files (*)"));
        if (!path.isEmpty() && m_distribution->importTrace(path))
            m_centre->setCurrentWidget(m_distribution);
    });
    auto *exportPdf = new QAction(tr("&Export report…"), this);
    exportPdf->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportPdf->setToolTip(tr("The PDF capacity report (pinned scenarios become a comparison page)"));
    connect(exportPdf, &QAction::triggered, this, [this] {
        // The page size is the file type chosen: A4, or US Letter (the default where the locale measures in inches).
        const QString a4 = tr("PDF, A4 pages (*.pdf)"), letterPages = tr("PDF, US Letter pages (*.pdf)");
        QString chosen = ReportWriter::defaultPageSize() == QPageSize::Letter ? letterPages : a4;
        QString path = QFileDialog::getSaveFileName(this, tr("Export report"), exportStartPath(QStringLiteral(".pdf")), a4 + QStringLiteral(";;") + letterPages, &chosen);
        if (path.isEmpty())
            return;
        if (!path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
            path += QStringLiteral(".pdf");
        if (exportReport(path, chosen == letterPages ? QPageSize::Letter : QPageSize::A4))
            statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
    });
    auto *preview = new QAction(tr("Print pre&view…"), this);
    preview->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    connect(preview, &QAction::triggered, this, [this] {
        QPrinter printer(QPrinter::HighResolution);
        ReportWriter::setUpPrinter(&printer, ReportWriter::defaultPageSize()); // the exported PDF's pages, laid out alike
        QPrintPreviewDialog dialog(&printer, this);
        connect(&dialog, &QPrintPreviewDialog::paintRequested, this, [this](QPrinter *p) {
            QString error;
            if (!ReportWriter::paint(p, reportInput(), &error))
                statusBar()->showMessage(error, 10000);
        });
        dialog.exec();
    });
    auto *copyChart = new QAction(tr("&Copy chart"), this);
    copyChart->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    connect(copyChart, &QAction::triggered, this, [this] {
        QApplication::clipboard()->setImage(m_chart->grab().toImage());
        statusBar()->showMessage(tr("Chart copied"), 3000);
    });
    auto *exportChartAction = new QAction(tr("Export c&hart…"), this);
    connect(exportChartAction, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), exportStartPath(QStringLiteral(".svg")), tr("SVG (*.svg);;PNG (*.png)"));
        if (!path.isEmpty() && exportChart(path))
            Settings().setExportFolder(QFileInfo(path).absolutePath());
    });
    auto *exportCsv = new QAction(tr("Export &figures (CSV)…"), this);
    connect(exportCsv, &QAction::triggered, this, [this] {
        QString path = QFileDialog::getSaveFileName(this, tr("Export figures"), exportStartPath(QStringLiteral(".csv")), tr("CSV (*.csv)"));
        if (path.isEmpty())
            return;
        if (!path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))
            path += QStringLiteral(".csv");
        if (exportFiguresCsv(path))
            Settings().setExportFolder(QFileInfo(path).absolutePath());
    });
    auto *pin = new QAction(tr("&Pin for comparison"), this);
    pin->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    pin->setToolTip(tr("Keep the current scenario as a comparison column, then change one input"));
    connect(pin, &QAction::triggered, this, [this] {
        if (m_planner->pinCurrent())
            m_centre->setCurrentWidget(m_compare);
        else
            statusBar()->showMessage(tr("Three scenarios are pinned already: remove one first"), 5000);
    });
    auto *quit = new QAction(tr("&Quit"), this);
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    m_units = new QComboBox;
    m_units->addItem(tr("GB (10^9 B)"));
    m_units->addItem(tr("GiB (2^30 B)"));
    m_units->setToolTip(tr("Units for every figure: GB as spec sheets state memory, GiB as vLLM and nvidia-smi report it"));
    connect(m_units, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_planner->setUnits(i == 1 ? UnitSystem::Binary : UnitSystem::Decimal);
        Settings().setUnits(m_planner->units());
    });
    auto *zoomIn = new QAction(tr("Zoom &in"), this);
    zoomIn->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    connect(zoomIn, &QAction::triggered, this, [this] { setZoom(m_zoom * 1.15); });
    auto *zoomOut = new QAction(tr("Zoom &out"), this);
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    connect(zoomOut, &QAction::triggered, this, [this] { setZoom(m_zoom / 1.15); });
    auto *zoomReset = new QAction(tr("&Actual size"), this);
    zoomReset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    connect(zoomReset, &QAction::triggered, this, [this] { setZoom(1.0); });
    m_presenterAction = new QAction(tr("&Presenter"), this);
    m_presenterAction->setCheckable(true);
    m_presenterAction->setShortcut(QKeySequence(Qt::Key_F5));
    m_presenterAction->setToolTip(tr("Full screen, large type for a projector (F5; Esc leaves)"));
    connect(m_presenterAction, &QAction::toggled, this, &MainWindow::setPresenterMode);
    m_leavePresenter = new QAction(tr("Leave presenter"), this);
    m_leavePresenter->setShortcut(QKeySequence(Qt::Key_Escape));
    m_leavePresenter->setShortcutContext(Qt::WindowShortcut);
    m_leavePresenter->setEnabled(false); // Esc is the boxes' own key outside the presenter
    connect(m_leavePresenter, &QAction::triggered, this, [this] { setPresenterMode(false); });
    addAction(m_leavePresenter);
    for (QAction *a : {undoAction, redoAction, zoomIn, zoomOut, zoomReset, m_presenterAction})
        addAction(a); // whatever has focus, and with the menu bar hidden
    auto *toggleUnits = new QAction(tr("Toggle &GB / GiB"), this);
    toggleUnits->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U)); // Ctrl+U clears a line edit
    connect(toggleUnits, &QAction::triggered, this, [this] { m_units->setCurrentIndex(1 - m_units->currentIndex()); });

    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(newScenario);
    file->addAction(openScenarioAction);
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(save);
    file->addAction(saveAs);
    file->addSeparator();
    file->addAction(open);
    file->addAction(importTrace);
    QMenu *samples = file->addMenu(tr("Open sa&mple trace"));
    samples->setToolTipsVisible(true);
    for (const SampleTrace &t : sampleTraces()) {
        QAction *a = samples->addAction(t.title);
        a->setToolTip(t.path);
        connect(a, &QAction::triggered, this, [this, path = t.path] {
            if (m_distribution->importTrace(path))
                m_centre->setCurrentWidget(m_distribution);
        });
    }
    if (samples->isEmpty())
        samples->addAction(tr("No sample trace installed"))->setEnabled(false);
    file->addSeparator();
    file->addAction(exportPdf);
    file->addAction(preview);
    file->addAction(exportChartAction);
    file->addAction(exportCsv);
    file->addSeparator();
    file->addAction(quit);
    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(undoAction);
    edit->addAction(redoAction);
    edit->addSeparator();
    edit->addAction(copyChart);
    edit->addAction(pin);
    auto *calibrate = new QAction(tr("&Calibrate from log…"), this);
    calibrate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    calibrate->setToolTip(tr("Paste a vLLM, SGLang or llama.cpp start-up log: printed against predicted"));
    connect(calibrate, &QAction::triggered, this, [this] {
        CalibrationDialog dialog(m_planner, m_models, this);
        dialog.exec();
    });
    QMenu *tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(calibrate);
    tools->addAction(tr("&Presets…"), this, [this] {
        PresetManager dialog(m_storePath, this);
        dialog.exec();
        if (dialog.changed())
            refreshPresets();
    });
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(toggleUnits);
    view->addSeparator();
    view->addAction(zoomIn);
    view->addAction(zoomOut);
    view->addAction(zoomReset);
    view->addAction(m_presenterAction);
    view->addSeparator();
    const QString tabNames[] = {tr("&Memory per GPU"), tr("&Lengths and risk"), tr("&Compare"), tr("Le&vers")};
    for (int i = 0; i < m_centre->count(); ++i) {
        QAction *a = view->addAction(tabNames[i]);
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
        connect(a, &QAction::triggered, this, [this, i] { m_centre->setCurrentIndex(i); });
        addAction(a); // with the menu bar hidden too
    }

    QToolBar *bar = addToolBar(tr("Main"));
    m_toolBar = bar;
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->addAction(openScenarioAction);
    bar->addAction(save);
    bar->addSeparator();
    bar->addAction(exportPdf);
    bar->addAction(pin);
    bar->addSeparator();
    bar->addAction(undoAction);
    bar->addAction(redoAction);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Units: ")));
    bar->addWidget(m_units);
}

void MainWindow::showResult(const CapacityResult &r)
{
    const Scenario &s = m_planner->scenario();
    const UnitSystem u = m_planner->units();
    auto fmt = [u](qint64 b) { return Units::formatBytes(b, u); };
    // Against a distribution every session at the context is a worst case no session may reach:
    // the chart draws the asked sessions at the mean, as the report does.
    m_chart->setResult(r, s.tp, u, r.ok && answersByRisk(s) ? MemoryChartView::sessionsAtMean(s.sessions, s, r.distribution) : QString());
    m_chart->setCardNote(r.ok ? MemoryChartView::cardNote(s.gpu, r.gpuMemoryBytes, u) : QString());
    if (!r.ok) {
        m_sessions->setText(tr("—"));
        if (m_verdictBold) {
            m_verdictBold = false;
            styleVerdict();
        }
        m_verdict->setTextFormat(Qt::RichText);
        m_verdict->setText(ChartStyle::errorHtml(html(r.error), this));
        m_notes->clear();
        m_notes->setVisible(false);
        for (int i = 0; i < 3; ++i) {
            m_headlineValues[i]->setText(i == 0 ? tr("—") : QString());
            m_headlineCaptions[i]->setText(QString());
        }
        for (int row = 0; row < 4; ++row)
            for (QLabel *l : {m_figureCaptions[row], m_figureValues[row], m_figureDetails[row]})
                l->clear();
        m_derivationTimer->stop();
        m_derivationStale = false;
        m_derivation->setPlainText(r.error);
        m_derivation->setProperty("headroomShownHtml", QVariant()); // the next answer is set again
        m_derivation->setProperty("headroomShownLines", QVariant());
        // No advice for a plan that has no answer (nor one left from the last plan that had).
        m_adviceTimer->stop();
        m_adviceOptions.clear();
        m_advice->clear();
        return;
    }
    const qint64 fit = s.distribution ? r.distribution.sessionsAtRisk : r.maxSessions;
    // "Keep N" restores what fitted before a change of a lever: never a count under another
    // model, card, TP, length law or retention cap (a count the cap held, named at the full
    // context once the cap is off, is no count this plan ever had).
    const QString fitBasis = QStringList{s.model.id, s.gpu.id, QString::number(s.tp), s.distribution ? s.distribution->spec : QString(),
                                         s.retainTokens ? QString::number(*s.retainTokens) : QString()}
                              .join(QLatin1Char('\n'));
    if (fitBasis != m_fitBasis) {
        m_fitBasis = fitBasis;
        m_previousFit = -1;
        m_fit = fit;
    } else if (fit != m_fit) {
        m_previousFit = m_fit;
        m_fit = fit;
    }
    m_adviceTimer->start();
    const QString perGroup = s.tp > 1 ? tr(" per %1 GPUs").arg(s.tp) : QString();
    if (s.distribution)
        m_sessions->setText(Units::plural(r.distribution.sessionsAtRisk, tr("session fits"), tr("sessions fit")) + perGroup
                            + tr(" at a %1 risk").arg(Units::formatRisk(s.risk)));
    else
        m_sessions->setText(Units::plural(r.maxSessions, tr("session fits"), tr("sessions fit")) + perGroup);
    const double perCard = double(fit) / double(std::max(1, s.tp));
    const QString perHour = r.costPerSessionHourUsd ? Units::formatUsdPer(*r.costPerSessionHourUsd, tr("session-hour"), tr("session-hours")) : QString();
    const QString headline[3][2] = {
        {Units::formatDecimal(perCard), perCard == 1.0 ? tr("session per card") : tr("sessions per card")},
        {perHour.isEmpty() ? tr("no price") : perHour.section(QLatin1Char(' '), 0, 0),
         perHour.isEmpty() ? tr("set a price for the cost per session-hour") : perHour.section(QLatin1Char(' '), 1)},
        {r.shortfallBytesPerGpu > 0 ? tr("Weights") : tr("KV cache"),
         r.shortfallBytesPerGpu > 0 ? tr("and workspace exceed the card") : tr("budget is what limits it")}};
    for (int i = 0; i < 3; ++i) {
        m_headlineValues[i]->setText(headline[i][0]);
        // A wrapped caption never breaks inside a unit ("session-/hour"): U+2011, the non-breaking hyphen.
        m_headlineCaptions[i]->setText(QString(headline[i][1]).replace(QLatin1Char('-'), QChar(0x2011)));
    }
    // Set in a plain format, font and text only when they change: QLabel lays out only then.
    if (m_verdictBold == r.askedFit) {
        m_verdictBold = !r.askedFit;
        styleVerdict();
    }
    m_verdict->setTextFormat(Qt::PlainText);
    // As the rich text they replace showed them: the sentence, then each warning on a line of its own.
    m_verdict->setText(asHtmlShows(capacityVerdict(s, r, u)));
    QStringList notes;
    for (const QString &w : r.warnings)
        notes << asHtmlShows(w);
    m_notes->setText(notes.join(QLatin1Char('\n')));
    m_notes->setVisible(!m_presenter && !r.warnings.isEmpty()); // the presenter says the answer once, without the notes
    const QString cost = r.costPerSessionHourUsd ? Units::formatUsdPer(*r.costPerSessionHourUsd, tr("session-hour"), tr("session-hours"))
        : s.effectivePrice()                      ? tr("— (no session fits)")
                                                  : tr("set a price");
    // Every per-session figure names the length it is for, as the derivation does.
    const QString basis = sessionBasis(s, r);
    const QString perGpu = s.tp > 1 ? tr(" per GPU") : QString();
    // With a draft model its own KV shares the pool: the per-token row names both, target
    // first, so the target's figure is never read as the whole.
    const bool draft = r.draftKvBytesPerTokenPerGpu > 0;
    const QString perToken = draft ? tr("KV per token%1, target + draft").arg(perGpu) : tr("KV per token%1").arg(perGpu);
    const QString perTokenExact = draft ? tr("%1 + %2").arg(Units::formatExactBytes(r.kvBytesPerTokenPerGpu), Units::formatExactBytes(r.draftKvBytesPerTokenPerGpu))
                                        : Units::formatExactBytes(r.kvBytesPerTokenPerGpu);
    const QString perTokenRounded = draft ? tr("%1 + %2").arg(fmt(r.kvBytesPerTokenPerGpu), fmt(r.draftKvBytesPerTokenPerGpu)) : fmt(r.kvBytesPerTokenPerGpu);
    // Caption, value (bold) and its detail, row by row; QLabel::setText lays out only a changed text.
    const QString figures[4][3] = {
        {perToken, perTokenExact, tr("(%1)").arg(perTokenRounded)},
        {tr("Per session at %1%2").arg(basis, perGpu), fmt(r.reservedSessionBytesPerGpu), tr("(%1)").arg(Units::formatExactBytes(r.reservedSessionBytesPerGpu))},
        {tr("KV for %1 at %2").arg(Units::plural(s.sessions, tr("session"), tr("sessions")), basis), fmt(r.kvBytesForSessionsPerGpu),
         tr("of the %1 budget%2").arg(fmt(r.kvBudgetBytesPerGpu), perGpu)},
        {tr("Cost"), cost, QString()}};
    for (int row = 0; row < 4; ++row) {
        m_figureCaptions[row]->setText(figures[row][0]);
        m_figureValues[row]->setText(figures[row][1]);
        m_figureDetails[row]->setText(figures[row][2]);
    }
    // The derivation (tens of lines laid out and painted: more than the chart costs) follows an
    // isolated change at once and a burst of them (a drag) once it pauses, never holding a step's paint.
    m_derivationStale = true;
    const bool burst = m_derivationTimer->isActive();
    m_derivationTimer->start();
    if (!burst)
        showDerivation(false);
    showSources();
}

void MainWindow::showDerivation(bool hidden)
{
    if (!m_derivationStale || !(hidden || m_derivation->isVisible()))
        return;
    m_derivationStale = false;
    const Scenario &s = m_planner->scenario();
    QStringList derivation = explainCapacity(s, m_planner->result(), m_planner->units());
    if (s.distribution) { // a sample trace by its name, not the folder of the build it was found in
        if (m_describedSpec.first != s.distribution->spec) // looked up once per trace, not on every step of a drag
            m_describedSpec = {s.distribution->spec, describeSpec(s.distribution->spec)};
        derivation.replaceInStrings(m_describedSpec.first, m_describedSpec.second);
    }
    showList(m_derivation, derivation);
}

void MainWindow::showSources()
{
    const Scenario &s = m_planner->scenario();
    const CapacityResult &r = m_planner->result();
    // Each value names its publication and date; how it was checked goes under the toggle.
    const bool details = m_sourceDetails->isChecked();
    auto cite = [details](const QString &text) { return html(details ? text : text.section(QStringLiteral("; "), 0, 0)); };
    setHtmlOnce(m_sources, tr("<h3>%1</h3><p>%2 (%3)</p><p>Parameters: %4 published, %11 counted from the config's shapes; weights: %5.</p>"
                          "<h3>%6</h3><p>Memory: %7 — %8</p><p>%9</p><p>Price: %10</p>")
                           .arg(html(s.model.name), cite(s.model.source), html(s.model.sourceDate),
                                Units::formatCount(s.model.totalParams), html(r.weightsBasis), html(s.gpu.name),
                                Units::formatExactBytes(s.gpu.memoryBytes), cite(s.gpu.memorySource),
                                cite(s.gpu.source) + (s.gpu.sourceDate.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(html(s.gpu.sourceDate))),
                                s.gpu.priceUsdPerHour ? QStringLiteral("%1, %2 (%3)")
                                                              .arg(Units::formatUsdPer(*s.gpu.priceUsdPerHour, tr("GPU-hour"), tr("GPU-hours")),
                                                                   cite(s.gpu.priceSource), html(s.gpu.priceDate))
                                                      : tr("none published: set a price"))
                           .arg(Units::formatCount(s.model.derivedParams)));
}

void MainWindow::setZoom(double factor)
{
    m_zoom = std::clamp(factor, 0.5, 4.0);
    QFont f = QApplication::font();
    f.setPointSizeF(QApplication::font().pointSizeF() * m_zoom);
    setFont(f); // every child without its own font follows, the charts restyle on FontChange
}

void MainWindow::fitInputsWidth()
{
    m_inputs->ensurePolished();
    const int bar = m_inputsScroll->verticalScrollBar()->sizeHint().width();
    m_inputsScroll->setMinimumWidth(m_inputs->narrowestWidth() + bar + 2 * m_inputsScroll->frameWidth());
}

void MainWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        // The figures stay in the active text colours when the window loses the focus (see
        // ChartStyle::activeWhenInactive); setting the palette sends one more PaletteChange, a no-op.
        const QPalette p = ChartStyle::activeWhenInactive(palette());
        if (!(p == palette()))
            setPalette(p);
    }
    if ((event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) && m_inputsScroll)
        fitInputsWidth();
    if (event->type() == QEvent::FontChange && m_sessions) {
        QFont big = font();
        big.setPointSizeF(font().pointSizeF() * (m_presenter ? 2.6 : 2.2));
        big.setBold(true);
        m_sessions->setFont(big);
        QFont value = font();
        value.setPointSizeF(font().pointSizeF() * 2.6);
        value.setBold(true);
        for (int i = 0; i < 3; ++i)
            m_headlineValues[i]->setFont(value);
        styleVerdict();
    }
}

void MainWindow::styleVerdict()
{
    // The presenter's one-sentence answer half as large again as its body text (about
    // 30 pt on a 1080-line projector), wrapped under the figures, never below the fold.
    QFont sentence = font();
    if (m_presenter)
        sentence.setPointSizeF(font().pointSizeF() * 1.5);
    sentence.setBold(m_verdictBold);
    if (!(m_verdict->font() == sentence))
        m_verdict->setFont(sentence);
    QFont notes = font();
    notes.setBold(m_verdictBold);
    notes.setItalic(true);
    if (!(m_notes->font() == notes))
        m_notes->setFont(notes);
}

void MainWindow::setPresenterMode(bool on)
{
    if (on == m_presenter)
        return;
    m_presenter = on;
    const QSignalBlocker block(m_presenterAction);
    m_presenterAction->setChecked(on);
    m_leavePresenter->setEnabled(on);
    // The presenter shows the inputs, the three figures, the chart and the one-sentence
    // answer once: no tab bar, menus, toolbar, status bar, derivation, nor the detail below.
    m_why->setVisible(!on);
    m_toolBar->setVisible(!on);
    menuBar()->setVisible(!on);
    statusBar()->setVisible(!on);
    m_centre->tabBar()->setVisible(!on);
    m_centre->setDocumentMode(on); // no frame around the page
    m_headline->setVisible(on);
    m_sessions->setVisible(!on);
    m_figures->setVisible(!on);
    m_advice->setVisible(!on);
    m_notes->setVisible(!on && !m_notes->text().isEmpty());
    // The sentence goes under the three figures (above the chart) in the presenter, back
    // under the sessions outside it.
    if (auto *answer = qobject_cast<QBoxLayout *>(m_verdictBox->parentWidget()->layout())) {
        answer->removeWidget(m_verdictBox);
        answer->insertWidget(answer->indexOf(on ? m_headline : static_cast<QWidget *>(m_sessions)) + 1, m_verdictBox);
    }
    m_verdict->setAlignment(on ? Qt::AlignHCenter : Qt::AlignLeft);
    if (on) {
        m_zoomBeforePresenter = m_zoom;
        m_geometryBeforePresenter = saveGeometry();
        m_splitBeforePresenter = m_split->saveState();
        m_centre->setCurrentIndex(0);
        showFullScreen();
        if (this->screen())
            setGeometry(this->screen()->geometry()); // the whole screen even where no window manager honours full screen
        // Body text twice the system's (about 20 pt) on a 1080-line projector, the
        // figures 2.6 times that: readable from four metres. A 720-line projector of
        // the same size shows the same physical type, so the zoom scales with the lines;
        // a screen narrower than 16:9 (800 x 800, 1280 x 1024) by its columns instead, so
        // the inputs, the three figures and the sentence still fit side by side.
        const QScreen *screen = this->screen();
        const double lines = screen ? screen->geometry().height() : 1080.0;
        const double columns = screen ? screen->geometry().width() : 1920.0;
        setZoom(std::max(m_zoom, std::max(1.0, 2.0 * std::min(lines / 1080.0, columns / 1920.0))));
        // The inputs get room for their larger type, labels beside their fields when that
        // takes at most 40% of the screen ("Host KV memory per node" on one line); the answer
        // takes the rest.
        const int w = screen ? screen->geometry().width() : width();
        const int inputs = std::clamp(m_inputs->sizeHint().width() + m_inputsScroll->verticalScrollBar()->sizeHint().width()
                                          + 2 * m_inputsScroll->frameWidth(), w * 30 / 100, w * 40 / 100);
        m_split->setSizes({inputs, w - inputs, 0});
    } else {
        setZoom(m_zoomBeforePresenter);
        showNormal();
        restoreGeometry(m_geometryBeforePresenter);
        m_split->restoreState(m_splitBeforePresenter);
    }
    QEvent fontChange(QEvent::FontChange);
    changeEvent(&fontChange);
}

QString MainWindow::headlineText() const
{
    QStringList parts;
    for (int i = 0; i < 3; ++i)
        parts << m_headlineValues[i]->text() + QLatin1Char(' ') + QString(m_headlineCaptions[i]->text()).replace(QChar(0x2011), QLatin1Char('-'));
    return parts.join(QStringLiteral(" · "));
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_derivation && event->type() == QEvent::Show)
        showDerivation(false); // a hidden derivation (the Sources tab, the presenter) is written out when shown
    auto *widget = qobject_cast<QWidget *>(watched);
    if (event->type() == QEvent::ShortcutOverride && widget && widget->window() == this) {
        auto *key = static_cast<QKeyEvent *>(event);
        QLineEdit *edit = qobject_cast<QLineEdit *>(widget);
        if (!edit && (qobject_cast<QAbstractSpinBox *>(widget) || qobject_cast<QComboBox *>(widget)))
            edit = widget->findChild<QLineEdit *>();
        const bool editing = edit && !edit->isReadOnly();
        // Ctrl+Z / Ctrl+Shift+Z undo the plan whatever has focus, unless a text
        // field has typed text of its own to undo (then the field takes it).
        const bool undo = key->matches(QKeySequence::Undo), redo = key->matches(QKeySequence::Redo);
        if (undo || redo)
            return !(editing && (undo ? edit->isUndoAvailable() : edit->isRedoAvailable())); // true: the window's action fires
        // Every other menu shortcut wins over a text field's own binding of the key
        // (a line edit takes Ctrl+E as "end of line"), except the clipboard keys the field owns.
        if (editing && !key->matches(QKeySequence::Copy) && !key->matches(QKeySequence::Cut) && !key->matches(QKeySequence::Paste)
            && !key->matches(QKeySequence::SelectAll)) {
            const QKeySequence pressed(key->keyCombination());
            for (const QAction *a : findChildren<QAction *>())
                if (a->isEnabled() && a->shortcuts().contains(pressed))
                    return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::requestAdvice()
{
    // Restore what was asked for, or what fitted before the last change, whichever is more.
    m_wanted = std::max({m_planner->scenario().sessions, m_previousFit, qint64(1)});
    m_planner->requestAdvice(LeverTarget{});
}

void MainWindow::showAdvice(const LeverReport &report)
{
    const Scenario &s = m_planner->scenario();
    if (!m_planner->result().ok) // asked before the plan went wrong
        return;
    m_adviceOptions.clear();
    QString text = QStringLiteral("<b>%1</b> ").arg(tr("What to do now:"));
    if (m_fit >= m_wanted) {
        m_advice->setText(text + tr("nothing: %1 fit (%2 asked).")
                                     .arg(Units::plural(m_fit, tr("session"), tr("sessions")), Units::formatCount(s.sessions)));
        return;
    }
    // The cheapest options that hold the sessions wanted and keep the requirement.
    for (const LeverOption &o : report.options) {
        if (o.sessionsPerGroup >= m_wanted && o.meetsTarget && !o.changesRequirement && m_adviceOptions.size() < 3)
            m_adviceOptions << o;
    }
    text += tr("%1 %2 %3:")
                .arg(m_wanted == m_previousFit && m_previousFit > s.sessions ? tr("keep") : tr("fit"),
                     Units::plural(m_wanted, tr("session"), tr("sessions")),
                     s.distribution ? tr("at a %1 risk").arg(Units::formatRisk(s.risk))
                                    : tr("at %1").arg(sessionBasis(s, m_planner->result()))); // the length the figures are for: the cap, when one holds them
    if (m_adviceOptions.isEmpty()) {
        m_advice->setText(text + QLatin1Char(' ') + tr("no single option does it without changing the requirement; see Levers."));
        return;
    }
    const std::optional<double> price = s.effectivePrice();
    // One number of session-hours for every line ("$13.90 per 1,000" beside "$7.52 per 1,000",
    // not "$0.0139 per session-hour").
    double cheapest = std::numeric_limits<double>::infinity();
    for (const LeverOption &o : m_adviceOptions)
        if (o.costPerSessionHourUsd)
            cheapest = std::min(cheapest, *o.costPerSessionHourUsd);
    for (int i = 0; i < m_adviceOptions.size(); ++i) {
        const LeverOption &o = m_adviceOptions.at(i);
        QString cost = o.costPerSessionHourUsd ? Units::formatUsdPer(*o.costPerSessionHourUsd, tr("session-hour"), tr("session-hours"), cheapest)
                                               : tr("unpriced");
        const std::optional<double> optionPrice = o.scenario.effectivePrice();
        if (price && optionPrice) {
            const double extra = *optionPrice * o.scenario.tp - *price * s.tp;
            if (extra > 0.005)
                cost += tr(", +%1 an hour").arg(Units::formatUsd(extra));
        }
        text += QStringLiteral("<br>• %1 — %2 (%3) <a href=\"apply:%4\">%5</a>")
                    .arg(html(o.option), cost, html(o.sideEffect.section(QLatin1Char(';'), 0, 0)))
                    .arg(i)
                    .arg(tr("Apply"));
    }
    m_advice->setText(text);
}

bool MainWindow::applyAdvice(int index)
{
    if (index < 0 || index >= m_adviceOptions.size())
        return false;
    const LeverOption o = m_adviceOptions.at(index);
    m_planner->edit(o.scenario, ScenarioCommand::Other, tr("Apply %1").arg(o.option));
    return true;
}

QString MainWindow::adviceText() const
{
    QTextDocument doc;
    doc.setHtml(m_advice->text());
    return doc.toPlainText();
}

bool MainWindow::openModelFile(const QString &path, QString *error)
{
    try {
        const ModelShape model = ConfigImporter::fromFile(path, tr("config.json"));
        if (model.totalParams <= 0)
            statusBar()->showMessage(tr("%1: parameter count unknown; weights cannot be sized").arg(path));
        m_inputs->addModel(model);
        m_planner->setModel(model);
        statusBar()->showMessage(tr("Imported %1: %2 layers, %3 parameters counted from its shapes")
                                     .arg(path)
                                     .arg(model.layers())
                                     .arg(Units::formatCount(model.derivedParams)),
                                 10000);
        return true;
    } catch (const InputError &e) {
        return fail(tr("Cannot import config.json"), e.text(), error);
    }
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile() && urls.first().toLocalFile().endsWith(QLatin1String(".json")))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    openModelFile(event->mimeData()->urls().first().toLocalFile());
    event->acceptProposedAction();
}

QString MainWindow::sessionsText() const
{
    return m_sessions->text();
}

QString MainWindow::figuresText() const
{
    QStringList rows;
    for (int row = 0; row < 4; ++row) {
        const QString detail = m_figureDetails[row]->text();
        rows << m_figureCaptions[row]->text() + QLatin1Char('\n') + m_figureValues[row]->text() + (detail.isEmpty() ? QString() : QLatin1Char(' ') + detail);
    }
    return rows.join(QLatin1Char('\n'));
}

QString MainWindow::sourcesText() const
{
    return m_sources->toPlainText();
}

QString MainWindow::derivationText() const
{
    const_cast<MainWindow *>(this)->showDerivation(true); // what it shows once written out
    return m_derivation->toPlainText();
}

bool MainWindow::fail(const QString &title, const QString &why, QString *error)
{
    if (error)
        *error = why;
    else
        QMessageBox::warning(this, title, why);
    return false;
}

Scenario MainWindow::defaultScenario() const
{
    Scenario start;
    for (const ModelShape &m : m_models)
        if (m.id == kDefaultModel || start.model.id.isEmpty())
            start.model = m;
    for (const GpuSpec &g : m_gpus)
        if (g.id == kDefaultGpu || start.gpu.id.isEmpty())
            start.gpu = g;
    start.contextTokens = 100'000;
    start.engine = Settings().defaultEngine();
    return start;
}

bool MainWindow::openScenario(const QString &path, QString *error, bool remember)
{
    auto model = [this](const QString &id) {
        for (const ModelShape &m : m_models)
            if (m.id == id)
                return m;
        throw InputError(QStringLiteral("inputs.model"), tr("unknown model preset \"%1\"").arg(id));
    };
    auto gpu = [this](const QString &id) {
        for (const GpuSpec &g : m_gpus)
            if (g.id == id)
                return g;
        throw InputError(QStringLiteral("inputs.gpu"), tr("unknown GPU preset \"%1\"").arg(id));
    };
    try {
        QStringList warnings;
        Scenario s = ScenarioFile::read(path, nullptr, model, gpu, &warnings);
        // Read whole and in range, the file's values are now the window's controls: a plan's
        // refusal names them as the window does (its flags' names: "--tp", not "inputs.tp").
        s.names.useAll(InputSource::Flag);
        m_inputs->addModel(s.model);
        m_path = remember ? path : QString();
        m_planner->reset(s);
        if (remember)
            addRecent(path);
        updateTitle();
        if (!warnings.isEmpty()) // keys a newer Headroom or a typo left: said, as the store's problems are
            statusBar()->showMessage(warnings.join(QStringLiteral("; ")));
        return true;
    } catch (const InputError &e) {
        return fail(tr("Cannot open the scenario"), e.text(), error);
    }
}

bool MainWindow::saveScenario(const QString &path, QString *error)
{
    try {
        ScenarioFile::write(path, m_planner->scenario(), QFileInfo(path).completeBaseName(), {{m_storePath, tr("the preset store")}});
        m_path = path;
        m_planner->undoStack()->setClean();
        QFile::remove(autosavePath());
        addRecent(path);
        updateTitle();
        statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
        return true;
    } catch (const InputError &e) {
        return fail(tr("Cannot save the scenario"), e.text(), error);
    }
}

ReportInput MainWindow::reportInput() const
{
    ReportInput input{m_path.isEmpty() ? m_planner->scenario().model.name + tr(" on ") + m_planner->scenario().gpu.name
                                       : QFileInfo(m_path).completeBaseName(),
                      m_planner->scenario(), m_planner->result(), m_planner->units(), {}, isWindowModified()};
    // The window's answer against a distribution leaves the fixes out (RiskWork::Figures::Window):
    // the report lists them, so its plan is the whole one.
    if (input.scenario.distribution && input.result.ok)
        input.result = computeCapacity(input.scenario);
    for (const Planner::Pinned &p : m_planner->pinned())
        input.comparisons << qMakePair(tr("Pinned %1").arg(p.name), p.scenario);
    return input;
}

QString MainWindow::exportStartPath(const QString &suffix) const
{
    // In the folder of the last export (else the documents folder), named after the scenario.
    const QString base = m_path.isEmpty() ? tr("headroom-report") : QFileInfo(m_path).completeBaseName();
    return QDir(Settings().exportFolder()).filePath(base + suffix);
}

bool MainWindow::exportReport(const QString &path, QPageSize::PageSizeId size, QString *error)
{
    QString why;
    // Never over the store or the open scenario (OutputTarget: one rule for every writer).
    if (ReportWriter::writePdf(path, reportInput(), size, &why, {{m_storePath, tr("the preset store")}, {m_path, tr("the open scenario")}})) {
        Settings().setExportFolder(QFileInfo(path).absolutePath()); // the next export dialog opens there
        return true;
    }
    return fail(tr("Cannot export the report"), why, error);
}

bool MainWindow::exportChart(const QString &path, QString *error)
{
    QString why;
    const bool svgFile = path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive);
    try {
        // Only an earlier chart of the same kind is replaced (OutputTarget), atomically.
        OutputTarget::check(path, svgFile ? OutputTarget::Kind::Svg : OutputTarget::Kind::Png,
                            {{m_storePath, tr("the preset store")}, {m_path, tr("the open scenario")}}, QStringLiteral("file"));
    } catch (const InputError &e) {
        return fail(tr("Cannot export the chart"), e.message(), error);
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        why = tr("cannot write %1: %2").arg(path, file.errorString());
    } else if (svgFile) {
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(m_chart->size());
        svg.setViewBox(QRect(QPoint(0, 0), m_chart->size()));
        svg.setTitle(tr("Memory per GPU"));
        QPainter painter;
        if (painter.begin(&svg)) {
            m_chart->render(&painter);
            painter.end();
        } else {
            why = tr("cannot write %1").arg(path);
        }
    } else if (!m_chart->grab().save(&file, "PNG")) {
        why = tr("cannot write %1").arg(path);
    }
    if (why.isEmpty() && !file.commit())
        why = tr("cannot write %1: %2 (the previous file is unchanged)").arg(path, file.errorString());
    if (why.isEmpty())
        return true;
    return fail(tr("Cannot export the chart"), why, error);
}

bool MainWindow::exportFiguresCsv(const QString &path, QString *error)
{
    // Numbers only (bytes as integers), one row per scenario: the same figures as plan --json.
    const char *keys[] = {"kv_bytes_per_token", "session_bytes", "weights_bytes_per_gpu", "kv_budget_bytes_per_gpu", "max_sessions",
                          "sessions_at_risk", "sessions_worst_case", "sessions_at_mean", "admission_limit", "cost_per_session_hour_usd",
                          "cost_per_million_tokens_usd"};
    QVector<QPair<QString, CapacityResult>> rows;
    for (const Planner::Pinned &p : m_planner->pinned())
        rows << qMakePair(p.name, p.result);
    rows << qMakePair(tr("Current"), m_planner->result());
    auto quote = [](QString v) -> QString { return QLatin1Char('"') + v.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"'); };
    QString csv = QStringLiteral("scenario");
    for (const char *k : keys)
        csv += QLatin1Char(',') + QString::fromLatin1(k);
    csv += QLatin1Char('\n');
    for (const auto &row : rows) {
        const QJsonObject o = row.second.toJson();
        csv += quote(row.first);
        for (const char *k : keys) {
            const QJsonValue v = o.value(QString::fromLatin1(k));
            csv += QLatin1Char(',') + (v.isDouble() ? QString::number(v.toDouble(), 'g', 15) : QString());
        }
        csv += QLatin1Char('\n');
    }
    try {
        OutputTarget::check(path, OutputTarget::Kind::FiguresCsv, {{m_storePath, tr("the preset store")}, {m_path, tr("the open scenario")}},
                            QStringLiteral("file"));
    } catch (const InputError &e) {
        return fail(tr("Cannot export the figures"), e.message(), error);
    }
    QSaveFile f(path);
    if (f.open(QIODevice::WriteOnly) && f.write(csv.toUtf8()) >= 0 && f.commit())
        return true;
    const QString why = tr("cannot write %1: %2").arg(path, f.errorString());
    return fail(tr("Cannot export the figures"), why, error);
}

QString MainWindow::autosavePath() const
{
    const QString folder = QFileInfo(m_storePath).absolutePath();
    return m_lock ? folder + QStringLiteral("/autosave.headroom")
                  : folder + QStringLiteral("/autosave-%1.headroom").arg(QCoreApplication::applicationPid());
}

void MainWindow::autosave()
{
    if (m_planner->undoStack()->isClean())
        return;
    try {
        ScenarioFile::write(autosavePath(), m_planner->scenario(), m_path.isEmpty() ? tr("Recovered") : QFileInfo(m_path).completeBaseName());
    } catch (const InputError &e) {
        statusBar()->showMessage(tr("Autosave failed: %1").arg(e.text()), 10000);
    }
}

void MainWindow::offerRecovery()
{
    const QFileInfo info(autosavePath());
    if (!info.exists())
        return;
    const auto answer = QMessageBox::question(
        this, tr("Recover unsaved changes"),
        tr("Headroom did not close normally. Recover the scenario autosaved at %1?").arg(info.lastModified().toString(Qt::TextDate)),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
    if (answer == QMessageBox::Yes) {
        QString error;
        const QString keep = autosavePath() + QStringLiteral(".recovered");
        QFile::remove(keep);
        QFile::copy(autosavePath(), keep);
        if (openScenario(keep, &error, /*remember*/ false)) {
            // Recovered work is unsaved work: one undo step back to the defaults marks it so.
            Scenario recovered = m_planner->scenario();
            m_planner->reset(defaultScenario());
            m_planner->edit(recovered, ScenarioCommand::Other, tr("Recover autosave"));
            updateTitle();
        } else {
            QMessageBox::warning(this, tr("Cannot recover"), error);
        }
        QFile::remove(keep);
    }
    QFile::remove(autosavePath());
}

void MainWindow::updateTitle()
{
    setWindowFilePath(m_path.isEmpty() ? tr("Untitled") : m_path);
    setWindowModified(!m_planner->undoStack()->isClean());
}

void MainWindow::addRecent(const QString &path)
{
    Settings settings;
    settings.addRecentFile(path);
    settings.setLastScenario(path);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = Settings().recentFiles();
    for (int i = 0; i < recent.size(); ++i) {
        QAction *a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(recent.at(i)).fileName()));
        a->setToolTip(recent.at(i));
        connect(a, &QAction::triggered, this, [this, path = recent.at(i)] {
            if (maybeSave())
                openScenario(path);
        });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

bool MainWindow::maybeSave()
{
    if (m_planner->undoStack()->isClean())
        return true;
    const auto answer = QMessageBox::warning(this, tr("Unsaved changes"), tr("The scenario has unsaved changes. Save them?"),
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Discard)
        return true;
    if (m_path.endsWith(QLatin1String(".headroom")))
        return saveScenario(m_path);
    QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), QString(), tr("Headroom scenarios (*.headroom)"));
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QLatin1String(".headroom")))
        path += QStringLiteral(".headroom");
    return saveScenario(path);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    QFile::remove(autosavePath());
    saveLayout();
    Settings().setLastScenario(m_path); // reopened at the next start; untitled (File > New) starts fresh
    event->accept();
}

} // namespace Headroom
