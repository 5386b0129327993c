// SPDX-License-Identifier: GPL-3.0-or-later
// The fleet's overflow risk (issue 29, plan/fleetrisk.h): the chance that some replica of a
// fleet overflows, 1 - (1 - p)^R with replicas independent, and --fleet-risk, each replica's
// risk solved so that the fleet as a whole meets it. Every expected figure is worked out here,
// from the formula or by brute force over the counts, never copied from the program.
#include "plan/capacity.h"
#include "plan/fleetrisk.h"
#include "core/inputerror.h"
#include "core/inputranges.h"
#include "lengths/lengthdistribution.h"

#include <QTest>
#include "common/headroomtest.h"
#include <cmath>

using namespace Headroom;

namespace {

// Llama-3.1-8B's attention (32 layers, 8 KV heads, head_dim 128: 131,072 B per token at bf16)
// with 8e9 parameters on an 80 GB card and a 4 GB workspace: a 44 GB KV budget.
Scenario llama8bOn80GB(const QString &lengths)
{
    Scenario s;
    s.model.attentionHeads = 32;
    s.model.kvHeads = 8;
    LayerGroup g;
    g.kvHeads = 8;
    g.headDimK = g.headDimV = 128;
    s.model.addLayers(g, 32);
    s.model.totalParams = s.model.activeParams = 8'000'000'000;
    s.gpu = GpuSpec::custom(80'000'000'000);
    s.workspaceBytes = 4'000'000'000;
    s.distribution = LengthDistribution::parse(lengths, QStringLiteral("--distribution"));
    s.contextTokens = s.distribution->maximum();
    return s;
}

// A step count that grows with the accepted risk as a real tail's does (a few sessions per
// decade of risk), for the solver alone: 120 + 4 log10(p) sessions, floored.
qint64 stepCount(double p)
{
    return qint64(std::floor(120.0 + 4.0 * std::log10(p)));
}

} // namespace

class TestFleetRisk : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void fleetProbabilityIsOneMinusSurvival_data()
    {
        QTest::addColumn<double>("p");
        QTest::addColumn<qint64>("replicas");
        QTest::newRow("issue 29: 1 in 100 on each of 131 GPUs") << 0.01 << qint64(131);
        QTest::newRow("1 in 100, 33 replicas") << 0.01 << qint64(33);
        QTest::newRow("one replica: its own risk") << 0.003 << qint64(1);
        QTest::newRow("1e-6 over 10,000") << 1e-6 << qint64(10'000);
        QTest::newRow("0.5 over 2") << 0.5 << qint64(2);
    }
    void fleetProbabilityIsOneMinusSurvival()
    {
        QFETCH(double, p);
        QFETCH(qint64, replicas);
        // 1 - (1 - p)^R in long double: 1 - p is held to 5e-20, raised to R (up to 10^4 here)
        // that is 5e-16 of the survival, within 1e-12 of the answer at these magnitudes.
        const long double expected = 1.0L - std::pow(1.0L - (long double)p, (long double)replicas);
        const double got = FleetRisk::fleetOverflowProbability(p, replicas);
        QVERIFY2(std::abs((long double)got - expected) <= 1e-12L * expected,
                 qPrintable(QStringLiteral("%1 against %2").arg(got, 0, 'g', 17).arg(double(expected), 0, 'g', 17)));
        // 131 cards at 1 in 100: about 73%, the figure.
        if (replicas == 131)
            QVERIFY(got > 0.73 && got < 0.74);
    }

    void smallRiskKeepsItsDigits()
    {
        // p = 1e-12 over 10 replicas: 10p - 45p^2 + ... = 9.99999999955e-12. 1 - pow(1 - p, 10)
        // in doubles is off in the fifth digit (1 - 1e-12 is not held exactly); log1p/expm1 is not.
        const double p = 1e-12;
        const double series = 10 * p - 45 * p * p;
        QVERIFY(std::abs(FleetRisk::fleetOverflowProbability(p, 10) / series - 1) < 1e-12);
        QVERIFY(std::abs((1 - std::pow(1 - p, 10)) / series - 1) > 1e-6); // the naive form this guards against
        QCOMPARE(FleetRisk::fleetOverflowProbability(0.0, 1000), 0.0);
        QCOMPARE(FleetRisk::fleetOverflowProbability(0.2, 0), 0.0);
    }

    void replicaRiskInvertsTheFleets_data()
    {
        QTest::addColumn<double>("fleet");
        QTest::addColumn<qint64>("replicas");
        QTest::newRow("1 in 100 over 33") << 0.01 << qint64(33);
        QTest::newRow("1 in 1,000 over 7") << 1e-3 << qint64(7);
        QTest::newRow("0.5 over 1,000") << 0.5 << qint64(1000);
        QTest::newRow("one replica") << 0.02 << qint64(1);
    }
    void replicaRiskInvertsTheFleets()
    {
        QFETCH(double, fleet);
        QFETCH(qint64, replicas);
        const double p = FleetRisk::replicaRiskFor(fleet, replicas);
        // (1 - p)^R = 1 - P, checked in long double.
        const long double back = 1.0L - std::pow(1.0L - (long double)p, (long double)replicas);
        QVERIFY(std::abs(back / (long double)fleet - 1.0L) < 1e-12L);
        QVERIFY(p <= fleet);
    }

    void solverFindsTheLargestAdmissibleCount_data()
    {
        QTest::addColumn<double>("fleet");
        QTest::addColumn<qint64>("target");
        QTest::newRow("1 in 100, 3,000 sessions") << 0.01 << qint64(3000);
        QTest::newRow("1 in 1,000, 20,000 sessions") << 1e-3 << qint64(20'000);
        QTest::newRow("1 in 20, 500 sessions") << 0.05 << qint64(500);
        QTest::newRow("target below one replica") << 0.01 << qint64(50);
    }
    void solverFindsTheLargestAdmissibleCount()
    {
        QFETCH(double, fleet);
        QFETCH(qint64, target);
        const FleetRisk::Solution s = FleetRisk::solve(fleet, target, 1, stepCount, 1e-6, QStringLiteral("--fleet-risk"));
        QVERIFY(s.rounds <= FleetRisk::maxRounds);
        QCOMPARE(s.sessions, stepCount(s.replicaRisk));
        QCOMPARE(s.replicas, (target + s.sessions - 1) / s.sessions);
        // Its fleet meets the fleet risk (each replica at most at its risk, here exactly).
        QVERIFY(FleetRisk::fleetOverflowProbability(s.replicaRisk, s.replicas) <= fleet * (1 + 1e-12));
        // Brute force over every larger count, up to the count at the fleet risk itself: none is
        // admissible (the replicas it needs ask each for a risk that count does not meet).
        for (qint64 n = s.sessions + 1; n <= stepCount(fleet); ++n) {
            const qint64 replicas = (target + n - 1) / n;
            const double p = 1.0 - std::pow(1.0 - fleet, 1.0 / double(replicas));
            QVERIFY2(stepCount(p) < n, qPrintable(QStringLiteral("%1 sessions per replica would meet it too").arg(n)));
        }
    }

    void solverWithoutTargetUsesTheGivenReplicas()
    {
        const FleetRisk::Solution s = FleetRisk::solve(0.01, std::nullopt, 4, stepCount, 1e-6, QStringLiteral("--fleet-risk"));
        QCOMPARE(s.replicas, qint64(4));
        QVERIFY(std::abs(s.replicaRisk - (1 - std::pow(0.99, 0.25))) < 1e-15);
    }

    void solverRefusesAFleetPastTheFloor()
    {
        // 1 in 100 over a million replicas asks each for about 1e-8, below the solver's 1e-6.
        try {
            FleetRisk::solve(0.01, qint64(100'000'000), 1, stepCount, 1e-6, QStringLiteral("--fleet-risk"));
            QFAIL("accepted a per-replica risk below the floor");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--fleet-risk"));
        }
    }

    void planHoldsTheFleetRisk()
    {
        // The whole engine: 3,000 sessions of a log-normal (median 2,000, p99 30,000 tokens) on
        // 80 GB cards, the fleet at 1 in 100.
        Scenario s = llama8bOn80GB(QStringLiteral("lognormal:median=2000,p99=30000,max=131072"));
        s.targetSessions = 3000;
        s.fleetRisk = 0.01;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        const DistributionFigures &d = r.distribution;
        const qint64 n = d.sessionsAtRisk;
        QVERIFY(n > 0);
        QVERIFY(d.riskOfFleet);
        QCOMPARE(*d.fleetReplicas, (3000 + n - 1) / n);
        QVERIFY(*d.fleetReplicas > 1);
        // Each replica's risk is the one that spreads 1 in 100 over the replicas.
        QVERIFY(std::abs(d.replicaRisk / (1 - std::pow(0.99, 1.0 / double(*d.fleetReplicas))) - 1) < 1e-12);
        QVERIFY(d.replicaOverflowProbability <= d.replicaRisk);
        const double fleet = 1 - std::pow(1 - d.replicaOverflowProbability, double(*d.fleetReplicas));
        QVERIFY(std::abs(*d.fleetOverflowProbability - fleet) < 1e-12);
        QVERIFY(fleet <= 0.01);
        // One more session per replica breaks it: the tail at n + 1 (the overflow probability
        // at that many sessions) over the replicas n + 1 needs.
        Scenario more = s;
        more.fleetRisk.reset();
        more.targetSessions.reset();
        more.sessions = n + 1;
        const CapacityResult above = computeCapacity(more);
        QVERIFY2(above.ok, qPrintable(above.error));
        const qint64 fewer = (3000 + n) / (n + 1);
        QVERIFY(1 - std::pow(1 - above.distribution.overflowProbability, double(fewer)) > 0.01);
        // The same scenario at each replica's risk given as --risk: the same count and fleet.
        Scenario perReplica = s;
        perReplica.fleetRisk.reset();
        perReplica.risk = d.replicaRisk;
        const CapacityResult same = computeCapacity(perReplica);
        QCOMPARE(same.distribution.sessionsAtRisk, n);
        QCOMPARE(*same.distribution.fleetReplicas, *d.fleetReplicas);
        QVERIFY(!same.distribution.riskOfFleet);
    }

    void dpIsTheFleetWithoutTarget()
    {
        Scenario s = llama8bOn80GB(QStringLiteral("lognormal:median=2000,p99=30000,max=131072"));
        s.tp = 2;
        s.dp = 4;
        s.priceUsdPerGpuHour = 2.5;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        const DistributionFigures &d = r.distribution;
        QCOMPARE(*d.fleetReplicas, qint64(4));
        QCOMPARE(*d.fleetGpus, qint64(8));
        QVERIFY(std::abs(*d.fleetCostPerMonthUsd - 4 * 2 * 2.5 * 730) < 1e-9);
        QVERIFY(!d.gpusNeeded); // no target
        QVERIFY(std::abs(*d.fleetOverflowProbability - (1 - std::pow(1 - d.replicaOverflowProbability, 4.0))) < 1e-15);
        // With a target as well, both would size the fleet: refused, naming --dp.
        s.targetSessions = 1000;
        const CapacityResult both = computeCapacity(s);
        QVERIFY(!both.ok);
        QCOMPARE(both.errorField, QStringLiteral("--dp"));
        QVERIFY2(both.error.contains(QStringLiteral("--target-sessions")), qPrintable(both.error));
    }

    void fleetRiskOutOfRangeIsRefused_data()
    {
        QTest::addColumn<double>("fleet");
        QTest::newRow("0") << 0.0;
        QTest::newRow("1") << 1.0;
        QTest::newRow("-1") << -1.0;
        QTest::newRow("nan") << std::nan("");
    }
    void fleetRiskOutOfRangeIsRefused()
    {
        QFETCH(double, fleet);
        Scenario s = llama8bOn80GB(QStringLiteral("lognormal:median=2000,p99=30000,max=131072"));
        s.fleetRisk = fleet;
        const CapacityResult r = computeCapacity(s);
        QVERIFY(!r.ok);
        QCOMPARE(r.errorField, QStringLiteral("--fleet-risk"));
    }
};

HEADROOM_TEST_MAIN(TestFleetRisk, QCoreApplication)
#include "tst_fleetrisk.moc"
