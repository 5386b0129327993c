// SPDX-License-Identifier: GPL-3.0-or-later
// Engine profiles against what real engines printed (shared/validation/
// engine-logs.md, rows E01-E15). Engines print rounded figures: "3.81 GiB"
// stands for anything in [3.805, 3.815) GiB, so a row passes when the printed
// count lies in the range the rule gives over that interval.
#include "plan/capacity.h"
#include "io/configimporter.h"
#include "engines/enginerule.h"
#include "engines/sglang.h"
#include "engines/vllm.h"

#include <QJsonDocument>
#include "testshapes.h"

#include <QTest>
#include <cmath>

using namespace Headroom;
using Headroom::Test::dense;

namespace {

constexpr qint64 MiB = qint64(1) << 20;
constexpr qint64 GiB = qint64(1) << 30;


ModelShape fromJson(const char *json)
{
    return ConfigImporter::fromConfig(QJsonDocument::fromJson(QByteArray(json)).object());
}

ModelShape deepseek()
{
    // deepseek-ai/DeepSeek-V3 config.json: 61 layers, kv_lora_rank 512, qk_rope_head_dim 64.
    return fromJson(R"({"model_type":"deepseek_v3","num_hidden_layers":61,"num_attention_heads":128,
        "num_key_value_heads":128,"hidden_size":7168,"kv_lora_rank":512,"qk_rope_head_dim":64,
        "qk_nope_head_dim":128,"v_head_dim":128})");
}

Scenario scenario(const ModelShape &m, Engine engine, int tp = 1, Dtype kv = Dtype::BF16)
{
    Scenario s;
    s.model = m;
    s.model.totalParams = s.model.activeParams = 1'000'000'000;
    s.gpu = GpuSpec::custom(80 * GiB);
    s.engine = engine;
    s.tp = tp;
    s.kvDtype = kv;
    s.contextTokens = 1000;
    return s;
}

EngineFigures pinned(Scenario s, qint64 kvBytes)
{
    s.engineSettings.kvCacheMemory = kvBytes;
    const CapacityResult r = computeCapacity(s);
    if (!r.ok)
        qFatal("%s", qPrintable(r.error));
    return r.engineFigures;
}

// [lo, hi] bytes of a figure printed as `printed` units with `decimals` decimals.
std::pair<qint64, qint64> interval(double printed, int decimals, qint64 unit)
{
    const double half = 0.5 * std::pow(10.0, -decimals);
    return {qint64(std::ceil((printed - half) * double(unit))), qint64(std::floor((printed + half) * double(unit)))};
}

} // namespace

Q_DECLARE_METATYPE(Headroom::ModelShape)

class TestEngines : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void vllmPrintedBudget_data()
    {
        QTest::addColumn<ModelShape>("model");
        QTest::addColumn<int>("tp");
        QTest::addColumn<qint64>("maxModelLen");
        QTest::addColumn<double>("printedGiB");
        QTest::addColumn<int>("decimals");
        QTest::addColumn<qint64>("blocks");   // -1: not printed
        QTest::addColumn<qint64>("tokens");
        QTest::addColumn<double>("concurrency");
        QTest::newRow("E01 vLLM V0 RTX 3090 Llama-3.1-8B: 3.81 GiB, 1952 blocks, 31,232 tokens, 1.56x")
            << dense(32, 32, 8, 128) << 1 << qint64(20000) << 3.81 << 2 << qint64(1952) << qint64(31232) << 1.56;
        QTest::newRow("E02 vLLM V1 Qwen3-14B: 6.51 GiB, 42,656 tokens, 1.30x")
            << dense(40, 40, 8, 128) << 1 << qint64(32768) << 6.51 << 2 << qint64(-1) << qint64(42656) << 1.30;
        QTest::newRow("E03 vLLM 0.11 DGX Spark Mistral-7B-v0.2: 102.56 GiB, 52,510 blocks, 840,160 tokens, 25.64x")
            << dense(32, 32, 8, 128) << 1 << qint64(32768) << 102.56 << 2 << qint64(52510) << qint64(840160) << 25.64;
        QTest::newRow("E04 vLLM V1 4x L40S TP4 Qwen3-Coder-30B-A3B: 23.74 GiB, 1,037,152 tokens, 31.65x")
            << dense(48, 32, 4, 128) << 4 << qint64(32768) << 23.74 << 2 << qint64(-1) << qint64(1037152) << 31.65;
        QTest::newRow("E05 vLLM V1 16 GB card Qwen2.5-7B-AWQ: 8.0 GiB, 149,712 tokens, 4.57x")
            << dense(28, 28, 4, 128) << 1 << qint64(32768) << 8.0 << 1 << qint64(-1) << qint64(149712) << 4.57;
    }
    void vllmPrintedBudget()
    {
        QFETCH(ModelShape, model);
        QFETCH(int, tp);
        QFETCH(qint64, maxModelLen);
        QFETCH(double, printedGiB);
        QFETCH(int, decimals);
        QFETCH(qint64, blocks);
        QFETCH(qint64, tokens);
        QFETCH(double, concurrency);
        Scenario s = scenario(model, Engine::Vllm, tp);
        s.maxModelLen = maxModelLen;
        const auto [lo, hi] = interval(printedGiB, decimals, GiB);
        const EngineFigures a = pinned(s, lo), b = pinned(s, hi);
        QVERIFY2(a.kvCacheTokens <= tokens && tokens <= b.kvCacheTokens,
                 qPrintable(QStringLiteral("%1 not in [%2, %3]").arg(tokens).arg(a.kvCacheTokens).arg(b.kvCacheTokens)));
        if (blocks >= 0)
            QVERIFY(a.numBlocks <= blocks && blocks <= b.numBlocks);
        // At the budget that gives the printed token count, the concurrency rounds to the printed figure.
        const qint64 perBlock = 16 * KvCost(model, Dtype::BF16, tp, 16).bytesPerTokenPerGpu();
        const EngineFigures exact = pinned(s, tokens / 16 * perBlock);
        QCOMPARE(exact.kvCacheTokens, tokens);
        QVERIFY2(std::abs(exact.maxConcurrency - concurrency) < 0.005, qPrintable(QString::number(exact.maxConcurrency)));
    }

    void vllmBreakdownE05()
    {
        // E05: 15.99 GiB x 0.9 - weights 5.29 - activation 1.04 - non-torch 0.06 GiB, CUDA graphs
        // (0.48 GiB) not subtracted by that version: "available KV 8.0 GiB". Each input was
        // printed to 0.01 GiB, so the budget is known to within their summed rounding.
        Scenario s = scenario(dense(28, 28, 4, 128), Engine::Vllm);
        s.gpuMemoryBytes = qint64(15.99 * GiB);
        s.weightsBytes = qint64(5.29 * GiB);
        s.engineSettings.activationPeak = qint64(1.04 * GiB);
        s.engineSettings.nonTorch = qint64(0.06 * GiB);
        s.engineSettings.cudaGraph = qint64(0.48 * GiB);
        s.engineSettings.vllmMajor = 0;
        s.engineSettings.vllmMinor = 10;
        CapacityResult r = computeCapacity(s);
        QVERIFY(r.ok);
        const double budget = double(r.kvBudgetBytesPerGpu) / double(GiB);
        QVERIFY2(std::abs(budget - 8.0) < 0.05, qPrintable(QString::number(budget)));
        // From 0.11 on the CUDA-graph memory is subtracted too: 0.48 GiB less.
        s.engineSettings.vllmMinor = 11;
        const qint64 with = computeCapacity(s).kvBudgetBytesPerGpu;
        QCOMPARE(r.kvBudgetBytesPerGpu - with, qint64(0.48 * GiB));
    }

    void vllmActivationEstimateE05()
    {
        // Qwen2.5-7B config.json: intermediate_size 18944, vocab_size 152064; E05 printed a
        // 1.04 GiB activation peak at vLLM V1's default 8,192 batched tokens.
        Scenario s = scenario(dense(28, 28, 4, 128), Engine::Vllm);
        s.model.intermediateSize = 18944;
        s.model.vocabSize = 152064;
        const double est = double(vllmActivationEstimate(s)) / double(GiB);
        QVERIFY2(std::abs(est - 1.04) / 1.04 < 0.05, qPrintable(QString::number(est)));
    }

    void vllmSmallestWorkerE06()
    {
        // E06: one TP4 worker printed 8.11 GiB for Qwen3-235B-A22B (94 layers, 4 KV heads,
        // head_dim 128: 1 head per GPU); the engine printed 178,880 tokens, "1.1% below what
        // 8.11 GiB holds", because the worker with the least memory sets the blocks. The
        // printing worker's own figure must sit that far above.
        Scenario s = scenario(dense(94, 64, 4, 128), Engine::Vllm, 4);
        s.maxModelLen = 40960;
        const EngineFigures f = pinned(s, qint64(8.11 * GiB));
        const double above = double(f.kvCacheTokens - 178880) / double(f.kvCacheTokens);
        QVERIFY2(above > 0.008 && above < 0.014, qPrintable(QString::number(above)));
    }

    void vllmHybridGroups()
    {
        // vllm/v1/core/kv_cache_utils.py: Gemma-3-27B (52 sliding + 10 full) forms groups of
        // 10 layers: 6 sliding groups + 1 full = 7; blocks = budget / page / 10 and the printed
        // tokens = blocks // 7 x 16. Page = 16 tokens x 2 x 16 heads x 128 x 2 B = 131,072 B.
        const ModelShape m = fromJson(R"({"model_type":"gemma3_text","num_hidden_layers":62,"num_attention_heads":32,
            "num_key_value_heads":16,"head_dim":128,"hidden_size":5376,"sliding_window":1024,"sliding_window_pattern":6})");
        Scenario s = scenario(m, Engine::Vllm);
        const qint64 budget = 20 * GiB;
        const EngineFigures f = pinned(s, budget);
        QCOMPARE(f.numBlocks, budget / 131072 / 10);
        QCOMPARE(f.kvCacheTokens, budget / 131072 / 10 / 7 * 16);
        // gpt-oss-20b: 12 sliding + 12 full, groups of 12: 2 groups.
        const ModelShape oss = fromJson(R"({"model_type":"gpt_oss","num_hidden_layers":4,"num_attention_heads":64,
            "num_key_value_heads":8,"head_dim":64,"sliding_window":128,
            "layer_types":["sliding_attention","full_attention","sliding_attention","full_attention"]})");
        const EngineFigures g = pinned(scenario(oss, Engine::Vllm), 1 * GiB);
        const qint64 page = 16 * 2 * 8 * 64 * 2;
        QCOMPARE(g.numBlocks, GiB / page / 2);
        QCOMPARE(g.kvCacheTokens, GiB / page / 2 / 2 * 16);
    }

    void sglangE07()
    {
        // E07: QwQ-32B (64 layers, 40 heads, 8 KV heads, head_dim 128) on 4 x L4, TP4:
        // 2 KV heads per GPU = 64 x 2 x 2 x 128 x 2 B = 65,536 B per token per GPU.
        // Free before load 21.63 GiB, after 6.09 GiB, mem_fraction_static 0.85: 46,611 tokens.
        Scenario s = scenario(dense(64, 40, 8, 128), Engine::Sglang, 4);
        s.engineSettings.memFractionStatic = 0.85;
        const auto [beforeLo, beforeHi] = interval(21.63, 2, GiB);
        const auto [afterLo, afterHi] = interval(6.09, 2, GiB);
        s.engineSettings.freeMemoryBefore = beforeHi;
        s.engineSettings.freeMemoryAfter = afterLo;
        const qint64 lo = computeCapacity(s).engineFigures.kvCacheTokens;
        s.engineSettings.freeMemoryBefore = beforeLo;
        s.engineSettings.freeMemoryAfter = afterHi;
        const qint64 hi = computeCapacity(s).engineFigures.kvCacheTokens;
        QVERIFY2(lo <= 46611 && 46611 <= hi, qPrintable(QStringLiteral("[%1, %2]").arg(lo).arg(hi)));
        // K size = V size = 46,611 x 64 layers x 2 heads x 128 x 2 B = 1.42 GiB printed.
        QCOMPARE(std::round(double(qint64(46611) * 64 * 2 * 128 * 2) / double(GiB) * 100) / 100, 1.42);
        // The default fraction at TP 4 is the one E07 ran with.
        QCOMPARE(Sglang::defaultMemFractionStatic(4), 0.85);
    }

    void trtllmE08()
    {
        // E08: TensorRT-LLM 0.8, Llama-2-7B shape (MHA 32 x 32 x 128), fp16 cache:
        // allocated 69,524,783,104 bytes for 132,608 tokens = 524,288 B each.
        Scenario s = scenario(dense(32, 32, 32, 128), Engine::Trtllm, 1, Dtype::FP16);
        EngineFigures f = pinned(s, 69'524'783'104);
        QCOMPARE(f.kvCacheTokens, qint64(132608));
        QCOMPARE(f.kvCacheBytes, qint64(69'524'783'104));
        QCOMPARE(f.numBlocks, qint64(132608 / 32));
        s.engineSettings.trtTokensPerBlock = 64; // older build scripts
        QCOMPARE(pinned(s, 69'524'783'104).numBlocks, qint64(2072));
        // Unpinned: 0.9 of the free memory after load.
        s.engineSettings.freeMemoryAfter = 10 * GiB;
        const CapacityResult r = computeCapacity(s);
        QCOMPARE(r.kvBudgetBytesPerGpu, qint64(9 * GiB));
    }

    void llamaCpp_data()
    {
        QTest::addColumn<ModelShape>("model");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<qint64>("nCtx");
        QTest::addColumn<qint64>("printedLo");
        QTest::addColumn<qint64>("printedHi");
        QTest::newRow("E09 llama.cpp DeepSeek MLA n_ctx 32768 f16: 2196.00 MiB") << deepseek() << int(Dtype::FP16)
            << qint64(32768) << interval(2196.00, 2, MiB).first << interval(2196.00, 2, MiB).second;
        QTest::newRow("E10 ik_llama.cpp DeepSeek MLA q8_0: 1166.62 MiB") << deepseek() << int(Dtype::Q8_0) << qint64(32768)
            << interval(1166.62, 2, MiB).first << interval(1166.62, 2, MiB).second;
        QTest::newRow("E11 llama.cpp Llama-2-7B n_ctx 2048 f16: 1024.00 MiB") << dense(32, 32, 32, 128) << int(Dtype::FP16)
            << qint64(2048) << interval(1024.00, 2, MiB).first << interval(1024.00, 2, MiB).second;
        QTest::newRow("E13 llama.cpp Qwen2.5-1.5B n_ctx 4096: 112 MiB") << dense(28, 12, 2, 128) << int(Dtype::FP16)
            << qint64(4096) << 112 * MiB << 112 * MiB;
        QTest::newRow("E13 llama.cpp Qwen2.5-1.5B n_ctx 32768: 896 MiB") << dense(28, 12, 2, 128) << int(Dtype::FP16)
            << qint64(32768) << 896 * MiB << 896 * MiB;
    }
    void llamaCpp()
    {
        QFETCH(ModelShape, model);
        QFETCH(int, dtype);
        QFETCH(qint64, nCtx);
        QFETCH(qint64, printedLo);
        QFETCH(qint64, printedHi);
        Scenario s = scenario(model, Engine::LlamaCpp, 1, Dtype(dtype));
        s.engineSettings.nCtx = nCtx;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QVERIFY2(printedLo <= r.engineFigures.kvSelfBytes && r.engineFigures.kvSelfBytes <= printedHi,
                 qPrintable(QString::number(r.engineFigures.kvSelfBytes)));
        QCOMPARE(r.engineFigures.kvCacheTokens, nCtx);
    }

    void llamaCppPadsContext()
    {
        // llama.cpp pads n_ctx to a multiple of 256: 1000 -> 1024 cells.
        Scenario s = scenario(dense(32, 32, 32, 128), Engine::LlamaCpp, 1, Dtype::FP16);
        s.engineSettings.nCtx = 1000;
        QCOMPARE(computeCapacity(s).engineFigures.kvCacheTokens, qint64(1024));
    }

    void llamaCppHybridE12()
    {
        // E12: Falcon-H1-1.5B, f16, n_ctx 32768: KV 768.00 MiB (24 attention layers, 2 KV heads,
        // head_dim 128) and a recurrent buffer R 0.98 + S 72.00 MiB (f32), fixed per sequence.
        // S 72 MiB / 24 layers = 786,432 values = d_state 256 x d_ssm 3072; R 0.98 MiB =
        // 24 x 3 x (3072 + 2 x 256) x 4 B. Shape as the log prints it.
        const ModelShape m = fromJson(R"({"model_type":"falcon_h1","num_hidden_layers":24,"num_attention_heads":8,
            "num_key_value_heads":2,"head_dim":128,"hidden_size":2048,"mamba_d_ssm":3072,"mamba_n_heads":24,
            "mamba_d_head":128,"mamba_n_groups":1,"mamba_d_state":256,"mamba_d_conv":4})");
        Scenario s = scenario(m, Engine::LlamaCpp, 1, Dtype::FP16);
        s.engineSettings.nCtx = 32768;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.engineFigures.kvSelfBytes, 768 * MiB);
        const auto [lo, hi] = interval(72.98, 2, MiB);
        QVERIFY2(lo <= r.engineFigures.recurrentStateBytes && r.engineFigures.recurrentStateBytes <= hi,
                 qPrintable(QString::number(r.engineFigures.recurrentStateBytes)));
        QCOMPARE(m.layers(), 24);
    }

    void ollamaE14()
    {
        // E14: gemma3:12b (48 layers, 8 KV heads, head_dim 256, window 1024, one global in six),
        // context 2048, parallel 1, batch 512: 40 local layers x 1,536 cells + 8 global x 2,048,
        // x 8,192 B per layer per token = 608.0 MiB.
        const ModelShape m = fromJson(R"({"model_type":"gemma3_text","num_hidden_layers":48,"num_attention_heads":16,
            "num_key_value_heads":8,"head_dim":256,"hidden_size":3840,"sliding_window":1024,"sliding_window_pattern":6})");
        Scenario s = scenario(m, Engine::Ollama, 1, Dtype::FP16);
        s.engineSettings.nCtx = 2048;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        const auto [lo, hi] = interval(608.0, 1, MiB);
        QVERIFY2(lo <= r.engineFigures.kvSelfBytes && r.engineFigures.kvSelfBytes <= hi, qPrintable(QString::number(r.engineFigures.kvSelfBytes)));
    }

    void ollamaE15()
    {
        // E15: an 80-layer GQA model (8 KV heads, head_dim 128), num_ctx 64000, f16: 19.5 GiB.
        Scenario s = scenario(dense(80, 64, 8, 128), Engine::Ollama, 1, Dtype::FP16);
        s.engineSettings.nCtx = 64000;
        const qint64 kv = computeCapacity(s).engineFigures.kvSelfBytes;
        const auto [lo, hi] = interval(19.5, 1, GiB);
        QVERIFY2(lo <= kv && kv <= hi, qPrintable(QString::number(kv)));
    }
};

QTEST_GUILESS_MAIN(TestEngines)
#include "tst_engines.moc"
