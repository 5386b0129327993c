// SPDX-License-Identifier: GPL-3.0-or-later
// Units: exact size parsing (SI vs IEC prefixes, IEC 80000-13) and formatting.
#include "core/inputerror.h"
#include "core/units.h"
#include "core/citation.h"

#include <QTest>
#include "common/headroomtest.h"
#include <cmath>
#include <functional>
#include <limits>

using namespace Headroom;

class TestUnits : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // An input repeated back in a message (a 3,000,000-digit cell of a log or a trace) is cut
    // to its first 96 characters and its length; a word of up to 256 (a long path) is kept.
    void hugeInputIsNotRepeated()
    {
        const QString cell(3'000'000, QLatin1Char('9'));
        const QString path = QStringLiteral("/data/") + QString(250, QLatin1Char('p'));
        const InputError e(QStringLiteral("--distribution"), QStringLiteral("%1 line 2: \"%2\" is not a count").arg(path, cell));
        QVERIFY2(e.message().size() < 400, qPrintable(QString::number(e.message().size())));
        QVERIFY(e.message().startsWith(path + QStringLiteral(" line 2: \"") + QString(95, QLatin1Char('9')) + QChar(0x2026)));
        QVERIFY2(e.message().contains(QStringLiteral("(3000002 characters) is not a count")), qPrintable(e.message()));
        QCOMPARE(QString::fromUtf8(e.what()), e.text());
        const InputError kept(QString(300, QLatin1Char('f')), path);
        QCOMPARE(kept.message(), path);
        QCOMPARE(kept.field().size(), 96 + QStringLiteral("\u2026 (300 characters)").size());
    }

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
        QTest::newRow("19 significant digits") << QStringLiteral("1.000000000000000001GB") << qint64(1'000'000'000);
        QTest::newRow("19 digits of bytes, exact") << QStringLiteral("1000000000000000001B") << qint64(1'000'000'000'000'000'001);
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
        // The edges: the minimum itself, 0 when allowed, and 2^63 - 1.
        QCOMPARE(Units::parseCount(QStringLiteral("1"), QStringLiteral("--context")), qint64(1));
        QCOMPARE(Units::parseCount(QStringLiteral("0"), QStringLiteral("--n"), 0), qint64(0));
        QCOMPARE(Units::parseCount(QStringLiteral("9223372036854775807"), QStringLiteral("--n")), std::numeric_limits<qint64>::max());
        QCOMPARE(Units::parseCount(QStringLiteral("1000000000000000001"), QStringLiteral("--n")), qint64(1'000'000'000'000'000'001));
        // Written with more digits than 64 bits hold, still exactly 10^6 (10^21 x 10^-15) and 2 x 10^6.
        QCOMPARE(Units::parseCount(QStringLiteral("1000000000000000000000e-15"), QStringLiteral("--context")), qint64(1'000'000));
        QCOMPARE(Units::parseCount(QStringLiteral("2000000.000000000000000000"), QStringLiteral("--context")), qint64(2'000'000));
        QCOMPARE(Units::parseSize(QStringLiteral("1000000000000000000000e-12GB"), QStringLiteral("--weights")), qint64(1'000'000'000'000'000'000));
    }

    void parseCountRejects_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("minimum");
        QTest::addColumn<QString>("message");
        QTest::newRow("0 below 1") << QStringLiteral("0") << qint64(1) << QStringLiteral("must be at least 1, got 0");
        QTest::newRow("-3 negative") << QStringLiteral("-3") << qint64(1) << QStringLiteral("must be positive, got -3");
        QTest::newRow("1.5 fractional") << QStringLiteral("1.5") << qint64(1) << QStringLiteral("\"1.5\" is not a whole number");
        QTest::newRow("1.04 fractional") << QStringLiteral("1.04") << qint64(1) << QStringLiteral("\"1.04\" is not a whole number");
        QTest::newRow("2.0001 fractional") << QStringLiteral("2.0001") << qint64(1) << QStringLiteral("\"2.0001\" is not a whole number");
        QTest::newRow("1,5 decimal comma") << QStringLiteral("1,5") << qint64(1) << QStringLiteral("\"1,5\" is not a whole number (write e.g. 100000, 100,000, 1e5, 8k or 1.5M)");
        QTest::newRow("12,34 misplaced separator") << QStringLiteral("12,34") << qint64(1) << QStringLiteral("\"12,34\" is not a whole number (write e.g. 100000, 100,000, 1e5, 8k or 1.5M)");
        QTest::newRow("22 digits, not whole") << QStringLiteral("1000000000000000000001e-15") << qint64(1) << QStringLiteral("\"1000000000000000000001e-15\" is not a whole number");
        // One to three digits, a dot and three more: 100 with a decimal point, 100,000 with de_DE's
        // thousands dot ("100.000" planned 100 tokens, a thousand times too few).
        QTest::newRow("100.000 ambiguous") << QStringLiteral("100.000") << qint64(1)
                                           << QStringLiteral("\"100.000\" is ambiguous (a decimal point, or a thousands dot as in German): write 100000 or 100,000 for the thousands");
        QTest::newRow("8.192 ambiguous") << QStringLiteral("8.192") << qint64(1)
                                         << QStringLiteral("\"8.192\" is ambiguous (a decimal point, or a thousands dot as in German): write 8192 or 8,192 for the thousands");
        QTest::newRow("abc") << QStringLiteral("abc") << qint64(1) << QStringLiteral("\"abc\" is not a whole number (write e.g. 100000, 100,000, 1e5, 8k or 1.5M)");
        QTest::newRow("empty") << QString() << qint64(1) << QStringLiteral("\"\" is not a whole number (write e.g. 100000, 100,000, 1e5, 8k or 1.5M)");
        QTest::newRow("1e30 overflows") << QStringLiteral("1e30") << qint64(1) << QStringLiteral("1e30 is too large: it overflows 64 bits");
        QTest::newRow("2^63 overflows") << QStringLiteral("9223372036854775808") << qint64(1)
                                        << QStringLiteral("9223372036854775808 is too large: it overflows 64 bits");
        QTest::newRow("15 below a minimum of 16") << QStringLiteral("15") << qint64(16) << QStringLiteral("must be at least 16, got 15");
        QTest::newRow("999 below a minimum of 1,000") << QStringLiteral("999") << qint64(1000) << QStringLiteral("must be at least 1,000, got 999");
    }
    void parseCountRejects()
    {
        QFETCH(QString, text);
        QFETCH(qint64, minimum);
        QFETCH(QString, message);
        try {
            Units::parseCount(text, QStringLiteral("--sessions"), minimum);
            QFAIL("accepted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--sessions"));
            QCOMPARE(e.message(), message);
        }
    }

    void parseFraction_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("low");
        QTest::addColumn<double>("high");
        QTest::addColumn<double>("value");   // NaN: refused with `message`
        QTest::addColumn<QString>("message");
        const double refused = std::numeric_limits<double>::quiet_NaN();
        // (low, high]: gpu_memory_utilization and the other fraction flags (app/commands/planflags.cpp).
        QTest::newRow("0.9 in (0, 1]") << QStringLiteral("0.9") << 0.0 << 1.0 << 0.9 << QString();
        QTest::newRow("1 at the top: allowed") << QStringLiteral("1") << 0.0 << 1.0 << 1.0 << QString();
        QTest::newRow(" 0.5  with spaces") << QStringLiteral(" 0.5 ") << 0.0 << 1.0 << 0.5 << QString();
        QTest::newRow("1e-3") << QStringLiteral("1e-3") << 0.0 << 1.0 << 0.001 << QString();
        QTest::newRow("0 at the bottom: refused") << QStringLiteral("0") << 0.0 << 1.0 << refused
                                                 << QStringLiteral("must be greater than 0 and at most 1, got 0");
        QTest::newRow("1.0001 above the top") << QStringLiteral("1.0001") << 0.0 << 1.0 << refused
                                             << QStringLiteral("must be greater than 0 and at most 1, got 1.0001");
        QTest::newRow("-0.5 below") << QStringLiteral("-0.5") << 0.0 << 1.0 << refused
                                   << QStringLiteral("must be greater than 0 and at most 1, got -0.5");
        QTest::newRow("0.5 in (0.5, 0.9]: refused") << QStringLiteral("0.5") << 0.5 << 0.9 << refused
                                                  << QStringLiteral("must be greater than 0.5 and at most 0.9, got 0.5");
        QTest::newRow("high") << QStringLiteral("high") << 0.0 << 1.0 << refused << QStringLiteral("\"high\" is not a number");
        QTest::newRow("empty") << QString() << 0.0 << 1.0 << refused << QStringLiteral("\"\" is not a number");
        QTest::newRow("inf") << QStringLiteral("inf") << 0.0 << 1.0 << refused << QStringLiteral("\"inf\" is not a number");
        QTest::newRow("nan") << QStringLiteral("nan") << 0.0 << 1.0 << refused << QStringLiteral("\"nan\" is not a number");
        QTest::newRow("90% is not a fraction") << QStringLiteral("90%") << 0.0 << 1.0 << refused << QStringLiteral("\"90%\" is not a number");
    }
    void parseFraction()
    {
        QFETCH(QString, text);
        QFETCH(double, low);
        QFETCH(double, high);
        QFETCH(double, value);
        QFETCH(QString, message);
        try {
            const double v = Units::parseFraction(text, QStringLiteral("--gpu-memory-utilization"), low, high);
            QVERIFY2(!std::isnan(value), qPrintable(QStringLiteral("accepted as %1").arg(v)));
            QCOMPARE(v, value);
        } catch (const InputError &e) {
            QVERIFY2(std::isnan(value), qPrintable(e.text()));
            QCOMPARE(e.field(), QStringLiteral("--gpu-memory-utilization"));
            QCOMPARE(e.message(), message);
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
        // Binary suffixes (IEC 60027-2): the window's "128 Ki would be 131,072" typed back.
        QTest::newRow("128Ki = 131,072") << QStringLiteral("128Ki") << QStringLiteral("C") << qint64(131'072);
        QTest::newRow("8 Ki = 8,192") << QStringLiteral("8 Ki") << QStringLiteral("C") << qint64(8'192);
        QTest::newRow("1Mi = 1,048,576") << QStringLiteral("1Mi") << QStringLiteral("C") << qint64(1'048'576);
        QTest::newRow("2e5 = 200,000") << QStringLiteral("2e5") << QStringLiteral("C") << qint64(200'000);
        QTest::newRow("128 k with a space") << QStringLiteral("128 k") << QStringLiteral("C") << qint64(128'000);
        QTest::newRow("past 2^31: 3e9") << QStringLiteral("3e9") << QStringLiteral("C") << qint64(3'000'000'000);
        // de_DE: "." groups, "," is the decimal comma ("1,5e6" once became 156).
        QTest::newRow("de: 1.500.000") << QStringLiteral("1.500.000") << QStringLiteral("de_DE") << qint64(1'500'000);
        QTest::newRow("de: 100.000 is unambiguous there") << QStringLiteral("100.000") << QStringLiteral("de_DE") << qint64(100'000);
        QTest::newRow("100.0 is 100 with one decimal") << QStringLiteral("100.0") << QStringLiteral("C") << qint64(100);
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
        const qint64 max = std::numeric_limits<qint64>::max();
        const qint64 min = std::numeric_limits<qint64>::min();
        QCOMPARE(Units::mul(131072, 100000, QStringLiteral("x")), qint64(13'107'200'000));
        QCOMPARE(Units::mul(max, 1, QStringLiteral("x")), max);
        QCOMPARE(Units::mul(0, 0, QStringLiteral("x")), qint64(0));
        QCOMPARE(Units::add(max - 1, 1, QStringLiteral("x")), max);
        QCOMPARE(Units::add(0, 0, QStringLiteral("x")), qint64(0));
        QCOMPARE(Units::sub(5, 7, QStringLiteral("x")), qint64(-2));
        QCOMPARE(Units::sub(min + 1, 1, QStringLiteral("x")), min);
        QCOMPARE(Units::sub(max, 0, QStringLiteral("x")), max);
        auto refused = [](const std::function<qint64()> &call, const QString &field, const QString &message) {
            try {
                const qint64 v = call();
                QTest::qFail(qPrintable(QStringLiteral("accepted as %1; expected %2").arg(v).arg(message)), __FILE__, __LINE__);
            } catch (const InputError &e) {
                QCOMPARE(e.field(), field);
                QCOMPARE(e.message(), message);
            }
        };
        // 2^40 x 2^40 = 2^80 bytes.
        refused([] { return Units::mul(qint64(1) << 40, qint64(1) << 40, QStringLiteral("--context")); }, QStringLiteral("--context"),
                QStringLiteral("is too large: the byte count overflows 64 bits (1,099,511,627,776 x 1,099,511,627,776)"));
        refused([max] { return Units::mul(max, 2, QStringLiteral("--tp")); }, QStringLiteral("--tp"),
                QStringLiteral("is too large: the byte count overflows 64 bits (9,223,372,036,854,775,807 x 2)"));
        refused([] { return Units::mul(-1, 5, QStringLiteral("--weights")); }, QStringLiteral("--weights"), QStringLiteral("must not be negative"));
        refused([] { return Units::mul(5, -1, QStringLiteral("--weights")); }, QStringLiteral("--weights"), QStringLiteral("must not be negative"));
        refused([max] { return Units::add(max, 1, QStringLiteral("--workspace")); }, QStringLiteral("--workspace"),
                QStringLiteral("is too large: the byte count overflows 64 bits"));
        refused([] { return Units::add(-1, 5, QStringLiteral("--workspace")); }, QStringLiteral("--workspace"), QStringLiteral("must not be negative"));
        refused([] { return Units::add(5, -1, QStringLiteral("--workspace")); }, QStringLiteral("--workspace"), QStringLiteral("must not be negative"));
        refused([min] { return Units::sub(min, 1, QStringLiteral("--free-memory-after")); }, QStringLiteral("--free-memory-after"),
                QStringLiteral("is too large: the byte count overflows 64 bits"));
        refused([max] { return Units::sub(max, -1, QStringLiteral("--free-memory-after")); }, QStringLiteral("--free-memory-after"),
                QStringLiteral("is too large: the byte count overflows 64 bits"));
    }

    void format()
    {
        // Seed figures A: 13,107,200,000 B = 13.1 GB (12.2 GiB); 131,072 B = 128 KiB.
        QCOMPARE(Units::formatBytes(13'107'200'000, UnitSystem::Decimal), QStringLiteral("13.1 GB"));
        QCOMPARE(Units::formatBytes(13'107'200'000, UnitSystem::Binary), QStringLiteral("12.2 GiB"));
        QCOMPARE(Units::formatBytes(131072, UnitSystem::Binary), QStringLiteral("128.0 KiB"));
        // One unit from 1,000 of the smaller up: 1.31 x 10^12 B is 1.3 TB, as 13.1 x 10^12 B is 13.1 TB.
        QCOMPARE(Units::formatBytes(1'310'720'000'000, UnitSystem::Decimal), QStringLiteral("1.3 TB"));
        QCOMPARE(Units::formatBytes(13'107'200'000'000, UnitSystem::Decimal), QStringLiteral("13.1 TB"));
        QCOMPARE(Units::formatBytes(999'900'000'000, UnitSystem::Decimal), QStringLiteral("999.9 GB"));
        QCOMPARE(Units::formatBytes(1'099'511'627'776, UnitSystem::Binary), QStringLiteral("1.0 TiB"));
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
        // Whole dollars up to 10^15 (15 digits, within a double's 15-16 significant digits); past
        // it the digits a double does not hold are not printed ("$1,234,567,890,123,456,768"
        // for 1.2345678901234568e18): three significant digits instead.
        QCOMPARE(Units::formatUsd(999'999'999'999'999.0), QStringLiteral("$999,999,999,999,999"));
        QCOMPARE(Units::formatUsd(1.2345678901234568e18), QStringLiteral("$1.23e18"));
        QCOMPARE(Units::formatUsd(1e15), QStringLiteral("$1e15"));
        QCOMPARE(Units::formatUsdPer(4.2e20, QStringLiteral("session-hour")), QStringLiteral("$4.2e20 per session-hour"));
        // One form for every rate (issue 31): always per one unit, three significant digits below
        // $1, so that no row, column or screen says "per session-hour" beside "per 1,000
        // session-hours": $4.73e-5 is $0.0000473 (4.73 x 10^-5 written out), never "$0.0473 per 1,000".
        QCOMPARE(Units::formatUsdPer(4.73e-5, QStringLiteral("session-hour")), QStringLiteral("$0.0000473 per session-hour"));
        QCOMPARE(Units::formatUsdPer(0.7375, QStringLiteral("session-hour")), QStringLiteral("$0.738 per session-hour"));
        QCOMPARE(Units::formatUsdPer(0.00881, QStringLiteral("session-hour")), QStringLiteral("$0.00881 per session-hour"));
        QCOMPARE(Units::formatUsdPer(2e-9, QStringLiteral("token")), QStringLiteral("< $0.000001 per token"));
        // Counts whole with separators; fractions only where there is one (issue 12: "5678.00").
        QCOMPARE(Units::formatDecimal(5678.0), QStringLiteral("5,678"));
        QCOMPARE(Units::formatDecimal(1.5), QStringLiteral("1.5"));
        QCOMPARE(Units::formatDecimal(1234.567), QStringLiteral("1,234.57"));
        QCOMPARE(Units::formatDecimal(-0.001), QStringLiteral("0"));
    }

    void citationsSplitThePublicationFromTheChecks_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("publication");
        QTest::addColumn<QString>("checks");
        // presets/models/qwen3-8b.json: the URL, then how it was checked (issue 31: a customer
        // read "checked against a stored verbatim copy in ..." in the report's sources).
        QTest::newRow("config URL; checks") << QStringLiteral("https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json; checked against a stored verbatim copy")
                                            << QStringLiteral("https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json")
                                            << QStringLiteral("checked against a stored verbatim copy");
        // presets/models/llama-3.1-405b.json: a sentence ends the URL.
        QTest::newRow("config URL. sentence") << QStringLiteral("https://huggingface.co/meta-llama/Llama-3.1-405B/blob/main/config.json. No verbatim stored copy was found")
                                              << QStringLiteral("https://huggingface.co/meta-llama/Llama-3.1-405B/blob/main/config.json")
                                              << QStringLiteral("No verbatim stored copy was found");
        // presets/gpus/a10.json: a "; " inside the datasheet's parenthesis is part of the publication.
        QTest::newRow("parenthesis kept whole") << QStringLiteral("NVIDIA A10 datasheet (600 GB/s; BF16 Tensor 125 TFLOPS dense); stored hardware_spec.md")
                                                << QStringLiteral("NVIDIA A10 datasheet (600 GB/s; BF16 Tensor 125 TFLOPS dense)")
                                                << QStringLiteral("stored hardware_spec.md");
        // A publication alone (4.8 TB/s: a point inside a number is no sentence's end).
        QTest::newRow("publication only") << QStringLiteral("NVIDIA H200 datasheet (4.8 TB/s)") << QStringLiteral("NVIDIA H200 datasheet (4.8 TB/s)") << QString();
    }

    void citationsSplitThePublicationFromTheChecks()
    {
        QFETCH(QString, source);
        QFETCH(QString, publication);
        QFETCH(QString, checks);
        QCOMPARE(Citation::publication(source), publication);
        QCOMPARE(Citation::checks(source), checks);
    }

    void formatRiskOneWay_data()
    {
        QTest::addColumn<double>("p");
        QTest::addColumn<QString>("text");
        // Issue 12: the same risk printed as "0.0001%" and "1e-06". One form: 1 in 1 / p (three
        // significant digits), the short scientific figure beside it as --risk takes it.
        QTest::newRow("1e-6") << 1e-6 << QStringLiteral("1 in 1,000,000 (1e-6)");
        QTest::newRow("the default 0.01") << 0.01 << QStringLiteral("1 in 100 (1e-2)");
        // 1 / 8.1214e-7 = 1,231,314 -> 1,230,000; the mantissa to three digits, 8.12.
        QTest::newRow("8.1214e-7") << 8.1214e-7 << QStringLiteral("1 in 1,230,000 (8.12e-7)");
        // 1 / 0.0501 = 19.96 -> 20.0, whole: 20.
        QTest::newRow("0.0501") << 0.0501 << QStringLiteral("1 in 20 (5.01e-2)");
        QTest::newRow("a tenth and up: percent") << 0.103 << QStringLiteral("10.3%");
        QTest::newRow("one half") << 0.5 << QStringLiteral("50%");
        QTest::newRow("certain") << 1.0 << QStringLiteral("100%");
        QTest::newRow("nearly certain stays below 100%") << 0.9991 << QStringLiteral("99.9%");
        QTest::newRow("zero") << 0.0 << QStringLiteral("0");
        QTest::newRow("far below") << 3.2e-15 << QStringLiteral("below 1 in 1,000,000,000,000 (3.2e-15)");
    }
    void formatRiskOneWay()
    {
        QFETCH(double, p);
        QFETCH(QString, text);
        QCOMPARE(Units::formatRisk(p), text);
    }

    void formatScientificShort()
    {
        // QLocale writes 7.930e-07: no padded exponent, no trailing zeros.
        QCOMPARE(Units::formatScientific(7.93e-7, 4), QStringLiteral("7.93e-7"));
        QCOMPARE(Units::formatScientific(1.1444e-6, 4), QStringLiteral("1.144e-6"));
        QCOMPARE(Units::formatScientific(3.9e-15, 2), QStringLiteral("3.9e-15"));
        QCOMPARE(Units::formatScientific(2.5, 3), QStringLiteral("2.5"));
        QCOMPARE(Units::formatScientific(0.0, 3), QStringLiteral("0"));
    }
};

HEADROOM_TEST_MAIN(TestUnits, QCoreApplication)
#include "tst_units.moc"
