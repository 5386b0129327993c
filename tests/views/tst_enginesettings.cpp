// SPDX-License-Identifier: GPL-3.0-or-later
// The engine settings in the window (issue 31 item 1): every setting the command line takes for
// the chosen engine is a field of the "Settings..." dialog beside the engine picker, each edit
// one undo step, defaults as placeholders, text the flag's rule refuses refused with the reason;
// the scenario file keeps them. Calibrate predicts at the settings the log prints and offers the
// others, and after Apply the chart draws the utilization's hold-back and the advice is redone.
#include "calibrationdialog.h"
#include "enginesettingsdialog.h"
#include "enginesettingsform.h"
#include "inputpanel.h"
#include "mainwindow.h"
#include "memorychartview.h"
#include "planner.h"

#include "core/units.h"
#include "engines/enginerule.h"
#include "io/configimporter.h"
#include "io/logcalibration.h"
#include "io/scenariofile.h"

#include <QFile>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <cmath>
#include <functional>
#include "common/clirun.h"

using namespace Headroom;

namespace {
QString readLog(const QString &name)
{
    QFile f(QStringLiteral(HEADROOM_TEST_DATA "/logs/") + name);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

// One setting typed as a person would, and what the scenario must then hold (the flag's own
// reading: k = 1,000; GiB = 2^30 B), independent of how the window formats it back.
struct Typed
{
    const char *flag;
    const char *text;
    std::function<bool(const Scenario &)> holds;
};

const qint64 GiB = qint64(1) << 30;

QVector<Typed> typedSettings()
{
    return {
        {"--gpu-memory-utilization", "0.5", [](const Scenario &s) { return s.gpuMemoryUtilization == 0.5 && s.gpuMemoryUtilizationGiven; }},
        {"--mem-fraction-static", "0.8", [](const Scenario &s) { return s.engineSettings.memFractionStatic == 0.8; }},
        {"--free-gpu-memory-fraction", "0.45", [](const Scenario &s) { return s.engineSettings.freeGpuMemoryFraction == 0.45; }},
        {"--max-model-len", "8k", [](const Scenario &s) { return s.maxModelLen == 8000; }},
        {"--max-num-seqs", "64", [](const Scenario &s) { return s.engineSettings.maxNumSeqs == 64; }},
        {"--max-num-batched-tokens", "2048", [](const Scenario &s) { return s.engineSettings.maxNumBatchedTokens == 2048; }},
        {"--block-size", "32", [](const Scenario &s) { return s.blockSize == 32; }},
        {"--kv-cache-memory", "10 GiB", [](const Scenario &s) { return s.engineSettings.kvCacheMemory == 10 * GiB; }},
        {"--activation-peak", "2 GiB", [](const Scenario &s) { return s.engineSettings.activationPeak == 2 * GiB; }},
        {"--non-torch", "512 MiB", [](const Scenario &s) { return s.engineSettings.nonTorch == GiB / 2; }},
        {"--cuda-graph", "0 GiB", [](const Scenario &s) { return s.engineSettings.cudaGraph == qint64(0); }},
        {"--free-memory-before", "20 GiB", [](const Scenario &s) { return s.engineSettings.freeMemoryBefore == 20 * GiB; }},
        {"--free-memory-after", "6 GiB", [](const Scenario &s) { return s.engineSettings.freeMemoryAfter == 6 * GiB; }},
        {"--tokens-per-block", "64", [](const Scenario &s) { return s.engineSettings.trtTokensPerBlock == 64; }},
        {"--max-batch-size", "64", [](const Scenario &s) { return s.engineSettings.trtMaxBatchSize == 64; }},
        {"--max-num-tokens", "4096", [](const Scenario &s) { return s.engineSettings.trtMaxNumTokens == 4096; }},
        {"--max-seq-len", "4096", [](const Scenario &s) { return s.engineSettings.trtMaxSeqLen == 4096; }},
        {"--scheduler-policy", "MAX_UTILIZATION", [](const Scenario &s) { return s.engineSettings.schedulerPolicy == SchedulerPolicy::MaxUtilization; }},
        {"--max-output-tokens", "2k", [](const Scenario &s) { return s.engineSettings.maxOutputTokens == 2000; }},
        {"--n-ctx", "32768", [](const Scenario &s) { return s.engineSettings.nCtx == 32768; }},
        {"--n-seq", "4", [](const Scenario &s) { return s.engineSettings.nSeq == 4; }},
        {"--n-batch", "256", [](const Scenario &s) { return s.engineSettings.nBatch == 256; }},
        {"--engine-version", "0.4", [](const Scenario &s) {
             return s.engine == Engine::Vllm ? s.engineSettings.vllmMajor == 0 && s.engineSettings.vllmMinor == 4
                                             : s.engineSettings.engineVersion == EngineVersion{0, 4, 0};
         }},
    };
}

// Types `text` into `field` and leaves it, as a person does (Enter).
void type(QLineEdit *field, const QString &text)
{
    field->setFocus();
    field->selectAll();
    field->setText(text);
    QTest::keyClick(field, Qt::Key_Return);
}
} // namespace

class TestEngineSettings : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    EngineSettingsDialog *openSettings(MainWindow &w)
    {
        w.inputPanel()->engineSettingsButton()->click();
        return w.inputPanel()->engineSettings();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void eachEngineSettingIsEditableAndUndone_data()
    {
        QTest::addColumn<int>("engine");
        for (Engine e : Engines::all())
            QTest::newRow(qPrintable(Engines::name(e))) << int(e);
    }

    void eachEngineSettingIsEditableAndUndone()
    {
        QFETCH(int, engine);
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        Planner *p = w.planner();
        p->setEngine(Engine(engine));
        EngineSettingsDialog *d = openSettings(w);
        QVERIFY(d && d->isVisible());
        // Every setting the command line refuses for another engine and takes for this one has a field here.
        for (int i = 0; i < inputCount; ++i) {
            const Input input = Input(i);
            const QList<Engine> readers = Engines::readers(input);
            if (readers.contains(Engine(engine)))
                QVERIFY2(d->form()->field(InputRanges::name(input, InputSource::Flag)),
                         qPrintable(InputRanges::name(input, InputSource::Flag)));
            else if (!readers.isEmpty())
                QVERIFY2(!d->form()->field(InputRanges::name(input, InputSource::Flag)),
                         qPrintable(InputRanges::name(input, InputSource::Flag)));
        }
        int edited = 0;
        for (const Typed &t : typedSettings()) {
            QLineEdit *field = d->form()->field(QString::fromLatin1(t.flag));
            if (!field)
                continue;
            const Scenario before = p->scenario();
            const int steps = p->undoStack()->count();
            QVERIFY2(field->text().isEmpty(), t.flag);               // at its default: nothing typed
            QVERIFY2(!field->placeholderText().isEmpty(), t.flag); // the default is shown
            type(field, QString::fromLatin1(t.text));
            QVERIFY2(t.holds(p->scenario()), t.flag);
            QCOMPARE(p->undoStack()->count(), steps + 1);
            QCOMPARE(p->undoStack()->undoText(), QStringLiteral("Change %1").arg(QString::fromLatin1(t.flag)));
            // The field shows the value in force; undo restores the scenario and the field.
            p->undoStack()->undo();
            QVERIFY2(p->scenario() == before, t.flag);
            QVERIFY2(d->form()->field(QString::fromLatin1(t.flag))->text().isEmpty(), t.flag);
            p->undoStack()->redo();
            ++edited;
        }
        QVERIFY(edited >= 2);
        // The scenario file keeps every one of them.
        const Scenario s = p->scenario();
        QString name;
        const Scenario back = ScenarioFile::fromJson(ScenarioFile::toJson(s, QStringLiteral("engine settings")), &name);
        QVERIFY(back == s);
        for (const Typed &t : typedSettings())
            if (d->form()->field(QString::fromLatin1(t.flag)))
                QVERIFY2(t.holds(back), t.flag);
    }

    void refusesTextWithTheReason()
    {
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        Planner *p = w.planner();
        p->setEngine(Engine::Vllm);
        EngineSettingsDialog *d = openSettings(w);
        QLineEdit *util = d->form()->field(QStringLiteral("--gpu-memory-utilization"));
        QVERIFY(util);
        // vLLM's default, 0.9 (vllm/config CacheConfig), is the placeholder.
        QCOMPARE(util->placeholderText(), QStringLiteral("0.9"));
        // Llama-3.1-8B's max_position_embeddings (presets/models/llama-3.1-8b.json) is max_model_len's default.
        QVERIFY(d->form()->field(QStringLiteral("--max-model-len"))->placeholderText().contains(QStringLiteral("131,072")));
        const Scenario before = p->scenario();
        const int steps = p->undoStack()->count();
        type(util, QStringLiteral("1.5"));
        // The flag's one range rule (core/inputranges.cpp: 1e-6 to 1) names the flag.
        QVERIFY2(d->form()->problem(QStringLiteral("--gpu-memory-utilization")).contains(QStringLiteral("--gpu-memory-utilization: must be a number from 1e-06 to 1")),
                 qPrintable(d->form()->problem(QStringLiteral("--gpu-memory-utilization"))));
        QCOMPARE(util->text(), QStringLiteral("1.5")); // kept to correct, not replaced
        QVERIFY(p->scenario() == before);
        QCOMPARE(p->undoStack()->count(), steps);
        QLineEdit *seqs = d->form()->field(QStringLiteral("--max-num-seqs"));
        type(seqs, QStringLiteral("many"));
        QVERIFY(!d->form()->problem(QStringLiteral("--max-num-seqs")).isEmpty());
        QVERIFY(p->scenario() == before);
        // Corrected, it reads; emptied, it is the default again (one more step).
        type(util, QStringLiteral("0.5"));
        QVERIFY(d->form()->problem(QStringLiteral("--gpu-memory-utilization")).isEmpty());
        QCOMPARE(p->scenario().gpuMemoryUtilization, 0.5);
        type(util, QString());
        QCOMPARE(p->scenario().gpuMemoryUtilization, 0.9);
        QVERIFY(!p->scenario().gpuMemoryUtilizationGiven);
        QCOMPARE(p->undoStack()->count(), steps + 2);
        // Enter on refused text leaves the dialog open with the reason shown whole: the dialog is
        // at least as large as its layout needs, so neither the field nor the reason is cut.
        type(util, QStringLiteral("2"));
        QCoreApplication::processEvents();
        QVERIFY(d->isVisible());
        QVERIFY(!d->form()->problem(QStringLiteral("--gpu-memory-utilization")).isEmpty());
        QVERIFY(d->height() >= d->minimumSizeHint().height());
        QVERIFY(util->height() >= util->minimumSizeHint().height());
        type(util, QStringLiteral("0.5"));
        // Ctrl+Z (and the platform's redo keys) in the dialog undo the plan, as in the main window (the field was reset to the
        // value in force, so it has no typed text of its own to undo).
        QCOMPARE(p->scenario().gpuMemoryUtilization, 0.5);
        d->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(d));
        util->setFocus();
        QTest::keySequence(util, QKeySequence(QKeySequence::Undo));
        QCOMPARE(p->scenario().gpuMemoryUtilization, 0.9);
        QTest::keySequence(util, QKeySequence(QKeySequence::Redo));
        QCOMPARE(p->scenario().gpuMemoryUtilization, 0.5);
        type(util, QString());
        // Another engine: its own settings, not vLLM's.
        p->setEngine(Engine::Sglang);
        QVERIFY(!d->form()->field(QStringLiteral("--gpu-memory-utilization")));
        QVERIFY(d->form()->field(QStringLiteral("--mem-fraction-static")));
    }

    void calibratesAtTheLogsUtilization()
    {
        // vLLM 0.7.2 on a Tesla T4 at gpu_memory_utilization 0.50 (tests/data/logs/SOURCE.md): the log
        // prints 14.56 GiB x 0.50 = 7.28 GiB, weights 2.89, non-torch 0.01, activation peak 2.02 and
        // 2.36 GiB for the KV cache, 5519 blocks of 16 tokens = 88,304 tokens.
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        Planner *p = w.planner();
        Scenario start = p->scenario();
        start.model = ConfigImporter::fromFile(QStringLiteral(HEADROOM_TEST_DATA "/qwen2.5-1.5b-instruct/config.json"), QStringLiteral("config"));
        start.gpu = GpuSpec::custom(qint64(std::llround(14.56 * double(GiB))));
        start.contextTokens = 32768;
        p->reset(start);
        QCOMPARE(p->scenario().gpuMemoryUtilization, 0.9);

        const QString log = readLog(QStringLiteral("vllm-0.7.2-qwen2.5-1.5b-t4-util0.5.log"));
        CalibrationDialog dialog(p, {}, &w);
        QVERIFY2(dialog.readLog(log), qPrintable(dialog.status()));
        // The printed utilization is the one the prediction is at, read-only in the dialog.
        QLineEdit *util = dialog.settings()->field(QStringLiteral("--gpu-memory-utilization"));
        QVERIFY(util);
        QCOMPARE(util->text(), QStringLiteral("0.5"));
        QVERIFY(util->isReadOnly());
        QVERIFY(!dialog.settings()->field(QStringLiteral("--max-num-seqs"))->isReadOnly());
        QCOMPARE(dialog.table()->item(1, 1)->text(), QStringLiteral("5,519 blocks"));

        // From the log's measured terms the pool holds the printed tokens within vLLM's band before
        // hardware (within 1.5% of the card), each token 28 layers x 2 KV
        // heads x 128 x 2 (K, V) x 2 B = 28,672 B. At 0.9 it would hold 0.4 x 14.56 GiB more.
        const LogReading reading = LogCalibration::read(log, QStringLiteral("log"));
        const QVector<CalibrationRow> rows = LogCalibration::compare(reading, p->scenario());
        const qint64 printedTokens = 5519 * 16, perToken = 28 * 2 * 128 * 2 * 2;
        const double band = 0.015 * 14.56 * double(GiB) / double(perToken);
        bool checked = false;
        for (const CalibrationRow &row : rows)
            if (row.figure == QLatin1String("KV cache memory per GPU")) { // GiB, from the measured terms at the log's settings
                const double tokens = std::floor(row.measured * double(GiB) / double(16 * perToken)) * 16;
                QVERIFY2(std::abs(tokens - double(printedTokens)) <= band, qPrintable(QString::number(tokens)));
                checked = true;
            }
        QVERIFY(checked);

        // Apply: the scenario is at 0.5 and the chart draws the 0.5 held back as its own band,
        // the workspace as the measured activation peak + non-torch (2.02 + 0.01 GiB).
        dialog.applyReading();
        QCOMPARE(p->scenario().gpuMemoryUtilization, 0.5);
        const CapacityResult &r = p->result();
        QVERIFY(r.ok);
        const MemoryChartView::Segments seg = w.chartView()->segments();
        QCOMPARE(seg.heldBack, r.gpuMemoryBytes - qint64(std::floor(double(r.gpuMemoryBytes) * 0.5)));
        QVERIFY2(std::abs(double(seg.workspace) - 2.03 * double(GiB)) < 0.02 * double(GiB), qPrintable(QString::number(seg.workspace)));
    }

    void readsTheUtilizationOfvLLM021AndLater()
    {
        // vLLM 0.22 prints the setting only as "The current --gpu-memory-utilization=0.5000 is
        // equivalent to ..." (tests/data/logs/SOURCE.md): read, it is the prediction's.
        const QString log = readLog(QStringLiteral("vllm-0.22-qwen3.5-4b-util0.5.log"));
        const LogReading r = LogCalibration::read(log, QStringLiteral("log"));
        QCOMPARE(r.utilization, std::optional<double>(0.5));
        QCOMPARE(r.maxNumBatchedTokens, std::optional<qint64>(2048));
        QVERIFY(LogCalibration::printedSettings(r).contains(EngineSettingField{Input::GpuMemoryUtilization, false}));
        // The same setup's other run (a stored public note, index id 55770092662, vLLM 0.22) prints its
        // non-default args: the utilization and max_model_len are read from them too.
        const LogReading args = LogCalibration::read(
            QStringLiteral("INFO 06-04 12:27:32 [utils.py:278] non-default args: {'trust_remote_code': True, 'max_model_len': 1024, "
                           "'gpu_memory_utilization': 0.5, 'disable_log_stats': True, 'model': '/data/Qwen3.5-4B'}\n"
                           "(EngineCore pid=4775) INFO 06-04 12:28:23 [gpu_worker.py:466] Available KV cache memory: 11.11 GiB\n"),
            QStringLiteral("log"));
        QCOMPARE(args.utilization, std::optional<double>(0.5));
        QCOMPARE(args.maxModelLen, std::optional<qint64>(1024));
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        Planner *p = w.planner();
        CalibrationDialog dialog(p, {}, &w);
        QVERIFY2(dialog.readLog(log), qPrintable(dialog.status()));
        QCOMPARE(dialog.settings()->field(QStringLiteral("--gpu-memory-utilization"))->text(), QStringLiteral("0.5"));
        // A setting the log does not print is the scenario's, editable before Apply.
        QLineEdit *seqs = dialog.settings()->field(QStringLiteral("--max-num-seqs"));
        QVERIFY(seqs && !seqs->isReadOnly() && seqs->text().isEmpty());
        type(seqs, QStringLiteral("64"));
        dialog.applyReading();
        QCOMPARE(p->scenario().gpuMemoryUtilization, 0.5);
        QCOMPARE(p->scenario().engineSettings.maxNumSeqs, std::optional<qint64>(64));
        QCOMPARE(p->scenario().engineSettings.maxNumBatchedTokens, std::optional<qint64>(2048));
    }

    void readsTheSettingsTensorRTLLMAndLlamaCppPrint()
    {
        // TensorRT-LLM 1.1's PyTorch backend on a DGX Spark (J18 in shared/validation/engine-logs.md,
        // lines verbatim): the free_gpu_memory_fraction it ran at is read and predicted at.
        const LogReading trt = LogCalibration::read(
            QStringLiteral("Peak memory during memory usage profiling (torch + non-torch): 113.65 GiB, available KV cache memory when "
                           "calculating max tokens: 5.95 GiB, fraction is set 0.8999999761581421, kv size is 73728. device total memory "
                           "119.70 GiB, , tmp kv_mem 0.56 GiB\n"
                           "[MemUsageChange] Allocated 5.95 GiB for max tokens in paged KV cache (86720).\n"),
            QStringLiteral("log"));
        QCOMPARE(trt.engine, Engine::Trtllm);
        QCOMPARE(trt.freeGpuMemoryFraction, std::optional<double>(0.8999999761581421));
        QCOMPARE(LogCalibration::applySettings(trt, Scenario{}).engineSettings.freeGpuMemoryFraction, 0.8999999761581421);
        QVERIFY(LogCalibration::printedSettings(trt).contains(EngineSettingField{Input::FreeGpuMemoryFraction, false}));
        // llama-server's "n_ubatch   = 512" and n_ctx (tests/data/logs/llamacpp-qwen-32k-diff.log).
        const LogReading llama = LogCalibration::read(readLog(QStringLiteral("llamacpp-qwen-32k-diff.log")), QStringLiteral("log"));
        QCOMPARE(llama.engine, Engine::LlamaCpp);
        QCOMPARE(llama.nBatch, std::optional<int>(512));
        const QVector<EngineSettingField> printed = LogCalibration::printedSettings(llama);
        QVERIFY(printed.contains(EngineSettingField{Input::NBatch, false}));
        QVERIFY(printed.contains(EngineSettingField{Input::NCtx, false}));
    }

    void adviceFollowsTheCalibration()
    {
        // The T4 log again (tests/data/logs/vllm-0.7.2-qwen2.5-1.5b-t4-util0.5.log). Before it, the
        // plain rule on the 14.56 GiB card: 15,633,680,220 B - 3,087 MB of weights (1.54e9
        // parameters x 2 B) - 4 GB of workspace leaves 8.55 GB, 9 sessions of 32,768 tokens x
        // 28,672 B = 939,524,096 B. Measured: 2.36 GiB = 2,534,030,704 B hold 2 of them. "What to
        // do now" then speaks of the 2 that fit, never of keeping the 9 the estimate had.
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        w.show();
        Planner *p = w.planner();
        Scenario start = p->scenario();
        start.model = ConfigImporter::fromFile(QStringLiteral(HEADROOM_TEST_DATA "/qwen2.5-1.5b-instruct/config.json"), QStringLiteral("config"));
        start.gpu = GpuSpec::custom(qint64(std::llround(14.56 * double(GiB))));
        start.contextTokens = 32768;
        start.sessions = 1;
        p->reset(start);
        QCOMPARE(w.sessionsText(), QStringLiteral("9 sessions fit"));
        QTRY_VERIFY2(w.adviceText().contains(QStringLiteral("nothing: 9 sessions fit (1 asked)")), qPrintable(w.adviceText()));
        CalibrationDialog dialog(p, {}, &w);
        QVERIFY2(dialog.readLog(readLog(QStringLiteral("vllm-0.7.2-qwen2.5-1.5b-t4-util0.5.log"))), qPrintable(dialog.status()));
        dialog.applyReading();
        QCOMPARE(w.sessionsText(), QStringLiteral("2 sessions fit"));
        QTRY_VERIFY2(w.adviceText().contains(QStringLiteral("nothing: 2 sessions fit (1 asked)")), qPrintable(w.adviceText()));
        QVERIFY2(!w.adviceText().contains(QStringLiteral("9 sessions")), qPrintable(w.adviceText()));
    }

    void namesEveryEngineWhoseLogIsRead()
    {
        // Every engine with start-up lines of its own (EngineRule::addLogPatterns) is named in the
        // dialog's placeholder and in `headroom --help`.
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        CalibrationDialog dialog(w.planner(), {}, &w);
        const QString placeholder = dialog.findChild<QPlainTextEdit *>()->placeholderText();
        const HeadroomTest::CliRun help = HeadroomTest::runHeadroom({QStringLiteral("--help")}, m_dir.path());
        for (Engine e : Engines::all()) {
            QVector<LogPattern> patterns;
            LogReading r;
            Engines::rule(e).addLogPatterns(patterns, r, QStringLiteral("log"));
            if (patterns.isEmpty())
                continue;
            const QString title = Engines::rule(e).title();
            QVERIFY2(placeholder.contains(title), qPrintable(title));
            QVERIFY2(QString::fromUtf8(help.out + help.err).contains(title), qPrintable(title));
        }
    }
};

QTEST_MAIN(TestEngineSettings)
#include "tst_enginesettings.moc"
