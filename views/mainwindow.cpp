// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

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
#include "presetstore.h"
#include "io/scenariofile.h"

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
#include <QFileInfo>
#include <QMimeData>
#include <QUrl>
#include <QComboBox>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

namespace Headroom {

namespace {
constexpr int kSettingsVersion = 1;
const QString kDefaultModel = QStringLiteral("llama-3.1-8b");
const QString kDefaultGpu = QStringLiteral("h100-sxm-80gb");

QString html(const QString &s)
{
    return s.toHtmlEscaped();
}
} // namespace

MainWindow::MainWindow(const QString &storePath, QWidget *parent)
    : QMainWindow(parent), m_planner(new Planner(this))
{
    setWindowIcon(QIcon(QStringLiteral(":/icons/headroom.svg")));
    setAcceptDrops(true);

    // Presets: the store, else the built-ins as shipped (the store stays untouched).
    m_storePath = storePath.isEmpty() ? PresetStore::defaultPath() : storePath;
    PresetStore store(m_storePath);
    QString error;
    QVector<PresetRecord> records;
    if (store.open(&error)) {
        records = store.list();
        QStringList problems = store.problems();
        if (!store.warning().isEmpty())
            problems.prepend(store.warning());
        if (!problems.isEmpty())
            QTimer::singleShot(0, this, [this, problems] {
                QMessageBox::warning(this, tr("Preset database"), problems.join(QLatin1Char('\n')));
            });
    } else {
        records = PresetStore::builtInPresets();
        QTimer::singleShot(0, this, [this, error] {
            QMessageBox::warning(this, tr("Preset database"), error + tr("\n\nHeadroom uses its built-in presets for now."));
        });
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
    if (!skipped.isEmpty())
        statusBar()->showMessage(tr("Presets skipped: %1").arg(skipped.join(QStringLiteral("; "))));
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
    m_planner->setPresets(models, gpus);
    m_planner->reset(defaultScenario());

    // Left: inputs.
    m_inputs = new InputPanel(m_planner, models, gpus);
    auto *scroll = new QScrollArea;
    scroll->setWidget(m_inputs);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(std::min(520, m_inputs->sizeHint().width() + 24));

    // Centre: the answer.
    auto *answer = new QWidget;
    auto *answerLayout = new QVBoxLayout(answer);
    m_sessions = new QLabel;
    QFont big = m_sessions->font();
    big.setPointSizeF(big.pointSizeF() * 2.2);
    big.setBold(true);
    m_sessions->setFont(big);
    m_sessions->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict = new QLabel;
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_figures = new QLabel;
    m_figures->setTextFormat(Qt::RichText);
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chart = new MemoryChartView;
    answerLayout->addWidget(m_chart, 1);
    answerLayout->addWidget(m_sessions);
    answerLayout->addWidget(m_verdict);
    answerLayout->addWidget(m_figures);

    // Right: why.
    auto *tabs = new QTabWidget;
    m_derivation = new QTextBrowser;
    m_derivation->setAccessibleName(tr("Derivation"));
    m_sources = new QTextBrowser;
    m_sources->setOpenExternalLinks(true);
    tabs->addTab(m_derivation, tr("&Derivation"));
    tabs->addTab(m_sources, tr("S&ources"));
    tabs->setMinimumWidth(360);

    m_distribution = new DistributionView(m_planner);
    m_centre = new QTabWidget;
    m_centre->addTab(answer, tr("&Memory per GPU"));
    m_centre->addTab(m_distribution, tr("&Lengths and risk"));
    m_compare = new CompareView(m_planner);
    m_centre->addTab(m_compare, tr("Com&pare"));
    m_levers = new LeversView(m_planner);
    m_centre->addTab(m_levers, tr("Le&vers"));

    auto *split = new QSplitter;
    split->addWidget(scroll);
    split->addWidget(m_centre);
    split->addWidget(tabs);
    split->setStretchFactor(1, 1);
    setCentralWidget(split);

    createActions();
    rebuildRecentMenu();
    connect(m_planner->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    auto *autosaveTimer = new QTimer(this);
    connect(autosaveTimer, &QTimer::timeout, this, &MainWindow::autosave);
    autosaveTimer->start(30'000);
    updateTitle();
    QTimer::singleShot(0, this, &MainWindow::offerRecovery);
    connect(m_planner, &Planner::resultChanged, this, &MainWindow::showResult);
    showResult(m_planner->result());

    QSettings settings;
    if (settings.value(QStringLiteral("window/version")).toInt() == kSettingsVersion) {
        restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
        restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kSettingsVersion);
    } else {
        resize(1400, 820);
    }
    if (settings.value(QStringLiteral("units")).toString() == QLatin1String("GiB"))
        m_units->setCurrentIndex(1);
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
    open->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
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
        const QString path = QFileDialog::getOpenFileName(this, tr("Import trace"), QString(), tr("CSV files (*.csv *.txt)"));
        if (!path.isEmpty() && m_distribution->importTrace(path))
            m_centre->setCurrentWidget(m_distribution);
    });
    auto *exportPdf = new QAction(tr("&Export report…"), this);
    exportPdf->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportPdf->setToolTip(tr("The PDF capacity report (pinned scenarios become a comparison page)"));
    connect(exportPdf, &QAction::triggered, this, [this] {
        QString path = QFileDialog::getSaveFileName(this, tr("Export report"), QString(), tr("PDF (*.pdf)"));
        if (path.isEmpty())
            return;
        if (!path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
            path += QStringLiteral(".pdf");
        const bool letter = QLocale().measurementSystem() == QLocale::ImperialUSSystem;
        if (exportReport(path, letter ? QPageSize::Letter : QPageSize::A4))
            statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
    });
    auto *preview = new QAction(tr("Print pre&view…"), this);
    preview->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    connect(preview, &QAction::triggered, this, [this] {
        QPrinter printer(QPrinter::HighResolution);
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
        const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), QString(), tr("SVG (*.svg);;PNG (*.png)"));
        if (!path.isEmpty())
            exportChart(path);
    });
    auto *exportCsv = new QAction(tr("Export &figures (CSV)…"), this);
    connect(exportCsv, &QAction::triggered, this, [this] {
        QString path = QFileDialog::getSaveFileName(this, tr("Export figures"), QString(), tr("CSV (*.csv)"));
        if (path.isEmpty())
            return;
        if (!path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))
            path += QStringLiteral(".csv");
        exportFiguresCsv(path);
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
        QSettings().setValue(QStringLiteral("units"), i == 1 ? QStringLiteral("GiB") : QStringLiteral("GB"));
    });
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
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(toggleUnits);

    QToolBar *bar = addToolBar(tr("Main"));
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
    m_chart->setResult(r, s.tp, u);
    if (!r.ok) {
        m_sessions->setText(tr("—"));
        m_verdict->setText(QStringLiteral("<span style='color:#b00020'>%1</span>").arg(html(r.error)));
        m_figures->clear();
        m_derivation->setPlainText(r.error);
        return;
    }
    const QString perGroup = s.tp > 1 ? tr(" per %1 GPUs").arg(s.tp) : QString();
    if (s.distribution)
        m_sessions->setText(Units::plural(r.distribution.sessionsAtRisk, tr("session fits"), tr("sessions fit")) + perGroup
                            + tr(" at %1 risk").arg(QString::number(s.risk, 'g', 3)));
    else
        m_sessions->setText(Units::plural(r.maxSessions, tr("session fits"), tr("sessions fit")) + perGroup);
    QString verdict = html(capacityVerdict(s, r, u));
    if (!r.fixes.isEmpty())
        verdict += QStringLiteral("<br>") + tr("Levers that fix it: ") + html(r.fixes.join(QStringLiteral("; ")));
    for (const QString &w : r.warnings)
        verdict += QStringLiteral("<br><i>%1</i>").arg(html(w));
    m_verdict->setText(r.fits ? verdict : QStringLiteral("<span style='color:#b00020'><b>%1</b></span>").arg(verdict));
    const QString cost = r.costPerSessionHourUsd ? Units::formatUsd(*r.costPerSessionHourUsd)
        : s.effectivePrice()                      ? tr("— (no session fits)")
                                                  : tr("set a price");
    m_figures->setText(tr("<table cellspacing=6>"
                          "<tr><td>KV per token</td><td><b>%1</b> (%2)</td></tr>"
                          "<tr><td>Per session (%3 tokens)</td><td><b>%4</b></td></tr>"
                          "<tr><td>KV for %5</td><td><b>%6</b> of %7 budget per GPU</td></tr>"
                          "<tr><td>Cost per session-hour</td><td><b>%8</b></td></tr></table>")
                           .arg(Units::formatExactBytes(r.kvBytesPerToken), fmt(r.kvBytesPerToken),
                                Units::formatCount(r.reservedTokensPerSession), fmt(r.sessionBytes),
                                Units::plural(s.sessions, tr("session"), tr("sessions")), fmt(r.kvBytesForSessionsPerGpu), fmt(r.kvBudgetBytesPerGpu), cost));
    QString d = QStringLiteral("<ol>");
    for (const QString &line : explainCapacity(s, r, u))
        d += QStringLiteral("<li>%1</li>").arg(html(line));
    m_derivation->setHtml(d + QStringLiteral("</ol>"));
    m_sources->setHtml(tr("<h3>%1</h3><p>%2 (%3)</p><p>Parameters: %4 published, %11 counted from the config's shapes; weights: %5.</p>"
                          "<h3>%6</h3><p>Memory: %7 — %8</p><p>%9</p><p>Price: %10</p>")
                           .arg(html(s.model.name), html(s.model.source), html(s.model.sourceDate),
                                Units::formatCount(s.model.totalParams), html(r.weightsBasis), html(s.gpu.name),
                                Units::formatExactBytes(s.gpu.memoryBytes), html(s.gpu.memorySource), html(s.gpu.source),
                                s.gpu.priceUsdPerHour ? html(QStringLiteral("$%1 per GPU-hour, %2 (%3)")
                                                              .arg(*s.gpu.priceUsdPerHour, 0, 'f', 2)
                                                              .arg(s.gpu.priceSource, s.gpu.priceDate))
                                                      : tr("none published: set a price"))
                           .arg(Units::formatCount(s.model.derivedParams)));
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

QString MainWindow::derivationText() const
{
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
    return start;
}

bool MainWindow::openScenario(const QString &path, QString *error)
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
        const Scenario s = ScenarioFile::read(path, nullptr, model, gpu);
        m_inputs->addModel(s.model);
        m_path = path;
        m_planner->reset(s);
        addRecent(path);
        updateTitle();
        return true;
    } catch (const InputError &e) {
        return fail(tr("Cannot open the scenario"), e.text(), error);
    }
}

bool MainWindow::saveScenario(const QString &path, QString *error)
{
    try {
        ScenarioFile::write(path, m_planner->scenario(), QFileInfo(path).completeBaseName());
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
                      m_planner->scenario(), m_planner->result(), m_planner->units(), {}};
    for (const Planner::Pinned &p : m_planner->pinned())
        input.comparisons << qMakePair(tr("Pinned %1").arg(p.name), p.scenario);
    return input;
}

bool MainWindow::exportReport(const QString &path, QPageSize::PageSizeId size, QString *error)
{
    QString why;
    if (ReportWriter::writePdf(path, reportInput(), size, &why))
        return true;
    return fail(tr("Cannot export the report"), why, error);
}

bool MainWindow::exportChart(const QString &path, QString *error)
{
    QString why;
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(path);
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
    } else if (!m_chart->grab().save(path, "PNG")) {
        why = tr("cannot write %1").arg(path);
    }
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
    QSaveFile f(path);
    if (f.open(QIODevice::WriteOnly) && f.write(csv.toUtf8()) >= 0 && f.commit())
        return true;
    const QString why = tr("cannot write %1: %2").arg(path, f.errorString());
    return fail(tr("Cannot export the figures"), why, error);
}

QString MainWindow::autosavePath() const
{
    return QFileInfo(m_storePath).absolutePath() + QStringLiteral("/autosave.headroom");
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
        if (openScenario(keep, &error)) {
            m_path.clear();
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
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 8)
        recent.removeLast();
    settings.setValue(QStringLiteral("recentFiles"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
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
    QSettings settings;
    settings.setValue(QStringLiteral("window/version"), kSettingsVersion);
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState(kSettingsVersion));
    settings.setValue(QStringLiteral("units"), m_units->currentIndex() == 1 ? QStringLiteral("GiB") : QStringLiteral("GB"));
    event->accept();
}

} // namespace Headroom
