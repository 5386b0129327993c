// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"
#include "inputs/scenario.h"
#include "kv/modelshape.h"

#include <QMainWindow>
#include <QHash>
#include <QPageSize>
#include <memory>

QT_BEGIN_NAMESPACE
class QScrollArea;
class QLockFile;
class QFileSystemWatcher;
class QComboBox;
class QMenu;
class QAction;
class QSplitter;
class QTabWidget;
class QToolBar;
QT_END_NAMESPACE

namespace Headroom {

class AnswerView;
class InputPanel;
class CompareView;
class DistributionView;
class MemoryChartView;
class Planner;
class PresetStore;
class WhyView;

/// The one window, read left to right as the question is asked: inputs,
/// the answer (stacked memory chart and the figures people repeat), and why
/// (the derivation with numbers plugged in). Opens the preset store; a store
/// that cannot be opened is reported and left untouched, and the built-in
/// presets are used instead.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// storePath: the preset database (PresetStore::defaultPath() when empty).
    explicit MainWindow(const QString &storePath = {}, QWidget *parent = nullptr);
    ~MainWindow() override;

    Planner *planner() const { return m_planner; }
    InputPanel *inputPanel() const { return m_inputs; }
    MemoryChartView *chartView() const;
    DistributionView *distributionView() const { return m_distribution; }
    class LeversView *leversView() const { return m_levers; }
    /// The Traffic tab, and the replay it drives (shared with the answer's headline and the report).
    class TrafficView *trafficView() const { return m_traffic; }
    class TrafficReplay *trafficReplay() const { return m_trafficReplay; }
    /// The large "sessions that fit" figure, as shown.
    QString sessionsText() const;
    /// The figures under the chart as shown (plain text).
    QString figuresText() const;
    /// "What to do now" as shown (plain text).
    QString adviceText() const;
    /// Applies the advice's option `index` (as the link under it does): one undo step.
    bool applyAdvice(int index);
    /// The Sources tab as shown (plain text).
    QString sourcesText() const;
    /// The derivation as shown (plain text), written out first when a drag has not paused yet.
    QString derivationText() const;

    /// Opens a .headroom scenario (or a saved plan --json); false with *error (else a message box).
    /// `remember` false (a recovered autosave's temporary copy): the file becomes neither the
    /// window's file, a recent file nor the scenario reopened at the next start.
    bool openScenario(const QString &path, QString *error = nullptr, bool remember = true);
    /// Saves the scenario to `path` atomically; false with *error (else a message box).
    bool saveScenario(const QString &path, QString *error = nullptr);
    /// The file the scenario was last opened from or saved to (empty: untitled).
    QString scenarioPath() const { return m_path; }
    /// Where the autosave goes (beside the preset database).
    QString autosavePath() const;
    /// Writes the autosave now when there are unsaved changes (the timer does it every 30 s).
    void autosave();
    /// Ends the application without the unsaved-changes question (SIGTERM, SIGINT: main.cpp):
    /// unsaved changes stay in the autosave, offered at the next start; the layout and the last
    /// scenario are saved as a close saves them.
    void endWithoutQuestion();

    /// Writes the PDF report (with the pinned scenarios as a comparison page).
    bool exportReport(const QString &path, QPageSize::PageSizeId size, QString *error = nullptr);
    /// Where an export dialog opens: the file `suffix` (".pdf") named after the scenario, in
    /// the folder of the last export (Settings::exportFolder: else the documents folder).
    QString exportStartPath(const QString &suffix) const;
    /// Writes the memory chart as SVG (vector) or PNG, by the file's suffix.
    bool exportChart(const QString &path, QString *error = nullptr);
    /// Writes the key figures of the current and pinned scenarios as CSV.
    bool exportFiguresCsv(const QString &path, QString *error = nullptr);

    /// Imports a HuggingFace config.json (or a model preset file) as the
    /// current model. Returns false when it cannot: the reason goes to *error
    /// when given, else to a message box.
    bool openModelFile(const QString &path, QString *error = nullptr);

    /// Rereads the preset store (Tools > Presets does after a save): the pickers offer the presets
    /// now, keeping the current model and card; an edited one in use updates the plan.
    void refreshPresets();
    /// As refreshPresets(), when the preset store's file changed on disk (another Headroom
    /// window, or `headroom presets add|edit|remove|import` run beside it): nothing happens
    /// when the presets read the same (the window's own saves, a write that changed nothing).
    void presetStoreChangedOnDisk();

    /// Presenter mode (View > Presenter, F5; Esc leaves): full screen; the
    /// inputs (live), the three figures a customer repeats (sessions per card,
    /// cost per session-hour, what limits it) in large type, the chart and the
    /// one-sentence answer; no menus, toolbar, tab bar, derivation or detail.
    /// The window is zoomed to twice the system font on a 1080-line screen
    /// (in proportion on others: the same physical size from four metres).
    Q_INVOKABLE void setPresenterMode(bool on);
    bool presenterMode() const { return m_presenter; }
    /// Zooms the whole window, charts included (1.0 = the system font; Ctrl+Plus/Minus/0).
    void setZoom(double factor);
    double zoom() const { return m_zoom; }
    /// The presenter's headline as shown, its captions' non-breaking hyphens (U+2011) as "-".
    QString headlineText() const;

protected:
    void closeEvent(QCloseEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    // The actions, menus and toolbar, and the actions' handlers: mainwindowactions.cpp.
    struct ActionRow;
    /// The window's actions as one table, in menu order (as a KXmlGui rc file declares them):
    /// each row's text, keys, tooltip, menu and group, toolbar group, flags and handler.
    static const QVector<ActionRow> &actionTable();
    /// Builds the actions, the menus and the toolbar from actionTable().
    void createActions();
    /// Makes the action of `row` (its text, keys, tooltip and flags), connected to its handler.
    QAction *createAction(const ActionRow &row);
    /// The menu bar's menus, in order, each filled from actionTable() with a separator between groups.
    void buildMenus(const QHash<const ActionRow *, QAction *> &actions);
    /// The toolbar: its actions from actionTable() by group, then the units box.
    void buildToolBar(const QHash<const ActionRow *, QAction *> &actions);
    /// File > Open sample trace: one entry per sample trace installed.
    void fillSampleMenu(QMenu *samples);
    /// The units box (GB or GiB for every figure), as the toolbar shows it.
    void buildUnitsBox();

    /// Watches the preset store's file: presets written beside the window reach the pickers.
    void watchPresetStore();
    /// The three panes (inputs, the answer's tabs, the why) in the central splitter.
    void buildPanes();
    /// The centre's tabs: the answer (in `answerPage`), lengths and risk, compare, levers, traffic.
    void buildCentre(QWidget *answerPage);
    /// The autosave every 30 s, and the lock that makes this instance the autosave's owner
    /// (then a crashed run's autosave is offered once the window shows).
    void startAutosave();

    // The actions' handlers (actionTable() names them).
    void newScenario();
    void openScenarioDialog();
    void save();
    void saveAs();
    void importConfigDialog();
    void importTraceDialog();
    void exportReportDialog();
    void printPreview();
    void copyChart();
    void exportChartDialog();
    void exportFiguresDialog();
    void pinCurrent();
    void calibrate();
    void managePresets();
    void toggleUnits();
    void showTab(int index);

    /// Reads the preset store (else the built-ins) into m_models and m_gpus.
    /// atStart: problems go to a message box once the window shows, else to the
    /// status bar. Returns a note on presets skipped (empty when none).
    QStringList loadPresets(bool atStart);
    /// Reopens the scenario open when the window last closed (Settings::lastScenario);
    /// one gone or unreadable is said in the status bar, never in a dialog.
    void restoreLastScenario();
    /// Window geometry, toolbar state, splitters and units from the Settings, and back.
    void restoreLayout();
    void saveLayout() const;
    /// Keeps the inputs' pane at least as wide as the inputs need (font, style and zoom change it).
    void fitInputsWidth();
    void updateTitle();
    void addRecent(const QString &path);
    void rebuildRecentMenu();
    bool maybeSave();
    void offerRecovery();
    Scenario defaultScenario() const;
    /// Reports a failure: into *error when given (tests, scripts), else in a message box. Returns false.
    bool fail(const QString &title, const QString &why, QString *error);
    struct ReportInput reportInput() const;

    Planner *m_planner;
    QVector<ModelShape> m_models;
    QVector<GpuSpec> m_gpus;
    QString m_storePath;
    QFileSystemWatcher *m_storeWatcher = nullptr; ///< the store's file, for presets written by another process
    class QTimer *m_storeSettle = nullptr;              ///< lets a burst of writes settle before the store is reread
    QString m_path;
    QMenu *m_recentMenu = nullptr;
    InputPanel *m_inputs = nullptr;
    QScrollArea *m_inputsScroll = nullptr;
    AnswerView *m_answer = nullptr; ///< the Memory per GPU tab
    QComboBox *m_units = nullptr;
    DistributionView *m_distribution = nullptr;
    CompareView *m_compare = nullptr;
    class LeversView *m_levers = nullptr;
    class TrafficReplay *m_trafficReplay = nullptr; ///< the Traffic tab's replays, off the GUI thread
    class TrafficView *m_traffic = nullptr;
    QTabWidget *m_centre = nullptr;
    QSplitter *m_split = nullptr;
    QAction *m_leavePresenter = nullptr;
    WhyView *m_why = nullptr; ///< the derivation and the sources, right of the centre
    QToolBar *m_toolBar = nullptr;
    QAction *m_presenterAction = nullptr;
    bool m_presenter = false;
    bool m_endingWithoutQuestion = false; ///< endWithoutQuestion ran: close without asking
    double m_zoom = 1.0;
    double m_zoomBeforePresenter = 1.0;
    // The layout before the presenter, which saveLayout() keeps in place of the presenter's.
    QByteArray m_geometryBeforePresenter;
    QByteArray m_stateBeforePresenter; ///< the toolbar's
    QByteArray m_splitBeforePresenter;
    QRect m_normalBeforePresenter; ///< the window's own rectangle, restored on leaving; null: maximized
    /// Held while this instance runs: a second instance neither offers the
    /// first one's autosave as a crash nor writes over it.
    std::unique_ptr<QLockFile> m_lock;
};

} // namespace Headroom
