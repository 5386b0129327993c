// SPDX-License-Identifier: GPL-3.0-or-later
// The sample traces shipped with the program are found beside it: the build tree copies
// them to build/share/headroom/traces as a package installs them to usr/share/headroom/traces,
// and this test program (build/tests/) finds them as the program (build/app/) does. Request
// counts are those the Azure Public Dataset's trace files hold (resources/traces/README.md:
// 19,366 conversation and 8,819 code requests).
#include "io/sampletraces.h"
#include "lengths/lengthdistribution.h"

#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;

class TestSampleTraces : public QObject
{
    Q_OBJECT
private slots:
    void foundBesideTheProgram()
    {
        const QVector<SampleTrace> traces = sampleTraces();
        QCOMPARE(traces.size(), 3);
        QVERIFY2(traces.at(0).title.contains(QLatin1String("conversation")), qPrintable(traces.at(0).title));
        QVERIFY2(traces.at(1).title.contains(QLatin1String("code")), qPrintable(traces.at(1).title));
        QVERIFY(traces.at(0).path.endsWith(QLatin1String("share/headroom/traces/azure-llm-inference-2023-conv.csv")));
    }

    void readsAsItsDatasetStates_data()
    {
        QTest::addColumn<int>("index");
        QTest::addColumn<int>("requests");
        QTest::newRow("Azure 2023 conversation: 19,366 requests") << 0 << 19366;
        QTest::newRow("Azure 2023 code: 8,819 requests") << 1 << 8819;
        // resources/traces/README.md, after the Mooncake FAST'25 release: 12,031 requests.
        QTest::newRow("Mooncake FAST'25 conversation hour: 12,031 requests") << 2 << 12031;
    }
    void readsAsItsDatasetStates()
    {
        QFETCH(int, index);
        QFETCH(int, requests);
        const SampleTrace t = sampleTraces().value(index);
        QCOMPARE(LengthDistribution::fromTrace(t.path, QStringLiteral("trace")).requests, qint64(requests));
    }
};

HEADROOM_TEST_MAIN(TestSampleTraces, QCoreApplication)
#include "tst_sampletraces.moc"
