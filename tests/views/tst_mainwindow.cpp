// SPDX-License-Identifier: GPL-3.0-or-later
// The main window offscreen: it opens on Llama-3.1-8B / H100 at 100,000
// tokens, and moving an input moves the chart to the expected bytes
// (seed-figures.md A: 131,072 B per token for this shape).
#include "calibrationdialog.h"
#include "compareview.h"
#include "leversview.h"
#include "distributionchartview.h"
#include "distributionview.h"
#include "inputpanel.h"
#include "mainwindow.h"
#include "sidepoolspanel.h"
#include "memorychartview.h"
#include "plan/capacity.h"
#include "planner.h"
#include "tokenspinbox.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QFile>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QProcess>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <QTimer>
#include <QStatusBar>
#include <functional>
#include "common/clirun.h"
#include "common/headroomtest.h"
#include <QUndoStack>

using namespace Headroom;

class TestMainWindow : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void opensOnTheFoundationExample()
    {
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        w.show();
        QCOMPARE(w.planner()->scenario().model.id, QStringLiteral("llama-3.1-8b"));
        QCOMPARE(w.planner()->scenario().gpu.id, QStringLiteral("h100-sxm-80gb"));
        QCOMPARE(w.planner()->scenario().contextTokens, qint64(100000));
        // One session of 100,000 tokens x 131,072 B; weights 8,030,261,248 x 2 B (model card, preset).
        QCOMPARE(w.chartView()->segments().kvCache, qint64(13'107'200'000));
        QCOMPARE(w.chartView()->segments().weights, qint64(16'060'522'496));
        QCOMPARE(w.sessionsText(), QStringLiteral("4 sessions fit"));
        QVERIFY(w.derivationText().contains(QStringLiteral("= 4,096 B per layer per token")));
    }

    void slidersRedrawTheChart()
    {
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        w.show();
        InputPanel *in = w.inputPanel();
        // Sessions 1 -> 3: three sessions of 13,107,200,000 B.
        in->sessionsSlider()->setValue(3);
        QCOMPARE(w.chartView()->segments().kvCache, qint64(3) * 13'107'200'000);
        // Context slider to its bottom: 1,000 tokens = 63 blocks of 16 = 1,008 tokens held, x3.
        in->contextSlider()->setValue(0);
        QCOMPARE(w.planner()->scenario().contextTokens, qint64(1000));
        QCOMPARE(w.chartView()->segments().kvCache, qint64(3) * 1008 * 131072);
        // Keyboard: the spin box takes an exact length.
        in->contextSpin()->setValue(50000);
        QCOMPARE(w.chartView()->segments().kvCache, qint64(3) * 50000 * 131072);
        // fp8 cache halves every entry (1 B instead of 2).
        in->kvDtypeSlider()->setValue(int(Dtypes::offered().indexOf(Dtype::FP8)));
        QCOMPARE(w.chartView()->segments().kvCache, qint64(3) * 50000 * 65536);
        // Undo restores bf16, then 100,000 tokens... one step per edit.
        w.planner()->undoStack()->undo();
        QCOMPARE(w.chartView()->segments().kvCache, qint64(3) * 50000 * 131072);
        // TP 2: 4 of 8 KV heads per GPU.
        in->tpSlider()->setValue(1);
        QCOMPARE(w.planner()->scenario().tp, 2);
        QCOMPARE(w.chartView()->segments().kvCache, qint64(3) * 50000 * 65536);
        QCOMPARE(w.chartView()->segments().weights, qint64(8'030'261'248));
    }

    // A drag is one undo step (its values merge), and the next drag of the same slider is
    // another: two drags of Context, two Ctrl+Z back to the start (README: "a slider or handle drag is one step").
    void eachDragIsOneUndoStep()
    {
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        w.show();
        QSlider *slider = w.inputPanel()->contextSlider();
        const qint64 start = w.planner()->scenario().contextTokens;
        const auto drag = [&](std::initializer_list<int> positions) {
            slider->setSliderDown(true); // emits sliderPressed, as a press does
            for (int p : positions)
                slider->setValue(p);
            slider->setSliderDown(false);
        };
        drag({600, 500, 400});
        const qint64 afterFirst = w.planner()->scenario().contextTokens;
        drag({300, 200, 100});
        const qint64 afterSecond = w.planner()->scenario().contextTokens;
        QVERIFY(afterFirst != start && afterSecond != afterFirst);
        QCOMPARE(w.inputPanel()->positionToContext(100), afterSecond);
        w.planner()->undoStack()->undo();
        QCOMPARE(w.planner()->scenario().contextTokens, afterFirst);
        w.planner()->undoStack()->undo();
        QCOMPARE(w.planner()->scenario().contextTokens, start);
    }

    // Each step taken by a key is an undo step of its own, as a drag is: two keyboard changes of
    // the KV precision took one Ctrl+Z back to the start (new user's report), the second merging
    // into the first. Through the key events, as a user presses them.
    void eachKeyStepIsOneUndoStep()
    {
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        w.show();
        QSlider *slider = w.inputPanel()->kvDtypeSlider();
        slider->setFocus();
        const int start = slider->value();
        const Qt::Key key = start + 2 <= slider->maximum() ? Qt::Key_Right : Qt::Key_Left;
        QTest::keyClick(slider, key);
        const int afterFirst = slider->value();
        QTest::keyClick(slider, key);
        const int afterSecond = slider->value();
        QVERIFY(afterFirst != start && afterSecond != afterFirst);
        w.planner()->undoStack()->undo();
        QCOMPARE(slider->value(), afterFirst);
        w.planner()->undoStack()->undo();
        QCOMPARE(slider->value(), start);
    }

    // A drag rewrites only the changed lines of the derivation in place and the answer's labels
    // keep their heights per width: after a drag the window must show what a window opened at the
    // drag's last value shows. 123,456 tokens = ceil(123,456 / 16) = 7,716 blocks of 16, all held.
    void aDragEndsOnTheFreshAnswer()
    {
        MainWindow dragged(m_dir.filePath(QStringLiteral("presets.sqlite")));
        dragged.show();
        InputPanel *in = dragged.inputPanel();
        for (qint64 tokens : {1000, 50000, 7777, 131072, 2048})
            in->contextSpin()->setValue(tokens);
        in->kvDtypeSlider()->setValue(int(Dtypes::offered().indexOf(Dtype::FP8)));
        in->contextSpin()->setValue(99999);
        in->kvDtypeSlider()->setValue(int(Dtypes::offered().indexOf(Dtype::BF16)));
        in->contextSpin()->setValue(123456);
        QCOMPARE(dragged.planner()->scenario().contextTokens, qint64(123456));

        // The derivation the model writes for the last value, line for line (as HTML shows a
        // line: runs of spaces folded, none at either end).
        const Planner *p = dragged.planner();
        QStringList expected = explainCapacity(p->scenario(), p->result(), p->units());
        for (QString &line : expected)
            line = line.replace(QRegularExpression(QStringLiteral("[ \\t\\r\\n]+")), QStringLiteral(" ")).trimmed();
        QCOMPARE(dragged.derivationText().split(QLatin1Char('\n')), expected);
        MainWindow fresh(m_dir.filePath(QStringLiteral("presets.sqlite")));
        fresh.show();
        fresh.inputPanel()->contextSpin()->setValue(123456);
        QCOMPARE(dragged.figuresText(), fresh.figuresText());
        QCOMPARE(dragged.sessionsText(), fresh.sessionsText());
        QVERIFY2(dragged.derivationText().contains(QStringLiteral("7,716 blocks of 16")), qPrintable(dragged.derivationText()));
        QVERIFY(!dragged.derivationText().contains(QStringLiteral("2,048")));
    }

    // The derivation as the window shows it (the browser itself: derivationText() writes a stale
    // one out first) follows a burst of changes once the burst pauses, and one hidden behind the
    // Sources tab as soon as it shows. 123,456 tokens = ceil(123,456 / 16) = 7,716 blocks of 16;
    // 65,536 tokens = 65,536 / 16 = 4,096 blocks.
    void theDerivationCatchesUpWithADrag()
    {
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        w.show();
        QTextBrowser *derivation = nullptr;
        for (QTextBrowser *b : w.findChildren<QTextBrowser *>())
            if (b->accessibleName() == QStringLiteral("Derivation"))
                derivation = b;
        QVERIFY(derivation);
        const auto expected = [&w] {
            const Planner *p = w.planner();
            QStringList lines = explainCapacity(p->scenario(), p->result(), p->units());
            for (QString &line : lines)
                line = line.replace(QRegularExpression(QStringLiteral("[ \\t\\r\\n]+")), QStringLiteral(" ")).trimmed();
            return lines.join(QLatin1Char('\n'));
        };
        InputPanel *in = w.inputPanel();
        for (qint64 tokens : {1000, 50000, 7777, 131072, 123456})
            in->contextSpin()->setValue(tokens);
        QTRY_COMPARE(derivation->toPlainText(), expected());
        QVERIFY(derivation->toPlainText().contains(QStringLiteral("7,716 blocks of 16")));

        auto *why = qobject_cast<QTabWidget *>(derivation->parentWidget()->parentWidget());
        QVERIFY(why);
        why->setCurrentIndex(1); // Sources
        QVERIFY(!derivation->isVisible());
        in->contextSpin()->setValue(65536);
        // Past the pause that writes a shown derivation out (a hidden one waits): the result is in
        // and no short single-shot timer of the window is still running.
        QTRY_VERIFY(!w.planner()->busy());
        // (One list, searched from its own begin to its own end: two calls made two lists.)
        const auto shortTimerRunning = [&w] {
            const QList<QTimer *> timers = w.findChildren<QTimer *>();
            return std::any_of(timers.cbegin(), timers.cend(), [](const QTimer *t) { return t->isSingleShot() && t->isActive() && t->interval() < 1000; });
        };
        QTRY_VERIFY(!shortTimerRunning());
        QVERIFY(!derivation->toPlainText().contains(QStringLiteral("4,096 blocks of 16")));
        why->setCurrentIndex(0);
        QCOMPARE(derivation->toPlainText(), expected());
        QVERIFY(derivation->toPlainText().contains(QStringLiteral("4,096 blocks of 16")));
    }

    void sidePoolsHaveTheirBands()
    {
        // The Side pools group on the opening example (Llama-3.1-8B, one session of 100,000
        // tokens). LoRA's defaults, 4 slots of rank 16 on all seven linear layers, bf16:
        // 81,920 (in + out) values per layer x 16 x 4 x 32 layers x 2 B = 335,544,320 B
        // (tests/model/tst_sidepools.cpp writes the 81,920 out).
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        w.show();
        SidePoolsPanel *pools = w.inputPanel()->sidePools();
        QVERIFY(!pools->loraCheck()->isChecked() && !pools->draftCheck()->isChecked()); // off by default
        QCOMPARE(w.chartView()->segments().lora, qint64(0));
        pools->loraCheck()->setChecked(true);
        QCOMPARE(w.planner()->scenario().lora.maxLoras, 4);
        QCOMPARE(w.chartView()->segments().lora, qint64(335'544'320));
        // The draft's default: 1 MTP layer of the target's shape, K = 4. Its KV: 8 x 128 x 2 x 2 B
        // = 4,096 B per token; every layer holds 100,000 + 4 lookahead = 6,251 blocks of 16.
        pools->draftCheck()->setChecked(true);
        QCOMPARE(w.planner()->scenario().speculative.draftLayers, 1);
        QCOMPARE(w.chartView()->segments().draftKv, qint64(100'016) * 4096);
        QCOMPARE(w.chartView()->segments().kvCache, qint64(100'016) * 131072);
        QVERIFY(w.chartView()->segments().draftWeights > 0);
        QVERIFY(w.derivationText().contains(QStringLiteral("LoRA slots: 4 slots × rank 16")));
        // Each pool is one undo step.
        w.planner()->undoStack()->undo();
        QCOMPARE(w.chartView()->segments().draftKv, qint64(0));
        QVERIFY(!pools->draftCheck()->isChecked());
        w.planner()->undoStack()->undo();
        QCOMPARE(w.chartView()->segments().lora, qint64(0));
        // A bad module list is refused in words, the plan unchanged.
        pools->loraCheck()->setChecked(true);
        pools->modulesEdit()->setText(QStringLiteral("q,lm_head"));
        emit pools->modulesEdit()->editingFinished();
        QCOMPARE(w.planner()->scenario().lora.effectiveModules(), LoraSlots::allModules());
    }

    void indexerHasItsOwnBand()
    {
        // DeepSeek-V3.2's shape (config.json: 61 MLA layers, kv_lora_rank 512, qk_rope_head_dim 64,
        // index_head_dim 128), 8 sessions of 32,768 tokens at fp8 on a 141 GB card, TP 8, weights
        // and workspace given. Per token: 61 x 656 B latent (vLLM fp8_ds_mla) + 61 x 132 B indexer
        // key (vLLM DeepseekV32IndexerCache): the bands split the KV 656 : 132.
        Scenario s;
        s.model.id = s.model.name = QStringLiteral("sparse-mla");
        s.model.attentionHeads = 128;
        LayerGroup g;
        g.kind = LayerKind::Mla;
        g.count = 61;
        g.latentDim = 512;
        g.ropeDim = 64;
        g.indexerHeadDim = 128;
        s.model.groups << g;
        s.gpuMemoryBytes = 141'000'000'000;
        s.weightsBytes = 680'000'000'000;
        s.workspaceBytes = 5'000'000'000;
        s.tp = 8;
        s.kvDtype = Dtype::FP8;
        s.contextTokens = 32768;
        s.sessions = 8;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        MemoryChartView chart;
        chart.resize(480, 360);
        chart.setResult(r, 8, UnitSystem::Decimal);
        QCOMPARE(chart.segments().kvCache, qint64(8) * 32768 * 61 * 656);
        QCOMPARE(chart.segments().indexer, qint64(8) * 32768 * 61 * 132);
        const QString shot = qEnvironmentVariable("HEADROOM_CHART_SHOT");
        if (!shot.isEmpty())
            QVERIFY(chart.grab().save(shot));
    }

    void mnemonicsReachTheControls()
    {
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        InputPanel *in = w.inputPanel();
        // Sessions and Context go to their boxes, where a number is typed; TP is Alt+P (Alt+T is the Tools menu).
        const struct { Qt::Key key; QWidget *target; } keys[] = {
            {Qt::Key_S, in->sessionsSpin()}, {Qt::Key_K, in->kvDtypeSlider()}, {Qt::Key_H, in->kvHeadsSlider()},
            {Qt::Key_P, in->tpSlider()},     {Qt::Key_M, in->modelCombo()},    {Qt::Key_C, in->contextSpin()},
        };
        for (const auto &k : keys) {
            QTest::keyClick(&w, k.key, Qt::AltModifier);
            QCOMPARE(QApplication::focusWidget(), k.target);
        }
        // The arrow keys then step the focused box: 1 -> 3 sessions.
        QTest::keyClick(&w, Qt::Key_S, Qt::AltModifier);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Up);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Up);
        QCOMPARE(w.planner()->scenario().sessions, qint64(3));
        // And the KV-precision slider moves with the arrows.
        QTest::keyClick(&w, Qt::Key_K, Qt::AltModifier);
        const int kv = in->kvDtypeSlider()->value();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Left);
        QCOMPARE(in->kvDtypeSlider()->value(), kv - 1);
    }

    void overflowIsShown()
    {
        // One session longer than a card holds: no fleet of such cards serves it, and the bar
        // runs past the card. 600,000 tokens x 131,072 B = 78.6 GB of KV on an 85.5 GB card.
        // (Sessions asked beyond one card instead size a fleet: aFleetIsDrawnOneCardAtATime.)
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        w.planner()->setContextTokens(600'000);
        QTRY_VERIFY(!w.planner()->busy());
        const MemoryChartView::Segments s = w.chartView()->segments();
        QVERIFY(s.overflow > 0);
        QCOMPARE(s.free, qint64(0));
        QCOMPARE(s.weights + s.workspace + s.kvCache + s.overflow, s.weights + s.workspace + qint64(600'000) * 131'072);
        QVERIFY(!w.planner()->result().fits);
    }

    void weightsBeyondTheCardAreClipped()
    {
        // Jamba-v0.1: 51,570,323,328 parameters x 2 B = 103.1 GB of weights on an 85.5 GB card
        // (nvidia-smi 81,559 MiB): the bar stops at the card and the rest is overflow.
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        InputPanel *in = w.inputPanel();
        in->modelCombo()->setCurrentIndex(in->modelCombo()->findData(QStringLiteral("jamba-v0.1")));
        const MemoryChartView::Segments s = w.chartView()->segments();
        const qint64 card = qint64(81559) * 1048576;
        QCOMPARE(s.weights, card);
        QCOMPARE(s.workspace + s.kvCache + s.free, qint64(0));
        const CapacityResult &r = w.planner()->result();
        QCOMPARE(s.overflow, r.weightsBytesPerGpu + r.workspaceBytesPerGpu + r.kvBytesForSessionsPerGpu - card);
    }

    void importsAConfigJson()
    {
        // The Llama-2-7b fixture (tests/data/llama-2-7b/config.json): MHA, 524,288 B per token.
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        QVERIFY(w.openModelFile(QStringLiteral(HEADROOM_TEST_DATA "/llama-2-7b/config.json")));
        QCOMPARE(w.planner()->result().kvBytesPerToken, qint64(524288));
        QString error;
        QVERIFY(!w.openModelFile(QStringLiteral(HEADROOM_TEST_DATA "/no-such/config.json"), &error));
        QVERIFY2(error.contains(QStringLiteral("does not exist")), qPrintable(error));
    }

    void calibratesFromAPastedLog()
    {
        // E07's SGLang figures (tests/data/logs/sglang-qwq-32b-tp4.log) calibrate the scenario.
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        QFile f(QStringLiteral(HEADROOM_TEST_DATA "/logs/sglang-qwq-32b-tp4.log"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        CalibrationDialog dialog(w.planner(), {}, &w);
        QVERIFY2(dialog.readLog(QString::fromUtf8(f.readAll())), qPrintable(dialog.status()));
        // The pool's size ("K size: 1.42 GB, V size: 1.42 GB") and its token count.
        QCOMPARE(dialog.table()->rowCount(), 2);
        QCOMPARE(dialog.table()->item(0, 1)->text(), QStringLiteral("2.84 GiB"));
        QCOMPARE(dialog.table()->item(1, 1)->text(), QStringLiteral("46,611 tokens"));
        dialog.applyReading();
        QCOMPARE(w.planner()->scenario().engine, Engine::Sglang);
        QCOMPARE(w.planner()->scenario().tp, 4);
        w.planner()->undoStack()->undo();
        QCOMPARE(w.planner()->scenario().engine, Engine::Plain);
        QVERIFY(!dialog.readLog(QStringLiteral("not a log")));
        // An empty paste is refused as such (logcalibration.cpp), the field named as the dialog names it.
        QVERIFY(!dialog.readLog(QStringLiteral("\n")));
        QVERIFY2(dialog.status().contains(QStringLiteral("log: the log is empty: paste the engine")), qPrintable(dialog.status()));
    }

    void calibratesFromAPastedBenchmark()
    {
        // sgl-project/sglang#8552 (tests/data/benchmarks/): its times fit the window's card.
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        QFile f(QStringLiteral(HEADROOM_TEST_DATA "/benchmarks/sglang-bench-serving-concurrency1.txt"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        CalibrationDialog dialog(w.planner(), {}, &w);
        const std::optional<double> before = w.planner()->scenario().bandwidthEfficiency;
        QVERIFY2(dialog.readLog(QString::fromUtf8(f.readAll())), qPrintable(dialog.status()));
        QCOMPARE(dialog.table()->columnCount(), 5);
        QCOMPARE(dialog.table()->rowCount(), 4);
        QCOMPARE(dialog.table()->item(0, 0)->text(), QStringLiteral("Median ITL (ms)"));
        QCOMPARE(dialog.table()->item(0, 1)->text(), QStringLiteral("8.47 ms"));
        QCOMPARE(dialog.table()->item(0, 3)->text(), QStringLiteral("8.47 ms"));
        QVERIFY2(dialog.status().contains(QStringLiteral("Bandwidth efficiency")), qPrintable(dialog.status()));
        dialog.applyReading();
        const std::optional<double> after = w.planner()->scenario().bandwidthEfficiency;
        QVERIFY(after && after != before && *after > 0 && *after <= 1);
        QCOMPARE(w.planner()->undoStack()->undoText(), QStringLiteral("Calibrate from benchmark"));
        w.planner()->undoStack()->undo();
        QCOMPARE(w.planner()->scenario().bandwidthEfficiency, before);
        // A result line holding no number is refused naming its line.
        QVERIFY(!dialog.readLog(QStringLiteral("============ Serving Benchmark Result ============\nSuccessful requests: many\n")));
        QVERIFY2(dialog.status().contains(QStringLiteral("line 2")), qPrintable(dialog.status()));
    }

    void distributionFromATrace()
    {
        // The Azure conversation trace (shared/traces): the risk figures arrive off the GUI thread.
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        QString error;
        QVERIFY(!w.distributionView()->importTrace(QStringLiteral(HEADROOM_TEST_DATA "/traces/non-numeric.csv"), &error));
        QVERIFY2(error.contains(QStringLiteral("line 4")), qPrintable(error));
        QVERIFY(!w.planner()->scenario().distribution); // the previous distribution stays
        QVERIFY(w.distributionView()->importTrace(QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-conv.csv"), &error));
        QTRY_VERIFY(!w.planner()->busy());
        const DistributionFigures &d = w.planner()->result().distribution;
        // Worst case: the longest request, 14,089 tokens -> 881 blocks x 2 MiB per session.
        const qint64 budget = w.planner()->result().kvBudgetBytesPerGpu;
        QCOMPARE(d.sessionsWorstCase, budget / (qint64(881) * 16 * 131072));
        QVERIFY(d.sessionsWorstCase < d.sessionsAtRisk && d.sessionsAtRisk < d.sessionsAtMean);
        QVERIFY(w.sessionsText().contains(QStringLiteral("risk")));
        QCOMPARE(w.distributionView()->sourceCombo()->currentIndex(), 1); // "Trace (CSV)"
        w.planner()->undoStack()->undo();
        QCOMPARE(w.distributionView()->sourceCombo()->currentIndex(), 0); // back to the context
        w.planner()->undoStack()->redo();
        QCOMPARE(w.distributionView()->sourceCombo()->currentIndex(), 1);
        QTRY_VERIFY(!w.planner()->busy());
        QVERIFY(w.distributionView()->figuresText().contains(QStringLiteral("Sessions at 1 in 100 (1e-2) risk")));
    }

    void draggingAQuantileIsOneUndoStep()
    {
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        DistributionView *v = w.distributionView();
        v->sourceCombo()->setCurrentIndex(3); // quantile table
        QTRY_VERIFY(!w.planner()->busy());
        // One handle per quantile the table offers to drag (p50, p90, p99, p99.9; max is the
        // cut-off, not a handle), each at the length its box shows and its share up the y axis.
        const QVector<QPointF> table{{double(v->quantileSpin(0)->value()), 0.5},
                                     {double(v->quantileSpin(1)->value()), 0.9},
                                     {double(v->quantileSpin(2)->value()), 0.99},
                                     {double(v->quantileSpin(3)->value()), 0.999}};
        QVERIFY(table[0].x() > 0 && table[0].x() < table[1].x() && table[1].x() < table[2].x() && table[2].x() < table[3].x());
        QCOMPARE(v->chartView()->handlePoints(), table);
        const int steps = w.planner()->undoStack()->count();
        for (qint64 tokens : {2500, 3000, 3500, 4000})
            Q_EMIT v->chartView()->handleDragged(0, tokens, false);
        Q_EMIT v->chartView()->handleDragged(0, 4000, true);
        QTRY_VERIFY(!w.planner()->busy());
        QCOMPARE(v->quantileSpin(0)->value(), qint64(4000));
        // The median of the (4,096-point) discretised table is the dragged 4,000 tokens to 1%.
        QVERIFY(std::abs(double(w.planner()->scenario().distribution->quantile(0.5)) / 4000.0 - 1) < 0.01);
        QCOMPARE(w.planner()->undoStack()->count(), steps + 1);
    }

    void saveOpenAndAutosave()
    {
        QTemporaryDir dir;
        const QString store = dir.filePath(QStringLiteral("presets.sqlite"));
        const QString file = dir.filePath(QStringLiteral("plan.headroom"));
        {
            MainWindow w(store);
            w.planner()->setSessions(3);
            QVERIFY(w.isWindowModified());
            w.autosave(); // what the 30-second timer does with unsaved changes
            QVERIFY(QFileInfo::exists(w.autosavePath()));
            QString error;
            QVERIFY2(w.saveScenario(file, &error), qPrintable(error));
            QVERIFY(!w.isWindowModified());
            QVERIFY(!QFileInfo::exists(w.autosavePath())); // saved: nothing to recover
        }
        MainWindow w(store);
        QString error;
        QVERIFY2(w.openScenario(file, &error), qPrintable(error));
        QCOMPARE(w.planner()->scenario().sessions, qint64(3));
        QCOMPARE(w.chartView()->segments().kvCache, qint64(3) * 13'107'200'000);
        QCOMPARE(w.scenarioPath(), file);
        // A damaged file is refused and the open scenario stays.
        QFile damaged(dir.filePath(QStringLiteral("damaged.headroom")));
        QVERIFY(damaged.open(QIODevice::WriteOnly));
        damaged.write("{ \"format\": \"headroom-scenario\", ");
        damaged.close();
        QVERIFY(!w.openScenario(damaged.fileName(), &error));
        QVERIFY2(error.contains(QStringLiteral("damaged")), qPrintable(error));
        QCOMPARE(w.planner()->scenario().sessions, qint64(3));
    }

    // SIGTERM and SIGINT (main.cpp) end the window without the unsaved-changes question (README:
    // "kill PID ... closes the window as Quit does, without the question"): a trial's kill left
    // the question open and the process alive. The changes stay in the autosave.
    void endingOnASignalAsksNothing()
    {
        QTemporaryDir dir;
        MainWindow w(dir.filePath(QStringLiteral("presets.sqlite")));
        w.show();
        QTest::qWait(100); // the start-up's queued work (the recovery offer) runs first
        w.planner()->setSessions(7);
        QVERIFY(w.isWindowModified());
        QString asked;
        // As main.cpp runs it: inside the application's event loop (Qt's quit() acts only there,
        // closing every window first). A question would block: note it and answer it (Cancel),
        // and end the loop with 2 if it still runs after 3 s.
        QTimer::singleShot(0, &w, [&w] { w.endWithoutQuestion(); });
        QTimer::singleShot(300, &w, [&asked] {
            if (QWidget *modal = QApplication::activeModalWidget()) {
                asked = modal->windowTitle();
                modal->close();
            }
        });
        QTimer::singleShot(3000, &w, [] { QCoreApplication::exit(2); });
        QCOMPARE(QCoreApplication::exec(), 0);
        QVERIFY2(asked.isEmpty(), qPrintable(asked));
        QVERIFY(QFileInfo::exists(w.autosavePath()));
    }

    // Sessions asked beyond one card at one fixed length size a fleet: the chart draws one card of
    // it, its replica's share, not every session on one card "over capacity" beside "deploy the
    // fleet" (a trial's reading). Llama-3.1-8B on an H100 at 100,000 tokens: 13,107,200,000 B a
    // session, 4 fit a card; 10 asked need ceil(10 / 4) = 3 cards, ceil(10 / 3) = 4 sessions each.
    void aFleetIsDrawnOneCardAtATime()
    {
        QTemporaryDir dir;
        MainWindow w(dir.filePath(QStringLiteral("presets.sqlite")));
        w.planner()->setSessions(10);
        QTRY_VERIFY(!w.planner()->busy());
        QCOMPARE(w.planner()->result().distribution.fleetGpus.value_or(0), qint64(3));
        QCOMPARE(w.chartView()->segments().overflow, qint64(0));
        QCOMPARE(w.chartView()->segments().kvCache, qint64(4) * 13'107'200'000);
        QVERIFY2(w.planner()->result().distribution.fleetTargetFromSessions, "the case needs the fleet from the sessions asked");
        QVERIFY2(capacityVerdict(w.planner()->scenario(), w.planner()->result(), UnitSystem::Decimal).startsWith(QStringLiteral("10 sessions asked need 3 GPUs")),
                 qPrintable(capacityVerdict(w.planner()->scenario(), w.planner()->result(), UnitSystem::Decimal)));
    }

    // A box's note is said in the status bar as well as in its tooltip: a keyboard user never
    // hovers (a trial found a refusal's reason only on mouse-over, and the "128K" reading gone).
    void boxNotesReachTheStatusBar()
    {
        QTemporaryDir dir;
        MainWindow w(dir.filePath(QStringLiteral("presets.sqlite")));
        TokenSpinBox *context = w.inputPanel()->contextSpin();
        context->findChild<QLineEdit *>()->setText(QStringLiteral("128K"));
        Q_EMIT context->editingFinished();
        QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("128K read as 128,000")), qPrintable(w.statusBar()->currentMessage()));
        context->findChild<QLineEdit *>()->setText(QStringLiteral("lots"));
        Q_EMIT context->editingFinished();
        QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("lots")), qPrintable(w.statusBar()->currentMessage()));
    }

    void compareAndExport()
    {
        QTemporaryDir dir;
        MainWindow w(dir.filePath(QStringLiteral("presets.sqlite")));
        // Pin bf16, switch the cache to fp8: one action and one change.
        QVERIFY(w.planner()->pinCurrent());
        w.inputPanel()->kvDtypeSlider()->setValue(int(Dtypes::offered().indexOf(Dtype::FP8)));
        CompareView *compare = w.findChild<CompareView *>();
        QVERIFY(compare);
        QTableWidget *t = compare->table();
        QCOMPARE(t->columnCount(), 2);
        int bytesRow = -1;
        for (int r = 0; r < t->rowCount(); ++r)
            if (t->verticalHeaderItem(r)->text() == QLatin1String("KV bytes per token"))
                bytesRow = r;
        QVERIFY(bytesRow >= 0);
        // 131,072 B at bf16, 65,536 B with the 8-bit cache (seed-figures.md B), the change highlighted.
        QCOMPARE(t->item(bytesRow, 0)->text(), QStringLiteral("131,072 B"));
        QCOMPARE(t->item(bytesRow, 1)->text(), QStringLiteral("65,536 B"));
        QVERIFY(t->item(bytesRow, 1)->font().bold());
        QVERIFY(!t->item(0, 1)->font().bold()); // same model: not highlighted

        QString error;
        const QString pdf = dir.filePath(QStringLiteral("r.pdf"));
        QVERIFY2(w.exportReport(pdf, QPageSize::A4, &error), qPrintable(error));
        // The report holds both pinned scenarios' figures: 131,072 B and 65,536 B per token.
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QFAIL("pdftotext (poppler-utils) is needed to read the report back: ./dev test installs it");
        QProcess pdftotext;
        pdftotext.start(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
        QVERIFY(pdftotext.waitForFinished(60000) && pdftotext.exitCode() == 0);
        const QString reportText = QString::fromUtf8(pdftotext.readAllStandardOutput());
        QVERIFY2(reportText.contains(QStringLiteral("Comparison")) && reportText.contains(QStringLiteral("131,072 B"))
                     && reportText.contains(QStringLiteral("65,536 B")),
                 qPrintable(reportText.left(2000)));
        const QString svg = dir.filePath(QStringLiteral("chart.svg"));
        QVERIFY2(w.exportChart(svg, &error), qPrintable(error));
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        QVERIFY(svgFile.readAll().contains("<svg"));
        const QString csv = dir.filePath(QStringLiteral("figures.csv"));
        QVERIFY2(w.exportFiguresCsv(csv, &error), qPrintable(error));
        QFile csvFile(csv);
        QVERIFY(csvFile.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csvFile.readAll().split('\n');
        QVERIFY(lines.at(0).startsWith("scenario,kv_bytes_per_token,"));
        QVERIFY(lines.at(1).startsWith("\"A\",131072,"));
        QVERIFY(lines.at(2).startsWith("\"Current\",65536,"));
    }

    void exportsNeverDestroyData()
    {
        // The window's writers follow the command line's rule (core/outputtarget.h): a file
        // is replaced only by its own kind, never the preset store or the open scenario.
        QTemporaryDir dir;
        const QString store = dir.filePath(QStringLiteral("presets.sqlite"));
        MainWindow w(store);
        QString error;
        const QString scenario = dir.filePath(QStringLiteral("s.headroom")), notes = dir.filePath(QStringLiteral("notes.txt"));
        QVERIFY2(w.saveScenario(scenario, &error), qPrintable(error));
        QFile n(notes);
        QVERIFY(n.open(QIODevice::WriteOnly) && n.write("a year of notes\n") > 0);
        n.close();
        auto bytes = [](const QString &f) {
            QFile file(f);
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        };
        const QByteArray before[] = {bytes(store), bytes(scenario), bytes(notes)};
        QVERIFY(!before[0].isEmpty());
        const std::function<bool(const QString &)> writers[] = {
            [&](const QString &path) { return w.exportReport(path, QPageSize::A4, &error); },
            [&](const QString &path) { return w.exportChart(path, &error); },
            [&](const QString &path) { return w.exportFiguresCsv(path, &error); },
            [&](const QString &path) { return w.saveScenario(path, &error); },
        };
        for (const auto &write : writers)
            for (const QString &target : {store, notes}) {
                error.clear();
                QVERIFY2(!write(target), qPrintable(target));
                QVERIFY2(error.contains(QStringLiteral("left untouched")), qPrintable(error));
            }
        for (int i = 0; i < 3; ++i) { // the report, chart and figures over the open scenario
            error.clear();
            QVERIFY(!writers[i](scenario));
            QVERIFY2(error.contains(QStringLiteral("left untouched")), qPrintable(error));
        }
        const QByteArray after[] = {bytes(store), bytes(scenario), bytes(notes)};
        for (int i = 0; i < 3; ++i)
            QCOMPARE(after[i], before[i]);
        // Their own kind is replaced: twice each.
        for (const QString &name : {QStringLiteral("r.pdf"), QStringLiteral("c.svg"), QStringLiteral("c.png"), QStringLiteral("f.csv")})
            for (int twice = 0; twice < 2; ++twice) {
                const QString path = dir.filePath(name);
                const bool ok = name.endsWith(QLatin1String(".pdf")) ? w.exportReport(path, QPageSize::A4, &error)
                                : name.endsWith(QLatin1String(".csv")) ? w.exportFiguresCsv(path, &error)
                                                                       : w.exportChart(path, &error);
                QVERIFY2(ok, qPrintable(error));
            }
        QCOMPARE(bytes(dir.filePath(QStringLiteral("c.png"))).left(4), QByteArray("\x89PNG"));
    }

    void leversTab()
    {
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        w.show();
        LeversView *levers = w.leversView();
        for (auto *tabs : w.findChildren<QTabWidget *>())
            if (tabs->indexOf(levers) >= 0)
                tabs->setCurrentWidget(levers);
        QTRY_VERIFY(levers->table()->rowCount() > 5); // priced off the GUI thread
        QVERIFY2(levers->answer().startsWith(QStringLiteral("The cheapest here is")), qPrintable(levers->answer()));
        // Llama-3.1-8B on the H100: 12 sessions of 100,000 tokens cannot fit (4 do).
        QVERIFY(levers->diagnose(12, 100000).startsWith(QStringLiteral("KV exhaustion explains it")));
        // Under vLLM (0.11: --kv-cache-dtype has no int4, vllm/config/cache.py) the int4 row is
        // greyed and its tooltip says why; it is not the cheapest (issue 30 item 5).
        w.planner()->setEngine(Engine::Vllm);
        auto int4Row = [&] {
            for (int row = 0; row < levers->table()->rowCount(); ++row)
                if (levers->table()->item(row, 0) && levers->table()->item(row, 0)->text().startsWith(QStringLiteral("KV cache int4")))
                    return levers->table()->item(row, 0);
            return static_cast<QTableWidgetItem *>(nullptr);
        };
        QTRY_VERIFY(int4Row() && int4Row()->toolTip().startsWith(QStringLiteral("Not runnable")));
        QVERIFY2(int4Row()->toolTip().contains(QStringLiteral("vLLM 0.11 has no KV cache in int4")), qPrintable(int4Row()->toolTip()));
        QCOMPARE(int4Row()->foreground().color(), levers->palette().color(QPalette::Disabled, QPalette::Text));
        QVERIFY2(!levers->answer().contains(QStringLiteral("int4")), qPrintable(levers->answer()));
    }

    void kvHeadsWhatIfAndReset()
    {
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        InputPanel *in = w.inputPanel();
        // Heads 32 -> choices 1, 2, 4, 8, 16, 32; index 2 = 4 KV heads: half of 131,072 B.
        in->kvHeadsSlider()->setValue(2);
        QCOMPARE(w.planner()->result().kvBytesPerToken, qint64(65536));
        w.planner()->setKvHeadsOverride(std::nullopt);
        QCOMPARE(w.planner()->result().kvBytesPerToken, qint64(131072));
    }
    void opensTheScenarioGivenOnTheCommandLine()
    {
        // main.cpp: `headroom plan.headroom` opens that scenario in the window (MainWindow::openScenario),
        // which makes it a recent file and the scenario reopened at the next start (README: "The
        // scenario open when Headroom closed is reopened at the next start"). Run as a user does,
        // from the file's folder with a relative name: the settings must hold a path that still
        // names the file from another folder. The window runs until it is killed here.
        QTemporaryDir dir;
        const QString home = dir.path();
        const HeadroomTest::CliRun saved = HeadroomTest::runHeadroom(
            {QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"), QStringLiteral("h100-sxm-80gb"),
             QStringLiteral("--context"), QStringLiteral("50000"), QStringLiteral("--save"), QStringLiteral("plan.headroom")},
            home, home);
        QCOMPARE(saved.code, 0);
        const QString file = QDir(home).absoluteFilePath(QStringLiteral("plan.headroom"));
        QVERIFY(QFileInfo::exists(file));
        QProcess gui;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), home);
        env.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/data"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        gui.setProcessEnvironment(env);
        gui.setWorkingDirectory(home);
        gui.start(QStringLiteral(HEADROOM_BINARY), {QStringLiteral("plan.headroom")});
        QVERIFY(gui.waitForStarted());
        // QSettings' native format on Linux: $XDG_CONFIG_HOME/<organization>/<application>.conf (main.cpp: Headroom, headroom).
        const QString conf = home + QStringLiteral("/config/Headroom/headroom.conf");
        auto recent = [&] { return QSettings(conf, QSettings::IniFormat).value(QStringLiteral("recentFiles")).toStringList(); };
        QTRY_VERIFY_WITH_TIMEOUT(!recent().isEmpty() || gui.state() == QProcess::NotRunning, 60000);
        // `kill PID` (SIGTERM, as `./dev run` says to stop it) ends it as a quit does: exit status 0,
        // not death by the signal (143 and the shell's "Terminated"), and the layout saved.
        QVERIFY(!QSettings(conf, QSettings::IniFormat).contains(QStringLiteral("window/geometry")));
        gui.terminate();
        QVERIFY(gui.waitForFinished(30000));
        QCOMPARE(gui.exitStatus(), QProcess::NormalExit);
        QCOMPARE(gui.exitCode(), 0);
        QVERIFY(QSettings(conf, QSettings::IniFormat).contains(QStringLiteral("window/geometry")));
        QCOMPARE(recent(), QStringList{file});
        QCOMPARE(QSettings(conf, QSettings::IniFormat).value(QStringLiteral("plan/lastScenario")).toString(), file);
    }

};

HEADROOM_TEST_MAIN(TestMainWindow, QApplication)
#include "tst_mainwindow.moc"
