// SPDX-License-Identifier: GPL-3.0-or-later
// The PDF report of issue "Done when": Llama-3.1-70B on H100 SXM 80GB, TP 4,
// the Azure conversation trace as the distribution. Read back with pdftotext
// (poppler-utils), it must hold the bytes per token, the sessions and the cost
// figures that the plan gives, as text; fonts embedded; charts as vectors.
#include "plan/capacity.h"
#include "io/configimporter.h"
#include "presetstore.h"
#include "reportwriter.h"

#include <QApplication>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;

class TestReport : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // The standard output of a poppler-utils program; the test fails (not passes) when the
    // program is missing or does not finish cleanly.
    static QString run(const QString &program, const QStringList &args)
    {
        if (QStandardPaths::findExecutable(program).isEmpty()) {
            QTest::qFail(qPrintable(program + QStringLiteral(" (poppler-utils) is needed to read the report back: ./dev test installs it")),
                         __FILE__, __LINE__);
            return QString();
        }
        QProcess p;
        p.start(program, args);
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
            QTest::qFail(qPrintable(program + QStringLiteral(" failed: ") + QString::fromUtf8(p.readAllStandardError())), __FILE__, __LINE__);
            return QString();
        }
        return QString::fromUtf8(p.readAllStandardOutput());
    }

    // pdffonts prints a header, a rule of dashes, then one font per line; the "emb" column
    // says whether the font is embedded. Returns the lines of fonts that are not embedded,
    // and the number of fonts in *count.
    static QStringList notEmbedded(const QString &pdffonts, int *count)
    {
        const QStringList lines = pdffonts.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QStringList out;
        *count = 0;
        if (lines.size() < 2 || !lines.at(1).startsWith(QStringLiteral("---"))) {
            out << QStringLiteral("unexpected pdffonts output: ") + pdffonts;
            return out;
        }
        const int emb = int(lines.at(0).indexOf(QStringLiteral(" emb ")) + 1);
        if (emb <= 0) {
            out << QStringLiteral("no emb column: ") + lines.at(0);
            return out;
        }
        for (int i = 2; i < lines.size(); ++i) {
            ++*count;
            if (lines.at(i).mid(emb, 3) != QLatin1String("yes"))
                out << lines.at(i);
        }
        return out;
    }

private Q_SLOTS:
    void doneWhen()
    {
        Scenario s;
        for (const PresetRecord &r : PresetStore::builtInPresets()) {
            if (r.id == QLatin1String("llama-3.1-70b"))
                s.model = ConfigImporter::fromPreset(r.json);
            if (r.id == QLatin1String("h100-sxm-80gb"))
                s.gpu = GpuSpec::fromPreset(r.json);
        }
        s.tp = 4;
        s.distribution = LengthDistribution::fromTrace(QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-conv.csv"), QStringLiteral("t"));
        s.contextTokens = s.distribution->maximum();
        s.targetSessions = 1000;
        const CapacityResult r = computeCapacity(s);
        QVERIFY(r.ok);
        // Llama-3.1-70B config.json: 80 layers x 2 x 8 KV heads x 128 x 2 B = 327,680 B per token.
        QCOMPARE(r.kvBytesPerToken, qint64(327680));

        const QString pdf = m_dir.filePath(QStringLiteral("report.pdf"));
        QString error;
        QVERIFY2(ReportWriter::writePdf(pdf, ReportInput{QStringLiteral("70B on 4 x H100"), s, r, UnitSystem::Decimal, {}},
                                        QPageSize::A4, &error),
                 qPrintable(error));
        const QString text = run(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
        if (QTest::currentTestFailed())
            return;
        const QJsonObject plan = r.toJson();
        QVERIFY(text.contains(QStringLiteral("327,680 B")));
        QVERIFY(text.contains(QStringLiteral("kv_bytes_per_token")) && text.contains(QStringLiteral("327680")));
        // Worst case: every session the longest request of the trace, 14,089 tokens = 881 blocks of
        // 16 = 14,096 tokens x 81,920 B per GPU (2 of the 8 KV heads at TP 4) = 1,154,744,320 B.
        const DistributionFigures &d = r.distribution;
        QCOMPARE(d.sessionsWorstCase, r.kvBudgetBytesPerGpu / qint64(1'154'744'320));
        QVERIFY(d.sessionsWorstCase <= d.sessionsAtRisk && d.sessionsAtRisk <= d.sessionsAtMean);
        QCOMPARE(plan.value(QStringLiteral("sessions_at_risk")).toInteger(), d.sessionsAtRisk);
        // The report's row and its plan --json table carry those counts, labelled.
        const QString riskRow = QStringLiteral("Sessions per TP group at the risk +%1 \\(risk 0.01; worst case %2, at the mean %3\\)")
                                    .arg(Units::formatCount(d.sessionsAtRisk), Units::formatCount(d.sessionsWorstCase),
                                         Units::formatCount(d.sessionsAtMean));
        QVERIFY2(text.contains(QRegularExpression(riskRow)), qPrintable(riskRow));
        QVERIFY(text.contains(QRegularExpression(QStringLiteral("sessions_at_risk +%1\\b").arg(d.sessionsAtRisk))));
        QVERIFY(text.contains(QString::number(plan.value(QStringLiteral("cost_per_session_hour_usd")).toDouble(), 'g', 15)));
        QVERIFY(text.contains(QString::number(plan.value(QStringLiteral("cost_per_million_tokens_usd")).toDouble(), 'g', 15)));
        QVERIFY(text.contains(QStringLiteral("Page 1 of")));
        QVERIFY(text.contains(QStringLiteral("Derivation")) && text.contains(QStringLiteral("Assumptions and units")));
        const QString info = run(QStringLiteral("pdfinfo"), {pdf});
        QVERIFY2(info.contains(QStringLiteral("A4")), qPrintable(info));
        // Every font embedded, and there is text to need one.
        int fontCount = 0;
        const QStringList missing = notEmbedded(run(QStringLiteral("pdffonts"), {pdf}), &fontCount);
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QLatin1Char('\n'))));
        QVERIFY(fontCount > 0);
        // Vector charts: no page carries an embedded raster image.
        QCOMPARE(run(QStringLiteral("pdfimages"), {QStringLiteral("-list"), pdf}).split(QLatin1Char('\n'), Qt::SkipEmptyParts).size(), 2);
    }

    void fontCheckSeesAFontThatIsNotEmbedded()
    {
        // pdffonts' layout (poppler-utils 22): a base-14 Helvetica that is referenced, not embedded.
        const QString out = QStringLiteral(
            "name                                 type              encoding         emb sub uni object ID\n"
            "------------------------------------ ----------------- ---------------- --- --- --- ---------\n"
            "ECEDAZ+DejaVuSans                    CID TrueType      Identity-H       yes yes yes      8  0\n"
            "Helvetica                            Type 1            Standard         no  no  no       9  0\n");
        int count = 0;
        const QStringList missing = notEmbedded(out, &count);
        QCOMPARE(count, 2);
        QCOMPARE(missing, QStringList{out.split(QLatin1Char('\n')).at(3)});
        QCOMPARE(notEmbedded(QStringLiteral("Syntax Error: Couldn't open file"), &count).size(), 1); // not pdffonts' table: a failure
    }

    void comparisonPage()
    {
        Scenario a;
        a.model = ConfigImporter::fromFile(QStringLiteral(HEADROOM_TEST_DATA "/llama-3.1-8b/config.json"), QStringLiteral("m"));
        a.gpu = GpuSpec::custom(80'000'000'000);
        a.contextTokens = 100000;
        Scenario b = a;
        b.kvDtype = Dtype::FP8;
        const QString pdf = m_dir.filePath(QStringLiteral("compare.pdf"));
        QString error;
        QVERIFY2(ReportWriter::writePdf(pdf, ReportInput{QStringLiteral("bf16"), a, computeCapacity(a), UnitSystem::Binary, {{QStringLiteral("fp8 cache"), b}}},
                                        QPageSize::Letter, &error),
                 qPrintable(error));
        const QString text = run(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
        QVERIFY(text.contains(QStringLiteral("Comparison")));
        // 131,072 B per token at bf16, 65,536 B with the 8-bit cache (seed-figures.md B).
        QVERIFY(text.contains(QStringLiteral("131,072 B")) && text.contains(QStringLiteral("65,536 B")));
        QVERIFY(run(QStringLiteral("pdfinfo"), {pdf}).contains(QStringLiteral("letter")));
    }
};

HEADROOM_TEST_MAIN(TestReport, QApplication)
#include "tst_report.moc"
