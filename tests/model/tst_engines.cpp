// SPDX-License-Identifier: GPL-3.0-or-later
// Engine rules against what real engines printed in public start-up logs, bug
// reports and guides (rows E01-E27; the figures are copied into each row, and
// each row names its public report where one is known). Two modes: with the
// log's figures, a row passes when the printed count lies in the range the rule
// gives over the printed rounding ("3.81 GiB" stands for [3.805, 3.815) GiB);
// before hardware (beforeHardware, ollamaBeforeHardware, trtllmE08), from what a
// user knows, the KV budget must land within 2% of the card's memory.
#include "plan/capacity.h"
#include "io/configimporter.h"
#include "engines/enginerule.h"
#include "engines/runnability.h"
#include "engines/sglang.h"
#include "engines/vllm.h"
#include "kv/kvcost.h"
#include "core/units.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include "testshapes.h"

#include <QTest>
#include "common/headroomtest.h"
#include <cmath>

using namespace Headroom;
using Headroom::Test::dense;
using Headroom::Test::gpuPreset;
using Headroom::Test::llama31_8b;
using Headroom::Test::shaped;

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


// Qwen3-32B config.json: 64 layers, 64 heads, 8 KV heads, head_dim 128, hidden 5120,
// intermediate 25600, vocab 151936; 32,762,123,264 parameters.
ModelShape qwen3_32b()
{
    return shaped(dense(64, 64, 8, 128), 5120, 25600, 151936, 32'762'123'264);
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
        // E28 (J10 of ../shared/validation/engine-logs.md: github.com/hanzhizhz/prograph vllm.log,
        // vLLM 0.13.0): Qwen3-30B-A3B (48 layers, 4 KV heads, head_dim 128; 2 per GPU at TP2),
        // max_model_len 8196: 15.78x, as V1 counts a request in whole blocks (8,208 tokens).
        QTest::newRow("E28 (J10) vLLM 0.13 TP2 Qwen3-30B-A3B int4: 5.93 GiB, 129,504 tokens, 15.78x")
            << dense(48, 32, 4, 128) << 2 << qint64(8196) << 5.93 << 2 << qint64(-1) << qint64(129504) << 15.78;
        // E29 (J12: github.com/kumaxxp/duo-talk vllm.log, vLLM 0.13.0): Qwen2.5-14B-Instruct-AWQ
        // (48 layers, 8 KV heads, head_dim 128), max_model_len 8192.
        QTest::newRow("E29 (J12) vLLM 0.13 A5000 Qwen2.5-14B-AWQ: 10.39 GiB, 56,736 tokens, 6.93x")
            << dense(48, 40, 8, 128) << 1 << qint64(8192) << 10.39 << 2 << qint64(-1) << qint64(56736) << 6.93;
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
        // The pool fits the card it was printed on: E03's DGX Spark holds 128 GB of unified
        // memory (NVIDIA DGX Spark datasheet), past the 80 GiB card of the other rows.
        if (printedGiB > 80)
            s.gpu = GpuSpec::custom(128'000'000'000);
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
        // 0.11 still leaves it in (llm-d's 0.11 runs: 71.26 - 14.99 - 4.76 - 0.13 = 51.38 GiB KV
        // with -0.45 GiB of CUDA graphs printed); from 0.21 on it is subtracted: 0.48 GiB less.
        s.engineSettings.vllmMinor = 11;
        QCOMPARE(computeCapacity(s).kvBudgetBytesPerGpu, r.kvBudgetBytesPerGpu);
        s.engineSettings.vllmMinor = 21;
        const qint64 with = computeCapacity(s).kvBudgetBytesPerGpu;
        QCOMPARE(r.kvBudgetBytesPerGpu - with, qint64(0.48 * GiB));
    }

    void vllmActivationEstimateE05()
    {
        // Qwen2.5-7B config.json: hidden_size 3584, intermediate_size 18944, vocab_size 152064;
        // E05 printed a 1.04 GiB activation peak on a 15.99 GiB card (a V1 release before the
        // 0.10 sampler pass: 256 sequences) at the default 8,192 batched tokens. Before hardware
        // the whole budget must land within 2% of the card, so the estimate must too:
        // 8,192 x (3 x 18,944 + 3 x 3,584) x 2 B + 256 x 152,064 x 4 B = 1.18 GiB.
        Scenario s = scenario(dense(28, 28, 4, 128), Engine::Vllm);
        s.gpuMemoryBytes = qint64(15.99 * GiB);
        s.model.hiddenSize = 3584;
        s.model.intermediateSize = 18944;
        s.model.vocabSize = 152064;
        s.engineSettings.vllmMinor = 9;
        const double est = double(vllmActivationEstimate(s)) / double(GiB);
        QVERIFY2(std::abs(est - 1.04) < 0.02 * 15.99, qPrintable(QString::number(est)));
        QCOMPARE(vllmActivationEstimate(s), qint64(8192) * (3 * 18944 + 3 * 3584) * 2 + qint64(256) * 152064 * 4);
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


    // Before hardware: from what a user knows (model, card preset, TP, engine and version,
    // documented settings), the KV budget per GPU within 2% of the card's memory of what the
    // engine printed. Each row names its public source.
    void beforeHardware_data()
    {
        QTest::addColumn<ModelShape>("model");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("engine");
        QTest::addColumn<int>("tp");
        QTest::addColumn<QString>("version");
        QTest::addColumn<qint64>("maxModelLen");
        QTest::addColumn<int>("weightsDtype"); // -1: the checkpoint
        QTest::addColumn<qint64>("weightsBytes"); // -1: from the parameters
        QTest::addColumn<double>("memFraction"); // SGLang; 0: its default
        QTest::addColumn<double>("printedKvGiB");
        const int none = -1;
        // E23 (vLLM V0 ~0.6.4 on an RTX 3090, the public report of E01): 1,952 blocks x 16 x 131,072 B.
        QTest::newRow("E23 vLLM 0.6 RTX 3090 Llama-3.1-8B max_model_len 20000: 1952 blocks")
            << llama31_8b() << QStringLiteral("rtx-3090") << int(Engine::Vllm) << 1 << QStringLiteral("0.6") << qint64(20000)
            << none << qint64(-1) << 0.0 << 1952.0 * 16 * 131072 / double(GiB);
        // The same report's run at max_model_len 29,000 (issue 11): 23,648 tokens x 131,072 B.
        QTest::newRow("E23b vLLM 0.6 RTX 3090 Llama-3.1-8B max_model_len 29000: 23,648 tokens")
            << llama31_8b() << QStringLiteral("rtx-3090") << int(Engine::Vllm) << 1 << QStringLiteral("0.6") << qint64(29000)
            << none << qint64(-1) << 0.0 << 23648.0 * 131072 / double(GiB);
        // E24 (the DGX Spark guide of E03, vLLM 0.11): Mistral-7B-Instruct-v0.2 GPTQ (32 layers,
        // 8 KV heads, hidden 4096, intermediate 14336, vocab 32000, 7,241,732,096 parameters,
        // int4 with 16-bit embeddings and head): 840,160 tokens x 131,072 B = 102.56 GiB.
        QTest::newRow("E24 vLLM 0.11 DGX Spark Mistral-7B GPTQ: 840,160 tokens")
            << shaped(dense(32, 32, 8, 128), 4096, 14336, 32000, 7'241'732'096) << QStringLiteral("dgx-spark") << int(Engine::Vllm) << 1
            << QStringLiteral("0.11") << qint64(32768) << int(Dtype::INT4) << qint64(-1) << 0.0 << 840160.0 * 131072 / double(GiB);
        // E26 and the other rows of llm-d/llm-d-benchmark config_explorer (empirical vLLM memory
        // results; vllm/vllm-openai:v0.11.0, H100 80GB, util 0.9, max-model-len 16000).
        QTest::newRow("E26 vLLM 0.11 H100 Llama-3.1-8B: 51.38 GiB")
            << llama31_8b() << QStringLiteral("h100-sxm-80gb") << int(Engine::Vllm) << 1 << QStringLiteral("0.11") << qint64(16000)
            << none << qint64(-1) << 0.0 << 51.38;
        // Qwen3-0.6B config.json: 28 layers, 16 heads, 8 KV heads, head_dim 128, hidden 1024,
        // intermediate 3072, vocab 151936, 751,632,384 parameters.
        QTest::newRow("E26 llm-d vLLM 0.11 H100 Qwen3-0.6B: 64.45 GiB")
            << shaped(dense(28, 16, 8, 128), 1024, 3072, 151936, 751'632'384) << QStringLiteral("h100-sxm-80gb") << int(Engine::Vllm) << 1
            << QStringLiteral("0.11") << qint64(16000) << none << qint64(-1) << 0.0 << 64.45;
        QTest::newRow("E26 llm-d vLLM 0.11 H100 Qwen3-32B TP1: 4.45 GiB")
            << qwen3_32b() << QStringLiteral("h100-sxm-80gb") << int(Engine::Vllm) << 1 << QStringLiteral("0.11") << qint64(16000)
            << none << qint64(-1) << 0.0 << 4.45;
        QTest::newRow("E26 llm-d vLLM 0.11 H100 Qwen3-32B TP2: 34.49 GiB")
            << qwen3_32b() << QStringLiteral("h100-sxm-80gb") << int(Engine::Vllm) << 2 << QStringLiteral("0.11") << qint64(16000)
            << none << qint64(-1) << 0.0 << 34.49;
        // Llama-3.3-70B-Instruct-FP8-dynamic (Llama-3.1-70B shape: 80 layers, 64 heads, 8 KV heads,
        // hidden 8192, intermediate 28672, vocab 128256, 70,553,706,496 parameters), fp8, TP2.
        QTest::newRow("E26 llm-d vLLM 0.11 H100 Llama-3.3-70B-FP8 TP2: 32.0 GiB")
            << shaped(dense(80, 64, 8, 128), 8192, 28672, 128256, 70'553'706'496) << QStringLiteral("h100-sxm-80gb") << int(Engine::Vllm) << 2
            << QStringLiteral("0.11") << qint64(16000) << int(Dtype::FP8) << qint64(-1) << 0.0 << 32.0;
        // E27: gpt-oss-120b (36 layers, 64 heads, 8 KV heads, head_dim 64, hidden 2880, 128
        // experts of 2880, 4 per token, vocab 201088) from its published checkpoint, 60.8 GiB
        // (OpenAI's model card): the study printed KV 3.33 GiB.
        QTest::newRow("E27 llm-d vLLM 0.11 H100 gpt-oss-120b: 3.33 GiB")
            << shaped(dense(36, 64, 8, 64), 2880, 2880, 201088, 116'829'156'672, 128, 4, 2880) << QStringLiteral("h100-sxm-80gb")
            << int(Engine::Vllm) << 1 << QStringLiteral("0.11") << qint64(16000) << none << qint64(60.8 * GiB) << 0.0 << 3.33;
        // E07 (SGLang, AWS g6.12xlarge, 4 x L4): QwQ-32B (Qwen2.5-32B shape: 64 layers, 40 heads,
        // 8 KV heads, 32,763,876,352 parameters) at mem_fraction_static 0.85: 46,611 tokens x 65,536 B.
        QTest::newRow("E07 SGLang 4 x L4 QwQ-32B TP4: 46,611 tokens")
            << shaped(dense(64, 40, 8, 128), 5120, 27648, 152064, 32'763'876'352) << QStringLiteral("l4") << int(Engine::Sglang) << 4
            << QStringLiteral("0.4") << qint64(131072) << none << qint64(-1) << 0.85 << 46611.0 * 65536 / double(GiB);
    }
    void beforeHardware()
    {
        QFETCH(ModelShape, model);
        QFETCH(QString, gpu);
        QFETCH(int, engine);
        QFETCH(int, tp);
        QFETCH(QString, version);
        QFETCH(qint64, maxModelLen);
        QFETCH(int, weightsDtype);
        QFETCH(qint64, weightsBytes);
        QFETCH(double, memFraction);
        QFETCH(double, printedKvGiB);
        Scenario s;
        s.model = model;
        s.gpu = gpuPreset(qPrintable(gpu));
        s.engine = Engine(engine);
        s.tp = tp;
        s.maxModelLen = maxModelLen;
        s.contextTokens = 1000;
        const EngineVersion v = EngineVersion::parse(version, QStringLiteral("version"));
        s.engineSettings.vllmMajor = v.major;
        s.engineSettings.vllmMinor = v.minor;
        s.engineSettings.engineVersion = v;
        if (weightsDtype >= 0)
            s.weightsDtype = Dtype(weightsDtype);
        if (weightsBytes >= 0)
            s.weightsBytes = weightsBytes;
        if (memFraction > 0)
            s.engineSettings.memFractionStatic = memFraction;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        const double card = double(s.gpu.memoryBytes) / double(GiB);
        const double predicted = double(r.engineFigures.kvCacheBytes) / double(GiB);
        qInfo("%s: predicted %.2f GiB, printed %.2f GiB, %+.2f%% of the card", QTest::currentDataTag(), predicted, printedKvGiB,
              (predicted - printedKvGiB) / card * 100);
        QVERIFY2(std::abs(predicted - printedKvGiB) <= 0.02 * card,
                 qPrintable(QStringLiteral("predicted %1 GiB, printed %2 GiB: %3% of the %4 GiB card")
                                .arg(predicted).arg(printedKvGiB).arg((predicted - printedKvGiB) / card * 100).arg(card)));
    }

    // The band before hardware, checked only on cases none of its terms' ranges was taken from
    // (the ranges come from E01/E23, E05, E24, E26, J10, J12, the T4 log and vllm-project/vllm
    // PRs 10511 and 14447; see VllmRule::addBudgetSpread). Each held-out case is a public
    // vLLM start-up of a known card, model, TP and release that printed its KV budget; the
    // printed figure (to its print rounding) must lie inside [budget - below, budget + above]
    // in at least 90% of them. Coverage and width (as a share of the card) are printed.
    void bandHoldsOnHeldOutCases()
    {
        struct Case
        {
            const char *name;
            ModelShape model;
            const char *gpu;
            int tp;
            const char *version;
            qint64 maxModelLen;
            double printedKvGiB;
            qint64 weightsBytes = 0; // 0: from the parameters
        };
        const Case cases[] = {
            // E04 (vLLM V1, 2026: the default release, 0.11): Qwen3-Coder-30B-A3B on 4 x L40S.
            {"E04 Qwen3-Coder-30B-A3B 4 x L40S", shaped(dense(48, 32, 4, 128), 2048, 6144, 151936, 30'532'122'624, 128, 8, 768), "l40s", 4,
             "0.11", 32768, 23.74},
            // E25 (vLLM's quantized KV cache docs; release not printed: the default 0.11): Qwen3-4B
            // (36 layers, hidden 2560, intermediate 9728, vocab 151936, 4,022,458,880 parameters) on an L4.
            {"E25 Qwen3-4B L4", shaped(dense(36, 32, 8, 128), 2560, 9728, 151936, 4'022'458'880), "l4", 1, "0.11", 32768, 11.47},
            // vllm-project/vllm PR 17122 (2025-04-24, a 0.8 build): Llama-3.1-8B-Instruct on one L40S,
            // "GPU KV cache size: 158,656 tokens" x 131,072 B.
            {"PR 17122 Llama-3.1-8B L40S", llama31_8b(), "l40s", 1, "0.8", 32768, 158656.0 * 131072 / double(GiB)},
            // E27 (llm-d, vLLM 0.11, H100): gpt-oss-120b from its published checkpoint, 60.8 GiB (OpenAI's
            // model card); the sampler's constant was fitted on the study's gpt-oss-20b, not this run.
            {"E27 gpt-oss-120b H100", shaped(dense(36, 64, 8, 64), 2880, 2880, 201088, 116'829'156'672, 128, 4, 2880), "h100-sxm-80gb", 1,
             "0.11", 16000, 3.33, qint64(60.8 * GiB)},
        };
        int inside = 0, n = 0;
        for (const Case &c : cases) {
            Scenario s;
            s.model = c.model;
            s.gpu = gpuPreset(c.gpu);
            s.engine = Engine::Vllm;
            s.tp = c.tp;
            s.maxModelLen = c.maxModelLen;
            s.contextTokens = 1000;
            if (c.weightsBytes > 0)
                s.weightsBytes = c.weightsBytes;
            const EngineVersion v = EngineVersion::parse(QString::fromLatin1(c.version), QStringLiteral("version"));
            s.engineSettings.vllmMajor = v.major;
            s.engineSettings.vllmMinor = v.minor;
            const CapacityResult r = computeCapacity(s);
            QVERIFY2(r.ok, qPrintable(r.error));
            const EngineFigures &f = r.engineFigures;
            QVERIFY(f.budgetSpreadDownBytes > 0 && f.budgetSpreadUpBytes > 0);
            const double low = double(r.kvBudgetBytesPerGpu - f.budgetSpreadDownBytes) / double(GiB);
            const double high = double(r.kvBudgetBytesPerGpu + f.budgetSpreadUpBytes) / double(GiB);
            const bool in = low <= c.printedKvGiB + 0.005 && c.printedKvGiB - 0.005 <= high;
            inside += in;
            ++n;
            const double card = double(s.gpu.engineVisibleBytes()) / double(GiB);
            qInfo("%s: printed %.2f GiB, band %.2f to %.2f GiB (%s), width %.1f%% of the card", c.name, c.printedKvGiB, low, high,
                  in ? "inside" : "OUTSIDE", (high - low) / card * 100);
        }
        qInfo("band coverage on held-out cases: %d of %d", inside, n);
        // Known short of the target (issue 32, item 3): E25 and PR 17122 lie below the band; their
        // activation peaks (about 0.7 and 5.5 GiB against estimates of 1.4 and 1.0) do not follow one
        // rule by release. An unexpected pass fails here too, so the expectation cannot go stale.
        QEXPECT_FAIL("", "the band covers 2 of 4 held-out vLLM cases (issue 32, item 3)", Continue);
        QVERIFY2(inside * 10 >= n * 9, qPrintable(QStringLiteral("%1 of %2 inside").arg(inside).arg(n)));
    }

    // An engine left no room for its KV cache does not start (vLLM V1's "No available memory for
    // the cache blocks", tests/data/logs/vllm-v1-gpt-oss-120b-h100-no-memory-fail.log): the
    // verdict says so, naming the share it ran at, and the fixes offer the least share that
    // starts it. Llama-3.1-8B's bf16 weights (8,030,261,248 x 2 B = 16.1 GB) are more than
    // half an L4 (24.2 GB as torch sees it, the preset).
    void engineThatCannotStartSaysWhy()
    {
        Scenario s = scenario(llama31_8b(), Engine::Vllm);
        s.model = llama31_8b(); // scenario() sets 1e9 parameters
        s.gpu = gpuPreset("l4");
        s.gpuMemoryUtilization = 0.5;
        s.gpuMemoryUtilizationGiven = true;
        s.contextTokens = 8192;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.maxSessions, 0);
        QVERIFY2(r.verdict.startsWith(QStringLiteral("vLLM will not start: ")) && r.verdict.contains(QStringLiteral("at gpu_memory_utilization 0.5")),
                 qPrintable(r.verdict));
        const QStringList share = r.fixes.filter(QStringLiteral("gpu_memory_utilization "));
        QCOMPARE(share.size(), 1);
        const double u = share.first().section(QLatin1Char(' '), 1, 1).chopped(1).toDouble();
        QVERIFY2(u > 0.5 && u <= 0.95, qPrintable(share.first()));
        // The least hundredth: one session fits at u, none a hundredth below.
        auto sessionsAt = [&](double utilization) {
            Scenario v = s;
            v.gpuMemoryUtilization = utilization;
            return computeCapacity(v).maxSessions;
        };
        QVERIFY(sessionsAt(u) >= 1);
        QCOMPARE(sessionsAt(u - 0.01), 0);

        // TensorRT-LLM takes its share of what the weights leave: none is named, and none offered.
        Scenario t = scenario(llama31_8b(), Engine::Trtllm);
        t.model = llama31_8b();
        t.gpu = GpuSpec::custom(12 * GiB);
        t.contextTokens = 8192;
        const CapacityResult tr = computeCapacity(t);
        QVERIFY2(tr.verdict.startsWith(QStringLiteral("TensorRT-LLM will not start: ")) && !tr.verdict.contains(QStringLiteral("fraction")),
                 qPrintable(tr.verdict));
        QVERIFY(tr.fixes.filter(QStringLiteral("free_gpu_memory_fraction")).isEmpty());
        // The plain rule is no engine: nothing to start.
        t.engine = Engine::Plain;
        QVERIFY2(computeCapacity(t).verdict.startsWith(QStringLiteral("Nothing fits: ")), qPrintable(computeCapacity(t).verdict));
    }

    void rangeNarrowsOnceMeasured()
    {
        // A pinned (calibrated) budget has no spread; the same scenario before hardware does.
        Scenario s = scenario(llama31_8b(), Engine::Vllm);
        s.gpu = gpuPreset("h100-sxm-80gb");
        const CapacityResult before = computeCapacity(s);
        QVERIFY(before.engineFigures.kvCacheTokensLow < before.engineFigures.kvCacheTokens);
        QVERIFY(before.engineFigures.kvCacheTokens < before.engineFigures.kvCacheTokensHigh);
        QJsonObject o = before.toJson();
        QCOMPARE(o.value(QStringLiteral("engine_kv_cache_tokens_low")).toInteger(), before.engineFigures.kvCacheTokensLow);
        QCOMPARE(o.value(QStringLiteral("engine_kv_cache_tokens_high")).toInteger(), before.engineFigures.kvCacheTokensHigh);
        // Each measured term given drops out of the spread: with the activation peak given
        // (E26's 4.76 GiB) the band loses that term and narrows; at TP 2 non-torch memory is
        // less known (0.20-3.58 GiB against 0.06-0.17 at TP 1), so the band widens.
        Scenario m = s;
        m.engineSettings.activationPeak = qint64(4.76 * GiB);
        const EngineFigures given = computeCapacity(m).engineFigures;
        QCOMPARE(before.engineFigures.spreadTerms.filter(QStringLiteral("activation peak")).size(), 1);
        QCOMPARE(given.spreadTerms.filter(QStringLiteral("activation peak")).size(), 0);
        QVERIFY(given.budgetSpreadDownBytes < before.engineFigures.budgetSpreadDownBytes);
        QVERIFY(given.kvCacheTokensHigh - given.kvCacheTokensLow < before.engineFigures.kvCacheTokensHigh - before.engineFigures.kvCacheTokensLow);
        Scenario tp2 = m;
        tp2.tp = 2;
        QVERIFY(computeCapacity(tp2).engineFigures.budgetSpreadDownBytes > given.budgetSpreadDownBytes + GiB);
        QCOMPARE(o.value(QStringLiteral("engine_kv_budget_spread_below_bytes")).toInteger(), before.engineFigures.budgetSpreadDownBytes);
        const EngineFigures f = pinned(s, 50 * GiB);
        QCOMPARE(f.kvCacheTokensLow, f.kvCacheTokens);
        QCOMPARE(f.kvCacheTokensHigh, f.kvCacheTokens);
        // The high end never holds more than the card leaves after the weights: SGLang at
        // mem_fraction_static 1 on an 80 GB card (the attacker's case: +1% of the card above).
        Scenario whole = scenario(llama31_8b(), Engine::Sglang);
        whole.gpu = gpuPreset("h100-sxm-80gb");
        whole.engineSettings.memFractionStatic = 1.0;
        const CapacityResult w = computeCapacity(whole);
        QVERIFY(w.engineFigures.budgetSpreadUpBytes > 0);
        QVERIFY(w.kvBudgetBytesPerGpu + w.engineFigures.budgetSpreadUpBytes <= w.engineMemoryBytes - w.weightsBytesPerGpu);
    }

    void vllmEstimatedMaxModelLen_data()
    {
        QTest::addColumn<ModelShape>("model");
        QTest::addColumn<qint64>("maxModelLen");
        QTest::addColumn<double>("neededGiB");
        QTest::addColumn<double>("availableGiB");
        QTest::addColumn<qint64>("estimated");
        // E16 (vllm-project/recipes PR 12, vLLM 0.10.1, 8 x H20, DP8 + expert parallel: every
        // GPU holds all 62 layers' KV): Qwen3-Coder-480B-A35B-FP8, 62 layers, 8 KV heads, head_dim 128.
        QTest::newRow("E16 vLLM 0.10.1 DP8+EP Qwen3-Coder-480B util 0.9: 48.66 GiB -> 205,728")
            << dense(62, 96, 8, 128) << qint64(262144) << 62.00 << 48.66 << qint64(205728);
        QTest::newRow("E16 vLLM 0.10.1 DP8+EP Qwen3-Coder-480B util 0.95: 55.65 GiB -> 235,296")
            << dense(62, 96, 8, 128) << qint64(262144) << 62.00 << 55.65 << qint64(235296);
        // E22 (vllm-project/vllm issue 34076, vLLM 0.15, pipeline parallel 2): the check sizes the
        // whole model's 48 layers against one worker's 3.18 GiB.
        QTest::newRow("E22 vLLM 0.15 PP2 Qwen3-Coder-30B-A3B-FP8: 3.18 GiB -> 34,736")
            << dense(48, 32, 4, 128) << qint64(262144) << 24.0 << 3.18 << qint64(34736);
    }
    void vllmEstimatedMaxModelLen()
    {
        QFETCH(ModelShape, model);
        QFETCH(qint64, maxModelLen);
        QFETCH(double, neededGiB);
        QFETCH(double, availableGiB);
        QFETCH(qint64, estimated);
        Scenario s = scenario(model, Engine::Vllm);
        s.maxModelLen = maxModelLen;
        const auto [lo, hi] = interval(availableGiB, 2, GiB);
        const EngineFigures a = pinned(s, lo), b = pinned(s, hi);
        QVERIFY2(a.estimatedMaxModelLen <= estimated && estimated <= b.estimatedMaxModelLen,
                 qPrintable(QStringLiteral("%1 not in [%2, %3]").arg(estimated).arg(a.estimatedMaxModelLen).arg(b.estimatedMaxModelLen)));
        const auto [nlo, nhi] = interval(neededGiB, 2, GiB);
        QVERIFY2(nlo <= a.kvNeededBytes && a.kvNeededBytes <= nhi, qPrintable(QString::number(a.kvNeededBytes)));
    }

    void vllmPipelineParallelE22()
    {
        // E22 (vllm-project/vllm issue 34076, vLLM 0.15, PP 2): one stage printed 3.18 GiB
        // available, "24.0 GiB KV cache is needed" for 262,144 tokens (all 48 layers x 2,048 B),
        // estimated maximum model length 34,736. With --pp 2 a GPU holds 24 layers' KV
        // (1,024 blocks' worth of 48 KiB per token), and the check still sizes the whole model.
        Scenario s = scenario(dense(48, 32, 4, 128), Engine::Vllm);
        s.pp = 2;
        s.maxModelLen = 262144;
        const auto [lo, hi] = interval(3.18, 2, GiB);
        const EngineFigures a = pinned(s, lo), b = pinned(s, hi);
        QVERIFY2(a.estimatedMaxModelLen <= 34736 && 34736 <= b.estimatedMaxModelLen,
                 qPrintable(QStringLiteral("[%1, %2]").arg(a.estimatedMaxModelLen).arg(b.estimatedMaxModelLen)));
        QCOMPARE(a.kvNeededBytes, qint64(262144) * 48 * 2048);
        // The pool itself holds a stage's 24 layers: 24 x 2,048 B per token.
        QCOMPARE(a.kvCacheTokens, lo / (16 * 24 * 2048) * 16);
    }

    void expertParallelWeights()
    {
        // --ep: the routed experts (2 layers x 8 experts x 3 x hidden 1024 x expert size 512 =
        // 25,165,824 parameters) split over EP 4, the rest over TP 4: of 60,000,000 B of bf16
        // weights (30,000,000 parameters), 50,331,648 B are experts -> 9,668,352 / 4 + 12,582,912 B.
        ModelShape m = dense(2, 8, 8, 128, 30'000'000);
        m.numExperts = 8;
        m.expertsPerToken = 2;
        m.hiddenSize = 1024;
        m.moeIntermediateSize = 512;
        Scenario s = scenario(m, Engine::Plain);
        s.model.totalParams = 30'000'000;
        s.weightsDtype = Dtype::BF16;
        s.ep = 4;
        s.tp = 4;
        CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.weightsBytesPerGpu, qint64(9'668'352 / 4 + 12'582'912));
        // An EP group wider than the GPUs the deployment holds (TP x DP) is refused, naming --ep:
        // TP 1 x DP 3 cannot hold experts split eight ways (an attacker's fleet of 3 GPUs did).
        for (const auto &[tp, dp, ep] : {std::tuple{1, 3, 8}, std::tuple{2, 1, 4}, std::tuple{4, 1, 3}}) {
            Scenario w = s;
            w.tp = tp;
            w.dp = dp;
            w.ep = ep;
            const CapacityResult refused = computeCapacity(w);
            QVERIFY(!refused.ok);
            QCOMPARE(refused.errorField, QStringLiteral("--ep"));
        }
        // --pp 2 halves both the weights and the KV per GPU of a 32-layer dense model.
        Scenario p = scenario(dense(32, 32, 8, 128, 8'000'000'000), Engine::Plain);
        const CapacityResult one = computeCapacity(p);
        p.pp = 2;
        const CapacityResult two = computeCapacity(p);
        QCOMPARE(two.weightsBytesPerGpu, one.weightsBytesPerGpu / 2);
        QCOMPARE(two.kvBytesPerTokenPerGpu, one.kvBytesPerTokenPerGpu / 2);
        p.pp = 0;
        QCOMPARE(computeCapacity(p).errorField, QStringLiteral("--pp"));
    }

    void vllmWithTheLog_data()
    {
        QTest::addColumn<ModelShape>("model");
        QTest::addColumn<int>("kvDtype");
        QTest::addColumn<qint64>("maxModelLen");
        QTest::addColumn<double>("printedGiB");
        QTest::addColumn<qint64>("tokens");
        QTest::addColumn<double>("concurrency"); // 0: not checked
        // E17 (alvarobartt/hf-mem issue 60): gpt-oss-120b, 18 sliding (128) + 18 full layers, 8 KV heads, head_dim 64.
        const ModelShape oss = fromJson(R"({"model_type":"gpt_oss","num_hidden_layers":36,"num_attention_heads":64,
            "num_key_value_heads":8,"head_dim":64,"sliding_window":128,"layer_types":["sliding_attention","full_attention",
            "sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention",
            "sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention",
            "sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention",
            "sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention",
            "sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention",
            "sliding_attention","full_attention","sliding_attention","full_attention"]})");
        QTest::newRow("E17 vLLM V1 hybrid gpt-oss-120b: 5.38 GiB -> 78,384 tokens") << oss << int(Dtype::BF16) << qint64(131072) << 5.38
                                                                                   << qint64(78384) << 0.0;
        // E25 (vLLM docs, quantized KV cache, L4): Qwen3-4B, 36 layers, 8 KV heads, head_dim 128.
        QTest::newRow("E25 vLLM L4 Qwen3-4B bf16: 11.47 GiB -> 83,488 tokens, 2.55x")
            << dense(36, 32, 8, 128) << int(Dtype::BF16) << qint64(32768) << 11.47 << qint64(83488) << 2.55;
        QTest::newRow("E25 vLLM L4 Qwen3-4B fp8: 11.47 GiB -> 166,992 tokens, 5.10x")
            << dense(36, 32, 8, 128) << int(Dtype::FP8) << qint64(32768) << 11.47 << qint64(166992) << 5.10;
    }
    void vllmWithTheLog()
    {
        QFETCH(ModelShape, model);
        QFETCH(int, kvDtype);
        QFETCH(qint64, maxModelLen);
        QFETCH(double, printedGiB);
        QFETCH(qint64, tokens);
        QFETCH(double, concurrency);
        Scenario s = scenario(model, Engine::Vllm, 1, Dtype(kvDtype));
        s.maxModelLen = maxModelLen;
        const auto [lo, hi] = interval(printedGiB, 2, GiB);
        const EngineFigures a = pinned(s, lo), b = pinned(s, hi);
        QVERIFY2(a.kvCacheTokens <= tokens && tokens <= b.kvCacheTokens,
                 qPrintable(QStringLiteral("%1 not in [%2, %3]").arg(tokens).arg(a.kvCacheTokens).arg(b.kvCacheTokens)));
        if (concurrency > 0) {
            const qint64 perBlock = 16 * KvCost(model, Dtype(kvDtype), 1, 16).bytesPerTokenPerGpu();
            const EngineFigures exact = pinned(s, tokens / 16 * perBlock);
            QVERIFY2(std::abs(exact.maxConcurrency - concurrency) < 0.005, qPrintable(QString::number(exact.maxConcurrency)));
        }
    }

    void vllmBreakdownE26()
    {
        // E26 with the log's terms (llm-d, vLLM 0.11, H100): 79.18 GiB x 0.9 = 71.26 GiB;
        // weights 14.99, activation 4.76, non-torch 0.13 GiB; CUDA graphs (-0.45) not
        // subtracted by 0.11: KV 51.38 GiB. Inputs printed to 0.01 GiB.
        Scenario s = scenario(llama31_8b(), Engine::Vllm);
        s.gpuMemoryBytes = qint64(79.18 * GiB);
        s.weightsBytes = qint64(14.99 * GiB);
        s.engineSettings.activationPeak = qint64(4.76 * GiB);
        s.engineSettings.nonTorch = qint64(0.13 * GiB);
        s.engineSettings.cudaGraph = qint64(0.45 * GiB);
        const CapacityResult r = computeCapacity(s);
        QVERIFY(r.ok);
        QVERIFY2(std::abs(double(r.kvBudgetBytesPerGpu) / double(GiB) - 51.38) < 0.02, qPrintable(QString::number(r.kvBudgetBytesPerGpu)));
        QCOMPARE(r.engineFigures.kvCacheTokensLow, r.engineFigures.kvCacheTokens); // measured: no spread
    }

    void sglangHybridE18()
    {
        // E18 (SGLang, hybrid linear-attention backend, 2 x RTX 4090, TP2): Qwen3.5-9B, 8 full
        // attention layers (4 KV heads, head_dim 256) + 24 Gated DeltaNet layers. Free before load
        // 22.93 GiB, after 14.08 GiB, mem_fraction_static 0.8: 327,310 tokens; K 2.50 + V 2.50 GB
        // (GiB); recurrent state conv 0.10 + ssm 4.38 GiB. Per GPU: 8 x 2 heads x 256 x 2 x 2 B =
        // 16,384 B per token; the budget splits KV : state = 1 : 0.9.
        ModelShape m = dense(8, 16, 4, 256);
        LayerGroup gdn;
        gdn.kind = LayerKind::Recurrent;
        gdn.convStateValues = 3 * (2 * 16 * 128 + 32 * 128);  // (d_conv - 1) x conv channels
        gdn.ssmStateValues = 32 * 128 * 128;                  // value heads x key dim x value dim
        m.addLayers(gdn, 24);
        Scenario s = scenario(m, Engine::Sglang, 2);
        s.engineSettings.memFractionStatic = 0.8;
        const auto [beforeLo, beforeHi] = interval(22.93, 2, GiB);
        const auto [afterLo, afterHi] = interval(14.08, 2, GiB);
        s.engineSettings.freeMemoryBefore = beforeHi;
        s.engineSettings.freeMemoryAfter = afterLo;
        const EngineFigures lo = computeCapacity(s).engineFigures;
        s.engineSettings.freeMemoryBefore = beforeLo;
        s.engineSettings.freeMemoryAfter = afterHi;
        const EngineFigures hi = computeCapacity(s).engineFigures;
        QVERIFY2(lo.kvCacheTokens <= 327310 && 327310 <= hi.kvCacheTokens,
                 qPrintable(QStringLiteral("[%1, %2]").arg(lo.kvCacheTokens).arg(hi.kvCacheTokens)));
        // The recurrent part: 0.10 + 4.38 GiB printed.
        const auto [stateLo, stateHi] = interval(4.48, 1, GiB);
        QVERIFY2(stateLo <= lo.recurrentStateBytes && hi.recurrentStateBytes <= stateHi + GiB / 50,
                 qPrintable(QString::number(double(lo.recurrentStateBytes) / double(GiB))));
    }

    void ollamaBeforeHardware_data()
    {
        QTest::addColumn<ModelShape>("model");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<QString>("version");
        QTest::addColumn<qint64>("numCtx");
        QTest::addColumn<double>("printed");
        QTest::addColumn<int>("decimals");
        QTest::addColumn<qint64>("unit");
        // E19 (ollama/ollama issue 11711, Ollama 0.11, RTX 4060 Ti): gpt-oss:20b, 12 full + 12
        // sliding (128) layers, 8 KV heads, head_dim 64; f16 (q4_0 asked without flash attention).
        QStringList types;
        for (int i = 0; i < 24; ++i)
            types << (i % 2 ? QStringLiteral("\"full_attention\"") : QStringLiteral("\"sliding_attention\""));
        const ModelShape oss = fromJson(QStringLiteral(R"({"model_type":"gpt_oss","num_hidden_layers":24,"num_attention_heads":64,
            "num_key_value_heads":8,"head_dim":64,"sliding_window":128,"layer_types":[%1]})").arg(types.join(QLatin1Char(','))).toUtf8().constData());
        QTest::newRow("E19 Ollama 0.11 gpt-oss:20b num_ctx 8192: 300.0 MiB") << oss << int(Dtype::FP16) << QStringLiteral("0.11")
                                                                         << qint64(8192) << 300.0 << 1 << MiB;
        // E20 (ollama/ollama issue 9678, Ollama 0.6.0, RTX 4090): gemma3:27b (62 layers, 16 KV
        // heads, head_dim 128, window 1024), q8_0 at 1.0 B per value, every layer at the context.
        const ModelShape gemma = fromJson(R"({"model_type":"gemma3_text","num_hidden_layers":62,"num_attention_heads":32,
            "num_key_value_heads":16,"head_dim":128,"hidden_size":5376,"sliding_window":1024,"sliding_window_pattern":6})");
        QTest::newRow("E20 Ollama 0.6.0 gemma3:27b q8_0 context 20000: 4.7 GiB") << gemma << int(Dtype::Q8_0) << QStringLiteral("0.6.0")
                                                                              << qint64(20000) << 4.7 << 1 << GiB;
        // E31 (J23: an `ollama serve` log, Ollama 0.20.2, RTX 3060): qwen2.5-coder:7b (28 layers,
        // 4 KV heads, head_dim 128), KvSize 32768, f16: msg="kv cache" size="1.8 GiB".
        QTest::newRow("E31 (J23) Ollama 0.20.2 qwen2.5-coder:7b KvSize 32768: 1.8 GiB") << dense(28, 28, 4, 128) << int(Dtype::FP16)
                                                                                   << QStringLiteral("0.20.2") << qint64(32768) << 1.8 << 1 << GiB;
        // E32 (J24: Ollama in Docker on an A10, log 2025-10-22, its version not printed: the 0.12
        // family of that month): qwen3:30b-a3b (48 layers, 4 KV heads,
        // head_dim 128), num_ctx 32768, f16, split over GPU and CPU with the layers: "kv cache"
        // 1.9 GiB on CUDA0 + 1.1 GiB on CPU, the whole model's 3.0 GiB (each part printed to 0.1).
        QTest::newRow("E32 (J24) Ollama qwen3:30b-a3b num_ctx 32768, GPU + CPU: 3.0 GiB") << dense(48, 32, 4, 128) << int(Dtype::FP16)
                                                                                     << QStringLiteral("0.12") << qint64(32768) << 3.0 << 1 << GiB;
    }
    void ollamaBeforeHardware()
    {
        QFETCH(ModelShape, model);
        QFETCH(int, dtype);
        QFETCH(QString, version);
        QFETCH(qint64, numCtx);
        QFETCH(double, printed);
        QFETCH(int, decimals);
        QFETCH(qint64, unit);
        Scenario s = scenario(model, Engine::Ollama, 1, Dtype(dtype));
        s.engineSettings.nCtx = numCtx;
        s.engineSettings.engineVersion = EngineVersion::parse(version, QStringLiteral("version"));
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        const auto [lo, hi] = interval(printed, decimals, unit);
        QVERIFY2(lo <= r.engineFigures.kvSelfBytes && r.engineFigures.kvSelfBytes <= hi, qPrintable(QString::number(r.engineFigures.kvSelfBytes)));
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
        // K size = V size = #tokens x 64 layers x 2 heads x 128 x 2 B, printed 1.42 GiB: half of
        // what the program's per-GPU cost (TP 4, page 1) gives for the printed 46,611 tokens and
        // the low end of the range. (1.425 GiB / 32,768 B = 46,694 tokens: the high end of the
        // range, from the free-memory figures' rounding, may print 1.43.)
        const KvCost perGpu(s.model, Dtype::BF16, 4, 1);
        QCOMPARE(perGpu.bytesPerTokenPerGpu(), qint64(65536));
        for (const qint64 tokens : {lo, qint64(46611)})
            QCOMPARE(Units::formatIn(perGpu.sessionBytes(tokens, true) / 2, GiB, QStringLiteral("GiB"), 2), QStringLiteral("1.42 GiB"));
        // The default fraction at TP 4 is the one E07 ran with (SGLang 0.4's TP table).
        QCOMPARE(Sglang::defaultMemFractionStatic(4), 0.85);
        s.engineSettings.engineVersion = EngineVersion{0, 4};
        QCOMPARE(Sglang::defaultMemFractionStatic(s), 0.85);
        // SGLang 0.5 (server_args.py _handle_gpu_memory_settings), by card and TP:
        // L4, 23,034 MiB, TP 4: 512 + 1.5 x 2048 + 2 x 80 + 4 / 8 x 1024 = 4,256 MiB reserved,
        // (23,034 - 4,256) / 23,034 = 0.815.
        s.engineSettings.engineVersion = EngineVersion{0, 5};
        s.gpu = gpuPreset("l4");
        QCOMPARE(Sglang::defaultMemFractionStatic(s), 0.815);
        // H100, 81,559 MiB, TP 1: 512 + 1.5 x 8192 + 2 x 256 + 128 = 13,440 MiB: 0.835.
        s.gpu = gpuPreset("h100-sxm-80gb");
        s.tp = 1;
        QCOMPARE(Sglang::defaultMemFractionStatic(s), 0.835);
    }

    void trtllmE08()
    {
        // E08: TensorRT-LLM 0.8, Llama-2-7B shape (MHA 32 x 32 x 128), fp16 cache:
        // allocated 69,524,783,104 bytes for 132,608 tokens = 524,288 B each.
        Scenario s = scenario(dense(32, 32, 32, 128), Engine::Trtllm, 1, Dtype::FP16);
        EngineFigures f = pinned(s, 69'524'783'104);
        QCOMPARE(f.kvCacheTokens, qint64(132608));
        QCOMPARE(f.numBlocks, qint64(132608 / 32));
        s.engineSettings.trtTokensPerBlock = 64; // older build scripts
        QCOMPARE(pinned(s, 69'524'783'104).numBlocks, qint64(2072));
        s.engineSettings.trtTokensPerBlock = 32;
        {
            // Before hardware: the A100 80GB preset, Llama-2-7B's config.json (hidden 4096,
            // intermediate 11008, vocab 32000, max_position_embeddings 4096; 6,738,415,616
            // parameters) in int8, trtllm-build's default build settings: the allocation within
            // 2% of the card of the 69,524,783,104 B printed.
            Scenario b = s;
            b.model = shaped(dense(32, 32, 32, 128), 4096, 11008, 32000, 6'738'415'616);
            b.model.maxPositionEmbeddings = 4096;
            b.gpu = gpuPreset("a100-sxm4-80gb");
            b.weightsDtype = Dtype::INT8;
            const CapacityResult r = computeCapacity(b);
            QVERIFY2(r.ok, qPrintable(r.error));
            const double miss = double(r.engineFigures.kvCacheBytes - 69'524'783'104) / double(b.gpu.memoryBytes);
            QVERIFY2(std::abs(miss) <= 0.02, qPrintable(QString::number(miss)));
            // (Its +-5% band was taken from this case, so that it holds 132,608 proves nothing: not checked.)
            // A larger build reserves more: max_batch_size and max_num_tokens move the budget.
            b.engineSettings.trtMaxNumTokens = 32768;
            QVERIFY(computeCapacity(b).kvBudgetBytesPerGpu < r.kvBudgetBytesPerGpu);
        }
        // Unpinned: 0.9 of the free memory after load.
        s.engineSettings.freeMemoryAfter = 10 * GiB;
        const CapacityResult r = computeCapacity(s);
        QCOMPARE(r.kvBudgetBytesPerGpu, qint64(9 * GiB));
    }

    // J20 and J21 (engine-logs.md: TensorRT-LLM's C++ runtime behind Triton on one L4, two
    // engines loaded one after the other): the pool is kv_cache_free_gpu_mem_fraction x the free
    // memory after the engine loads, as the author annotated: 0.45 x 16.25 GiB for
    // Qwen2.5-1.5B (28 layers x 2 KV heads x 128 x 2 x 2 B = 28,672 B per token), printed
    // "Allocated 7.31 GiB for max tokens in paged KV cache (273792)"; 0.25 x 8.73 GiB for
    // Qwen2.5-0.5B (24 x 2 x 64 x 2 x 2 = 12,288 B), "Allocated 2.18 GiB ... (190656)".
    void trtllmFreeFractionJ20J21_data()
    {
        QTest::addColumn<ModelShape>("model");
        QTest::addColumn<double>("fraction");
        QTest::addColumn<double>("freeGiB");
        QTest::addColumn<qint64>("tokens");
        QTest::newRow("E33 (J20) TensorRT-LLM Triton L4 Qwen2.5-1.5B 0.45 x 16.25 GiB: 273,792 tokens") << dense(28, 12, 2, 128) << 0.45 << 16.25
                                                                                                   << qint64(273792);
        QTest::newRow("E34 (J21) TensorRT-LLM Triton L4 Qwen2.5-0.5B 0.25 x 8.73 GiB: 190,656 tokens") << dense(24, 14, 2, 64) << 0.25 << 8.73
                                                                                                  << qint64(190656);
    }
    void trtllmFreeFractionJ20J21()
    {
        QFETCH(ModelShape, model);
        QFETCH(double, fraction);
        QFETCH(double, freeGiB);
        QFETCH(qint64, tokens);
        Scenario s = scenario(model, Engine::Trtllm);
        s.engineSettings.freeGpuMemoryFraction = fraction;
        // The free memory as annotated, to 0.01 GiB: the count at each end of its rounding.
        const auto [lo, hi] = interval(freeGiB, 2, GiB);
        s.engineSettings.freeMemoryAfter = lo;
        const qint64 a = computeCapacity(s).engineFigures.kvCacheTokens;
        s.engineSettings.freeMemoryAfter = hi;
        const qint64 b = computeCapacity(s).engineFigures.kvCacheTokens;
        QVERIFY2(a <= tokens && tokens <= b, qPrintable(QStringLiteral("%1 not in [%2, %3]").arg(tokens).arg(a).arg(b)));
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
        // E30 (J22: github.com/Kelsidavis/rusteze llama.log, llama.cpp build 7780, RTX 5080):
        // Qwen2.5 Coder 7B (28 layers, 4 KV heads, head_dim 128), --ctx-size 32768, f16 cache:
        // "CUDA0 KV buffer size = 1792.00 MiB".
        QTest::newRow("E30 (J22) llama.cpp b7780 Qwen2.5-Coder-7B n_ctx 32768: 1792.00 MiB") << dense(28, 28, 4, 128) << int(Dtype::FP16)
            << qint64(32768) << interval(1792.00, 2, MiB).first << interval(1792.00, 2, MiB).second;
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

    // Issue #30 item 5: a plan whose KV cache the engine or card cannot run says it is a
    // what-if, in its warnings, its derivation and its JSON; one that runs says nothing.
    void aPlanTheEngineCannotRunIsAWhatIf()
    {
        Scenario s;
        s.model = llama31_8b();
        s.gpu = gpuPreset("h100-sxm-80gb");
        s.engine = Engine::Vllm;
        s.contextTokens = 128000;
        s.kvDtype = Dtype::INT4; // vllm/config/cache.py CacheDType (0.11): no int4
        const CapacityResult r = computeCapacity(s);
        QVERIFY(r.ok);
        QVERIFY(!r.runnable);
        QVERIFY2(r.runnableReason.startsWith(QStringLiteral("vLLM 0.11 has no KV cache in int4")), qPrintable(r.runnableReason));
        QVERIFY2(r.runnableReason.contains(QStringLiteral("vllm/config/cache.py")), qPrintable(r.runnableReason));
        QVERIFY(std::any_of(r.warnings.cbegin(), r.warnings.cend(), [](const QString &w) {
            return w.startsWith(QStringLiteral("KV cache int4 is a what-if for another engine or card: vLLM 0.11"));
        }));
        const QStringList derivation = explainCapacity(s, r, UnitSystem::Decimal);
        QVERIFY(std::any_of(derivation.cbegin(), derivation.cend(), [](const QString &l) {
            return l.startsWith(QStringLiteral("Not runnable as planned, a what-if for another engine or card: vLLM 0.11 has no KV cache in int4"));
        }));
        const QJsonObject o = r.toJson();
        QCOMPARE(o.value(QStringLiteral("runnable")).toBool(true), false);
        QCOMPARE(o.value(QStringLiteral("runnable_reason")).toString(), r.runnableReason);

        s.kvDtype = Dtype::FP8; // --kv-cache-dtype fp8, in every release from 0.4
        const CapacityResult fp8 = computeCapacity(s);
        QVERIFY(fp8.runnable);
        QVERIFY(std::none_of(fp8.warnings.cbegin(), fp8.warnings.cend(), [](const QString &w) { return w.contains(QStringLiteral("what-if for another")); }));
        QCOMPARE(fp8.toJson().value(QStringLiteral("runnable")).toBool(false), true);
    }

    // A card that states no native formats (a custom card, a preset file written before
    // native_formats) restricts nothing: TensorRT-LLM's nvfp4 cache runs only on a card
    // that runs nvfp4, and a custom card is not said not to.
    void aCardStatingNoFormatsRestrictsNothing()
    {
        Scenario s;
        s.model = llama31_8b();
        s.gpu = GpuSpec::custom(192'000'000'000);
        s.engine = Engine::Trtllm;
        s.contextTokens = 32000;
        s.kvDtype = Dtype::NVFP4;
        QVERIFY(!s.gpu.nativeFormats);
        const Runnability runs = Runnability::of(s);
        QVERIFY2(runs.runnable, qPrintable(runs.reason));
        QVERIFY2(runs.reason.contains(QStringLiteral("Custom card states no native formats")), qPrintable(runs.reason));
        // The same card from a preset that lists its formats without nvfp4 (the H100's) does not.
        QJsonObject preset{{QStringLiteral("id"), QStringLiteral("old-card")},
                           {QStringLiteral("memory_bytes"), 85'520'809'984.0},
                           {QStringLiteral("vendor"), QStringLiteral("NVIDIA")}};
        QVERIFY(!GpuSpec::fromPreset(preset).nativeFormats); // an older preset file loads
        preset.insert(QStringLiteral("native_formats"), QJsonArray{QStringLiteral("fp16"), QStringLiteral("bf16"), QStringLiteral("fp8")});
        s.gpu = GpuSpec::fromPreset(preset);
        QVERIFY(!Runnability::of(s).runnable);
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

HEADROOM_TEST_MAIN(TestEngines, QCoreApplication)
#include "tst_engines.moc"
