// SPDX-License-Identifier: GPL-3.0-or-later
// The window's actions, menus and toolbar, declared in one table (as a KXmlGui rc file declares
// them), and the actions' handlers. The rest of MainWindow is in mainwindow.cpp.
#include "mainwindow.h"

#include "calibrationdialog.h"
#include "compareview.h"
#include "distributionview.h"
#include "memorychartview.h"
#include "planner.h"
#include "presetmanager.h"
#include "reportwriter.h"
#include "settings.h"
#include "io/sampletraces.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QPrintPreviewDialog>
#include <QPrinter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QUndoStack>

namespace Headroom {

/// One row of the window's action table (MainWindow::actionTable).
struct MainWindow::ActionRow
{
    /// How the action is made: a command of its own, the undo stack's undo or redo, or a
    /// submenu (recent scenarios, sample traces) in place of an action.
    enum class Kind { Command, Undo, Redo, RecentMenu, SampleMenu };
    /// Where it shows: a menu of the menu bar, or none (the window's own key only).
    enum class Menu { None, File, Edit, Tools, View };
    enum Flag {
        WindowWide = 1, ///< also the window's: its key works whatever has focus, and with the menu bar hidden
        Checkable = 2,  ///< on or off: the handler runs on toggled, with the state
        StartsDisabled = 4,
    };

    Kind kind;
    const char *text;                      ///< translated in MainWindow's context; '&' marks the mnemonic
    QKeySequence::StandardKey standardKey; ///< the platform's key (its first binding, if any), or UnknownKey
    QKeyCombination key;                   ///< a fixed key (after the standard one unless the same), or Qt::Key_unknown
    const char *toolTip;                   ///< or nullptr
    Menu menu;
    int group;                             ///< within the menu: a separator between two groups
    int toolBarGroup;                      ///< 0: not on the toolbar; a separator after each group
    int flags;                             ///< Flag values
    QAction *MainWindow::*keptIn;          ///< the member that keeps the action, or nullptr
    void (*run)(MainWindow &window, bool checked); ///< on triggered (toggled when Checkable); nullptr: none
};

const QVector<MainWindow::ActionRow> &MainWindow::actionTable()
{
    using K = ActionRow::Kind;
    using M = ActionRow::Menu;
    using F = ActionRow::Flag;
    constexpr auto noStd = QKeySequence::UnknownKey;
    constexpr QKeyCombination noKey = Qt::Key_unknown;
    // clang-format off
    static const QVector<ActionRow> rows = {
        // Esc is the boxes' own key outside the presenter: enabled only in it.
        {K::Command, QT_TR_NOOP("Leave presenter"), noStd, Qt::Key_Escape, nullptr, M::None, 0, 0,
         F::WindowWide | F::StartsDisabled, &MainWindow::m_leavePresenter, [](MainWindow &w, bool) { w.setPresenterMode(false); }},
        {K::Command, QT_TR_NOOP("&New scenario"), QKeySequence::New, noKey, nullptr, M::File, 0, 0, 0, nullptr,
         [](MainWindow &w, bool) { w.newScenario(); }},
        {K::Command, QT_TR_NOOP("&Open scenario…"), QKeySequence::Open, noKey, nullptr, M::File, 0, 1, 0, nullptr,
         [](MainWindow &w, bool) { w.openScenarioDialog(); }},
        {K::RecentMenu, QT_TR_NOOP("Open &recent"), noStd, noKey, nullptr, M::File, 0, 0, 0, nullptr, nullptr},
        {K::Command, QT_TR_NOOP("&Save"), QKeySequence::Save, noKey, nullptr, M::File, 0, 1, 0, nullptr,
         [](MainWindow &w, bool) { w.save(); }},
        {K::Command, QT_TR_NOOP("Save &as…"), QKeySequence::SaveAs, noKey, nullptr, M::File, 0, 0, 0, nullptr,
         [](MainWindow &w, bool) { w.saveAs(); }},
        // Ctrl+O opens a scenario, as everywhere.
        {K::Command, QT_TR_NOOP("Import &config.json…"), noStd, Qt::CTRL | Qt::SHIFT | Qt::Key_O,
         QT_TR_NOOP("Import a HuggingFace config.json as the model (or drop one on the window)"), M::File, 1, 0, 0, nullptr,
         [](MainWindow &w, bool) { w.importConfigDialog(); }},
        {K::Command, QT_TR_NOOP("Import &trace…"), noStd, Qt::CTRL | Qt::Key_T,
         QT_TR_NOOP("Session lengths from a request log (Azure trace CSV or one length per line)"), M::File, 1, 0, 0, nullptr,
         [](MainWindow &w, bool) { w.importTraceDialog(); }},
        {K::SampleMenu, QT_TR_NOOP("Open sa&mple trace"), noStd, noKey, nullptr, M::File, 1, 0, 0, nullptr, nullptr},
        {K::Command, QT_TR_NOOP("&Export report…"), noStd, Qt::CTRL | Qt::Key_E,
         QT_TR_NOOP("The PDF capacity report (pinned scenarios become a comparison page)"), M::File, 2, 2, 0, nullptr,
         [](MainWindow &w, bool) { w.exportReportDialog(); }},
        {K::Command, QT_TR_NOOP("Print pre&view…"), noStd, Qt::CTRL | Qt::SHIFT | Qt::Key_P, nullptr, M::File, 2, 0, 0, nullptr,
         [](MainWindow &w, bool) { w.printPreview(); }},
        {K::Command, QT_TR_NOOP("Export c&hart…"), noStd, noKey, nullptr, M::File, 2, 0, 0, nullptr,
         [](MainWindow &w, bool) { w.exportChartDialog(); }},
        {K::Command, QT_TR_NOOP("Export &figures (CSV)…"), noStd, noKey, nullptr, M::File, 2, 0, 0, nullptr,
         [](MainWindow &w, bool) { w.exportFiguresDialog(); }},
        // Ctrl+Q as well as the platform's Quit: some themes (qt6ct's Windows key scheme) bind none.
        {K::Command, QT_TR_NOOP("&Quit"), QKeySequence::Quit, Qt::CTRL | Qt::Key_Q, nullptr, M::File, 3, 0, F::WindowWide, nullptr,
         [](MainWindow &w, bool) { w.close(); }},
        {K::Undo, QT_TR_NOOP("&Undo"), QKeySequence::Undo, noKey, nullptr, M::Edit, 0, 3, F::WindowWide, nullptr, nullptr},
        {K::Redo, QT_TR_NOOP("&Redo"), QKeySequence::Redo, noKey, nullptr, M::Edit, 0, 3, F::WindowWide, nullptr, nullptr},
        {K::Command, QT_TR_NOOP("&Copy chart"), noStd, Qt::CTRL | Qt::SHIFT | Qt::Key_C, nullptr, M::Edit, 1, 0, 0, nullptr,
         [](MainWindow &w, bool) { w.copyChart(); }},
        {K::Command, QT_TR_NOOP("&Pin for comparison"), noStd, Qt::CTRL | Qt::Key_D,
         QT_TR_NOOP("Keep the current scenario as a comparison column, then change one input"), M::Edit, 1, 2, 0, nullptr,
         [](MainWindow &w, bool) { w.pinCurrent(); }},
        {K::Command, QT_TR_NOOP("&Calibrate from log or benchmark…"), noStd, Qt::CTRL | Qt::Key_L,
         QT_TR_NOOP("Paste a vLLM, SGLang, TensorRT-LLM, llama.cpp or Ollama start-up log (printed against predicted), or a benchmark's result "
                    "(vllm bench serve, sglang.bench_serving, llama-bench: the card's achieved fractions fitted)"),
         M::Tools, 0, 0, 0, nullptr,
         [](MainWindow &w, bool) { w.calibrate(); }},
        {K::Command, QT_TR_NOOP("&Presets…"), noStd, noKey, nullptr, M::Tools, 0, 0, 0, nullptr,
         [](MainWindow &w, bool) { w.managePresets(); }},
        // Ctrl+U clears a line edit.
        {K::Command, QT_TR_NOOP("Toggle &GB / GiB"), noStd, Qt::CTRL | Qt::SHIFT | Qt::Key_U, nullptr, M::View, 0, 0, 0, nullptr,
         [](MainWindow &w, bool) { w.toggleUnits(); }},
        {K::Command, QT_TR_NOOP("Zoom &in"), QKeySequence::ZoomIn, Qt::CTRL | Qt::Key_Equal, nullptr, M::View, 1, 0, F::WindowWide, nullptr,
         [](MainWindow &w, bool) { w.setZoom(w.m_zoom * 1.15); }},
        {K::Command, QT_TR_NOOP("Zoom &out"), QKeySequence::ZoomOut, noKey, nullptr, M::View, 1, 0, F::WindowWide, nullptr,
         [](MainWindow &w, bool) { w.setZoom(w.m_zoom / 1.15); }},
        {K::Command, QT_TR_NOOP("&Actual size"), noStd, Qt::CTRL | Qt::Key_0, nullptr, M::View, 1, 0, F::WindowWide, nullptr,
         [](MainWindow &w, bool) { w.setZoom(1.0); }},
        {K::Command, QT_TR_NOOP("&Presenter"), noStd, Qt::Key_F5, QT_TR_NOOP("Full screen, large type for a projector (F5; Esc leaves)"),
         M::View, 1, 0, F::WindowWide | F::Checkable, &MainWindow::m_presenterAction, [](MainWindow &w, bool on) { w.setPresenterMode(on); }},
        // The centre's tabs, in their order (the tabs themselves carry no mnemonics).
        {K::Command, QT_TR_NOOP("&Memory per GPU"), noStd, Qt::CTRL | Qt::Key_1, nullptr, M::View, 2, 0, F::WindowWide, nullptr,
         [](MainWindow &w, bool) { w.showTab(0); }},
        {K::Command, QT_TR_NOOP("&Lengths and risk"), noStd, Qt::CTRL | Qt::Key_2, nullptr, M::View, 2, 0, F::WindowWide, nullptr,
         [](MainWindow &w, bool) { w.showTab(1); }},
        {K::Command, QT_TR_NOOP("&Compare"), noStd, Qt::CTRL | Qt::Key_3, nullptr, M::View, 2, 0, F::WindowWide, nullptr,
         [](MainWindow &w, bool) { w.showTab(2); }},
        {K::Command, QT_TR_NOOP("Le&vers"), noStd, Qt::CTRL | Qt::Key_4, nullptr, M::View, 2, 0, F::WindowWide, nullptr,
         [](MainWindow &w, bool) { w.showTab(3); }},
        {K::Command, QT_TR_NOOP("&Traffic"), noStd, Qt::CTRL | Qt::Key_5, QT_TR_NOOP("Replay a trace's arrivals on replicas of the plan"), M::View, 2, 0,
         F::WindowWide, nullptr, [](MainWindow &w, bool) { w.showTab(4); }},
    };
    // clang-format on
    return rows;
}

void MainWindow::createActions()
{
    QHash<const ActionRow *, QAction *> actions;
    for (const ActionRow &row : actionTable()) {
        if (row.kind == ActionRow::Kind::RecentMenu || row.kind == ActionRow::Kind::SampleMenu)
            continue; // made where the menu holds them
        QAction *a = createAction(row);
        actions.insert(&row, a);
        if (row.keptIn)
            this->*row.keptIn = a;
        if (row.flags & ActionRow::WindowWide)
            addAction(a); // whatever has focus, and with the menu bar hidden
    }
    buildUnitsBox();
    buildMenus(actions);
    buildToolBar(actions);
}

QAction *MainWindow::createAction(const ActionRow &row)
{
    QAction *a = nullptr;
    if (row.kind == ActionRow::Kind::Undo || row.kind == ActionRow::Kind::Redo) {
        QUndoStack *undo = m_planner->undoStack();
        const bool isUndo = row.kind == ActionRow::Kind::Undo;
        a = isUndo ? undo->createUndoAction(this, tr(row.text)) : undo->createRedoAction(this, tr(row.text));
        // The Edit menu names the step ("Undo Choose GPU H20 96GB"); the toolbar keeps a short,
        // steady "Undo" / "Redo" so its buttons never grow and shift the units box along.
        a->setIconText(isUndo ? tr("Undo") : tr("Redo"));
    } else {
        a = new QAction(tr(row.text), this);
    }
    QList<QKeySequence> keys;
    if (row.standardKey != QKeySequence::UnknownKey)
        keys << QKeySequence(row.standardKey); // the platform's first binding of the key
    if (row.key.key() != Qt::Key_unknown && !keys.contains(QKeySequence(row.key)))
        keys << QKeySequence(row.key);
    if (keys.size() == 1)
        a->setShortcut(keys.first()); // none when the platform binds no key to the standard one (Quit, Save as)
    else if (!keys.isEmpty())
        a->setShortcuts(keys);
    if (row.toolTip)
        a->setToolTip(tr(row.toolTip));
    if (row.flags & ActionRow::Checkable)
        a->setCheckable(true);
    if (row.flags & ActionRow::StartsDisabled)
        a->setEnabled(false);
    if (row.run && (row.flags & ActionRow::Checkable))
        connect(a, &QAction::toggled, this, [this, run = row.run](bool on) { run(*this, on); });
    else if (row.run)
        connect(a, &QAction::triggered, this, [this, run = row.run](bool checked) { run(*this, checked); });
    return a;
}

void MainWindow::buildMenus(const QHash<const ActionRow *, QAction *> &actions)
{
    const QPair<ActionRow::Menu, const char *> menus[] = {{ActionRow::Menu::File, QT_TR_NOOP("&File")},
                                                          {ActionRow::Menu::Edit, QT_TR_NOOP("&Edit")},
                                                          {ActionRow::Menu::Tools, QT_TR_NOOP("&Tools")},
                                                          {ActionRow::Menu::View, QT_TR_NOOP("&View")}};
    for (const auto &[which, title] : menus) {
        QMenu *menu = menuBar()->addMenu(tr(title));
        int group = 0;
        for (const ActionRow &row : actionTable()) {
            if (row.menu != which)
                continue;
            if (row.group != group)
                menu->addSeparator();
            group = row.group;
            if (row.kind == ActionRow::Kind::RecentMenu)
                m_recentMenu = menu->addMenu(tr(row.text));
            else if (row.kind == ActionRow::Kind::SampleMenu)
                fillSampleMenu(menu->addMenu(tr(row.text)));
            else
                menu->addAction(actions.value(&row));
        }
    }
}

void MainWindow::fillSampleMenu(QMenu *samples)
{
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
}

void MainWindow::buildToolBar(const QHash<const ActionRow *, QAction *> &actions)
{
    m_toolBar = addToolBar(tr("Main"));
    m_toolBar->setObjectName(QStringLiteral("mainToolBar"));
    int last = 0;
    for (const ActionRow &row : actionTable())
        last = std::max(last, row.toolBarGroup);
    for (int group = 1; group <= last; ++group) {
        for (const ActionRow &row : actionTable())
            if (row.toolBarGroup == group)
                m_toolBar->addAction(actions.value(&row));
        m_toolBar->addSeparator();
    }
    m_toolBar->addWidget(new QLabel(tr(" Units: ")));
    m_toolBar->addWidget(m_units);
}

void MainWindow::buildUnitsBox()
{
    m_units = new QComboBox;
    m_units->addItem(tr("GB (10^9 B)"));
    m_units->addItem(tr("GiB (2^30 B)"));
    m_units->setToolTip(tr("Units for every figure: GB as spec sheets state memory, GiB as vLLM and nvidia-smi report it"));
    connect(m_units, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_planner->setUnits(i == 1 ? UnitSystem::Binary : UnitSystem::Decimal);
        Settings().setUnits(m_planner->units());
    });
}

void MainWindow::newScenario()
{
    if (!maybeSave())
        return;
    m_path.clear();
    m_planner->reset(defaultScenario());
    updateTitle();
}

void MainWindow::openScenarioDialog()
{
    if (!maybeSave())
        return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(), tr("Headroom scenarios (*.headroom *.json)"));
    if (!path.isEmpty())
        openScenario(path);
}

void MainWindow::save()
{
    if (m_path.isEmpty() || !m_path.endsWith(QLatin1String(".headroom")))
        saveAs();
    else
        saveScenario(m_path);
}

void MainWindow::saveAs()
{
    QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), m_path, tr("Headroom scenarios (*.headroom)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".headroom")))
        path += QStringLiteral(".headroom");
    saveScenario(path);
}

void MainWindow::importConfigDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open config.json"), QString(), tr("JSON files (*.json)"));
    if (!path.isEmpty())
        openModelFile(path);
}

void MainWindow::importTraceDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import trace"), QString(), tr("Request traces (*.csv *.jsonl *.txt);;All files (*)"));
    if (!path.isEmpty() && m_distribution->importTrace(path))
        m_centre->setCurrentWidget(m_distribution);
}

void MainWindow::exportReportDialog()
{
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
}

void MainWindow::printPreview()
{
    QPrinter printer(QPrinter::HighResolution);
    ReportWriter::setUpPrinter(&printer, ReportWriter::defaultPageSize()); // the exported PDF's pages, laid out alike
    QPrintPreviewDialog dialog(&printer, this);
    connect(&dialog, &QPrintPreviewDialog::paintRequested, this, [this](QPrinter *p) {
        QString error;
        if (!ReportWriter::paint(p, reportInput(), &error))
            statusBar()->showMessage(error, 10000);
    });
    dialog.exec();
}

void MainWindow::copyChart()
{
    QApplication::clipboard()->setImage(chartView()->grab().toImage());
    statusBar()->showMessage(tr("Chart copied"), 3000);
}

void MainWindow::exportChartDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), exportStartPath(QStringLiteral(".svg")), tr("SVG (*.svg);;PNG (*.png)"));
    if (!path.isEmpty() && exportChart(path))
        Settings().setExportFolder(QFileInfo(path).absolutePath());
}

void MainWindow::exportFiguresDialog()
{
    QString path = QFileDialog::getSaveFileName(this, tr("Export figures"), exportStartPath(QStringLiteral(".csv")), tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))
        path += QStringLiteral(".csv");
    if (exportFiguresCsv(path))
        Settings().setExportFolder(QFileInfo(path).absolutePath());
}

void MainWindow::pinCurrent()
{
    if (m_planner->pinCurrent())
        m_centre->setCurrentWidget(m_compare);
    else
        statusBar()->showMessage(tr("Three scenarios are pinned already: remove one first"), 5000);
}

void MainWindow::calibrate()
{
    CalibrationDialog dialog(m_planner, m_models, this);
    dialog.exec();
}

void MainWindow::managePresets()
{
    PresetManager dialog(m_storePath, this);
    dialog.exec();
    if (dialog.changed())
        refreshPresets();
}

void MainWindow::toggleUnits()
{
    m_units->setCurrentIndex(1 - m_units->currentIndex());
}

void MainWindow::showTab(int index)
{
    m_centre->setCurrentIndex(index);
}

} // namespace Headroom
