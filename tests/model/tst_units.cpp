// SPDX-License-Identifier: GPL-3.0-or-later
// Units: exact size parsing (SI vs IEC prefixes, IEC 80000-13) and formatting.
#include "core/inputerror.h"
#include "core/units.h"

#include <QTest>

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

    void parseCountSuffixesAndLocales_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("locale");
        QTest::addColumn<qint64>("value");
        // SI suffixes, exact: k = 10^3, M = 10^6 (issue 12: "8k" once became 8 tokens).
        QTest::newRow("8k = 8,000") << QStringLiteral("8k") << QStringLiteral("C") << qint64(8'000);
        QTest::newRow("32K = 32,000") << QStringLiteral("32K") << QStringLiteral("C") << qint64(32'000);
        QTest::newRow("1.5M = 1,500,000") << QStringLiteral("1.5M") << QStringLiteral("C") << qint64(1'500'000);
        QTest::newRow("2e5 = 200,000") << QStringLiteral("2e5") << QStringLiteral("C") << qint64(200'000);
        QTest::newRow("128 k with a space") << QStringLiteral("128 k") << QStringLiteral("C") << qint64(128'000);
        QTest::newRow("past 2^31: 3e9") << QStringLiteral("3e9") << QStringLiteral("C") << qint64(3'000'000'000);
        // de_DE: "." groups, "," is the decimal comma ("1,5e6" once became 156).
        QTest::newRow("de: 1.500.000") << QStringLiteral("1.500.000") << QStringLiteral("de_DE") << qint64(1'500'000);
        QTest::newRow("de: 1,5e6") << QStringLiteral("1,5e6") << QStringLiteral("de_DE") << qint64(1'500'000);
        QTest::newRow("de: 1,5M") << QStringLiteral("1,5M") << QStringLiteral("de_DE") << qint64(1'500'000);
        QTest::newRow("de: the command line's 1.5M") << QStringLiteral("1.5M") << QStringLiteral("de_DE") << qint64(1'500'000);
        QTest::newRow("en_US: 100,000") << QStringLiteral("100,000") << QStringLiteral("en_US") << qint64(100'000);
        QTest::newRow("fr_FR: 100 000 typed with a space") << QStringLiteral("100 000") << QStringLiteral("fr_FR") << qint64(100'000);
    }
    void parseCountSuffixesAndLocales()
    {
        QFETCH(QString, text);
        QFETCH(QString, locale);
        QFETCH(qint64, value);
        QCOMPARE(Units::parseCount(text, QStringLiteral("--context"), 1, QLocale(locale)), value);
        if (locale == QLatin1String("C"))
            QCOMPARE(Units::parseCount(text, QStringLiteral("--context")), value); // the command line reads the same
    }
    void parseCountRefusesWithTheField()
    {
        for (const char *bad : {"8kk", "k", "1.5k5", "8 tokens", "1.0005k", "8m", "9.3e18"}) {
            try {
                Units::parseCount(QString::fromLatin1(bad), QStringLiteral("Context"), 1, QLocale(QStringLiteral("en_US")));
                QFAIL(bad);
            } catch (const InputError &e) {
                QCOMPARE(e.field(), QStringLiteral("Context"));
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
        QCOMPARE(Units::formatCount(131072, QLocale(QStringLiteral("de_DE"))), QStringLiteral("131.072"));
        QCOMPARE(Units::formatCount(131072, QLocale::c()), QStringLiteral("131,072"));
    }

    void formatMoneyAndFigures()
    {
        // Never scientific (issue 12: "$4.73e-05"); three significant digits below $1.
        QCOMPARE(Units::formatUsd(2.95), QStringLiteral("$2.95"));
        QCOMPARE(Units::formatUsd(0.7375), QStringLiteral("$0.738"));
        QCOMPARE(Units::formatUsd(4.73e-5), QStringLiteral("$0.0000473"));
        QCOMPARE(Units::formatUsd(12'345.4), QStringLiteral("$12,345"));
        // Below a cent, per 1,000 units: $4.73e-5 x 1,000 = $0.0473.
        QCOMPARE(Units::formatUsdPer(4.73e-5, QStringLiteral("session-hour"), QStringLiteral("session-hours")),
                 QStringLiteral("$0.0473 per 1,000 session-hours"));
        QCOMPARE(Units::formatUsdPer(0.7375, QStringLiteral("session-hour"), QStringLiteral("session-hours")),
                 QStringLiteral("$0.738 per session-hour"));
        // 2e-9 x 1,000,000 = $0.002, still below a cent: x 10^9 = $2.00.
        QCOMPARE(Units::formatUsdPer(2e-9, QStringLiteral("token"), QStringLiteral("tokens")), QStringLiteral("$2.00 per 1,000,000,000 tokens"));
        // Counts whole with separators; fractions only where there is one (issue 12: "5678.00").
        QCOMPARE(Units::formatDecimal(5678.0), QStringLiteral("5,678"));
        QCOMPARE(Units::formatDecimal(1.5), QStringLiteral("1.5"));
        QCOMPARE(Units::formatDecimal(1234.567), QStringLiteral("1,234.57"));
        QCOMPARE(Units::formatDecimal(-0.001), QStringLiteral("0"));
    }
};

QTEST_GUILESS_MAIN(TestUnits)
#include "tst_units.moc"
