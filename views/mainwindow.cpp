// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"
#include "tokenspinbox.h"
#include "plankeys.h"
#include "answerview.h"
#include "core/outputtarget.h"

#include "plan/capacity.h"
#include "compareview.h"
#include "leversview.h"
#include "trafficreplay.h"
#include "trafficview.h"
#include "reportwriter.h"
#include "distributionview.h"
#include "io/configimporter.h"
#include "core/inputerror.h"
#include "inputpanel.h"
#include "memorychartview.h"
#include "planner.h"
#include "presetstore.h"
#include "io/scenariofile.h"
#include "chartstyle.h"
#include "settings.h"
#include "wheelguard.h"
#include "whyview.h"

#include <QAction>
#include <QJsonObject>
#include <QPainter>
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
#include <QComboBox>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QKeyEvent>
#include <QLockFile>
#include <QSignalBlocker>
#include <QScreen>
#include <QLineEdit>
#include <QAbstractSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>

namespace Headroom {

namespace {
const QString kDefaultModel = QStringLiteral("llama-3.1-8b");
const QString kDefaultGpu = QStringLiteral("h100-sxm-80gb");
/// The presenter's body text on a 1080-line screen, in points: twice Qt's default 9 pt.
constexpr double kPresenterBodyPoints = 18.0;
} // namespace

MainWindow::MainWindow(const QString &storePath, QWidget *parent)
    : QMainWindow(parent), m_planner(new Planner(this))
{
    setWindowIcon(QIcon(QStringLiteral(":/icons/headroom.svg")));
    WheelGuard::install(); // every box, picker and slider of every window: the wheel only with the focus
    setAcceptDrops(true);

    // The status bar from the start: made on its first message (or by the presenter hiding it),
    // it pushed the answer up mid-session and stayed after leaving the presenter.
    statusBar();
    m_storePath = storePath.isEmpty() ? PresetStore::defaultPath() : storePath;
    const QStringList skipped = loadPresets(true);
    if (!skipped.isEmpty())
        statusBar()->showMessage(skipped.first());
    m_planner->setPresets(m_models, m_gpus);
    m_planner->reset(defaultScenario());
    watchPresetStore();
    buildPanes();
    // A box's refusal or reading note, said in a tooltip where it was typed, stays in the status
    // bar too: a keyboard user never hovers, and the tooltip covers the next field.
    for (TokenSpinBox *box : findChildren<TokenSpinBox *>())
        connect(box, &TokenSpinBox::noted, this, [this](const QString &text) { statusBar()->showMessage(text, 15000); });
    connect(m_planner, &Planner::noted, this, [this](const QString &text) { statusBar()->showMessage(text, 15000); });
    createActions();
    rebuildRecentMenu();
    // A recent file moved or deleted since the menu was built is marked when the menu opens.
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    connect(m_planner->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    startAutosave();
    qApp->installEventFilter(this);

    restoreLayout();
    restoreLastScenario();
    setPalette(ChartStyle::activeWhenInactive(palette()));
}

void MainWindow::watchPresetStore()
{
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
}

void MainWindow::buildPanes()
{
    // Left: inputs.
    m_inputs = new InputPanel(m_planner, m_models, m_gpus);
    auto *scroll = new QScrollArea;
    scroll->setWidget(m_inputs);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_inputsScroll = scroll;
    fitInputsWidth(); // never narrower than the inputs: they scroll down, never sideways nor cut

    // Centre: the answer (its headline says the traffic's GPUs once a trace is replayed).
    m_trafficReplay = new TrafficReplay(m_planner, this);
    m_answer = new AnswerView(m_planner);
    m_answer->setTrafficReplay(m_trafficReplay);
    auto *answerScroll = new QScrollArea; // a short window scrolls the answer instead of clipping it
    answerScroll->setWidget(m_answer);
    answerScroll->setWidgetResizable(true);
    answerScroll->setFrameShape(QFrame::NoFrame);

    // Right: why.
    m_why = new WhyView(m_planner);
    buildCentre(answerScroll);

    m_split = new QSplitter;
    m_split->setObjectName(QStringLiteral("mainSplitter"));
    m_split->addWidget(scroll);
    m_split->addWidget(m_centre);
    m_split->addWidget(m_why);
    m_split->setStretchFactor(1, 1);
    m_split->setChildrenCollapsible(false);
    setCentralWidget(m_split);
}

void MainWindow::buildCentre(QWidget *answerPage)
{
    m_distribution = new DistributionView(m_planner);
    m_centre = new QTabWidget;
    // No mnemonics on these tabs (the letters go to the inputs): Ctrl+1 to Ctrl+5, in the View menu.
    m_centre->addTab(answerPage, tr("Memory per GPU"));
    m_centre->addTab(m_distribution, tr("Lengths and risk"));
    m_compare = new CompareView(m_planner);
    m_centre->addTab(m_compare, tr("Compare"));
    m_levers = new LeversView(m_planner);
    m_centre->addTab(m_levers, tr("Levers"));
    m_traffic = new TrafficView(m_planner, m_trafficReplay);
    auto *trafficScroll = new QScrollArea; // a short window scrolls the summary instead of clipping it
    trafficScroll->setWidget(m_traffic);
    trafficScroll->setWidgetResizable(true);
    trafficScroll->setFrameShape(QFrame::NoFrame);
    m_centre->addTab(trafficScroll, tr("Traffic"));
}

void MainWindow::startAutosave()
{
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
    // Never the presenter's full screen: the next start opens the window as it was before it.
    settings.setWindowGeometry(m_presenter ? m_geometryBeforePresenter : saveGeometry());
    settings.setWindowState(m_presenter ? m_stateBeforePresenter : saveState(Settings::kVersion));
    settings.setSplitterState(m_split->objectName(), m_presenter ? m_splitBeforePresenter : m_split->saveState());
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
}

void MainWindow::setPresenterMode(bool on)
{
    if (on == m_presenter)
        return;
    m_presenter = on;
    if (on) { // before anything is hidden: the layout saveLayout() keeps while presenting
        m_geometryBeforePresenter = saveGeometry();
        m_stateBeforePresenter = saveState(Settings::kVersion);
        m_splitBeforePresenter = m_split->saveState();
        m_normalBeforePresenter = isMaximized() ? QRect() : geometry();
    }
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
    m_answer->setPresenter(on);
    if (on) {
        m_zoomBeforePresenter = m_zoom;
        m_centre->setCurrentIndex(0);
        showFullScreen();
        if (this->screen())
            setGeometry(this->screen()->geometry()); // the whole screen even where no window manager honours full screen
        // Body text of 18 pt on a 1080-line projector (twice Qt's default 9 pt), the
        // figures 2.6 times that: readable from four metres. A 720-line projector of
        // the same size shows the same physical type, so the size scales with the lines;
        // a screen narrower than 16:9 (800 x 800, 1280 x 1024) by its columns instead, so
        // the inputs, the three figures and the sentence still fit side by side. The size is
        // in points, not a multiple of the desktop's font: twice qt6ct's larger font pushed
        // the headline's figures into each other and the chart below the screen.
        const QScreen *screen = this->screen();
        const double lines = screen ? screen->geometry().height() : 1080.0;
        const double columns = screen ? screen->geometry().width() : 1920.0;
        const double body = kPresenterBodyPoints * std::min(lines / 1080.0, columns / 1920.0);
        setZoom(std::max(m_zoom, std::max(1.0, body / QApplication::font().pointSizeF())));
        // The inputs get room for their larger type, labels beside their fields when that
        // takes at most 40% of the screen ("Host KV memory per node" on one line); the answer
        // takes the rest.
        const int w = screen ? screen->geometry().width() : width();
        const int inputs = std::clamp(m_inputs->sizeHint().width() + m_inputsScroll->verticalScrollBar()->sizeHint().width()
                                          + 2 * m_inputsScroll->frameWidth(), w * 30 / 100, w * 40 / 100);
        m_split->setSizes({inputs, w - inputs, 0});
    } else {
        setZoom(m_zoomBeforePresenter);
        // The window as it was, by its own rectangle: restoreGeometry() places the frame from
        // margins a full-screen window no longer has (0), and the window manager then put the
        // title bar above it, 20 px lower each time (issue 31).
        if (m_normalBeforePresenter.isNull()) {
            showMaximized();
        } else {
            showNormal();
            setGeometry(m_normalBeforePresenter);
        }
        m_split->restoreState(m_splitBeforePresenter);
    }
    QEvent fontChange(QEvent::FontChange);
    changeEvent(&fontChange);
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    auto *widget = qobject_cast<QWidget *>(watched);
    if (event->type() == QEvent::ShortcutOverride && widget && widget->window() == this) {
        auto *key = static_cast<QKeyEvent *>(event);
        QLineEdit *edit = qobject_cast<QLineEdit *>(widget);
        if (!edit && (qobject_cast<QAbstractSpinBox *>(widget) || qobject_cast<QComboBox *>(widget)))
            edit = widget->findChild<QLineEdit *>();
        const bool editing = edit && !edit->isReadOnly();
        // Ctrl+Z / Ctrl+Shift+Z undo the plan whatever has focus, unless a text
        // field has typed text of its own to undo (then the field takes it).
        if (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo))
            return isPlanUndoKey(widget, key); // true: the window's action fires
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

MemoryChartView *MainWindow::chartView() const
{
    return m_answer->chartView();
}

QString MainWindow::sessionsText() const
{
    return m_answer->sessionsText();
}

QString MainWindow::figuresText() const
{
    return m_answer->figuresText();
}

QString MainWindow::adviceText() const
{
    return m_answer->adviceText();
}

bool MainWindow::applyAdvice(int index)
{
    return m_answer->applyAdvice(index);
}

QString MainWindow::headlineText() const
{
    return m_answer->headlineText();
}

QString MainWindow::sourcesText() const
{
    return m_why->sourcesText();
}

QString MainWindow::derivationText() const
{
    return m_why->derivationText();
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
                      m_planner->scenario(), m_planner->result(), m_planner->units(), {}, !m_path.isEmpty() && isWindowModified()};
    // The window's answer against a distribution leaves the fixes out (RiskWork::Figures::Window):
    // the report lists them, so its plan is the whole one.
    if (input.scenario.distribution && input.result.ok)
        input.result = computeCapacity(input.scenario);
    for (const Planner::Pinned &p : m_planner->pinned())
        input.comparisons << qMakePair(tr("Pinned %1").arg(p.name), p.scenario);
    // The traffic's fleet, when the Traffic tab has replayed a trace on this very plan.
    if (m_trafficReplay->answersThePlan())
        input.traffic = m_trafficReplay->answer();
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
        svg.setSize(chartView()->size());
        svg.setViewBox(QRect(QPoint(0, 0), chartView()->size()));
        svg.setTitle(tr("Memory per GPU"));
        QPainter painter;
        if (painter.begin(&svg)) {
            chartView()->render(&painter);
            painter.end();
        } else {
            why = tr("cannot write %1").arg(path);
        }
    } else if (!chartView()->grab().save(&file, "PNG")) {
        why = tr("cannot write %1").arg(path);
    }
    if (why.isEmpty() && !file.commit())
        why = OutputTarget::commitFailed(path, file.errorString());
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

void MainWindow::endWithoutQuestion()
{
    if (m_planner->undoStack()->isClean())
        QFile::remove(autosavePath());
    else
        autosave();
    saveLayout();
    Settings().setLastScenario(m_path);
    // Qt 6 sends every window a close event before it quits: closeEvent lets this one through
    // without the unsaved-changes question this ending exists to skip.
    m_endingWithoutQuestion = true;
    QCoreApplication::quit();
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
        // A file no longer there stays listed (a drive may come back) but greyed and said so,
        // rather than offered and refused with "Cannot open the scenario".
        const bool missing = !QFileInfo(recent.at(i)).isFile();
        QAction *a = m_recentMenu->addAction(missing ? tr("&%1 %2 (missing)").arg(i + 1).arg(QFileInfo(recent.at(i)).fileName())
                                                     : QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(recent.at(i)).fileName()));
        a->setToolTip(recent.at(i));
        a->setEnabled(!missing);
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
    if (m_endingWithoutQuestion) { // endWithoutQuestion kept the changes in the autosave
        event->accept();
        return;
    }
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
