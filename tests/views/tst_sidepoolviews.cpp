// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 14's side pools on screen: the vision encoder's and the host tier's
// bands of the memory chart, and their inputs reached by keyboard, with undo.
#include "io/configimporter.h"
#include "mainwindow.h"
#include "memorychartview.h"
#include "plan/capacity.h"
#include "planner.h"
#include "sidepoolinputs.h"

#include <QApplication>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonDocument>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <QWheelEvent>
#include "common/headroomtest.h"

using namespace Headroom;

class TestSidePoolViews : public QObject
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

    void chartShowsTheEncoderAndTheHostTier()
    {
        QFile f(QString::fromUtf8(HEADROOM_SOURCE) + QStringLiteral("/presets/models/gemma-3-27b-it.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        Scenario s;
        s.model = ConfigImporter::fromPreset(QJsonDocument::fromJson(f.readAll()).object());
        s.gpu = GpuSpec::custom(85'520'000'000);
        s.engine = Engine::Vllm;
        s.contextTokens = 32768;
        s.sessions = 2;
        s.hostKvMemoryBytes = 1'000'000'000'000;
        s.decodingShare = 0.1;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        MemoryChartView chart;
        chart.resize(640, 400);
        chart.setResult(r, 1, UnitSystem::Decimal);
        // The preset's published 27,432,396,272 parameters in bf16, of which the encoder's
        // 423,060,336 (tst_sidepools derives them): 846,120,672 B.
        QCOMPARE(chart.segments().visionEncoder, qint64(846'120'672));
        QCOMPARE(chart.segments().weights + chart.segments().visionEncoder, qint64(27'432'396'272) * 2);
        // vLLM's encoder cache: 8,192 embeddings x 5,376 x 2 B.
        QCOMPARE(chart.segments().encoderCache, qint64(8192) * 5376 * 2);
        // 1 TB of host memory over the node's 8 cards.
        QCOMPARE(chart.segments().hostKv, qint64(125'000'000'000));
        const QString shot = qEnvironmentVariable("HEADROOM_CHART_SHOT");
        if (!shot.isEmpty())
            QVERIFY(chart.grab().save(shot));
    }

    void inputsAreReachedByKeyboardAndUndone()
    {
        MainWindow w(m_dir.filePath(QStringLiteral("presets.sqlite")));
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        auto *pools = w.findChild<SidePoolInputs *>();
        QVERIFY(pools);
        // Alt+Y reaches the host box; the share is the box before it in the tab order.
        QTest::keyClick(&w, Qt::Key_Y, Qt::AltModifier);
        QCOMPARE(QApplication::focusWidget(), pools->hostMemorySpin());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Backtab, Qt::ShiftModifier);
        QCOMPARE(QApplication::focusWidget(), pools->decodingShareSpin());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), pools->hostMemorySpin());
        // Up once: 128 GB of host memory per node, one undo step.
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Up);
        QCOMPARE(w.planner()->scenario().hostKvMemoryBytes, std::optional<qint64>(128'000'000'000));
        w.planner()->undoStack()->undo();
        QVERIFY(!w.planner()->scenario().hostKvMemoryBytes);
        QCOMPARE(pools->hostMemorySpin()->value(), 0.0);
        // A wheel turned over the share box while scrolling past it (no focus) leaves the share alone.
        QWidget *elsewhere = QApplication::focusWidget();
        QVERIFY(elsewhere != pools->decodingShareSpin());
        const double shareBefore = pools->decodingShareSpin()->value();
        const QPointF at(pools->decodingShareSpin()->rect().center());
        QWheelEvent wheel(at, pools->decodingShareSpin()->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(pools->decodingShareSpin(), &wheel);
        QCOMPARE(pools->decodingShareSpin()->value(), shareBefore);
        QVERIFY(!w.planner()->scenario().decodingShare);
        // Llama-3.1-8B (the window's first model) has no vision encoder: its images box is off.
        QVERIFY(!pools->imagesSpin()->isEnabled());
    }
};

HEADROOM_TEST_MAIN(TestSidePoolViews, QApplication)
#include "tst_sidepoolviews.moc"
