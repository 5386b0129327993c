// SPDX-License-Identifier: GPL-3.0-or-later
// Units: exact size parsing (SI vs IEC prefixes, IEC 80000-13) and formatting.
#include "core/inputerror.h"
#include "core/units.h"

#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;

class TestUnits : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parseSize_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("bytes");
        // GB = 10^9, GiB = 2^30 (IEC 80000-13; ARCHITECTURE.md "Units").
        QTest::newRow("80GB = 80 x 10^9") << QStringLiteral("80GB") << qint64(80'000'000'000);
        QTest::newRow("66GiB = 66 x 2^30") << QStringLiteral("66GiB") << qint64(66) * 1073741824;
        QTest::newRow("512MiB") << QStringLiteral("512MiB") << qint64(536870912);
        QTest::newRow("79.6GiB rounds to the byte") << QStringLiteral("79.6GiB") << qint64(85469849190); // 79.6 x 2^30 = 85,899,345,920 - 429,496,729.6 = 85,469,849,190.4
        QTest::newRow("1.5 TB with a space") << QStringLiteral("1.5 TB") << qint64(1'500'000'000'000);
        QTest::newRow("1kB") << QStringLiteral("1kB") << qint64(1000);
        QTest::newRow("1KiB") << QStringLiteral("1KiB") << qint64(1024);
        QTest::newRow("nvidia-smi 81559 MiB") << QStringLiteral("81559MiB") << qint64(85520809984);
        QTest::newRow("thousands separators") << QStringLiteral("1,000MB") << qint64(1'000'000'000);
        QTest::newRow("more digits than 64 bits hold") << QStringLiteral("1.0000000000000000001GB") << qint64(1'000'000'000);
    }
    void parseSize()
    {
        QFETCH(QString, text);
        QFETCH(qint64, bytes);
        QCOMPARE(Units::parseSize(text, QStringLiteral("--gpu-memory")), bytes);
    }

    void parseSizeRejects_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("needle");
        QTest::newRow("bare number") << QStringLiteral("80") << QStringLiteral("no unit");
        QTest::newRow("unknown unit") << QStringLiteral("80GX") << QStringLiteral("unknown unit");
        QTest::newRow("negative") << QStringLiteral("-5GB") << QStringLiteral("positive");
        QTest::newRow("zero") << QStringLiteral("0GB") << QStringLiteral("larger than zero");
        QTest::newRow("overflow") << QStringLiteral("99999999999TB") << QStringLiteral("overflows");
        QTest::newRow("garbage") << QStringLiteral("lots") << QStringLiteral("not a memory size");
        QTest::newRow("decimal comma is ambiguous") << QStringLiteral("1,5GB") << QStringLiteral("not a number");
        QTest::newRow("exabytes are not a unit here") << QStringLiteral("8EB") << QStringLiteral("unknown unit \"EB\"");
    }
    void parseSizeRejects()
    {
        QFETCH(QString, text);
        QFETCH(QString, needle);
        try {
            Units::parseSize(text, QStringLiteral("--weights"));
            QFAIL("accepted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--weights"));
            QVERIFY2(e.message().contains(needle), qPrintable(e.message()));
        }
    }

    void parseCount()
    {
        QCOMPARE(Units::parseCount(QStringLiteral("8e9"), QStringLiteral("--params")), qint64(8'000'000'000));
        QCOMPARE(Units::parseCount(QStringLiteral("100000"), QStringLiteral("--context")), qint64(100000));
        QCOMPARE(Units::parseCount(QStringLiteral("100_000"), QStringLiteral("--context")), qint64(100000));
        QCOMPARE(Units::parseCount(QStringLiteral("1.5e3"), QStringLiteral("--context")), qint64(1500));
        QCOMPARE(Units::parseCount(QStringLiteral("100,000"), QStringLiteral("--context")), qint64(100000));
        for (const char *bad : {"0", "-3", "1.5", "1.04", "2.0001", "1,5", "12,34", "abc", "1e30", ""}) {
            try {
                Units::parseCount(QString::fromLatin1(bad), QStringLiteral("--sessions"));
                QFAIL(bad);
            } catch (const InputError &e) {
                QCOMPARE(e.field(), QStringLiteral("--sessions"));
            }
        }
    }

    void checkedArithmetic()
    {
        QCOMPARE(Units::mul(131072, 100000, QStringLiteral("x")), qint64(13'107'200'000));
        QVERIFY_THROWS_EXCEPTION(InputError, Units::mul(qint64(1) << 40, qint64(1) << 40, QStringLiteral("--context")));
        QVERIFY_THROWS_EXCEPTION(InputError, Units::add(std::numeric_limits<qint64>::max(), 1, QStringLiteral("x")));
    }

    void format()
    {
        // Seed figures A: 13,107,200,000 B = 13.1 GB (12.2 GiB); 131,072 B = 128 KiB.
        QCOMPARE(Units::formatBytes(13'107'200'000, UnitSystem::Decimal), QStringLiteral("13.1 GB"));
        QCOMPARE(Units::formatBytes(13'107'200'000, UnitSystem::Binary), QStringLiteral("12.2 GiB"));
        QCOMPARE(Units::formatBytes(131072, UnitSystem::Binary), QStringLiteral("128.0 KiB"));
        QCOMPARE(Units::formatExactBytes(838'860'800'000), QStringLiteral("838,860,800,000 B"));
        QCOMPARE(Units::formatIn(4'090'000'000, Units::GiB, QStringLiteral("GiB"), 2), QStringLiteral("3.81 GiB"));
    }
};

HEADROOM_TEST_MAIN(TestUnits, QCoreApplication)
#include "tst_units.moc"
