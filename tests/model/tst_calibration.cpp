// SPDX-License-Identifier: GPL-3.0-or-later
// Calibration from start-up logs: the figures engines printed in public reports
// (E02, E07, E11, E21, E26; tests/data/logs/ with their sources in SOURCE.md) are
// read back and predicted again from the calibrated scenario.
#include "plan/capacity.h"
#include "io/configimporter.h"
#include "core/inputerror.h"
#include "io/logcalibration.h"

#include <QFile>
#include <QJsonDocument>
#include "testshapes.h"

#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;
using Headroom::Test::dense;

namespace {
QString log(const char *name)
{
    QFile f(QStringLiteral(HEADROOM_TEST_DATA "/logs/") + QString::fromLatin1(name));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}


Scenario base(const ModelShape &m)
{
    Scenario s;
    s.model = m;
    s.gpu = GpuSpec::custom(80 * Units::GiB);
    return s;
}
} // namespace

class TestCalibration : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void vllmE02()
    {
        const LogReading r = LogCalibration::read(log("vllm-v1-qwen3-14b.log"), QStringLiteral("log"));
        QCOMPARE(r.engine, Engine::Vllm);
        QCOMPARE(r.model, QStringLiteral("Qwen/Qwen3-14B"));
        QCOMPARE(r.version, QStringLiteral("0.10.1"));
        QCOMPARE(*r.kvTokens, qint64(42656));
        QCOMPARE(*r.maxModelLen, qint64(32768));
        QCOMPARE(*r.kvBudget, qint64(std::llround(6.51 * double(Units::GiB))));
        // Qwen3-14B: 40 layers, 40 heads, 8 KV heads, head_dim 128.
        const Scenario s = LogCalibration::apply(r, base(dense(40, 40, 8, 128)));
        QCOMPARE(s.engine, Engine::Vllm);
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, s);
        QCOMPARE(rows.size(), 2);
        for (const CalibrationRow &row : rows)
            QVERIFY2(std::abs(row.difference()) < 0.005, qPrintable(row.figure + QString::number(row.predicted)));
    }

    void sglangE07()
    {
        const LogReading r = LogCalibration::read(log("sglang-qwq-32b-tp4.log"), QStringLiteral("log"));
        QCOMPARE(r.engine, Engine::Sglang);
        QCOMPARE(*r.tp, 4);
        QCOMPARE(*r.memFractionStatic, 0.85);
        // QwQ-32B: 64 layers, 40 heads, 8 KV heads, head_dim 128.
        const Scenario s = LogCalibration::apply(r, base(dense(64, 40, 8, 128)));
        QCOMPARE(s.tp, 4);
        QCOMPARE(*s.weightsBytes, 4 * qint64(std::llround(15.54 * double(Units::GiB))));
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, s);
        QCOMPARE(rows.size(), 1);
        // Printed 46,611 tokens; the free-memory figures were printed to 0.01 GiB (see tst_engines).
        QVERIFY2(std::abs(rows.first().difference()) < 0.003, qPrintable(QString::number(rows.first().predicted)));
    }

    void llamaCppE11()
    {
        const LogReading r = LogCalibration::read(log("llamacpp-llama2-7b.log"), QStringLiteral("log"));
        QCOMPARE(r.engine, Engine::LlamaCpp);
        QCOMPARE(*r.layers, 32);
        QCOMPARE(*r.kvSelf, qint64(1024) * Units::MiB);
        Scenario s = LogCalibration::apply(r, base(dense(1, 1, 1, 1)));
        QCOMPARE(s.model.layers(), 32);
        QCOMPARE(*s.engineSettings.nCtx, qint64(2048));
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, s);
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows.first().predicted, 1024.0);
    }

    void vllm011FreeMemoryLineE26()
    {
        // E26 (llm-d's vLLM 0.11 H100 run): the "Free memory on device ... Actual usage is ..."
        // line carries the card as torch sees it and every budget term; 0.11 leaves the
        // CUDA-graph figure (here -0.45 GiB, memory freed) out of the budget:
        // 79.18 x 0.9 - 14.99 - 4.76 - 0.13 = 51.38 GiB, as printed.
        const LogReading r = LogCalibration::read(log("vllm-0.11-llama-3.1-8b-h100.log"), QStringLiteral("log"));
        QCOMPARE(r.engine, Engine::Vllm);
        QCOMPARE(r.version, QStringLiteral("0.11.0"));
        QCOMPARE(*r.totalMemory, qint64(std::llround(79.18 * double(Units::GiB))));
        QCOMPARE(*r.utilization, 0.9);
        QCOMPARE(*r.activationPeak, qint64(std::llround(4.76 * double(Units::GiB))));
        QCOMPARE(*r.cudaGraph, qint64(0));
        const Scenario s = LogCalibration::apply(r, base(dense(32, 32, 8, 128)));
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, s);
        QVERIFY(!rows.isEmpty());
        QCOMPARE(rows.first().unit, QStringLiteral("GiB"));
        // Five figures each printed to 0.01 GiB: within their summed rounding of the printed 51.38.
        QVERIFY2(std::abs(rows.first().predicted - 51.38) <= 0.025, qPrintable(QString::number(rows.first().predicted)));
        // Calibrated, the range closes on the printed value.
        const CapacityResult c = computeCapacity(s);
        QCOMPARE(c.engineFigures.kvCacheTokensLow, c.engineFigures.kvCacheTokens);
        QCOMPARE(c.engineFigures.kvCacheTokensHigh, c.engineFigures.kvCacheTokens);
    }

    void llamaCppKvSizeE21()
    {
        // E21 (ggml-org/llama.cpp issue 11200): the cells come from llama_kv_cache_init's
        // "kv_size = 32768" and the cache type from its type_k; the per-device buffers sum to
        // the KV self size. 64 layers x 2 x 8 KV heads x 128 x 34/32 B (q8_0) x 32,768 cells
        // = 4,352 MiB.
        const LogReading r = LogCalibration::read(log("llamacpp-qwen2.5-coder-32b-2gpu.log"), QStringLiteral("log"));
        QCOMPARE(r.engine, Engine::LlamaCpp);
        QCOMPARE(*r.kvCells, qint64(32768));
        QCOMPARE(*r.kvDtype, QStringLiteral("q8_0"));
        QCOMPARE(r.kvBuffers, qint64(2788 + 1564) * Units::MiB);
        const Scenario s = LogCalibration::apply(r, base(dense(1, 1, 1, 1)));
        QCOMPARE(*s.engineSettings.nCtx, qint64(32768));
        QCOMPARE(s.effectiveKvDtype(), Dtype::Q8_0);
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, s);
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows.first().predicted, 4352.0);
        QCOMPARE(rows.first().printed, 4352.0);
    }

    void vllmBreakdownKeepsTheMeasuredWorkspace()
    {
        // A vLLM V1 memory-profiling line (format of gpu_worker.py, 0.8-0.10): E05's figures.
        const QString text = QStringLiteral(
            "Initializing a V1 LLM engine (v0.9.2) with config: model='Qwen/Qwen2.5-7B-Instruct-AWQ', max_seq_len=32768, tensor_parallel_size=1\n"
            "Memory profiling takes 4.1 seconds\n"
            "the current vLLM instance can use total_gpu_memory (15.99GiB) x gpu_memory_utilization (0.90) = 14.39GiB\n"
            "model weights take 5.29GiB; non_torch_memory takes 0.06GiB; PyTorch activation peak memory takes 1.04GiB; "
            "the rest of the memory reserved for KV Cache is 8.00GiB.\n"
            "GPU KV cache size: 149,712 tokens\n");
        const LogReading r = LogCalibration::read(text, QStringLiteral("log"));
        const Scenario s = LogCalibration::apply(r, base(dense(28, 28, 4, 128)));
        QCOMPARE(*s.workspaceBytes, *r.activationPeak + *r.nonTorch);
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, s);
        QCOMPARE(rows.first().unit, QStringLiteral("GiB"));
        QVERIFY2(std::abs(rows.first().difference()) < 0.003, qPrintable(QString::number(rows.first().predicted)));
    }

    void malformedShapeIsRefusedWithItsLine()
    {
        try {
            LogCalibration::read(log("llamacpp-zero-layers.log"), QStringLiteral("LOGFILE"));
            QFAIL("accepted n_layer = 0");
        } catch (const InputError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("line 1")) && e.message().contains(QStringLiteral("n_layer")), qPrintable(e.message()));
        }
    }

    // Every refusal of LogCalibration::read (logcalibration.cpp), by field and message.
    void readRefusals_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        const QString vllm = QStringLiteral("Initializing a V1 LLM engine (v0.10.1) with config: model='Qwen/Qwen3-14B'\n");
        // 2^1024 overflows a double: 310 digits are no figure at all.
        const QString huge = QStringLiteral("1") + QString(310, QLatin1Char('0'));
        QTest::newRow("bytesOf: 310 digits are not a memory figure") << vllm + QStringLiteral("Available KV cache memory: ") + huge + QStringLiteral(" GiB\n")
                                                                     << QStringLiteral("line 2: \"%1\" is not a memory figure").arg(huge);
        // 9e9 GiB = 9.66e18 B, above 2^63 - 1 = 9.22e18 B.
        QTest::newRow("bytesOf: 9e9 GiB is too large") << vllm + QStringLiteral("Available KV cache memory: 9000000000.00 GiB\n")
                                                       << QStringLiteral("line 2: 9000000000.00 GiB is too large to be a memory figure");
        QTest::newRow("bytesOf: 9e12 MiB (SGLang) is too large")
            << QStringLiteral("x Load weight begin. avail mem=79.10 GB\nx Load weight end. avail mem=9000000000000.00 MB, mem usage=15.54 GB\n")
            << QStringLiteral("line 2: 9000000000000.00 MB is too large to be a memory figure");
        QTest::newRow("countOf: 20 digits are not a count") << vllm + QStringLiteral("# GPU blocks: 99,999,999,999,999,999,999\n")
                                                            << QStringLiteral("line 2: \"99999999999999999999\" is not a count");
        QTest::newRow("countOf: a separator alone is not a count") << vllm + QStringLiteral("GPU KV cache size: , tokens\n")
                                                                   << QStringLiteral("line 2: \"\" is not a count");
        QTest::newRow("shapeOf: tensor_parallel_size 0") << vllm + QStringLiteral("tensor_parallel_size=0, Available KV cache memory: 6.51 GiB\n")
                                                         << QStringLiteral("line 2: tensor_parallel_size = 0 is not a usable value");
        QTest::newRow("shapeOf: n_ctx 100,000,001") << QStringLiteral("llama_context: n_ctx = 100000001\n")
                                                    << QStringLiteral("line 1: n_ctx = 100000001 is not a usable value");
        QTest::newRow("two engines pasted together: vLLM then SGLang")
            << vllm + QStringLiteral("GPU KV cache size: 42,656 tokens\n[2025] KV Cache is allocated. #tokens: 46611, K size: 1.42 GB\n")
            << QStringLiteral("line 3: a sglang line in a vllm log: paste one engine's start-up at a time");
        QTest::newRow("two engines pasted together: llama.cpp then vLLM")
            << QStringLiteral("print_info: n_layer          = 32\n") + vllm
            << QStringLiteral("line 2: a vllm line in a llamacpp log: paste one engine's start-up at a time");
        QTest::newRow("an engine line but no KV figure") << vllm
                                                         << QStringLiteral("no vLLM, SGLang or llama.cpp KV-cache line found: read all 1 lines, stopped at line 1 (1 recognised)");
        QTest::newRow("an empty paste") << QStringLiteral("\n") << QStringLiteral("the log is empty: paste the engine's start-up log");
    }
    void readRefusals()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        try {
            LogCalibration::read(text, QStringLiteral("LOGFILE"));
            QFAIL("accepted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("LOGFILE"));
            QVERIFY2(e.message().startsWith(message), qPrintable(e.message()));
        }
    }

    // apply and compare refuse what the calibrated scenario cannot plan, naming the input.
    void applyAndCompareRefusals()
    {
        // apply: the printed per-GPU weights times TP leave 64 bits (5e9 GiB x 2).
        const LogReading weights = LogCalibration::read(
            QStringLiteral("Initializing a V1 LLM engine (v0.10.1) with config: model='Qwen/Qwen3-14B', tensor_parallel_size=2\n"
                           "Model loading took 5000000000.00 GiB and 9.1 seconds\nAvailable KV cache memory: 6.51 GiB\n"),
            QStringLiteral("LOGFILE"));
        try {
            LogCalibration::apply(weights, base(dense(40, 40, 8, 128)));
            QFAIL("accepted 2 x 5e9 GiB of weights");
        } catch (const InputError &e) {
            // Named by the log's line, in vLLM's words (not a flag the user never gave).
            QCOMPARE(e.field(), QStringLiteral("LOGFILE line 2 (Model loading took 5000000000.00 GiB)"));
            QCOMPARE(e.message(), QStringLiteral("is too large: the byte count overflows 64 bits (5,368,709,120,000,000,000 x 2)"));
        }
        // compare: the scenario the log calibrates cannot be planned (TP 3 does not divide 40 heads).
        const LogReading r = LogCalibration::read(log("vllm-v1-qwen3-14b.log"), QStringLiteral("LOGFILE"));
        Scenario s = LogCalibration::apply(r, base(dense(40, 40, 8, 128)));
        s.tp = 3; // as --tp 3 given with the log: named by the flag
        s.names.use(Input::Tp, InputSource::Flag);
        try {
            LogCalibration::compare(r, s);
            QFAIL("compared a scenario that cannot be planned");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--tp"));
            QCOMPARE(e.message(), QStringLiteral("TP 3 does not divide num_attention_heads 40"));
        }
    }

    // The text a line must hold before an expression is tried on it (LogParse::leadingText):
    // by the regular-expression rules, the literal characters a match starts with, stopping
    // before a class, group or operator and dropping a character a quantifier may remove.
    void leadingText_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("lead");
        QTest::newRow("a literal, then a group") << QStringLiteral("Available KV cache memory: ([0-9.]+)") << QStringLiteral("Available KV cache memory: ");
        QTest::newRow("after \\b, before \\s") << QStringLiteral("\\bn_layer\\s+=\\s+(\\d+)") << QStringLiteral("n_layer");
        QTest::newRow("an escaped parenthesis is itself") << QStringLiteral("total_gpu_memory \\(") << QStringLiteral("total_gpu_memory (");
        QTest::newRow("x? may be absent") << QStringLiteral("ab?c") << QStringLiteral("a");
        QTest::newRow("x* may be absent") << QStringLiteral("abc*d") << QStringLiteral("ab");
        QTest::newRow("x{0,2} may be absent") << QStringLiteral("abc{0,2}") << QStringLiteral("ab");
        QTest::newRow("x+ is there once") << QStringLiteral("ab+c") << QStringLiteral("ab");
        QTest::newRow("a group first") << QStringLiteral("(?:vLLM|LLM engine)") << QString();
        QTest::newRow("a top-level alternative") << QStringLiteral("abc|def") << QString();
        QTest::newRow("| inside a group") << QStringLiteral("abc(d|e)") << QStringLiteral("abc");
        QTest::newRow("| inside a class") << QStringLiteral("ab[|]c") << QStringLiteral("ab");
        QTest::newRow("an escaped |") << QStringLiteral("ab\\|c") << QStringLiteral("ab|c");
        QTest::newRow("any character") << QStringLiteral("Load weight begin.*avail mem=") << QStringLiteral("Load weight begin");
    }
    void leadingText()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, lead);
        QCOMPARE(LogParse::leadingText(pattern), lead);
    }

    void unreadableLogSaysWhereItStopped()
    {
        try {
            LogCalibration::read(QStringLiteral("hello\nworld\nnothing here\n"), QStringLiteral("LOGFILE"));
            QFAIL("accepted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("LOGFILE"));
            QVERIFY2(e.message().contains(QStringLiteral("stopped at line 3")), qPrintable(e.message()));
        }
    }
};

HEADROOM_TEST_MAIN(TestCalibration, QCoreApplication)
#include "tst_calibration.moc"
