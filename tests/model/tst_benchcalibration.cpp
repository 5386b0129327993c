// SPDX-License-Identifier: GPL-3.0-or-later
// Calibration of time from a benchmark's printed result: vllm bench serve, sglang.bench_serving
// and llama-bench outputs from public threads (tests/data/benchmarks/, sources in SOURCE.md) are
// read, and the card's achieved fractions fitted to their times.
#include "core/inputerror.h"
#include "io/benchcalibration.h"
#include "io/configimporter.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include "plan/timeconstants.h"
#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;

namespace {
QString fixture(const char *name)
{
    QFile f(QStringLiteral(HEADROOM_TEST_DATA "/benchmarks/") + QString::fromLatin1(name));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QJsonObject preset(const QString &kind, const QString &id)
{
    QFile f(QStringLiteral(HEADROOM_SOURCE "/presets/%1/%2.json").arg(kind, id));
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

// A scenario of a built-in model on a built-in card, as `--model ID --gpu ID` gives it.
Scenario on(const char *model, const char *gpu, int tp = 1)
{
    Scenario s;
    s.model = ConfigImporter::fromPreset(preset(QStringLiteral("models"), QString::fromLatin1(model)));
    s.gpu = GpuSpec::fromPreset(preset(QStringLiteral("gpus"), QString::fromLatin1(gpu)));
    s.tp = tp;
    return s;
}

// The figure named `name` of a reading.
const BenchFigure &figure(const BenchReading &r, const QString &name)
{
    for (const BenchFigure &f : r.figures)
        if (f.figure == name)
            return f;
    throw InputError(QStringLiteral("test"), QStringLiteral("no figure ") + name);
}

// `text`'s reading refused: the message names `expected`.
void refused(const QString &text, const QString &expected)
{
    try {
        BenchReading::read(text, QStringLiteral("LOGFILE"));
        QFAIL(qPrintable(QStringLiteral("not refused: ") + expected));
    } catch (const InputError &e) {
        QCOMPARE(e.field(), QStringLiteral("LOGFILE"));
        QVERIFY2(e.message().contains(expected), qPrintable(e.text()));
    }
}
} // namespace

class TestBenchCalibration : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void vllmServeBlock()
    {
        // vllm-project/vllm#31826, `vllm bench serve` at --max-concurrency 8 (TP2).
        const QString text = fixture("vllm-serve-tp2-concurrency8.txt");
        QVERIFY(BenchReading::recognises(text));
        const BenchReading r = BenchReading::read(text, QStringLiteral("LOGFILE"));
        QCOMPARE(r.tool, BenchReading::Tool::VllmServe);
        QCOMPARE(r.figures.size(), 6);
        const BenchFigure &itl = figure(r, QStringLiteral("Median ITL (ms)"));
        QCOMPARE(itl.printed, 6.08);
        QCOMPARE(itl.line, 24);
        QCOMPARE(itl.batch, 8.0);
        QCOMPARE(itl.kind, BenchFigure::Kind::Decode);
        // Mean prompt 215,312 / 1000, plus half the mean output 199,033 / 1000.
        QCOMPARE(itl.tokens, 215.312 + 199.033 / 2);
        // The author's "<========" after the median TTFT is not part of its value.
        const BenchFigure &ttft = figure(r, QStringLiteral("Median TTFT (ms)"));
        QCOMPARE(ttft.printed, 27.44);
        QCOMPARE(ttft.kind, BenchFigure::Kind::Prefill);
        QCOMPARE(ttft.tokens, 215.312);
        QVERIFY(ttft.batchBasis.contains(QStringLiteral("Maximum request concurrency: 8")));
    }

    void vllmConcurrencyBeforeTheBlock()
    {
        // vllm-project/vllm#9722: benchmark_serving.py printed the limit before the block.
        const BenchReading r = BenchReading::read(fixture("vllm-benchmark-serving-concurrency30.txt"), QStringLiteral("LOGFILE"));
        QCOMPARE(figure(r, QStringLiteral("Mean TPOT (ms)")).batch, 30.0);
        QCOMPARE(figure(r, QStringLiteral("Mean TPOT (ms)")).printed, 875.24);
        QCOMPARE(figure(r, QStringLiteral("Median ITL (ms)")).tokens, 777.0 + 6.03 / 2);
    }

    void sglangBlock()
    {
        // sgl-project/sglang#8552: "Concurrency: 1.00", the measured mean in flight, is the batch.
        const BenchReading r = BenchReading::read(fixture("sglang-bench-serving-concurrency1.txt"), QStringLiteral("LOGFILE"));
        QCOMPARE(r.tool, BenchReading::Tool::SglangServe);
        QCOMPARE(r.toolName(), QStringLiteral("sglang.bench_serving"));
        QCOMPARE(r.figures.size(), 4);
        QCOMPARE(figure(r, QStringLiteral("Median ITL (ms)")).printed, 8.47);
        QCOMPARE(figure(r, QStringLiteral("Median ITL (ms)")).batch, 1.0);
        QVERIFY(figure(r, QStringLiteral("Median ITL (ms)")).batchBasis.contains(QStringLiteral("measured mean")));
        QCOMPARE(figure(r, QStringLiteral("Mean TTFT (ms)")).tokens, 1000.0);
    }

    void llamaBenchTables()
    {
        // ggml-org/llama.cpp#4812: the old test names and an nkvo column.
        const BenchReading old = BenchReading::read(fixture("llamabench-llama-7b-q4_0-3090ti-nkvo.txt"), QStringLiteral("LOGFILE"));
        QCOMPARE(old.tool, BenchReading::Tool::LlamaBench);
        QCOMPARE(old.model, QStringLiteral("llama 7B Q4_0"));
        QCOMPARE(*old.weights, qint64(std::llround(3.56 * double(Units::GiB))));
        QCOMPARE(old.figures.size(), 4);
        const BenchFigure &tg = old.figures.at(1);
        QCOMPARE(tg.figure, QStringLiteral("tg 128"));
        QCOMPARE(tg.printed, 127.43);
        QCOMPARE(tg.unit, QStringLiteral("t/s"));
        QCOMPARE(tg.tokens, 64.0);
        QCOMPARE(tg.ms(), 1000.0 / 127.43);
        QCOMPARE(old.figures.at(0).ms(), 512 * 1000.0 / 4035.47);
        QCOMPARE(old.figures.at(0).line, 4);
        // llama.cpp's README: the new names, with a depth.
        const BenchReading depth = BenchReading::read(fixture("llamabench-qwen2-7b-depth512.txt"), QStringLiteral("LOGFILE"));
        QCOMPARE(depth.figures.size(), 4);
        QCOMPARE(depth.figures.at(3).figure, QStringLiteral("tg128 @ d512"));
        QCOMPARE(depth.figures.at(3).tokens, 512.0 + 64);
        QCOMPARE(depth.figures.at(3).rank, 512);
        QCOMPARE(depth.figures.at(2).kind, BenchFigure::Kind::Prefill);
    }

    void malformedInputNamesItsLine_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        const QString vllm = fixture("vllm-serve-tp2-concurrency8.txt");
        QTest::newRow("a result line holding no number") << QString(vllm).replace(QStringLiteral("6.35\nMedian TPOT"), QStringLiteral("abc\nMedian TPOT"))
                                                         << QStringLiteral("line 19: \"Mean TPOT (ms):\" holds \"abc\", not a number");
        QTest::newRow("a block without its token totals") << QString(vllm).remove(QRegularExpression(QStringLiteral("Total input tokens:[^\n]*\n")))
                                                          << QStringLiteral("line 2: the result block has no \"Total input tokens:\" line");
        QTest::newRow("a block without a concurrency or throughput")
            << QString(vllm).remove(QRegularExpression(QStringLiteral("(Maximum request concurrency|Output token throughput \\(tok/s\\)):[^\n]*\n")))
            << QStringLiteral("line 2: the result block prints no concurrency");
        const QString table = fixture("llamabench-qwen2-7b-depth512.txt");
        QTest::newRow("a table without t/s") << QString(table).replace(QStringLiteral("t/s"), QStringLiteral("tps"))
                                             << QStringLiteral("line 1: the llama-bench table has no \"t/s\" column");
        QTest::newRow("a t/s that is no rate") << QString(table).replace(QStringLiteral("120.60 ± 0.59"), QStringLiteral("fast"))
                                               << QStringLiteral("line 4: t/s \"fast\" is not a rate");
        QTest::newRow("a row short of cells") << QString(table).replace(QStringLiteral("|           tg128 |"), QStringLiteral("|"))
                                              << QStringLiteral("line 4: 6 cells where the table's header (line 1) has 7");
        QTest::newRow("an unknown test") << QString(table).replace(QStringLiteral("   tg128 |"), QStringLiteral("   xx128 |"))
                                         << QStringLiteral("line 4: test \"xx128\" is not a llama-bench pp or tg test");
        // ggml-org/llama.cpp#4766: F16 and Q8_0 rows in one table.
        QTest::newRow("a concurrency of 0") << QString(vllm).replace(QStringLiteral("concurrency:             8"), QStringLiteral("concurrency:             0"))
                                            << QStringLiteral("line 5: \"Maximum request concurrency: 0\": a run holds at least one request at a time");
        QTest::newRow("a size of nothing") << QString(table).replace(QStringLiteral("4.36 GiB"), QStringLiteral("0 GiB"))
                                           << QStringLiteral("line 3: size \"0 GiB\" is not a positive size");
        QTest::newRow("a size in TiB") << QString(table).replace(QStringLiteral("4.36 GiB"), QStringLiteral("9 TiB"))
                                       << QStringLiteral("line 3: size \"9 TiB\" is not a positive size");
        QTest::newRow("a time past 10,000 s") << QString(vllm).replace(QStringLiteral("6.35\nMedian TPOT"), QStringLiteral("1e308\nMedian TPOT"))
                                              << QStringLiteral("line 19: Mean TPOT (ms) 1e308 is outside 0.001 ms to 10,000,000 ms");
        QTest::newRow("two models") << fixture("llamabench-llama-7b-f16-q8_0-4090.txt") << QStringLiteral("line 6: a second model (\"llama 7B Q8_0\"");
        QTest::newRow("both kinds") << vllm + table << QStringLiteral("paste one benchmark at a time");
        QTest::newRow("neither") << QStringLiteral("Serving Benchmark Result\nnothing here\n") << QStringLiteral("line 1: the result block has no \"Successful requests:\" line");
    }

    void malformedInputNamesItsLine()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        refused(text, expected);
    }

    void nanIsLeftOutWithANote()
    {
        const QString text = fixture("sglang-bench-serving-concurrency1.txt").replace(QStringLiteral("8.49  "), QStringLiteral("nan   "));
        const BenchReading r = BenchReading::read(text, QStringLiteral("LOGFILE"));
        QCOMPARE(r.figures.size(), 3);
        QVERIFY2(r.notes.join(QLatin1Char(' ')).contains(QStringLiteral("line 23: Mean ITL (ms) is nan")), qPrintable(r.notes.join(QLatin1Char(' '))));
    }

    void fitRecoversKnownFractions()
    {
        // Figures made by the model itself at 0.6 of the bandwidth and 0.35 of the TFLOPS: the fit
        // from the engine's fitted fractions finds both again, alternating (each prediction reads both).
        Scenario truth = on("llama-3.1-8b", "h100-sxm-80gb");
        truth.bandwidthEfficiency = 0.6;
        truth.computeUtilization = 0.35;
        BenchFigure step{BenchFigure::Kind::Decode, QStringLiteral("Median ITL (ms)"), {}, 0, QStringLiteral("ms"), 64, QStringLiteral("test"), 3000, 1, 0};
        BenchFigure prefill{BenchFigure::Kind::Prefill, QStringLiteral("Median TTFT (ms)"), {}, 0, QStringLiteral("ms"), 1, QStringLiteral("test"), 2048, 2, 0};
        step.printed = BenchCalibration::predictedMs(truth, step);
        prefill.printed = BenchCalibration::predictedMs(truth, prefill);
        BenchReading r;
        r.figures = {step, prefill};
        const Scenario base = on("llama-3.1-8b", "h100-sxm-80gb");
        const BenchCalibration c = BenchCalibration::fit(r, base);
        QCOMPARE(c.bandwidth.status, FractionFit::Status::Fitted);
        QCOMPARE(c.compute.status, FractionFit::Status::Fitted);
        QVERIFY(c.after.bandwidthEfficiency && c.after.computeUtilization);
        QVERIFY2(std::abs(*c.after.bandwidthEfficiency - 0.6) < 1e-3, qPrintable(QString::number(*c.after.bandwidthEfficiency)));
        QVERIFY2(std::abs(*c.after.computeUtilization - 0.35) < 1e-3, qPrintable(QString::number(*c.after.computeUtilization)));
        QCOMPARE(c.bandwidth.before, timeConstants(base).bandwidthFraction); // the engine's fitted fraction, none given
        QCOMPARE(c.rows.size(), 2);
        QVERIFY(std::abs(c.rows.at(0).measuredDifference()) < 1e-6);
        QVERIFY(c.rows.at(0).predicted < c.rows.at(0).printed); // 0.8 predicts a faster step than 0.6 gives
        QVERIFY2(c.notes.first().startsWith(QStringLiteral("Bandwidth efficiency 0.773 -> 0.6")), qPrintable(c.notes.first())); // the plain rule's fitted 0.773 (plan/timeconstants.cpp) to the truth
    }

    void llamaBenchCalibratesTheCard()
    {
        // ggml-org/llama.cpp#4766's F16 rows alone: llama 7B F16 (12.55 GiB) on an RTX 4090 at 61.03 t/s
        // is 16.39 ms a token, about 0.82 of 1,008 GB/s if reading the weights once a token took it all;
        // less the step's fixed costs (llama.cpp's fitted 60 us a layer and 0.72 ms a step, 2.64 ms)
        // the reading takes 13.75 ms, 0.97 of the peak.
        const QString table = fixture("llamabench-llama-7b-f16-q8_0-4090.txt").section(QLatin1Char('\n'), 0, 4);
        const BenchReading r = BenchReading::read(table, QStringLiteral("LOGFILE"));
        const BenchCalibration c = BenchCalibration::fit(r, on("llama-2-7b", "rtx-4090"));
        QCOMPARE(*c.before.weightsBytes, qint64(std::llround(12.55 * double(Units::GiB))));
        QCOMPARE(c.bandwidth.status, FractionFit::Status::Fitted);
        const double fitted = c.after.bandwidthEfficiency.value_or(0);
        QVERIFY2(fitted > 0.85 && fitted <= 1, qPrintable(QString::number(fitted)));
        QCOMPARE(c.compute.status, FractionFit::Status::Fitted);
        QCOMPARE(c.rows.at(1).unit, QStringLiteral("t/s"));
        QVERIFY(std::abs(c.rows.at(1).measured - 61.03) < 0.01);
        QVERIFY(c.notes.join(QLatin1Char(' ')).contains(QStringLiteral("llama-bench's size column, 12.55 GiB")));
        const QJsonObject json = c.toJson(r);
        QCOMPARE(json.value(QStringLiteral("kind")).toString(), QStringLiteral("benchmark"));
        QCOMPARE(json.value(QStringLiteral("fit")).toObject().value(QStringLiteral("bandwidth_efficiency")).toObject().value(QStringLiteral("status")).toString(),
                 QStringLiteral("fitted"));
        const QJsonObject row = json.value(QStringLiteral("comparison")).toArray().at(1).toObject();
        QCOMPARE(row.value(QStringLiteral("line")).toInt(), 5);
        QVERIFY(row.value(QStringLiteral("fitted")).toBool());
        QVERIFY(row.contains(QStringLiteral("predicted_after")) && row.contains(QStringLiteral("from_measured")));
    }

    void aFigureBeyondThePeakIsSaid()
    {
        // vLLM's 6.08 ms median ITL at 8 in flight (vllm-project/vllm#31826) for Llama-3.1-8B on one
        // L4: reading 16 GB of weights a step at 300 GB/s takes 54 ms, so the figure needs about 9
        // times the card's peak. Reported, not clamped: the scenario keeps its own fraction. (Its
        // 27.44 ms TTFT no compute fraction reaches: one read of the weights at 0.8 of 300 GB/s
        // takes 67 ms.)
        const BenchReading r = BenchReading::read(fixture("vllm-serve-tp2-concurrency8.txt"), QStringLiteral("LOGFILE"));
        const BenchCalibration c = BenchCalibration::fit(r, on("llama-3.1-8b", "l4"));
        QCOMPARE(c.bandwidth.status, FractionFit::Status::AboveOne);
        QCOMPARE(c.compute.status, FractionFit::Status::Unreachable);
        QVERIFY2(c.compute.floorMs > 60, qPrintable(QString::number(c.compute.floorMs)));
        QVERIFY2(c.bandwidth.value > 5, qPrintable(QString::number(c.bandwidth.value)));
        QVERIFY(!c.after.bandwidthEfficiency); // kept: the engine's fitted fraction stays in force
        QVERIFY2(c.notes.first().contains(QStringLiteral("above 1: the time model cannot reach the measured figure")), qPrintable(c.notes.first()));
        QCOMPARE(c.toJson(r).value(QStringLiteral("fit")).toObject().value(QStringLiteral("bandwidth_efficiency")).toObject().value(QStringLiteral("applied")).toDouble(), timeConstants(c.after).bandwidthFraction);
    }

    void aFigureNoFractionReachesIsSaid()
    {
        // A compute roof the bandwidth does not move: at a utilization of 1e-6 the decode step of
        // 8 sessions of a 70B model takes minutes whatever the bandwidth.
        Scenario s = on("llama-3.1-70b", "h100-sxm-80gb");
        s.computeUtilization = 1e-6;
        BenchReading r;
        r.figures = {BenchFigure{BenchFigure::Kind::Decode, QStringLiteral("Median ITL (ms)"), {}, 6.08, QStringLiteral("ms"), 8, QStringLiteral("test"), 300, 3, 0}};
        const BenchCalibration c = BenchCalibration::fit(r, s);
        QCOMPARE(c.bandwidth.status, FractionFit::Status::Unreachable);
        QVERIFY(c.bandwidth.floorMs > 1e5);
        QCOMPARE(c.compute.status, FractionFit::Status::NoFigure);
        QVERIFY(c.notes.at(1).contains(QStringLiteral("prints no TTFT or pp row")));
    }

    void queueingIsSaid()
    {
        // ai-bot-pro/achatbot#183: gpt-oss-20b on one H100 at 4 in flight prints TTFT alone.
        const BenchReading r = BenchReading::read(fixture("sglang-gpt-oss-20b-h100-concurrency4.txt"), QStringLiteral("LOGFILE"));
        const BenchCalibration c = BenchCalibration::fit(r, on("gpt-oss-20b", "h100-sxm-80gb"));
        QCOMPARE(c.bandwidth.status, FractionFit::Status::NoFigure);
        QCOMPARE(c.compute.status, FractionFit::Status::Fitted);
        QCOMPARE(r.figures.at(c.compute.figure).figure, QStringLiteral("Median TTFT (ms)"));
        QVERIFY(c.notes.join(QLatin1Char(' ')).contains(QStringLiteral("includes waiting behind other requests' prefills")));
    }

    void cardWithoutBandwidthIsRefused()
    {
        const BenchReading r = BenchReading::read(fixture("sglang-bench-serving-concurrency1.txt"), QStringLiteral("LOGFILE"));
        Scenario s = on("llama-3.1-8b", "h100-sxm-80gb");
        s.gpu = GpuSpec::custom(80 * Units::GiB);
        try {
            BenchCalibration::fit(r, s);
            QFAIL("a card without bandwidth was fitted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--gpu"));
        }
    }
};

HEADROOM_TEST_MAIN(TestBenchCalibration, QCoreApplication)
#include "tst_benchcalibration.moc"
