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
        // E02's own lines (LMCache issue 1739, tests/data/logs/SOURCE.md): the three KV-cache
        // lines of a vLLM V1 EngineCore, with no engine banner, so neither model nor release.
        const LogReading r = LogCalibration::read(log("vllm-v1-qwen3-14b-enginecore.log"), QStringLiteral("log"));
        QCOMPARE(r.engine, Engine::Vllm);
        QVERIFY(r.model.isEmpty());
        QVERIFY(r.version.isEmpty());
        QCOMPARE(*r.kvTokens, qint64(42656));
        QCOMPARE(*r.maxModelLen, qint64(32768));
        QCOMPARE(*r.kvBudget, qint64(std::llround(6.51 * double(Units::GiB))));
        // Qwen3-14B: 40 layers, 40 heads, 8 KV heads, head_dim 128.
        const Scenario s = LogCalibration::apply(r, base(dense(40, 40, 8, 128)));
        QCOMPARE(s.engine, Engine::Vllm);
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, base(dense(40, 40, 8, 128)));
        QCOMPARE(rows.size(), 3);
        // The budget: the log prints no card or terms, so only the prediction before hardware stands.
        QCOMPARE(rows.at(0).unit, QStringLiteral("GiB"));
        QVERIFY(std::isnan(rows.at(0).measured));
        // Tokens and concurrency from the printed 6.51 GiB: the per-token rule alone.
        for (const CalibrationRow &row : rows.mid(1))
            QVERIFY2(std::abs(row.measured - row.printed) / row.printed < 0.005, qPrintable(row.figure + QString::number(row.measured)));
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
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, base(dense(64, 40, 8, 128)));
        QCOMPARE(rows.size(), 2);
        // The pool's own size on the #tokens line, "K size: 1.42 GB, V size: 1.42 GB", is its KV
        // budget; from the measured free memory (printed to 0.01 GiB) SGLang's rule gives the same.
        QCOMPARE(rows.at(0).figure, QStringLiteral("KV cache memory per GPU"));
        QVERIFY(std::abs(rows.at(0).printed - 2.84) < 1e-9);
        QVERIFY2(std::abs(rows.at(0).measured - 2.84) < 0.01, qPrintable(QString::number(rows.at(0).measured)));
        // Printed 46,611 tokens; counted from the 2.84 GiB (each size printed to 0.01 GiB: +-164 tokens).
        QCOMPARE(rows.at(1).printed, 46611.0);
        QVERIFY2(std::abs(rows.at(1).measured - 46611) <= 164, qPrintable(QString::number(rows.at(1).measured)));
    }

    // SGLang 0.4.1's forms of its memory lines (docs.sglang.ai quick start, 2025-01-23;
    // tests/data/logs/SOURCE.md): "Load weight end" without "mem usage", "KV Cache is
    // allocated" with K and V sizes but no token count, "Memory pool end". Every one is read.
    // The pool's K + V (54.26 GiB) is its budget, and the count from it is the printed one to the
    // sizes' rounding: 54.26 GiB / 131,072 B per token = 444,497 tokens, printed
    // max_total_num_tokens=444500. SGLang's own rule on the two free-memory lines (model_runner.py:
    // free after load - free at launch x (1 - mem_fraction_static)) gives the same budget:
    // 63.72 - 78.81 x 0.12 = 54.2628 GiB.
    void sglang04EveryMemoryLine()
    {
        const LogReading r = LogCalibration::read(log("sglang-0.4-llama-3.1-8b-docs.log"), QStringLiteral("log"));
        QCOMPARE(r.engine, Engine::Sglang);
        const auto gib = [](double v) { return qint64(std::llround(v * double(Units::GiB))); };
        QCOMPARE(*r.freeBefore, gib(78.81));
        QCOMPARE(*r.freeAfter, gib(63.72));
        QCOMPARE(*r.weights, gib(78.81) - gib(63.72)); // what loading took: no "mem usage" printed
        QCOMPARE(*r.kvBudget, gib(54.26)); // K + V as printed
        QCOMPARE(*r.freeAfterPool, gib(8.34));
        QCOMPARE(*r.kvTokens, qint64(444500));
        QCOMPARE(*r.memFractionStatic, 0.88);
        QCOMPARE(*r.maxModelLen, qint64(131072));
        // The memory lines (3 begin/end/pool, the KV line) and the summary, server_args: 6 lines.
        QCOMPARE(r.linesUsed, 6);
        // Llama-3.1-8B: 32 layers, 32 heads, 8 KV heads, head_dim 128 (its config.json).
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, base(dense(32, 32, 8, 128)));
        QCOMPARE(rows.size(), 2);
        const CalibrationRow &tokens = rows.at(1);
        QCOMPARE(tokens.printed, 444500.0);
        // K and V are each printed to 0.01 GiB: +-0.01 GiB is +-82 tokens.
        QVERIFY2(std::abs(tokens.measured - 444500) <= 82, qPrintable(QString::number(tokens.measured)));
        // The free-memory lines, each printed to 0.01 GiB (+-0.005 after loading, +-0.0006 from the
        // one at launch), give the budget SGLang's rule does.
        QCOMPARE(rows.at(0).figure, QStringLiteral("KV cache memory per GPU"));
        QVERIFY2(std::abs(rows.at(0).measured - 54.2628) < 0.006, qPrintable(QString::number(rows.at(0).measured)));
        // The reserve the pool left, said with SGLang's own figure for it: 0.12 x 78.81 = 9.46 GiB.
        const QStringList w = LogCalibration::warnings(r, LogCalibration::apply(r, base(dense(32, 32, 8, 128))), rows);
        QVERIFY2(w.join(QLatin1Char(' ')).contains(QStringLiteral("8.34 GiB per GPU free after the KV pool")), qPrintable(w.join(QLatin1Char('\n'))));
        QVERIFY2(w.join(QLatin1Char(' ')).contains(QStringLiteral("9.46 GiB")), qPrintable(w.join(QLatin1Char('\n'))));
    }

    // J04 (../shared/validation/engine-logs.md: github.com/willxxy/sglang-play README.md@146976c,
    // SGLang 0.5.10.post1, Qwen2.5-0.5B-Instruct bf16 on a shared H100 NVL, TP 1), its memory
    // lines as quoted there (timestamps left out). 24 layers x 2 KV heads x 64 x 2 x 2 B =
    // 12,288 B per token. SGLang's rule on the two free-memory lines gives 35.57 - 36.54 x 0.14 =
    // 30.454 GiB, 2,661,146 tokens: 2,981 above the printed 2,658,165, more than the lines'
    // rounding allows (+-498), since SGLang measures the free memory again when it sizes the pool.
    // The pool's K + V (30.42 GiB) gives the printed count to the sizes' rounding (+-874 tokens).
    void sglang05PoolSizeIsTheBudgetJ04()
    {
        const QString lines = QStringLiteral(
            "server_args=ServerArgs(model_path='qwen/qwen2.5-0.5b-instruct', mem_fraction_static=0.86, tp_size=1)\n"
            "Load weight begin. avail mem=36.54 GB\n"
            "Load weight end. elapsed=0.41 s, type=Qwen2ForCausalLM, avail mem=35.57 GB, mem usage=0.98 GB.\n"
            "KV Cache is allocated. #tokens: 2658165, K size: 15.21 GB, V size: 15.21 GB\n"
            "Memory pool end. avail mem=4.55 GB\n"
            "max_total_num_tokens=2658165, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=4096, "
            "context_len=32768, available_gpu_mem=4.46 GB\n");
        const LogReading r = LogCalibration::read(lines, QStringLiteral("log"));
        QCOMPARE(*r.kvTokens, qint64(2658165));
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, base(dense(24, 14, 2, 64)));
        QCOMPARE(rows.size(), 2);
        QVERIFY2(std::abs(rows.at(1).measured - 2658165) <= 874, qPrintable(QString::number(rows.at(1).measured)));
        // The free-memory rule, shown beside it, is the 30.454 GiB above.
        QVERIFY2(std::abs(rows.at(0).measured - 30.4544) < 0.006, qPrintable(QString::number(rows.at(0).measured)));
    }

    // J02 (engine-logs.md: github.com/TianyangChen357/LLM sglang.log, SGLang 0.5.9-era, Qwen3-14B
    // fp16 on 2 x RTX A4500, TP 2, mem_fraction_static 0.65; lines as quoted there): each rank
    // prints its own free memory and SGLang sizes the pool from the least (model_runner.py,
    // get_available_gpu_memory(distributed=True)): 17.22 - 18.73 x 0.35 = 10.6645 GiB; 40 layers x
    // 4 KV heads per rank x 128 x 2 x 2 B = 81,920 B per token: 139,781 tokens, printed 139,814.
    void sglangLeastRankJ02()
    {
        const QString lines = QStringLiteral(
            "server_args=ServerArgs(model_path='Qwen/Qwen3-14B', mem_fraction_static=0.65, tp_size=2)\n"
            "[TP0] Load weight begin. avail mem=18.73 GB\n"
            "[TP1] Load weight begin. avail mem=19.15 GB\n"
            "[TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.float16, avail mem=17.22 GB, mem usage=1.50 GB.\n"
            "[TP1] Load weight end. type=Qwen3ForCausalLM, dtype=torch.float16, avail mem=17.64 GB, mem usage=1.50 GB.\n"
            "[TP0] KV Cache is allocated. #tokens: 139814, K size: 5.33 GB, V size: 5.33 GB\n"
            "[TP0] Memory pool end. avail mem=6.44 GB\n"
            "[TP1] Memory pool end. avail mem=6.86 GB\n");
        const LogReading r = LogCalibration::read(lines, QStringLiteral("log"));
        QCOMPARE(*r.freeBefore, qint64(std::llround(18.73 * double(Units::GiB))));
        QCOMPARE(*r.freeAfter, qint64(std::llround(17.22 * double(Units::GiB))));
        QCOMPARE(*r.freeAfterPool, qint64(std::llround(6.44 * double(Units::GiB))));
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, base(dense(40, 40, 8, 128)));
        QCOMPARE(rows.size(), 2);
        QVERIFY2(std::abs(rows.at(0).measured - 10.6645) < 0.006, qPrintable(QString::number(rows.at(0).measured)));
        // From the pool's 10.66 GiB (K and V each to 0.01 GiB: +-131 tokens).
        QVERIFY2(std::abs(rows.at(1).measured - 139814) <= 131, qPrintable(QString::number(rows.at(1).measured)));
    }

    // J18 (engine-logs.md: TensorRT-LLM 1.1.0rc3's PyTorch backend, gpt-oss-120b on a DGX Spark,
    // lines verbatim): the pool is free_gpu_memory_fraction x (device total - profiled peak + the
    // profiling run's temporary KV pool) = 0.9 x (119.70 - 113.65 + 0.56) GiB = 5.949 GiB, printed
    // "Allocated 5.95 GiB ... (86720)". 36 layers x 8 KV heads x 64 x 2 x 2 B = 73,728 B per token
    // ("kv size is 73728"), in blocks of 32 tokens.
    void trtllmPyTorchBackendJ18()
    {
        const LogReading r = LogCalibration::read(
            QStringLiteral("Peak memory during memory usage profiling (torch + non-torch): 113.65 GiB, available KV cache memory when "
                           "calculating max tokens: 5.95 GiB, fraction is set 0.8999999761581421, kv size is 73728. device total memory "
                           "119.70 GiB, , tmp kv_mem 0.56 GiB\n"
                           "[MemUsageChange] Allocated 5.95 GiB for max tokens in paged KV cache (86720).\n"),
            QStringLiteral("log"));
        const auto gib = [](double v) { return qint64(std::llround(v * double(Units::GiB))); };
        QCOMPARE(*r.totalMemory, gib(119.70));
        QCOMPARE(*r.freeAfter, gib(119.70) - gib(113.65) + gib(0.56));
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, base(dense(36, 64, 8, 64)));
        QCOMPARE(rows.size(), 2);
        // The three terms each to 0.01 GiB: 0.9 x 0.015 = 0.0135 GiB at most.
        QVERIFY2(std::abs(rows.at(0).measured - 5.949) < 0.0135, qPrintable(QString::number(rows.at(0).measured)));
        // From the printed 5.95 GiB (+-0.005 GiB: +-73 tokens, then whole blocks of 32).
        QVERIFY2(std::abs(rows.at(1).measured - 86720) <= 73 + 32, qPrintable(QString::number(rows.at(1).measured)));
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
        Scenario before = base(dense(32, 32, 8, 128));
        // What a user knows before the run: the card (80 GiB), Llama-3.1-8B's bf16 weights
        // (8,030,261,248 parameters x 2 B, presets/models/llama-3.1-8b.json) and a 5 GiB workspace.
        before.gpuMemoryBytes = 80 * Units::GiB;
        before.weightsBytes = qint64(8'030'261'248) * 2;
        before.workspaceBytes = 5 * Units::GiB;
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, before);
        QVERIFY(!rows.isEmpty());
        QCOMPARE(rows.first().unit, QStringLiteral("GiB"));
        // Five figures each printed to 0.01 GiB: within their summed rounding of the printed 51.38.
        QVERIFY2(std::abs(rows.first().measured - 51.38) <= 0.025, qPrintable(QString::number(rows.first().measured)));
        // The prediction is the uncalibrated model's (it read 51.38, 0.00%, from the measured
        // terms put in first): floor(80 GiB x 0.9) - 16,060,522,496 - 5 GiB
        // = 77,309,411,328 - 16,060,522,496 - 5,368,709,120 = 55,880,179,712 B.
        QCOMPARE(rows.first().predicted, 55'880'179'712.0 / double(Units::GiB));
        QVERIFY(std::abs(rows.first().difference()) > 0.01);
        // Calibrated, the range closes on the printed value.
        const CapacityResult c = computeCapacity(s);
        QCOMPARE(c.engineFigures.kvCacheTokensLow, c.engineFigures.kvCacheTokens);
        QCOMPARE(c.engineFigures.kvCacheTokensHigh, c.engineFigures.kvCacheTokens);
        // The log's figures are measured, said with their line, not what-ifs (a trial read "weights
        // 16.1 GB (what-if; not the checkpoint's size)" in presenter after Apply); a value typed in
        // stays a what-if.
        const QStringList ifs = whatIfsInForce(s, UnitSystem::Binary);
        QVERIFY2(ifs.filter(QStringLiteral("what-if")).isEmpty(), qPrintable(ifs.join(QLatin1Char('\n'))));
        for (const char *figure : {"card memory 79.2 GiB (measured: log line ", "weights 15.0 GiB (measured: log line "})
            QVERIFY2(!ifs.filter(QLatin1String(figure)).isEmpty(), qPrintable(ifs.join(QLatin1Char('\n'))));
        QVERIFY2(whatIfsInForce(before, UnitSystem::Binary).filter(QStringLiteral("what-if")).size() == 2, // weights, workspace
                 qPrintable(whatIfsInForce(before, UnitSystem::Binary).join(QLatin1Char('\n'))));
    }

    void llamaCppKvSizeE21()
    {
        // E21 (ggml-org/llama.cpp issue 11200): the cells come from llama_kv_cache_init's
        // "kv_size = 32768" and the cache type from its type_k; the per-device buffers sum to
        // the KV self size. 64 layers x 2 x 8 KV heads x 128 x 34/32 B (q8_0) x 32,768 cells
        // = 4,352 MiB. The file holds only the four lines the issue printed; its model's shape
        // (Qwen2.5-Coder-32B-Instruct config.json: 64 layers, 40 heads, 8 KV heads, head_dim 128)
        // is given here, not read from metadata lines the issue did not print.
        const LogReading r = LogCalibration::read(log("llamacpp-qwen2.5-coder-32b-2gpu.log"), QStringLiteral("log"));
        QCOMPARE(r.engine, Engine::LlamaCpp);
        QCOMPARE(*r.kvCells, qint64(32768));
        QCOMPARE(*r.kvDtype, QStringLiteral("q8_0"));
        QCOMPARE(r.kvBuffers, qint64(2788 + 1564) * Units::MiB);
        const Scenario s = LogCalibration::apply(r, base(dense(64, 40, 8, 128)));
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
        // The settings alone keep no measured term: the workspace, weights and budget stay unset.
        const Scenario settings = LogCalibration::applySettings(r, base(dense(28, 28, 4, 128)));
        QVERIFY(!settings.workspaceBytes && !settings.weightsBytes && !settings.engineSettings.kvCacheMemory && !settings.gpuMemoryBytes);
        QCOMPARE(settings.maxModelLen.value_or(0), qint64(32768));
        const QVector<CalibrationRow> rows = LogCalibration::compare(r, base(dense(28, 28, 4, 128)));
        QCOMPARE(rows.first().unit, QStringLiteral("GiB"));
        QVERIFY2(std::abs(rows.first().measured - 8.00) / 8.00 < 0.003, qPrintable(QString::number(rows.first().measured)));
    }

    // Real start-up logs from public threads (tests/data/logs/SOURCE.md, each file's thread):
    // the figures each printed, read back from its own lines, whatever the decoration (worker
    // and rank prefixes, docker and journald prefixes, timestamps, colour-code remnants, diff
    // markers, quoting, a message wrapped over lines). -1: the log prints no such figure.
    void realLogsRead_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("engine");
        QTest::addColumn<double>("budgetGiB");
        QTest::addColumn<double>("tokens");
        QTest::addColumn<double>("blocks");
        QTest::addColumn<double>("kvSelfMiB");
        QTest::addColumn<double>("requiredKvMiB");
        QTest::addColumn<double>("maxModelLen");
        QTest::addColumn<QString>("failure"); // words the failure sentence holds; empty: the start succeeded
        const int vllm = int(Engine::Vllm), sglang = int(Engine::Sglang), llama = int(Engine::LlamaCpp), ollama = int(Engine::Ollama),
                  trt = int(Engine::Trtllm);
        auto row = [](const char *file, int engine, double budget, double tokens, double blocks, double kvSelf, double required, double len,
                      const char *failure = "") {
            QTest::newRow(file) << QString::fromLatin1(file) << engine << budget << tokens << blocks << kvSelf << required << len
                                << QString::fromUtf8(failure);
        };
        // vLLM 0.6.4 "Memory profiling results: ... kv_cache_size=3.81GiB", "GPU blocks: 1952" pasted without its "#".
        row("vllm-0.6-llama-3.1-8b-3090-20k.log", vllm, 3.81, -1, 1952, -1, -1, 20000);
        // The V0 refusal gives the pool's tokens: 1478 blocks x 16 = 23,648.
        row("vllm-0.6-llama-3.1-8b-3090-29k-fail.log", vllm, 2.89, 23648, 1478, -1, -1, 29000, "max_model_len 29,000 is longer than the 23,648 tokens");
        row("vllm-v1-0.7-llama-3.1-70b-w8a8.log", vllm, -1, -1, 1381, -1, -1, 2048);
        // 0.6.5's table, one term a line with runs of spaces: "available_kv_cache_memory    53.29GiB".
        row("vllm-0.6.5-llama-3-8b-profile-table.log", vllm, 53.29, -1, -1, -1, -1, -1);
        row("vllm-0.3-opt-125m.log", vllm, -1, -1, 76240, -1, -1, 2048);
        row("vllm-0.2.7-alpaca-2-fail.log", vllm, -1, 3664, 229, -1, -1, 4096, "the 3,664 tokens its KV cache holds");
        row("vllm-v1-qwen3-14b-enginecore.log", vllm, 6.51, 42656, -1, -1, -1, 32768);
        row("vllm-v1-qwen3-235b-fp8-tp4.log", vllm, 8.11, 178880, -1, -1, -1, -1);
        // Four workers print the profile; the budget each prints is 1.57 GiB.
        row("vllm-0.8-tp-workers-profile.log", vllm, 1.57, -1, -1, -1, -1, -1);
        row("vllm-0.4-deepseek-coder-6.7b-t4-tp2.log", vllm, -1, -1, 507, -1, -1, -1);
        row("vllm-v1-xpu-kv-cache-memory-bytes-fail.log", vllm, 4.25, -1, -1, -1, -1, -1, "engine core failed to start");
        row("vllm-v1-0.8-llama4-1m-fail.log", vllm, 9.97, -1, -1, -1, -1, 1048576, "max_model_len 1,048,576 needs 24.00 GiB");
        row("vllm-v1-fp8-100k.log", vllm, 10.55, 230528, -1, -1, -1, 100000);
        row("vllm-v1-fp8-221k-fail.log", vllm, 5.59, -1, -1, -1, -1, 221000, "at 122,080 tokens");
        row("vllm-tpu-131k-fail.log", vllm, 0.71, -1, -1, -1, -1, 131072, "needs 16.00 GiB");
        row("vllm-0.15-pp2-qwen3-coder-fail.log", vllm, 3.18, -1, -1, -1, -1, 262144, "at 34,736 tokens");
        // Wrapped over three lines as pasted.
        row("vllm-kaito-wrapped-fail.log", vllm, 17.39, -1, -1, -1, -1, 1048576, "needs 22.50 GiB of KV cache per GPU, more than the 17.39 GiB");
        row("vllm-spark-quoted-fail.log", vllm, 22.5, -1, -1, -1, -1, 196608, "at 190,272 tokens");
        row("vllm-v1-0.9-lmcache-blocks.log", vllm, -1, -1, 26615, -1, -1, 32768);
        // SGLang's K size + V size is the pool's budget: 8.23 + 8.23 GB (its GB are GiB).
        row("sglang-qwen3-235b-fp8-tp4.log", sglang, 16.46, 367404, -1, -1, -1, -1);
        row("sglang-summary-line.log", sglang, -1, 2086558, -1, -1, -1, 256000);
        row("sglang-0.4-llama-3.1-8b-docs.log", sglang, 54.26, 444500, -1, -1, -1, 131072);
        row("sglang-multirank-qwen-omni.log", sglang, 47.84, 2090351, -1, -1, -1, -1);
        // An empty full-attention cache (0.00 MiB) and a sliding-window cache's 182.75 MiB buffer.
        row("llamacpp-dsv4-iswa-timestamps.log", llama, -1, -1, -1, 182.75, -1, -1);
        // Two caches: 2176.00 MiB closed by its size line, then a 255.00 MiB buffer.
        row("llamacpp-gemma-iswa-two-caches.log", llama, -1, -1, -1, 2176 + 255, -1, -1);
        // The diff's second run (+): n_ctx 32768, 4096.00 MiB; the first (-) had 256.00 MiB at 2048.
        row("llamacpp-qwen-32k-diff.log", llama, -1, -1, -1, 4096, -1, 32768);
        row("ikllama-deepseek-r1-mla-oom.log", llama, -1, -1, -1, 2196, -1, -1, "llama.cpp ran out of memory on device 0 allocating 8900.01 MiB");
        row("ollama-0.11-gemma3-12b.log", ollama, -1, -1, -1, -1, 992, -1);
        row("ollama-0.11-gemma3-12b-ctx2048.log", ollama, -1, -1, -1, -1, 608, -1);
        row("ollama-80-layer-4gpu-64k.log", ollama, -1, -1, -1, -1, 19.5 * 1024, -1);
        row("ollama-docker-deepseek-v3-offload.log", ollama, -1, -1, -1, -1, 9.5 * 1024, -1);
        row("ollama-29-layer-parallel4.log", ollama, -1, -1, -1, -1, 896, -1);
        row("trtllm-0.5-llama-2-7b-a10.log", trt, -1, 10718, -1, -1, -1, -1);
        row("trtllm-0.8-a100-smoothquant.log", trt, 69524783104.0 / double(Units::GiB), 132608, -1, -1, -1, -1);
        row("trtllm-triton-speculative.log", trt, 78.30, 3731744, 116617, -1, -1, -1);
    }
    void realLogsRead()
    {
        QFETCH(QString, file);
        QFETCH(int, engine);
        QFETCH(double, budgetGiB);
        QFETCH(double, tokens);
        QFETCH(double, blocks);
        QFETCH(double, kvSelfMiB);
        QFETCH(double, requiredKvMiB);
        QFETCH(double, maxModelLen);
        QFETCH(QString, failure);
        const QString text = log(file.toLatin1().constData());
        QVERIFY2(!text.isEmpty(), qPrintable(file));
        const LogReading r = LogCalibration::read(text, QStringLiteral("LOGFILE"));
        QCOMPARE(int(r.engine), engine);
        // A printed figure with its unit, as bytes: the figure as printed times the unit.
        auto sized = [](double printed, qint64 unit) { return qint64(std::llround(printed * double(unit))); };
        auto check = [&](const char *name, const auto &held, double printed, qint64 unit) {
            if (printed < 0)
                QVERIFY2(!held, qPrintable(file + QStringLiteral(": read a ") + QLatin1String(name) + QStringLiteral(" the log does not print")));
            else
                QVERIFY2(held && qint64(*held) == sized(printed, unit),
                         qPrintable(file + QStringLiteral(": ") + QLatin1String(name) + QStringLiteral(" read ")
                                    + (held ? QString::number(double(*held)) : QStringLiteral("nothing"))));
        };
        check("budget", r.kvBudget, budgetGiB, Units::GiB);
        check("token count", r.kvTokens, tokens, 1);
        check("block count", r.numBlocks, blocks, 1);
        check("KV self size", r.kvSelf, kvSelfMiB, Units::MiB);
        check("memory.required.kv", r.requiredKv, requiredKvMiB, Units::MiB);
        if (maxModelLen > 0)
            QCOMPARE(r.maxModelLen.value_or(-1), qint64(maxModelLen));
        if (failure.isEmpty())
            QVERIFY2(r.failures.isEmpty(), qPrintable(r.failures.join(QLatin1Char(' '))));
        else
            QVERIFY2(r.failures.join(QLatin1Char(' ')).contains(failure), qPrintable(r.failures.join(QLatin1Char(' '))));
    }

    // Logs of a failed start that print no KV-cache size: refused with what the log shows.
    void realFailedStartsAreSaid_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("says");
        QTest::newRow("vLLM V1 CI: engine core exception") << QStringLiteral("vllm-v1-0.8-ci-no-memory-fail.log") << QStringLiteral("line 2: vLLM's engine core failed to start");
        // "# GPU blocks: 0": no pool, a failure and not a figure to compare (it was compared as 0 blocks).
        QTest::newRow("vLLM 0.4: zero GPU blocks") << QStringLiteral("vllm-0.4-qwen-7b-zero-blocks-fail.log") << QStringLiteral("line 2: vLLM found no memory for the KV cache");
        QTest::newRow("vLLM 0.6.4 under docker compose") << QStringLiteral("vllm-0.6.4-docker-no-memory-fail.log") << QStringLiteral("line 2: vLLM found no memory for the KV cache");
        QTest::newRow("vLLM V1 gpt-oss-120b on an H100") << QStringLiteral("vllm-v1-gpt-oss-120b-h100-no-memory-fail.log") << QStringLiteral("line 7: vLLM found no memory for the KV cache");
        QTest::newRow("SGLang: weights leave no room") << QStringLiteral("sglang-dsv4-h200-no-kv-fail.log") << QStringLiteral("line 2: SGLang found no room for the KV cache");
        QTest::newRow("SGLang 0.4: not enough memory") << QStringLiteral("sglang-0.4-not-enough-memory-fail.log") << QStringLiteral("line 1: SGLang found no room for the KV cache");
        QTest::newRow("SGLang on GB200: CUDA out of memory") << QStringLiteral("sglang-gb200-cuda-oom-fail.log")
                                                             << QStringLiteral("line 1: the engine ran out of GPU memory allocating 4.00 GiB on GPU 3, with 2.21 GiB of its 184.00 GiB free");
    }
    void realFailedStartsAreSaid()
    {
        QFETCH(QString, file);
        QFETCH(QString, says);
        try {
            LogCalibration::read(log(file.toLatin1().constData()), QStringLiteral("LOGFILE"));
            QFAIL("read a failed start as a calibration");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("LOGFILE"));
            QVERIFY2(e.message().startsWith(QStringLiteral("the log shows a failed start and no KV-cache size to compare")), qPrintable(e.message()));
            QVERIFY2(e.message().contains(says), qPrintable(e.message()));
        }
    }

    // A model name a log prints names a preset's model when only a fine-tune suffix differs
    // (Llama-3.1-8B-Instruct's config.json differs from the base's in eos_token_id alone,
    // presets/models/llama-3.1-8b.json); another size or family never does.
    void namesModel_data()
    {
        QTest::addColumn<QString>("printed");
        QTest::addColumn<QString>("hfId");
        QTest::addColumn<bool>("same");
        QTest::newRow("instruct of the base") << QStringLiteral("meta-llama/Llama-3.1-8B-Instruct") << QStringLiteral("meta-llama/Llama-3.1-8B") << true;
        QTest::newRow("base of the instruct") << QStringLiteral("Qwen/Qwen2.5-7B") << QStringLiteral("Qwen/Qwen2.5-7B-Instruct") << true;
        QTest::newRow("-it, another owner") << QStringLiteral("/models/gemma-3-27b-it") << QStringLiteral("google/gemma-3-27b-it") << true;
        QTest::newRow("chat -hf") << QStringLiteral("meta-llama/Llama-2-7b-chat-hf") << QStringLiteral("meta-llama/Llama-2-7b-hf") << true;
        // Meta renamed its Llama 3.1 repositories in December 2024 (meta-llama/Meta-Llama-3.1-8B-Instruct
        // is now meta-llama/Llama-3.1-8B-Instruct); logs from before print the old name (SGLang's
        // quick start, tests/data/logs/sglang-0.4-llama-3.1-8b-docs.log).
        QTest::newRow("Meta- before the rename") << QStringLiteral("meta-llama/Meta-Llama-3.1-8B-Instruct") << QStringLiteral("meta-llama/Llama-3.1-8B") << true;
        QTest::newRow("another size") << QStringLiteral("meta-llama/Llama-3.1-8B-Instruct") << QStringLiteral("meta-llama/Llama-3.1-70B") << false;
        QTest::newRow("another family") << QStringLiteral("Qwen/QwQ-32B") << QStringLiteral("Qwen/Qwen3-32B") << false;
        QTest::newRow("nothing printed") << QString() << QStringLiteral("x/it") << false;
    }
    void namesModel()
    {
        QFETCH(QString, printed);
        QFETCH(QString, hfId);
        QFETCH(bool, same);
        QCOMPARE(LogCalibration::namesModel(printed, hfId), same);
    }

    // A log holding two start-ups (the engine restarted: each engine's start-of-run line again)
    // is read as its last one alone, for every engine, and says an earlier one was skipped; the
    // figures of the first run never mix into the second's.
    void twoStartUps_data()
    {
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("second");
        auto file = [](const char *name, const char *banner = nullptr) -> QString {
            return (banner ? QString::fromLatin1(banner) + QLatin1Char('\n') : QString()) + log(name);
        };
        // E02's real lines carry no banner; the test puts vLLM 0.10's start-of-run line before them.
        const char *qwen = "INFO 07-12 10:01:02 [core.py:69] Initializing a V1 LLM engine (v0.10.1) with config: model='Qwen/Qwen3-14B', max_seq_len=32768";
        QTest::newRow("vLLM: Qwen3-14B, then Llama-3.1-8B without a token count")
            << file("vllm-v1-qwen3-14b-enginecore.log", qwen) << file("vllm-0.11-llama-3.1-8b-h100.log");
        QTest::newRow("vLLM: Llama-3.1-8B, then Qwen3-14B") << file("vllm-0.11-llama-3.1-8b-h100.log") << file("vllm-v1-qwen3-14b-enginecore.log", qwen);
        // The same SGLang run twice with another pool: the second's tokens.
        QTest::newRow("SGLang") << file("sglang-qwq-32b-tp4.log") << QString(file("sglang-qwq-32b-tp4.log")).replace(QStringLiteral("46611"), QStringLiteral("40000"));
        const char *llama = "build: 4462 (c05e8c99) with cc (Ubuntu 13.3.0) 13.3.0 for x86_64-linux-gnu";
        QTest::newRow("llama.cpp") << file("llamacpp-qwen2.5-coder-32b-2gpu.log", llama) << file("llamacpp-llama2-7b.log", llama);
        const char *trt = "[TensorRT-LLM] TensorRT-LLM version: 0.8.0";
        QTest::newRow("TensorRT-LLM") << file("trtllm-0.8-a100-smoothquant.log", trt) << file("trtllm-0.5-llama-2-7b-a10.log", trt);
        const char *ollama = "time=2025-08-08T23:00:01.000+01:00 level=INFO source=routes.go:1304 msg=\"Listening on 127.0.0.1:11434 (version 0.11.4)\"";
        QTest::newRow("Ollama") << file("ollama-0.11-gemma3-12b.log", ollama) << file("ollama-0.11-gemma3-12b-ctx2048.log", ollama);
    }
    void twoStartUps()
    {
        QFETCH(QString, first);
        QFETCH(QString, second);
        if (!first.endsWith(QLatin1Char('\n')))
            first += QLatin1Char('\n');
        const LogReading both = LogCalibration::read(first + second, QStringLiteral("log"));
        const LogReading alone = LogCalibration::read(second, QStringLiteral("log"));
        QCOMPARE(both.engine, alone.engine);
        QCOMPARE(both.model, alone.model);
        QCOMPARE(both.kvTokens, alone.kvTokens);
        QCOMPARE(both.kvBudget, alone.kvBudget);
        QCOMPARE(both.numBlocks, alone.numBlocks);
        QCOMPARE(both.kvSelf, alone.kvSelf);
        QCOMPARE(both.requiredKv, alone.requiredKv);
        QCOMPARE(both.weights, alone.weights);
        QCOMPARE(both.maxModelLen, alone.maxModelLen);
        QCOMPARE(both.layers, alone.layers);
        // Said, with the line the last start-up begins on.
        const int from = int(first.count(QLatin1Char('\n'))) + 1;
        QCOMPARE(both.notes.size(), 1);
        QVERIFY2(both.notes.first().contains(QStringLiteral("2 start-ups")) && both.notes.first().contains(QStringLiteral("from line %1,").arg(from)),
                 qPrintable(both.notes.first()));
        QVERIFY(alone.notes.isEmpty());
    }

    // A last start-up cut off before its KV-cache line: the complete one before it is read, and said.
    void cutOffRestartReadsTheCompleteOne()
    {
        // E02's real lines after vLLM 0.10's start-of-run line (the test's, naming the model).
        const QString first = QStringLiteral("INFO 07-12 10:01:02 [core.py:69] Initializing a V1 LLM engine (v0.10.1) with config: "
                                             "model='Qwen/Qwen3-14B', max_seq_len=32768\n")
            + log("vllm-v1-qwen3-14b-enginecore.log");
        const QString cut = QStringLiteral("INFO 07-12 11:00:00 [core.py:69] Initializing a V1 LLM engine (v0.10.1) with config: model='Qwen/Qwen3-8B', max_seq_len=8192\n"
                                           "INFO 07-12 11:00:30 [gpu_model_runner.py] Model loading took 15.27 GiB and 20.1 seconds\n");
        const LogReading r = LogCalibration::read(first + cut, QStringLiteral("log"));
        QCOMPARE(r.model, QStringLiteral("Qwen/Qwen3-14B"));
        QCOMPARE(*r.kvTokens, qint64(42656));
        QCOMPARE(*r.maxModelLen, qint64(32768));
        QVERIFY2(r.notes.value(0).contains(QStringLiteral("printed no KV-cache figure")), qPrintable(r.notes.value(0)));
    }

    // A KV-cache size of zero or below, or any negative figure, is refused naming its line
    // (they were skipped, the minus sign unread, or compared as a pool of 0).
    // A log from another card than the scenario's is said so: the E26 log's H100 (79.18 GiB as
    // torch saw it, line 4) against a 96 GiB card predicted 17% more; an 80 GiB card (torch's
    // figure within 1%) is the same memory.
    void anotherCardIsSaid()
    {
        const LogReading r = LogCalibration::read(log("vllm-0.11-llama-3.1-8b-h100.log"), QStringLiteral("log"));
        for (const qint64 gib : {qint64(96), qint64(80)}) {
            Scenario before = base(dense(32, 32, 8, 128));
            before.gpu = GpuSpec::custom(gib * Units::GiB);
            const Scenario calibrated = LogCalibration::apply(r, before);
            const QStringList notes = LogCalibration::warnings(r, calibrated, LogCalibration::compare(r, before));
            const bool said = notes.join(QLatin1Char('\n')).contains(QStringLiteral("The log's card has 79.18 GiB in all"));
            QVERIFY2(said == (gib == 96), qPrintable(notes.join(QLatin1Char('\n'))));
        }
    }

    void nonPositiveFiguresRefused_data()
    {
        // The error names the line that holds the damaged figure, found here in the file itself:
        // E26's layout (tests/data/logs/SOURCE.md) is written around the study's figures, so no
        // line number of it is a fact to assert; the others are the engines' own lines.
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::newRow("vLLM budget negative") << QStringLiteral("vllm-0.11-llama-3.1-8b-h100.log") << QStringLiteral("memory: 51.38 GiB") << QStringLiteral("memory: -51.38 GiB");
        QTest::newRow("vLLM budget zero") << QStringLiteral("vllm-0.11-llama-3.1-8b-h100.log") << QStringLiteral("memory: 51.38 GiB") << QStringLiteral("memory: 0.00 GiB");
        QTest::newRow("vLLM weights negative") << QStringLiteral("vllm-0.11-llama-3.1-8b-h100.log") << QStringLiteral("took 14.99 GiB") << QStringLiteral("took -14.99 GiB");
        QTest::newRow("vLLM tokens zero") << QStringLiteral("vllm-v1-qwen3-14b-enginecore.log") << QStringLiteral("42,656 tokens") << QStringLiteral("0 tokens");
        QTest::newRow("vLLM tokens negative") << QStringLiteral("vllm-v1-qwen3-14b-enginecore.log") << QStringLiteral("42,656 tokens") << QStringLiteral("-42,656 tokens");
        QTest::newRow("vLLM concurrency negative") << QStringLiteral("vllm-v1-qwen3-14b-enginecore.log") << QStringLiteral("request: 1.30x") << QStringLiteral("request: -1.30x");
        QTest::newRow("vLLM tokens misgrouped") << QStringLiteral("vllm-v1-qwen3-14b-enginecore.log") << QStringLiteral("42,656 tokens") << QStringLiteral("4,2,,656 tokens");
        QTest::newRow("vLLM blocks negative") << QStringLiteral("vllm-0.6-llama-3.1-8b-3090-20k.log") << QStringLiteral("blocks: 1952") << QStringLiteral("blocks: -1952");
        QTest::newRow("SGLang tokens zero") << QStringLiteral("sglang-qwq-32b-tp4.log") << QStringLiteral("TP2] KV Cache is allocated. #tokens: 46611") << QStringLiteral("TP2] KV Cache is allocated. #tokens: 0");
        QTest::newRow("SGLang free memory negative") << QStringLiteral("sglang-qwq-32b-tp4.log") << QStringLiteral("TP3] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=6.09 GB")
                                                       << QStringLiteral("TP3] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=-6.09 GB");
        QTest::newRow("SGLang K size zero") << QStringLiteral("sglang-0.4-llama-3.1-8b-docs.log") << QStringLiteral("K size: 27.13 GB")
                                            << QStringLiteral("K size: 0.00 GB");
        QTest::newRow("SGLang V size negative") << QStringLiteral("sglang-0.4-llama-3.1-8b-docs.log") << QStringLiteral("V size: 27.13 GB")
                                                << QStringLiteral("V size: -27.13 GB");
        QTest::newRow("SGLang pool end negative") << QStringLiteral("sglang-0.4-llama-3.1-8b-docs.log") << QStringLiteral("Memory pool end. avail mem=8.34 GB")
                                                  << QStringLiteral("Memory pool end. avail mem=-8.34 GB");
        QTest::newRow("llama.cpp KV self zero") << QStringLiteral("llamacpp-llama2-7b.log") << QStringLiteral("KV self size  = 1024.00") << QStringLiteral("KV self size  = 0.00");
        QTest::newRow("llama.cpp layers negative") << QStringLiteral("llamacpp-llama2-7b.log") << QStringLiteral("n_layer          = 32") << QStringLiteral("n_layer          = -32");
        QTest::newRow("TensorRT-LLM tokens zero") << QStringLiteral("trtllm-0.8-a100-smoothquant.log") << QStringLiteral("Using 132608 tokens") << QStringLiteral("Using 0 tokens");
    }
    void nonPositiveFiguresRefused()
    {
        QFETCH(QString, file);
        QFETCH(QString, from);
        QFETCH(QString, to);
        QString text = log(file.toLatin1().constData());
        QVERIFY2(text.count(from) == 1, qPrintable(from));
        const qsizetype line = text.left(text.indexOf(from)).count(QLatin1Char('\n')) + 1;
        text.replace(from, to);
        try {
            const LogReading r = LogCalibration::read(text, QStringLiteral("LOGFILE"));
            QFAIL(qPrintable(QStringLiteral("read: tokens %1, budget %2").arg(r.kvTokens.value_or(-1)).arg(r.kvBudget.value_or(-1))));
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("LOGFILE"));
            QVERIFY2(e.message().startsWith(QStringLiteral("line %1: ").arg(line)), qPrintable(e.message()));
        }
    }

    // Printed against the figures from the log's measured terms (CalibrationRow::measured) for
    // real logs whose model and settings the thread gives.
    void realLogsPredicted()
    {
        // E01's own log (vllm issue 10517, RTX 3090, Llama-3.1-8B at 20000): vLLM 0.6.4's budget is
        // 23.58 x 0.90 - (peak_torch 17.06 + non-torch 0.35) = 3.81 GiB, with the weights (14.9888 GB,
        // i.e. GiB) inside the torch peak: 23.58 x 0.9 - 14.9888 - 2.0712 - 0.35 = 3.812 GiB.
        {
            const LogReading r = LogCalibration::read(log("vllm-0.6-llama-3.1-8b-3090-20k.log"), QStringLiteral("log"));
            QCOMPARE(*r.activationPeak, qint64(std::llround(17.06 * double(Units::GiB))) - qint64(std::llround(14.9888 * double(Units::GiB))));
            const Scenario s = LogCalibration::apply(r, base(dense(32, 32, 8, 128)));
            const QVector<CalibrationRow> rows = LogCalibration::compare(r, s);
            QCOMPARE(rows.size(), 3);
            QVERIFY2(std::abs(rows.at(0).measured - 3.81) < 0.005, qPrintable(QString::number(rows.at(0).measured)));
            // Blocks of 16 tokens x 131,072 B = 2 MiB from 3.81 GiB: 1,950 (1,952 printed: 3.81 is rounded).
            QCOMPARE(rows.at(1).figure, QStringLiteral("GPU blocks"));
            QCOMPARE(rows.at(1).measured, 1950.0);
            QCOMPARE(rows.at(2).printed, 1.56);
        }
        // vllm PR 10511's table: 79.22 x 0.90 - 14.96 - 1.79 - 1.26 = 53.288 GiB (printed 53.29).
        {
            const LogReading r = LogCalibration::read(log("vllm-0.6.5-llama-3-8b-profile-table.log"), QStringLiteral("log"));
            const Scenario s = LogCalibration::apply(r, base(dense(32, 32, 8, 128)));
            const QVector<CalibrationRow> rows = LogCalibration::compare(r, s);
            QCOMPARE(rows.size(), 1);
            QVERIFY2(std::abs(rows.first().measured - 53.288) < 0.001, qPrintable(QString::number(rows.first().measured)));
        }
        // vllm PR 14447's workers: 23.58 x 0.99 - 21.21 - 0.20 - 0.37 = 1.5642 GiB (printed 1.57:
        // four terms each rounded to 0.01 GiB).
        {
            const LogReading r = LogCalibration::read(log("vllm-0.8-tp-workers-profile.log"), QStringLiteral("log"));
            const Scenario s = LogCalibration::apply(r, base(dense(36, 32, 8, 128)));
            const QVector<CalibrationRow> rows = LogCalibration::compare(r, s);
            QVERIFY2(std::abs(rows.first().measured - 1.5642) < 0.001, qPrintable(QString::number(rows.first().measured)));
        }
        // E08 as printed (TensorRT-LLM issue 1400): 69,524,783,104 B at Llama-2-7B's 524,288 B per
        // token (32 layers x 2 x 32 heads x 128 x 2 B) is 132,608 tokens exactly.
        {
            const LogReading r = LogCalibration::read(log("trtllm-0.8-a100-smoothquant.log"), QStringLiteral("log"));
            Scenario b = base(dense(32, 32, 32, 128));
            b.kvDtype = Dtype::FP16;
            const QVector<CalibrationRow> rows = LogCalibration::compare(r, LogCalibration::apply(r, b));
            QCOMPARE(rows.size(), 2); // the printed budget (predicted before hardware) and the tokens
            QCOMPARE(rows.at(0).unit, QStringLiteral("GiB"));
            QCOMPARE(rows.at(1).measured, 132608.0);
        }
        // The TPU refusal (tpu-inference PR 223, Llama-3.1-8B's default 131072): one request needs
        // 131,072 x 131,072 B = 16.00 GiB, as printed.
        {
            const LogReading r = LogCalibration::read(log("vllm-tpu-131k-fail.log"), QStringLiteral("log"));
            const QVector<CalibrationRow> rows = LogCalibration::compare(r, LogCalibration::apply(r, base(dense(32, 32, 8, 128))));
            QVERIFY(rows.size() >= 2); // the printed budget (predicted before hardware) first, then the need
            QCOMPARE(rows.at(0).unit, QStringLiteral("GiB"));
            QCOMPARE(rows.at(1).figure, QStringLiteral("KV cache needed for one max_model_len request"));
            QCOMPARE(rows.at(1).printed, 16.0);
            QCOMPARE(rows.at(1).measured, 16.0);
        }
    }

    // Ollama's memory.required.kv from its server.log, with --ctx-size (num_ctx x num_parallel),
    // --parallel and --batch-size from the runner's command line.
    void ollamaLogsPredicted()
    {
        // ollama issue 8098: --ctx-size 8192 --parallel 4, 28 layers x 8 KV heads x 128 x 2 x 2 B x
        // 8,192 cells = 896 MiB.
        {
            const LogReading r = LogCalibration::read(log("ollama-29-layer-parallel4.log"), QStringLiteral("log"));
            const Scenario s = LogCalibration::apply(r, base(dense(28, 24, 8, 128)));
            QCOMPARE(s.engine, Engine::Ollama);
            QCOMPARE(s.engineSettings.nSeq, 4);
            QCOMPARE(*s.engineSettings.nCtx, qint64(2048));
            const QVector<CalibrationRow> rows = LogCalibration::compare(r, s);
            QCOMPARE(rows.size(), 1);
            QCOMPARE(rows.first().predicted, 896.0);
        }
        // E15 as printed (issue 9181): 80 x 2 x 8 x 128 x 2 B x 64,000 = 19.53 GiB, printed 19.5.
        {
            const LogReading r = LogCalibration::read(log("ollama-80-layer-4gpu-64k.log"), QStringLiteral("log"));
            const QVector<CalibrationRow> rows = LogCalibration::compare(r, LogCalibration::apply(r, base(dense(80, 64, 8, 128))));
            QVERIFY2(std::abs(rows.first().predicted - 20000.0) < 0.01, qPrintable(QString::number(rows.first().predicted)));
        }
        // gemma3:12b (E14's shape) under Ollama 0.11: 40 local layers x (1 x 1024 + 512) cells + 8
        // global layers x --ctx-size cells, x 8,192 B: 992 MiB at 8192 and 608 MiB at 2048, as printed.
        const ModelShape gemma = ConfigImporter::fromConfig(QJsonDocument::fromJson(QByteArray(R"({"model_type":"gemma3_text","num_hidden_layers":48,
            "num_attention_heads":16,"num_key_value_heads":8,"head_dim":256,"hidden_size":3840,"sliding_window":1024,
            "sliding_window_pattern":6})")).object());
        for (const auto &[file, mib] : {std::pair{"ollama-0.11-gemma3-12b.log", 992.0}, std::pair{"ollama-0.11-gemma3-12b-ctx2048.log", 608.0}}) {
            const LogReading r = LogCalibration::read(log(file), QStringLiteral("log"));
            Scenario b = base(gemma);
            b.kvDtype = Dtype::FP16;
            const QVector<CalibrationRow> rows = LogCalibration::compare(r, LogCalibration::apply(r, b));
            QCOMPARE(rows.first().printed, mib);
            QCOMPARE(rows.first().predicted, mib);
        }
    }

    // Decorations real logs carry, on one figure each: terminal colour codes, CRLF, a progress
    // bar redrawn with carriage returns on the line that ends with the figure.
    void decorationsAreNotText()
    {
        const QString ansi = QStringLiteral("\x1b[1;36m(EngineCore_DP0 pid=1133552)\x1b[0;0m INFO 10-03 16:22:17 [gpu_worker.py:298] "
                                            "Available KV cache memory: \x1b[1m6.51\x1b[0m GiB\r\n"
                                            "(EngineCore_DP0 pid=1133552) INFO 10-03 16:22:17 [kv_cache_utils.py:864] GPU KV cache size: 42,656 tokens\r\n");
        const LogReading a = LogCalibration::read(ansi, QStringLiteral("log"));
        QCOMPARE(*a.kvBudget, qint64(std::llround(6.51 * double(Units::GiB))));
        QCOMPARE(*a.kvTokens, qint64(42656));
        const QString bar = QStringLiteral("Capturing CUDA graphs:  50%|#####     | 33/67 [00:01<00:01]\rCapturing CUDA graphs: 100%|##########| "
                                           "67/67 [00:02<00:00]\rINFO 01-30 03:19:14 kv_cache_utils.py:395] # GPU blocks: 1381\n");
        const LogReading b = LogCalibration::read(bar, QStringLiteral("log"));
        QCOMPARE(*b.numBlocks, qint64(1381));
        QCOMPARE(b.linesRead, 1);
        QCOMPARE(b.linesUsed, 1);
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
                                                                     << QStringLiteral("line 2: \"%1\u2026 (313 characters) is not a memory figure")
                                                                            .arg(huge.first(95)); // repeated to its first 96 characters (InputError)
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
                                                         << QStringLiteral("no vLLM, SGLang, llama.cpp, Ollama or TensorRT-LLM KV-cache line found: read all 1 lines, stopped at line 1 (1 recognised)");
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
        // compare: the scenario the log calibrates cannot be planned (TP 3 does not divide 40 heads;
        // this log prints no TP, so the flag's stands).
        const LogReading r = LogCalibration::read(log("vllm-v1-fp8-100k.log"), QStringLiteral("LOGFILE"));
        QVERIFY(!r.tp);
        Scenario s = base(dense(40, 40, 8, 128));
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
