// SPDX-License-Identifier: GPL-3.0-or-later
// model/'s folders include each other in one order, bottom up, as model/README.md states it
// ("Order (bottom up): core < kv < ..."): every `#include "folder/..."` under model/ names its
// own folder or one before it. The order is read from the README, so the two cannot drift apart.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>
#include <algorithm>
#include "common/headroomtest.h"

namespace {

/// The folders of the "Order (bottom up): a < b < ..." line of `readme`; empty when it has none.
QStringList orderFrom(const QString &readme)
{
    static const QRegularExpression line(QStringLiteral("^Order \\(bottom up\\): (.+)$"), QRegularExpression::MultilineOption);
    const QRegularExpressionMatch m = line.match(readme);
    if (!m.hasMatch())
        return {};
    QStringList folders = m.captured(1).split(QLatin1Char('<'));
    for (QString &f : folders)
        f = f.trimmed();
    return folders;
}

/// Every include of `source` (a file in folder `own`) that names a folder of `order` after
/// `own`, as "own -> folder/header"; also one naming `own` itself when `order` lacks it.
QStringList violations(const QStringList &order, const QString &own, const QString &source)
{
    static const QRegularExpression include(QStringLiteral("^\\s*#\\s*include\\s+\"([a-z]+)/([^\"]+)\""), QRegularExpression::MultilineOption);
    QStringList found;
    const qsizetype ownRank = order.indexOf(own);
    if (ownRank < 0)
        return {own + QStringLiteral(": a folder the order does not name")};
    for (auto it = include.globalMatch(source); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const qsizetype rank = order.indexOf(m.captured(1));
        if (rank > ownRank)
            found << own + QStringLiteral(" -> ") + m.captured(1) + QLatin1Char('/') + m.captured(2);
    }
    return found;
}

} // namespace

class TestLayering : public QObject
{
    Q_OBJECT
private slots:
    void modelFoldersIncludeDownwardOnly()
    {
        const QString model = QStringLiteral(HEADROOM_SOURCE "/model");
        QFile readme(model + QStringLiteral("/README.md"));
        QVERIFY2(readme.open(QIODevice::ReadOnly), qPrintable(readme.fileName()));
        const QStringList order = orderFrom(QString::fromUtf8(readme.readAll()));
        QVERIFY2(order.size() >= 8, qPrintable(order.join(QLatin1Char(' '))));

        // Every folder of model/ is in the order, and every one holds sources that were read.
        const QStringList folders = QDir(model).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QVERIFY(folders.size() >= 8);
        // The same includes against the order reversed: every include of a lower folder then runs
        // up it, so the check has cross-folder includes to judge and catches them.
        QStringList reversed = order;
        std::reverse(reversed.begin(), reversed.end());
        QStringList wrong, wrongReversed;
        int files = 0;
        for (const QString &folder : folders) {
            int inFolder = 0;
            QDirIterator it(model + QLatin1Char('/') + folder, {QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                QFile f(it.next());
                QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
                const QString source = QString::fromUtf8(f.readAll());
                wrong << violations(order, folder, source);
                wrongReversed << violations(reversed, folder, source);
                ++inFolder;
            }
            QVERIFY2(inFolder > 0, qPrintable(folder));
            files += inFolder;
        }
        QVERIFY(files > 60);
        QVERIFY2(wrongReversed.size() > 100, qPrintable(QString::number(wrongReversed.size())));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QStringLiteral("; "))));
    }
};

HEADROOM_TEST_MAIN(TestLayering, QCoreApplication)
#include "tst_layering.moc"
