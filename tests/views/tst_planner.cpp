// SPDX-License-Identifier: GPL-3.0-or-later
// The window's planner off the GUI thread (issue 15): the latest request wins. A burst
// of requests (a slider drag) runs one job at a time; requests made meanwhile never
// queue up, only the newest waits, and only its answer arrives.
#include "planner.h"
#include "plan/capacity.h"
#include "plan/levers.h"
#include "model/testshapes.h"

#include <QApplication>
#include <QTest>
#include <QThreadPool>
#include "common/headroomtest.h"

using namespace Headroom;

namespace {

// Seed A's 8B GQA shape on a 24 GB card against a log-normal at risk 1e-6: the tail
// estimate runs off the GUI thread, and the levers take tens of plans.
Scenario scenario()
{
    Scenario s = Headroom::Test::seedA(8192);
    s.gpu = GpuSpec::custom(24'000'000'000);
    s.gpu.priceUsdPerHour = 0.70;
    s.workspaceBytes = 1'000'000'000;
    s.distribution = LengthDistribution::parse(QStringLiteral("lognormal:median=2000,p99=30000,max=120000"), QStringLiteral("d"));
    s.risk = 1e-6;
    return s;
}

} // namespace

class TestPlanner : public QObject
{
    Q_OBJECT
    // Once the planner is idle: every job it ran has ended and every result a job posted has been
    // delivered, so "nothing else arrives" is a fact rather than a fixed wait, which a slow
    // machine passed whatever arrived later.
    static void settle()
    {
        QVERIFY(QThreadPool::globalInstance()->waitForDone(120000));
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    }

private Q_SLOTS:
    void initTestCase()
    {
        // Room for many jobs at once: with one thread per request they would all run.
        QThreadPool::globalInstance()->setMaxThreadCount(8);
    }

    void leversBurstPricesTheNewestOnly()
    {
        Planner p;
        p.reset(scenario());
        QTRY_VERIFY(!p.busy());
        QVector<LeverReport> reports;
        connect(&p, &Planner::leversChanged, this, [&reports](const LeverReport &r) { reports << r; });
        // Targets of 1 to 20 sessions per GPU; 20 are more than the card holds (7 GB of KV
        // budget, sessions of 2,000 tokens at the median, 262 MB each in bf16), 1 is not.
        for (int i = 1; i <= 20; ++i) {
            p.requestLevers(LeverTarget{double(i), std::nullopt}, 0, 0);
            QVERIFY(p.leversBusy());
            QVERIFY2(QThreadPool::globalInstance()->activeThreadCount() <= 1, "one pricing at a time");
        }
        QTRY_VERIFY(!p.leversBusy());
        settle(); // nothing else arrives
        QCOMPARE(reports.size(), 1);
        const LeverReport newest = evaluateLevers(scenario(), {}, {}, LeverTarget{20.0, std::nullopt}, 0, 0);
        const LeverReport oldest = evaluateLevers(scenario(), {}, {}, LeverTarget{1.0, std::nullopt}, 0, 0);
        QVERIFY(newest.answer != oldest.answer);
        QCOMPARE(reports.first().answer, newest.answer);
    }

    void resultBurstComputesTheNewestOnly()
    {
        Planner p;
        p.reset(scenario());
        QTRY_VERIFY(!p.busy());
        QVector<CapacityResult> results;
        connect(&p, &Planner::resultChanged, this, [&results](const CapacityResult &r) { results << r; });
        // A drag of the length scale: 0.5, 0.55, ... 1.45.
        for (int i = 0; i < 20; ++i) {
            Scenario s = scenario();
            s.lengthScale = 0.5 + 0.05 * i;
            p.apply(s);
            QVERIFY(p.busy());
            QVERIFY2(QThreadPool::globalInstance()->activeThreadCount() <= 1, "one recompute at a time");
        }
        QTRY_VERIFY(!p.busy());
        settle();
        QCOMPARE(results.size(), 1);
        Scenario last = scenario();
        last.lengthScale = 0.5 + 0.05 * 19;
        QCOMPARE(results.first().distribution.sessionsAtRisk, computeCapacity(last).distribution.sessionsAtRisk);
        // A scenario without a distribution is answered at once, and the waiting one is dropped.
        results.clear();
        p.apply(scenario());
        Scenario plain = scenario();
        plain.distribution.reset();
        p.apply(plain);
        QCOMPARE(results.size(), 1);
        QTRY_VERIFY(!p.busy());
        settle();
        QCOMPARE(results.size(), 1);
        QCOMPARE(p.result().maxSessions, computeCapacity(plain).maxSessions);
    }
};

HEADROOM_TEST_MAIN(TestPlanner, QApplication)
#include "tst_planner.moc"
