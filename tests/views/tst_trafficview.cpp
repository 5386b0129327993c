// SPDX-License-Identifier: GPL-3.0-or-later
// The Traffic tab (issue 29, item 6): a trace's arrivals replayed on replicas of the window's
// plan, off the GUI thread, again on every change of the plan; the answer in the field's
// words on the tab, on the Memory tab and in the presenter's headline; a bad file named by
// its line, losing nothing. Every expected figure is worked out here from the model's API or
// the scenario, never copied from the window.
#include "answerview.h"
#include "chartstyle.h"
#include "mainwindow.h"
#include "planner.h"
#include "presetstore.h"
#include "reportwriter.h"
#include "tokenspinbox.h"
#include "trafficchartview.h"
#include "trafficreplay.h"
#include "trafficview.h"
#include "io/sampletraces.h"
#include "lengths/traffictrace.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;

namespace {
constexpr int kDeadline = 60000; // ms: a replay of the hour takes a fraction of a second, a solve a few

QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    p.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    p.setColor(QPalette::AlternateBase, QColor(0x2b, 0x2b, 0x2b));
    p.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xd6));
    p.setColor(QPalette::Mid, QColor(0x60, 0x60, 0x60));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x90, 0x90, 0x90));
    return p;
}
} // namespace

class TestTrafficView : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString store() const { return m_dir.filePath(QStringLiteral("presets.sqlite")); }

    // With HEADROOM_SCREENSHOTS set, `w` as shown, to look at.
    static void shoot(QWidget &w, const char *name)
    {
        const QString dir = qEnvironmentVariable("HEADROOM_SCREENSHOTS");
        if (!dir.isEmpty())
            w.grab().save(QDir(dir).filePath(QString::fromLatin1(name)));
    }
    // The Mooncake hour as sampleTraces() offers it (the window's Samples menu lists the same).
    static QString mooncake()
    {
        for (const SampleTrace &t : sampleTraces())
            if (t.path.endsWith(QLatin1String("mooncake-fast25-conversation.jsonl")))
                return t.path;
        return QStringLiteral(HEADROOM_SAMPLES "/mooncake-fast25-conversation.jsonl");
    }
    // The centre's tabs: the one holding the Traffic tab.
    static QTabWidget *centre(MainWindow &w)
    {
        for (auto *tabs : w.findChildren<QTabWidget *>())
            for (int i = 0; i < tabs->count(); ++i)
                if (tabs->widget(i)->isAncestorOf(w.trafficView()))
                    return tabs;
        return nullptr;
    }
    static void showTraffic(MainWindow &w)
    {
        QTabWidget *tabs = centre(w);
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->widget(i)->isAncestorOf(w.trafficView()))
                tabs->setCurrentIndex(i);
    }
    // Waits for the replay of the latest request to be shown.
    static bool settled(MainWindow &w)
    {
        return !w.trafficReplay()->busy() && !w.planner()->busy() && w.trafficReplay()->answer().ok;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    // A plan whose lengths come from a trace (Lengths and risk, File > Open trace): the Traffic
    // tab, shown with no trace of its own, replays that one (a trial found "No trace yet" there).
    void theTrafficTabStartsFromThePlansTrace()
    {
        MainWindow w(store());
        w.resize(1280, 720);
        w.planner()->setDistribution(LengthDistribution::fromTrace(mooncake(), QStringLiteral("trace")));
        QTRY_VERIFY(!w.planner()->busy());
        w.show();
        showTraffic(w);
        QCOMPARE(QDir::fromNativeSeparators(w.trafficView()->traceEdit()->text()), mooncake());
        QTRY_VERIFY_WITH_TIMEOUT(settled(w), kDeadline);
    }

    // The Mooncake hour on the window's plan: the conversations TrafficTrace::read makes, the
    // fleet's GPUs replicas x TP from the scenario; a change of TP replays it again.
    void mooncakeReplaysOnThePlan()
    {
        MainWindow w(store());
        w.resize(1280, 720);
        w.show();
        showTraffic(w);
        QVERIFY2(QFile::exists(mooncake()), qPrintable(mooncake()));
        const TrafficTrace trace = TrafficTrace::read(mooncake(), QStringLiteral("test"));
        TrafficView *v = w.trafficView();
        v->openTrace(mooncake());
        QTRY_VERIFY_WITH_TIMEOUT(settled(w), kDeadline);
        const QString conversations = Units::formatCount(trace.conversations) + QStringLiteral(" conversations");
        QVERIFY2(v->summaryText().contains(conversations), qPrintable(v->summaryText()));
        QCOMPARE(w.trafficReplay()->answer().conversationRule, trace.conversationRule());
        QVERIFY2(v->summaryText().contains(QStringLiteral("rebuilt from hash_ids")), qPrintable(v->summaryText()));

        // Three replicas of the plan's TP group.
        v->replicasSpin()->setValue(3);
        QTRY_VERIFY_WITH_TIMEOUT(settled(w) && w.trafficReplay()->answer().result.replicas == 3, kDeadline);
        int tp = w.planner()->scenario().tp;
        QCOMPARE(w.trafficReplay()->answer().result.gpus, qint64(3) * tp);
        QVERIFY2(v->answerText().contains(Units::plural(3 * tp, QStringLiteral("GPU"), QStringLiteral("GPUs"))), qPrintable(v->answerText()));
        const qint64 budgetTp1 = w.planner()->result().kvBudgetBytesPerGpu;
        QCOMPARE(w.trafficReplay()->answer().kvBudgetBytesPerGpu, budgetTp1);
        // The Memory tab's sentence says the same.
        QVERIFY2(w.findChild<AnswerView *>()->trafficText().contains(trafficSentence(w.trafficReplay()->answer())),
                 qPrintable(w.findChild<AnswerView *>()->trafficText()));
        shoot(w, "traffic-light.png");

        // TP 2: the replay runs again, on twice the GPUs per replica.
        w.planner()->setTp(2);
        tp = w.planner()->scenario().tp;
        QCOMPARE(tp, 2);
        QTRY_VERIFY_WITH_TIMEOUT(settled(w) && w.trafficReplay()->answer().tp == 2, kDeadline);
        QCOMPARE(w.trafficReplay()->answer().result.gpus, qint64(3 * 2));
        QCOMPARE(w.trafficReplay()->answer().kvBudgetBytesPerGpu, w.planner()->result().kvBudgetBytesPerGpu);
        QVERIFY(w.planner()->result().kvBudgetBytesPerGpu != budgetTp1);
        QVERIFY2(v->answerText().contains(QStringLiteral("3 replicas of 2 GPUs: 6 GPUs")), qPrintable(v->answerText()));
        // Units follow the planner's: the KV row in GiB after the switch.
        w.planner()->setUnits(UnitSystem::Binary);
        QVERIFY2(v->summaryText().contains(QStringLiteral(" GiB")), qPrintable(v->summaryText()));
    }

    // "N users like this trace": the multiplier replayForUsers finds, the sentence in those
    // words; the solve gives the fewest replicas with no preemption and puts them in the box.
    void usersAndSolve()
    {
        MainWindow w(store());
        w.show();
        showTraffic(w);
        TrafficView *v = w.trafficView();
        v->openTrace(mooncake());
        QTRY_VERIFY_WITH_TIMEOUT(settled(w), kDeadline);
        v->usersSpin()->setValue(600); // twice the trace's ~290 alive: replays of ~25,000 requests, quick under sanitizers too
        QTRY_VERIFY_WITH_TIMEOUT(settled(w) && w.trafficReplay()->answer().users, kDeadline);
        QVERIFY2(v->answerText().startsWith(QStringLiteral("600 users like this trace on ")), qPrintable(v->answerText()));
        QVERIFY(w.trafficReplay()->answer().multiplier != 1.0);
        // One replica preempts at this load; the solve finds the count with none.
        const QString before = w.findChild<AnswerView *>()->trafficText();
        v->solveButton()->click();
        // While it runs, the Memory tab and presenter do not show the last replay's fleet as the
        // answer (a trial's presenter showed "1 GPU" beside the plan's 16 during a solve).
        if (w.trafficReplay()->busy())
            QVERIFY2(w.findChild<AnswerView *>()->trafficText().contains(QStringLiteral("replaying the trace")),
                     qPrintable(before + QStringLiteral(" / ") + w.findChild<AnswerView *>()->trafficText()));
        QTRY_VERIFY_WITH_TIMEOUT(settled(w) && w.trafficReplay()->answer().solved, kDeadline);
        QVERIFY(!w.findChild<AnswerView *>()->trafficText().contains(QStringLiteral("replaying the trace")));
        const TrafficAnswer a = w.trafficReplay()->answer();
        QCOMPARE(a.result.preemptions, qint64(0));
        QCOMPARE(v->replicasSpin()->value(), a.result.replicas);
        QCOMPARE(a.result.gpus, qint64(a.result.replicas) * w.planner()->scenario().tp);
        QVERIFY2(v->summaryText().contains(QStringLiteral("Solved for: the fewest replicas that keep up, with at most 0 preemptions per hour")), qPrintable(v->summaryText()));
        QVERIFY2(v->answerText().startsWith(QStringLiteral("600 users like this trace need %1 × 1 GPU").arg(a.result.replicas)), qPrintable(v->answerText()));
    }

    // A trace that cannot be read says the field and the line; the trace before stays replayed.
    void badTraceNamesTheLine()
    {
        const QString bad = m_dir.filePath(QStringLiteral("bad.jsonl"));
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 10}\n"
                    "{\"input_length\": 100, \"output_length\": 10}\n");
        }
        // What the model says of it, to find the same words on screen.
        QString expected;
        try {
            TrafficTrace::read(bad, QStringLiteral("Trace"));
        } catch (const InputError &e) {
            expected = e.message();
        }
        QVERIFY2(expected.contains(QStringLiteral("line 2")), qPrintable(expected));

        MainWindow w(store());
        w.show();
        showTraffic(w);
        TrafficView *v = w.trafficView();
        // No trace yet: a bad one is said, and nothing replays.
        v->openTrace(bad);
        QTRY_VERIFY_WITH_TIMEOUT(!v->errorText().isEmpty(), kDeadline);
        QVERIFY2(v->errorText().contains(expected), qPrintable(v->errorText()));
        QVERIFY(!w.trafficReplay()->answer().ok);
        // After a good one, a bad one keeps it.
        v->openTrace(mooncake());
        QTRY_VERIFY_WITH_TIMEOUT(settled(w), kDeadline);
        QVERIFY(v->errorText().isEmpty());
        const qint64 requests = w.trafficReplay()->answer().result.requests;
        v->openTrace(bad);
        QTRY_VERIFY_WITH_TIMEOUT(!v->errorText().isEmpty(), kDeadline);
        QVERIFY2(v->errorText().contains(QStringLiteral("line 2")), qPrintable(v->errorText()));
        QTRY_VERIFY_WITH_TIMEOUT(settled(w), kDeadline);
        QCOMPARE(w.trafficReplay()->answer().result.requests, requests);
        QCOMPARE(w.trafficReplay()->loadedPath(), mooncake());
        // A file that is not there is said too.
        v->openTrace(m_dir.filePath(QStringLiteral("gone.jsonl")));
        QTRY_VERIFY_WITH_TIMEOUT(v->errorText().contains(QStringLiteral("gone.jsonl")), kDeadline);
    }

    // The chart marks the preemptions the timeline holds (one replica at 600 users preempts).
    void chartMarksPreemptions()
    {
        MainWindow w(store());
        w.show();
        showTraffic(w);
        TrafficView *v = w.trafficView();
        v->usersSpin()->setValue(600); // twice the trace's ~290 alive: replays of ~25,000 requests, quick under sanitizers too
        v->openTrace(mooncake());
        QTRY_VERIFY_WITH_TIMEOUT(settled(w) && w.trafficReplay()->answer().users, kDeadline);
        int expected = 0;
        for (const ReplayPoint &p : w.trafficReplay()->answer().result.timeline)
            expected += p.preemptions > 0 ? 1 : 0;
        QCOMPARE(v->chartView()->preemptionMarks(), expected);
    }

    // The presenter's headline carries the traffic's GPUs and money once a replay has run.
    void presenterHeadlineSaysTheTraffic()
    {
        MainWindow w(store());
        w.show();
        showTraffic(w);
        w.trafficView()->openTrace(mooncake());
        QTRY_VERIFY_WITH_TIMEOUT(settled(w), kDeadline);
        w.setPresenterMode(true);
        const ReplayResult &r = w.trafficReplay()->answer().result;
        QVERIFY2(w.headlineText().contains(Units::plural(r.gpus, QStringLiteral("GPU"), QStringLiteral("GPUs"))), qPrintable(w.headlineText()));
        if (r.fleetCostPerMonthUsd)
            QVERIFY2(w.headlineText().contains(Units::formatUsd(*r.fleetCostPerMonthUsd) + QStringLiteral(" a month")), qPrintable(w.headlineText()));
        w.setPresenterMode(false);
    }

    // Page 1 of the report says the traffic's fleet under the decision, in the tab's words.
    void reportPageOneSaysTheTraffic()
    {
        MainWindow w(store());
        w.show();
        w.trafficView()->openTrace(mooncake());
        QTRY_VERIFY_WITH_TIMEOUT(settled(w), kDeadline);
        const QString pdf = m_dir.filePath(QStringLiteral("traffic.pdf"));
        QString error;
        QVERIFY2(w.exportReport(pdf, QPageSize::A4, &error), qPrintable(error));
        QProcess p;
        p.start(QStringLiteral("pdftotext"), {QStringLiteral("-raw"), QStringLiteral("-l"), QStringLiteral("1"), pdf, QStringLiteral("-")});
        if (!p.waitForStarted(10000))
            QSKIP("pdftotext is not installed");
        QVERIFY(p.waitForFinished(60000));
        const QString page1 = QString::fromUtf8(p.readAllStandardOutput()).normalized(QString::NormalizationForm_KC).simplified(); // "ﬃ" as "ffi"
        const ReplayResult &r = w.trafficReplay()->answer().result;
        QVERIFY2(page1.contains(QStringLiteral("Traffic replayed, a question apart from the sessions asked above:")), qPrintable(page1));
        QVERIFY2(page1.contains(QStringLiteral("The trace at its recorded arrivals on %1 of 1 GPU").arg(Units::plural(r.replicas, QStringLiteral("replica"), QStringLiteral("replicas")))),
                 qPrintable(page1));
        QVERIFY2(page1.contains(Units::formatCount(r.conversations) + QStringLiteral(" conversations")), qPrintable(page1));
    }

    // Every field of the tab is reached with Tab, in reading order.
    void fieldsReachedByTab()
    {
        MainWindow w(store());
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        showTraffic(w);
        TrafficView *v = w.trafficView();
        v->traceEdit()->setFocus();
        QTRY_VERIFY(v->traceEdit()->hasFocus());
        QList<QWidget *> wanted{v->replicasSpin(), v->usersSpin(), v->keepIdleSpin(), v->maxQueueSpin(), v->solveButton()};
        for (int i = 0; i < 12 && !wanted.isEmpty(); ++i) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
            QWidget *f = QApplication::focusWidget();
            for (QWidget *x : wanted)
                if (f == x || x->isAncestorOf(f)) {
                    QCOMPARE(x, wanted.first()); // in reading order
                    wanted.removeFirst();
                    break;
                }
        }
        QVERIFY2(wanted.isEmpty(), "a field of the Traffic tab is not reached by Tab");
        // Ctrl+5 brings the tab (View > Traffic).
        centre(w)->setCurrentIndex(0);
        QVERIFY(!w.trafficView()->isVisible());
        QTest::keyClick(&w, Qt::Key_5, Qt::ControlModifier);
        QVERIFY(w.trafficView()->isVisible());
    }

    // The screenshots to look at: light and dark at 1280 x 720, the Memory tab with the line.
    void screenshots()
    {
        if (qEnvironmentVariableIsEmpty("HEADROOM_SCREENSHOTS"))
            QSKIP("HEADROOM_SCREENSHOTS not set");
        for (const bool dark : {false, true}) {
            const QPalette before = QApplication::palette();
            if (dark)
                QApplication::setPalette(darkPalette());
            {
                MainWindow w(store());
                w.resize(1280, 720);
                w.show();
                QVERIFY(QTest::qWaitForWindowExposed(&w));
                showTraffic(w);
                w.trafficView()->usersSpin()->setValue(3000);
                w.trafficView()->openTrace(mooncake());
                QTRY_VERIFY_WITH_TIMEOUT(settled(w), kDeadline);
                QApplication::processEvents(); // the chart lays out its last series
                shoot(w, dark ? "traffic-tab-dark.png" : "traffic-tab-light.png");
                shoot(*w.trafficView(), dark ? "traffic-page-dark.png" : "traffic-page-light.png"); // the whole page, summary included
                w.setPresenterMode(true);
                shoot(w, dark ? "traffic-presenter-dark.png" : "traffic-presenter-light.png");
                w.setPresenterMode(false);
                centre(w)->setCurrentIndex(0);
                shoot(w, dark ? "traffic-memory-dark.png" : "traffic-memory-light.png");
            }
            QApplication::setPalette(before);
        }
    }
};

HEADROOM_TEST_MAIN(TestTrafficView, QApplication)
#include "tst_trafficview.moc"
