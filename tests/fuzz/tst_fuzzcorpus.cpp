// SPDX-License-Identifier: GPL-3.0-or-later
// Every input in tests/data/fuzz/<target>/ (seeds, and the minimised inputs of
// crashes, hangs and sanitizer reports the fuzzers found) goes through its
// fuzz target again in the ordinary build and the sanitizer build: each must
// be refused with a field named or accepted with the target's invariants
// holding (fuzztargets.h). The test data the fuzzers are seeded with
// (tests/data/*/config.json, logs, traces) run through their targets too.
#include "fuzztargets.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTest>

using namespace Headroom;

class TestFuzzCorpus : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void replay_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("path");
        const QString data = QStringLiteral(HEADROOM_TEST_DATA);
        int rows = 0;
        auto add = [&](const QString &target, const QString &dir, const QStringList &filters) {
            QDirIterator it(dir, filters, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                QTest::newRow(qPrintable(target + QLatin1Char(':') + QDir(data).relativeFilePath(path))) << target << path;
                ++rows;
            }
        };
        for (const QString &target : FuzzTargets::names())
            add(target, data + QStringLiteral("/fuzz/") + target, {QStringLiteral("*")});
        add(QStringLiteral("config"), data, {QStringLiteral("config.json")});
        add(QStringLiteral("calibration"), data + QStringLiteral("/logs"), {QStringLiteral("*.log")});
        add(QStringLiteral("trace"), data + QStringLiteral("/traces"), {QStringLiteral("*.csv")});
        // A corpus that went missing must not pass as an empty one.
        QVERIFY2(rows > 40, qPrintable(QStringLiteral("only %1 inputs found under %2").arg(rows).arg(data)));
    }
    void replay()
    {
        QFETCH(QString, target);
        QFETCH(QString, path);
        QFile f(path);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
        const QString problem = FuzzTargets::run(target, f.readAll());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
};

QTEST_GUILESS_MAIN(TestFuzzCorpus)
#include "tst_fuzzcorpus.moc"
