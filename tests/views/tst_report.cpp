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

    static QString run(const QString &program, const QStringList &args)
    {
        QProcess p;
        p.start(program, args);
        p.waitForFinished(60000);
        return QString::fromUtf8(p.readAllStandardOutput());
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
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QFAIL("pdftotext (poppler-utils) is needed to read the report back: ./dev test installs it");
        const QString text = run(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
        const QJsonObject plan = r.toJson();
        QVERIFY(text.contains(QStringLiteral("327,680 B")));
        QVERIFY(text.contains(QStringLiteral("kv_bytes_per_token")) && text.contains(QStringLiteral("327680")));
        QVERIFY(text.contains(QString::number(plan.value(QStringLiteral("sessions_at_risk")).toInteger())));
        QVERIFY(text.contains(QString::number(plan.value(QStringLiteral("cost_per_session_hour_usd")).toDouble(), 'g', 15)));
        QVERIFY(text.contains(QString::number(plan.value(QStringLiteral("cost_per_million_tokens_usd")).toDouble(), 'g', 15)));
        QVERIFY(text.contains(QStringLiteral("Page 1 of")));
        QVERIFY(text.contains(QStringLiteral("Derivation")) && text.contains(QStringLiteral("Assumptions and units")));
        const QString info = run(QStringLiteral("pdfinfo"), {pdf});
        QVERIFY2(info.contains(QStringLiteral("A4")), qPrintable(info));
        const QString fonts = run(QStringLiteral("pdffonts"), {pdf});
        QVERIFY2(!fonts.contains(QStringLiteral(" no  ")) || fonts.contains(QStringLiteral("yes")), qPrintable(fonts));
        // Vector charts: no page carries an embedded raster image.
        QCOMPARE(run(QStringLiteral("pdfimages"), {QStringLiteral("-list"), pdf}).split(QLatin1Char('\n'), Qt::SkipEmptyParts).size(), 2);
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
