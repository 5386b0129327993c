// SPDX-License-Identifier: GPL-3.0-or-later
// What a new user reads on screen and in the report, each figure labelled for what it is:
// the card's memory (the driver's total or the marketed size), the two means under a cap, the
// risk box in the one form every figure has, the Compare legend naming only what is drawn, the
// presenter's units kept whole, the share axis held to 1, and sensitivity rows past the model's
// maximum context marked. Every expected figure is worked out here from its cited source.

#include "compareview.h"
#include "distributionchartview.h"
#include "distributionview.h"
#include "mainwindow.h"
#include "memorychartview.h"
#include "planner.h"
#include "presetstore.h"
#include "reportwriter.h"
#include "io/configimporter.h"
#include "lengths/lengthdistribution.h"
#include "plan/capacity.h"

#include <QAbstractSeries>
#include <QApplication>
#include <QChart>
#include <QComboBox>
#include <QFile>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <QTextStream>
#include <QValueAxis>
#include <cmath>
#include "common/headroomtest.h"

using namespace Headroom;

class TestShownText : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString store() const { return m_dir.filePath(QStringLiteral("presets.sqlite")); }

    static GpuSpec gpu(const QString &id)
    {
        for (const PresetRecord &r : PresetStore::builtInPresets())
            if (r.id == id)
                return GpuSpec::fromPreset(r.json);
        QTest::qFail(qPrintable(QStringLiteral("no preset ") + id), __FILE__, __LINE__);
        return {};
    }

    // The lengths of a TIMESTAMP,ContextTokens,GeneratedTokens trace: context + generated each
    // (the Azure LLM inference trace's columns, resources/traces/README.md), read here by hand.
    static QVector<qint64> traceLengths(const QString &path)
    {
        QVector<qint64> out;
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
            return out;
        QTextStream in(&f);
        in.readLine(); // the header
        while (!in.atEnd()) {
            const QStringList cells = in.readLine().split(QLatin1Char(','));
            if (cells.size() == 3)
                out << std::max<qint64>(1, cells.at(1).toLongLong() + cells.at(2).toLongLong());
        }
        return out;
    }

    // Each page's text (pdftotext ends each page with a form feed), folded as pdfText's.
    static QStringList pdfPages(const QString &pdf)
    {
        QProcess p;
        p.start(QStringLiteral("pdftotext"), {QStringLiteral("-raw"), pdf, QStringLiteral("-")});
        if (!p.waitForFinished(60000) || p.exitCode() != 0)
            return {};
        QStringList pages = QString::fromUtf8(p.readAllStandardOutput()).split(QLatin1Char('\f'));
        for (QString &page : pages)
            page = page.normalized(QString::NormalizationForm_KC).simplified();
        return pages;
    }

    static QString pdfText(const QString &pdf)
    {
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty()) {
            QTest::qFail("pdftotext (poppler-utils) is needed to read the report back: ./dev test installs it", __FILE__, __LINE__);
            return QString();
        }
        QProcess p;
        // -raw: in the order drawn, so a table cell wrapped over lines reads whole once folded.
        p.start(QStringLiteral("pdftotext"), {QStringLiteral("-raw"), pdf, QStringLiteral("-")});
        if (!p.waitForFinished(60000) || p.exitCode() != 0)
            return QString();
        return QString::fromUtf8(p.readAllStandardOutput()).normalized(QString::NormalizationForm_KC).simplified();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_showntext"));
    }

    void theCardsMemorySaysWhatItIs()
    {
        // presets/gpus/h100-sxm-80gb.json: nvidia-smi Total 81,559 MiB, marketed "80 GB HBM3".
        // 81,559 x 2^20 = 85,520,809,984 B = 85.5 GB (10^9) = 79.6 GiB (2^30: 79.65).
        const GpuSpec h100 = gpu(QStringLiteral("h100-sxm-80gb"));
        QCOMPARE(h100.memoryBytes, qint64(81559) * 1048576);
        QCOMPARE(h100.marketedBytes(), std::optional<qint64>(80'000'000'000));
        QVERIFY(!h100.memoryIsMarketed());
        QCOMPARE(MemoryChartView::cardNote(h100, h100.memoryBytes, UnitSystem::Decimal),
                 QStringLiteral("H100 SXM5 80GB: 85.5 GB = 79.6 GiB (81,559 MiB) as the driver reports it; marketed as 80 GB."));
        QCOMPARE(MemoryChartView::cardNote(h100, h100.memoryBytes, UnitSystem::Binary),
                 QStringLiteral("H100 SXM5 80GB: 79.6 GiB = 85.5 GB (81,559 MiB) as the driver reports it; marketed as 80 GB."));
        // presets/gpus/h20.json: "marketed 96 GB x 10^9", no nvidia-smi printout: 96 x 10^9 B = 89.4 GiB.
        const GpuSpec h20 = gpu(QStringLiteral("h20"));
        QVERIFY(h20.memoryIsMarketed());
        QCOMPARE(MemoryChartView::cardNote(h20, h20.memoryBytes, UnitSystem::Decimal),
                 QStringLiteral("H20 96GB: 96.0 GB = 89.4 GiB, the marketed 96 GB (no driver total found for this card)."));
        // A what-if memory says so: 80 x 10^9 B = 74.5 GiB.
        QVERIFY(MemoryChartView::cardNote(h100, 80'000'000'000, UnitSystem::Decimal).startsWith(QStringLiteral("Card memory 80.0 GB = 74.5 GiB, set as a what-if")));

        // A card of your own without a marketed size: its figure in both units and its source (or
        // "taken as given"); a whole number of GB is a size as cards are sold, which the driver
        // reports about as many GiB of (issue 31): 80 GiB = 85,899,345,920 B = 85.9 GB.
        const QString sold = QStringLiteral(" A card sold as \"80 GB\" reports about 80 GiB (85.9 GB) to its driver: for the exact figure, give the "
                                            "total nvidia-smi prints, in MiB.");
        QCOMPARE(MemoryChartView::cardNote(GpuSpec::custom(80'000'000'000), 80'000'000'000, UnitSystem::Decimal),
                 QStringLiteral("Custom card: 80.0 GB = 74.5 GiB, given by the user.") + sold);
        GpuSpec mine = GpuSpec::custom(80'000'000'000);
        mine.memorySource.clear();
        QCOMPARE(MemoryChartView::cardNote(mine, 80'000'000'000, UnitSystem::Decimal), QStringLiteral("Custom card: 80.0 GB = 74.5 GiB, taken as given.") + sold);
        // A driver's total (81,559 MiB, nvidia-smi on an H100) is taken as it is.
        QCOMPARE(MemoryChartView::cardNote(GpuSpec::custom(81'559LL << 20), 81'559LL << 20, UnitSystem::Decimal),
                 QStringLiteral("Custom card: 85.5 GB = 79.6 GiB, given by the user."));

        // On screen: under the Memory chart of the default card (the H100 SXM), in the units shown.
        MainWindow w(store());
        QTRY_VERIFY(!w.planner()->busy());
        QVERIFY2(w.chartView()->cardNoteText().contains(QStringLiteral("85.5 GB = 79.6 GiB (81,559 MiB) as the driver reports it; marketed as 80 GB")),
                 qPrintable(w.chartView()->cardNoteText()));
        QCOMPARE(w.chartView()->findChild<QLabel *>()->text(), w.chartView()->cardNoteText());
        w.planner()->setUnits(UnitSystem::Binary);
        QTRY_VERIFY2(w.chartView()->cardNoteText().contains(QStringLiteral("79.6 GiB = 85.5 GB")), qPrintable(w.chartView()->cardNoteText()));
        // Laid out as plain text until pressed (a drag asks its height on every step); a
        // double-click still selects a word of it, for Ctrl+C.
        w.show();
        QLabel *note = w.chartView()->findChild<QLabel *>();
        QVERIFY(note->isVisible());
        QVERIFY(!(note->textInteractionFlags() & Qt::TextSelectableByMouse));
        QTest::mouseDClick(note, Qt::LeftButton, {}, QPoint(note->fontMetrics().averageCharWidth(), note->height() / 2));
        QVERIFY(note->textInteractionFlags() & Qt::TextSelectableByMouse);
        QVERIFY(note->hasSelectedText());
    }

    void theTwoMeansAreNamed()
    {
        // The Azure conversation trace capped at 4,096 tokens: the mean of the lengths as capped
        // (min(length, 4,096)) and the lengths' own mean, each worked out here from the CSV.
        const QString path = QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-conv.csv");
        const QVector<qint64> lengths = traceLengths(path);
        QVERIFY(lengths.size() > 19000);
        double sum = 0, capped = 0;
        for (const qint64 l : lengths) {
            sum += double(l);
            capped += double(std::min<qint64>(l, 4096));
        }
        const qint64 mean = std::llround(sum / double(lengths.size())), meanCapped = std::llround(capped / double(lengths.size()));
        QVERIFY(meanCapped < mean);
        MainWindow w(store());
        QVERIFY(w.distributionView()->importTrace(path));
        w.planner()->setRetainTokens(4096);
        QTRY_VERIFY(!w.planner()->busy());
        const QString text = w.distributionView()->figuresText().simplified();
        QVERIFY2(text.contains(QStringLiteral("Sessions at the mean (%1 tokens, the mean of the lengths as capped)").arg(Units::formatCount(meanCapped))),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Lengths before the cap mean %1,").arg(Units::formatCount(mean))), qPrintable(text));
        // Without a cap there is one mean, the lengths'.
        w.planner()->setRetainTokens(std::nullopt);
        QTRY_VERIFY(!w.planner()->busy());
        const QString open = w.distributionView()->figuresText().simplified();
        QVERIFY2(open.contains(QStringLiteral("Sessions at the mean (%1 tokens)").arg(Units::formatCount(mean))), qPrintable(open));
        QVERIFY(!open.contains(QStringLiteral("before the cap")));
    }

    void theRiskBoxReadsAsEveryFigure()
    {
        MainWindow w(store());
        DistributionView *v = w.distributionView();
        QComboBox *box = v->riskCombo();
        QVERIFY(box->isEditable());
        // 0.01 is 1 in 1 / 0.01 = 100: "1 in 100 (1e-2)", as Units::formatRisk writes every risk.
        w.planner()->setRisk(0.01);
        QCOMPARE(box->currentText(), QStringLiteral("1 in 100 (1e-2)"));
        w.planner()->setRisk(1e-6);
        QCOMPARE(box->currentText(), QStringLiteral("1 in 1,000,000 (1e-6)"));
        // Every entry of the list reads so (the list offers 1e-2 down to 1e-6 at least).
        QVERIFY2(box->count() >= 5, qPrintable(QString::number(box->count())));
        for (int i = 0; i < box->count(); ++i)
            QVERIFY2(box->itemText(i).startsWith(QStringLiteral("1 in ")), qPrintable(box->itemText(i)));
        // Typed: "1 in 5,000" is 1 / 5,000 = 2e-4; a decimal and a percentage too.
        auto type = [box](const QString &text) {
            box->lineEdit()->setText(text);
            Q_EMIT box->lineEdit()->editingFinished();
        };
        type(QStringLiteral("1 in 5,000"));
        QCOMPARE(w.planner()->scenario().risk, 1.0 / 5000.0);
        QCOMPARE(box->currentText(), QStringLiteral("1 in 5,000 (2e-4)"));
        type(QStringLiteral("0.002"));
        QCOMPARE(w.planner()->scenario().risk, 0.002);
        QCOMPARE(box->currentText(), QStringLiteral("1 in 500 (2e-3)")); // not snapped to the list's 1e-3
        type(QStringLiteral("2%"));
        QCOMPARE(w.planner()->scenario().risk, 0.02);
        // 0.0104 shows rounded (1 / 0.0104 = 96.15...: "1 in 96"); Enter again, or leaving the box,
        // must not read that rounding back as 1 / 96 = 0.010417 (a higher risk, a larger count).
        type(QStringLiteral("0.0104"));
        QCOMPARE(w.planner()->scenario().risk, 0.0104);
        const int steps = w.planner()->undoStack()->count();
        Q_EMIT box->lineEdit()->editingFinished();
        Q_EMIT box->lineEdit()->editingFinished();
        QCOMPARE(w.planner()->scenario().risk, 0.0104);
        QCOMPARE(w.planner()->undoStack()->count(), steps);
        type(QStringLiteral("2%"));
        // Past the risk's range (1e-6 to 0.5, model/core/inputranges.h): refused with the reason,
        // the box tinted, the last valid risk kept.
        type(QStringLiteral("0.7"));
        QCOMPARE(w.planner()->scenario().risk, 0.02);
        QVERIFY2(box->toolTip().startsWith(QStringLiteral("Risk: ")), qPrintable(box->toolTip()));
        QVERIFY(box->palette().color(QPalette::Base) != box->parentWidget()->palette().color(QPalette::Base));
        type(QStringLiteral("1 in many"));
        QCOMPARE(w.planner()->scenario().risk, 0.02);
        // Picking from the list sets its risk and clears the tint.
        box->setCurrentIndex(box->findData(1e-3));
        Q_EMIT box->activated(box->currentIndex());
        QCOMPARE(w.planner()->scenario().risk, 1e-3);
        QCOMPARE(box->currentText(), QStringLiteral("1 in 1,000 (1e-3)"));
        QVERIFY(box->accessibleDescription().isEmpty());
        // Whose risk it is (issue 29), in the box beside: "the whole fleet" takes the risk shown
        // as the fleet's (one undo step), and what is typed then is the fleet's; each replica's
        // is kept, unread, and comes back with "each replica".
        QComboBox *scope = v->riskScopeCombo();
        QCOMPARE(scope->currentIndex(), 0);
        scope->setCurrentIndex(1);
        Q_EMIT scope->activated(1);
        QCOMPARE(w.planner()->scenario().fleetRisk, std::optional<double>(1e-3));
        type(QStringLiteral("1 in 200"));
        QCOMPARE(w.planner()->scenario().fleetRisk, std::optional<double>(1.0 / 200.0));
        QCOMPARE(w.planner()->scenario().risk, 1e-3);
        QCOMPARE(box->currentText(), QStringLiteral("1 in 200 (5e-3)"));
        w.planner()->undoStack()->undo();
        QCOMPARE(w.planner()->scenario().fleetRisk, std::optional<double>(1e-3));
        w.planner()->undoStack()->undo();
        QVERIFY(!w.planner()->scenario().fleetRisk);
        QCOMPARE(scope->currentIndex(), 0);
        QCOMPARE(box->currentText(), QStringLiteral("1 in 1,000 (1e-3)"));
    }

    void theCompareLegendNamesWhatIsDrawn()
    {
        MainWindow w(store());
        Planner *p = w.planner();
        CompareView *compare = w.findChild<CompareView *>();
        QVERIFY(compare && p->pinCurrent());
        p->setContextTokens(2'000'000); // one session past the card (more sessions size a fleet): the current column overflows, the pinned one does not
        QTRY_VERIFY(!p->busy());
        compare->table(); // brings the hidden tab up to date
        QLabel *legend = nullptr;
        for (QLabel *l : compare->findChildren<QLabel *>())
            if (l->text().contains(QStringLiteral("KV cache")))
                legend = l;
        QVERIFY(legend);
        // The entries are the bands with bytes in some chart, and only those.
        const QList<MemoryChartView *> charts = compare->findChildren<MemoryChartView *>();
        QCOMPARE(charts.size(), 2);
        int drawn = 0;
        const auto names = MemoryChartView::legend();
        for (int band = 0; band < names.size(); ++band) {
            bool any = false;
            for (const MemoryChartView *c : charts) {
                const MemoryChartView::Segments &s = c->segments();
                const qint64 bytes[] = {s.weights, s.visionEncoder, s.draftWeights, s.lora, s.workspace, s.encoderCache, s.heldBack,
                                        s.kvCache, s.indexer, s.draftKv, s.free, s.overflow, s.hostKv};
                any = any || bytes[band] > 0;
            }
            drawn += any ? 1 : 0;
            QVERIFY2(legend->text().contains(names.at(band).first.toHtmlEscaped()) == any, qPrintable(names.at(band).first));
        }
        QCOMPARE(int(legend->text().count(QStringLiteral("■"))), drawn);
        // 400 sessions do not fit: the overflow is drawn and named.
        QVERIFY(legend->text().contains(QStringLiteral("Over capacity")));
    }

    void aCompareColumnPastTheMaximumSaysSo()
    {
        // The default model is Llama-3.1-8B, max_position_embeddings 131,072 (its config.json,
        // tests/data/llama-3.1-8b/config.json): 150,000 tokens is past it, 100,000 is not.
        MainWindow w(store());
        Planner *p = w.planner();
        CompareView *compare = w.findChild<CompareView *>();
        p->setContextTokens(100000);
        QVERIFY(compare && p->pinCurrent());
        p->setContextTokens(150000);
        QTRY_VERIFY(!p->busy());
        QTableWidget *table = compare->table();
        int row = -1;
        for (int r = 0; r < table->rowCount(); ++r)
            if (table->verticalHeaderItem(r)->text() == QLatin1String("Context"))
                row = r;
        QVERIFY(row >= 0 && !table->isRowHidden(row));
        QCOMPARE(table->item(row, 0)->text(), QStringLiteral("100,000 tokens"));
        QCOMPARE(table->item(row, 1)->text(), QStringLiteral("150,000 tokens, past the model's 131,072-token maximum"));
    }

    void thePresenterKeepsAUnitWhole()
    {
        MainWindow w(store());
        QTRY_VERIFY(!w.planner()->busy());
        QLabel *caption = nullptr;
        for (QLabel *l : w.findChild<QWidget *>(QStringLiteral("presenterHeadline"))->findChildren<QLabel *>())
            if (l->text().contains(QStringLiteral("session")) && l->text().contains(QStringLiteral("hour")))
                caption = l;
        QVERIFY(caption);
        // "per session-hour" with U+2011 (non-breaking hyphen): a wrapped caption cannot break it.
        QVERIFY2(caption->text().contains(QStringLiteral("session\u2011hour")), qPrintable(caption->text()));
        QVERIFY(!caption->text().contains(QLatin1Char('-')));
    }

    void theShareAxisStopsAtOne()
    {
        // A fixed context is one band holding every session, share 1: the axis ends at 1, not 1.5.
        DistributionChartView view;
        view.show(LengthDistribution::fixed(128000), 0, {});
        QValueAxis *share = nullptr;
        for (QAbstractAxis *a : view.chart()->axes(Qt::Vertical))
            if (a->titleText() == QLatin1String("share"))
                share = qobject_cast<QValueAxis *>(a);
        QVERIFY(share);
        QCOMPARE(share->max(), 1.0);
        // A spread trace keeps its own smaller top.
        view.show(LengthDistribution::fromTrace(QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-conv.csv"), QStringLiteral("trace")), 0, {});
        QVERIFY(share->max() <= 1.0 && share->max() > 0);
    }

    void aChartIsOnThePageOfItsHeading()
    {
        // The README's report (Llama-3.1-70B, TP 4, the Azure conversation trace capped at 4,096, a
        // 1e-6 risk, 1,000 sessions): a section's heading and figures are never left at the foot of
        // one page with its chart alone on the next.
        Scenario s;
        for (const PresetRecord &r : PresetStore::builtInPresets())
            if (r.id == QLatin1String("llama-3.1-70b"))
                s.model = ConfigImporter::fromPreset(r.json);
        s.gpu = gpu(QStringLiteral("h100-sxm-80gb"));
        s.tp = 4;
        s.distribution = LengthDistribution::fromTrace(QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-conv.csv"), QStringLiteral("trace"));
        s.retainTokens = 4096;
        s.risk = 1e-6;
        s.targetSessions = 1000;
        ReportInput in;
        in.scenario = s;
        in.result = computeCapacity(s);
        in.name = QStringLiteral("README");
        QVERIFY(in.result.ok);
        const QString pdf = m_dir.filePath(QStringLiteral("readme.pdf"));
        QString error;
        QVERIFY2(ReportWriter::writePdf(pdf, in, QPageSize::A4, &error), qPrintable(error));
        const QStringList pages = pdfPages(pdf);
        QVERIFY(pages.size() > 3);
        // Chart title -> the heading of its section (reportwriter.cpp).
        const QVector<QPair<QString, QString>> sections = {{QStringLiteral("Batch versus latency"), QStringLiteral("Throughput and latency, at")},
                                                           {QStringLiteral("resident tokens per session"), QStringLiteral("Session lengths and risk, against")}};
        for (const auto &[chart, heading] : sections) {
            int found = 0;
            for (const QString &page : pages)
                if (page.contains(chart)) {
                    ++found;
                    QVERIFY2(page.contains(heading), qPrintable(chart + QStringLiteral(" without its heading: ") + page));
                }
            QCOMPARE(found, 1);
        }
    }

    void sensitivityPastTheMaximumIsMarked()
    {
        // meta-llama/Llama-3.1-8B config.json (tests/data/llama-3.1-8b/): max_position_embeddings 131,072.
        const qint64 maximum = 131072;
        Scenario s;
        s.model = ConfigImporter::fromFile(QStringLiteral(HEADROOM_TEST_DATA "/llama-3.1-8b/config.json"), QStringLiteral("--model"));
        QCOMPARE(s.model.maxPositionEmbeddings, maximum);
        s.gpu = gpu(QStringLiteral("h100-sxm-80gb"));
        // 100,000 tokens: +50% is 150,000, past 131,072; -50% is 50,000, within it.
        s.contextTokens = 100000;
        ReportInput in;
        in.scenario = s;
        in.result = computeCapacity(s);
        in.units = UnitSystem::Decimal;
        in.name = QStringLiteral("past the maximum");
        QVERIFY(in.result.ok && !in.result.contextBeyondMax);
        const QString pdf = m_dir.filePath(QStringLiteral("past.pdf"));
        QString error;
        QVERIFY2(ReportWriter::writePdf(pdf, in, QPageSize::A4, &error), qPrintable(error));
        const QString text = pdfText(pdf);
        const QString mark = QStringLiteral("past the model's %1-token maximum").arg(Units::formatCount(maximum));
        QVERIFY2(text.contains(QStringLiteral("context +50% (150,000 tokens), ") + mark), qPrintable(text));
        QVERIFY(!text.contains(QStringLiteral("context −50% (50,000 tokens), past")));
    }
};

HEADROOM_TEST_MAIN(TestShownText, QApplication)
#include "tst_showntext.moc"
