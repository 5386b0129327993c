// SPDX-License-Identifier: GPL-3.0-or-later
// The capacity engine against cited figures: the founding worked examples
// (shared/design/seed-figures.md), engine printouts (shared/validation/
// engine-logs.md) and per-layer rules derived by hand from published configs.
#include "plan/capacity.h"
#include "core/inputerror.h"
#include "kv/kvcost.h"

#include "testshapes.h"

#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;
using Headroom::Test::dense;
using Headroom::Test::seedA;

namespace {


ModelShape deepseekV3()
{
    // deepseek-ai/DeepSeek-V3 config.json: 61 layers, kv_lora_rank 512, qk_rope_head_dim 64.
    ModelShape m;
    m.name = QStringLiteral("DeepSeek-V3");
    m.attentionHeads = 128;
    LayerGroup g;
    g.kind = LayerKind::Mla;
    g.latentDim = 512;
    g.ropeDim = 64;
    m.addLayers(g, 61);
    m.totalParams = 671'000'000'000;
    return m;
}

} // namespace

Q_DECLARE_METATYPE(Headroom::ModelShape)
Q_DECLARE_METATYPE(Headroom::Scenario)

class TestKvCache : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void seedA_figures()
    {
        const CapacityResult r = computeCapacity(seedA(100'000));
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.groups.first().bytesPerTokenPerLayer, qint64(4096));      // 2 x 8 x 128 x 2
        QCOMPARE(r.kvBytesPerToken, qint64(131072));                          // x 32 layers = 128 KiB
        QCOMPARE(r.sessionBytes, qint64(13'107'200'000));                     // one 100,000-token session
        QCOMPARE(r.weightsBytes, qint64(16'000'000'000));                     // 8e9 x 2 B
        QCOMPARE(r.kvBudgetBytesPerGpu, qint64(60'000'000'000));              // 80 - 16 - 4 GB
        QCOMPARE(r.maxSessions, qint64(4));                                   // 4 (4.58)
        QVERIFY(qAbs(r.sessionsExact - 4.58) < 0.005);
    }

    void seedA_64Sessions()
    {
        Scenario s = seedA(100'000);
        s.sessions = 64;
        const CapacityResult r = computeCapacity(s);
        QCOMPARE(r.kvBytesForSessionsPerGpu, qint64(838'860'800'000)); // "roughly 840 GB"
        QVERIFY(!r.fits);
        QCOMPARE(r.freeBytesPerGpu, qint64(0));
        QCOMPARE(r.overflowBytesPerGpu, qint64(838'860'800'000 - 60'000'000'000)); // 839 GB asked of a 60 GB budget
    }

    void seedB_data()
    {
        QTest::addColumn<qint64>("context");
        QTest::addColumn<int>("kvHeads");
        QTest::addColumn<qint64>("card");
        QTest::addColumn<qint64>("weights");
        QTest::addColumn<qint64>("bytesPerToken");
        QTest::addColumn<qint64>("sessionBytes");
        QTest::addColumn<qint64>("sessions");
        const qint64 GB = 1'000'000'000, GiB = qint64(1) << 30;
        QTest::newRow("seed B: MHA fp16, 4,000 tokens, 66 GB -> 31") << qint64(4000) << 32 << 80 * GB << 14 * GB
                                                                      << qint64(524288) << qint64(2'097'152'000) << qint64(31);
        QTest::newRow("seed B: 8,000 tokens = 4.2 GB") << qint64(8000) << 32 << 80 * GB << 14 * GB << qint64(524288)
                                                        << qint64(4'194'304'000) << qint64(15);
        QTest::newRow("seed B: 4,096 tokens in 66 GiB -> 33 exactly") << qint64(4096) << 32 << 80 * GiB << 14 * GiB
                                                                       << qint64(524288) << 2 * GiB << qint64(33);
        QTest::newRow("seed B: 128,000 tokens MHA = 67.1 GB, 0 sessions") << qint64(128000) << 32 << 80 * GB << 14 * GB
                                                                          << qint64(524288) << qint64(67'108'864'000) << qint64(0);
        QTest::newRow("seed B: 128,000 tokens GQA-8 = 16.8 GB, 3 sessions") << qint64(128000) << 8 << 80 * GB << 14 * GB
                                                                            << qint64(131072) << qint64(16'777'216'000) << qint64(3);
    }
    void seedB()
    {
        QFETCH(qint64, context);
        QFETCH(int, kvHeads);
        QFETCH(qint64, card);
        QFETCH(qint64, weights);
        QFETCH(qint64, bytesPerToken);
        QFETCH(qint64, sessionBytes);
        QFETCH(qint64, sessions);
        const CapacityResult r = computeCapacity(Test::seedB(context, kvHeads, card, weights));
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.kvBytesPerToken, bytesPerToken);
        QCOMPARE(r.sessionBytes, sessionBytes);
        QCOMPARE(r.maxSessions, sessions);
    }

    void seedB_zeroSessionsSaysWhyAndWhichLever()
    {
        const CapacityResult r = computeCapacity(Test::seedB(128000));
        QCOMPARE(r.maxSessions, qint64(0));
        QVERIFY(!r.fits);
        QVERIFY2(r.verdict.contains(QStringLiteral("Not one")), qPrintable(r.verdict));
        // GQA-8 gives 3 sessions (seed B), an 8-bit cache halves 67.1 GB to 33.6 GB: 1 session.
        QVERIFY2(r.fixes.join(QLatin1Char('\n')).contains(QStringLiteral("8 KV heads (GQA what-if): 3 sessions")),
                 qPrintable(r.fixes.join(QLatin1Char('\n'))));
        QVERIFY(r.fixes.join(QLatin1Char('\n')).contains(QStringLiteral("fp8: 1 session")));
    }

    void seedB_cachePrecision()
    {
        // "with GQA, 8 KV heads: 131,072 B per token; plus an 8-bit cache: 65,536 B".
        Scenario s = Test::seedB(4000, 8);
        s.kvDtype = Dtype::FP8;
        QCOMPARE(computeCapacity(s).kvBytesPerToken, qint64(65536));
        s.kvDtype = Dtype::INT8;
        QCOMPARE(computeCapacity(s).kvBytesPerToken, qint64(65536));
    }

    void blockFormats()
    {
        // nvfp4: 72 B per 128 values (issue #2); mxfp4: 17 B per 32 (OCP MX v1.0);
        // q8_0: 34 B per 32, q4_0: 18 B per 32 (ggml-common.h).
        QCOMPARE(Dtypes::bytesFor(Dtype::NVFP4, 128, {}), qint64(72));
        QCOMPARE(Dtypes::bytesFor(Dtype::MXFP4, 32, {}), qint64(17));
        QCOMPARE(Dtypes::bytesFor(Dtype::Q8_0, 32, {}), qint64(34));
        QCOMPARE(Dtypes::bytesFor(Dtype::Q4_0, 32, {}), qint64(18));
        QCOMPARE(Dtypes::bytesFor(Dtype::INT4, 8'000'000'000, {}), qint64(4'000'000'000));
    }

    void engineLogs_data()
    {
        QTest::addColumn<ModelShape>("model");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<qint64>("tokens");
        QTest::addColumn<qint64>("bytes");
        const qint64 MiB = qint64(1) << 20;
        // llama.cpp allocates n_ctx cells up front, no paging: block size 1.
        QTest::newRow("E11 llama.cpp Llama-2-7B n_ctx 2048 f16: 1024.00 MiB") << dense(32, 32, 32, 128) << int(Dtype::FP16)
                                                                              << qint64(2048) << 1024 * MiB;
        QTest::newRow("E13 llama.cpp Qwen2.5-1.5B n_ctx 4096: 112 MiB") << dense(28, 12, 2, 128) << int(Dtype::FP16)
                                                                        << qint64(4096) << 112 * MiB;
        QTest::newRow("E13 llama.cpp Qwen2.5-1.5B n_ctx 32768: 896 MiB") << dense(28, 12, 2, 128) << int(Dtype::FP16)
                                                                         << qint64(32768) << 896 * MiB;
        QTest::newRow("E09 llama.cpp DeepSeek MLA n_ctx 32768 f16: 2196.00 MiB") << deepseekV3() << int(Dtype::FP16)
                                                                                 << qint64(32768) << 2196 * MiB;
        // E10: 1166.62 MiB printed; q8_0 rows of 576 values = 18 blocks x 34 B = 612 B: 61 x 32768 x 612.
        QTest::newRow("E10 ik_llama.cpp DeepSeek MLA q8_0: 1166.62 MiB") << deepseekV3() << int(Dtype::Q8_0)
                                                                         << qint64(32768) << qint64(1'223'294'976);
    }
    void engineLogs()
    {
        QFETCH(ModelShape, model);
        QFETCH(int, dtype);
        QFETCH(qint64, tokens);
        QFETCH(qint64, bytes);
        const KvCost cost(model, Dtype(dtype), 1, 1);
        QCOMPARE(cost.sessionBytes(tokens, false), bytes);
    }

    void mlaSplit()
    {
        // E09 prints c^KV 1952.00 MiB + K^R 244.00 MiB at n_ctx 32768, f16: the latent
        // (kv_lora_rank 512) and the decoupled RoPE key (qk_rope_head_dim 64) of the 576 values,
        // each costed alone by the program: 61 x 32768 x 512 x 2 B and 61 x 32768 x 64 x 2 B.
        const qint64 MiB = qint64(1) << 20;
        ModelShape latentOnly = deepseekV3();
        latentOnly.groups.first().ropeDim = 0;
        ModelShape ropeOnly = deepseekV3();
        ropeOnly.groups.first().latentDim = 0;
        QCOMPARE(KvCost(latentOnly, Dtype::FP16, 1, 1).sessionBytes(32768, false), 1952 * MiB);
        QCOMPARE(KvCost(ropeOnly, Dtype::FP16, 1, 1).sessionBytes(32768, false), 244 * MiB);
        // An MLA latent is replicated, not split, under TP.
        const KvCost tp8(deepseekV3(), Dtype::BF16, 8, 16);
        QCOMPARE(tp8.bytesPerTokenPerGpu(), tp8.bytesPerToken());
        QCOMPARE(tp8.bytesPerToken(), qint64(61 * 576 * 2));
    }

    void slidingWindowPaged()
    {
        // microsoft/Phi-3-mini-4k-instruct config.json: 32 layers, 32 KV heads,
        // head_dim 3072/32 = 96, sliding_window 2047. A layer holds
        // ceil(min(L, 2047) / 16) = 128 blocks = 2,048 tokens x 2 x 32 x 96 x 2 B.
        ModelShape m = dense(32, 32, 32, 96);
        m.groups.first().kind = LayerKind::SlidingWindow;
        m.groups.first().window = 2047;
        const KvCost cost(m, Dtype::BF16, 1, 16);
        QCOMPARE(cost.bytesPerToken(), qint64(32 * 12288));
        QCOMPARE(cost.sessionBytes(100'000, false), qint64(32) * 2048 * 12288);
        QCOMPARE(cost.sessionBytes(1000, false), qint64(32) * 1008 * 12288); // ceil(1000/16) = 63 blocks
    }

    void samePerGpuSessionBytes()
    {
        // Llama-3.1-8B's attention (32 layers, 8 KV heads, head_dim 128) at bf16, block 16.
        const ModelShape m = dense(32, 32, 8, 128);
        const KvCost base(m, Dtype::BF16, 1, 16);
        QVERIFY(base.samePerGpuSessionBytes(KvCost(m, Dtype::BF16, 1, 16)));
        QVERIFY(!base.samePerGpuSessionBytes(KvCost(m, Dtype::FP8, 1, 16)));  // half the bytes per token
        QVERIFY(!base.samePerGpuSessionBytes(KvCost(m, Dtype::BF16, 1, 32))); // another block size
        QVERIFY(!base.samePerGpuSessionBytes(KvCost(m, Dtype::BF16, 2, 16))); // 4 heads per GPU
        KvCost ahead(m, Dtype::BF16, 1, 16);
        ahead.setLookahead(4);
        QVERIFY(!base.samePerGpuSessionBytes(ahead));
        ModelShape w = m, w2 = m;
        w.groups.first().kind = w2.groups.first().kind = LayerKind::SlidingWindow;
        w.groups.first().window = 2047;
        w2.groups.first().window = 4095;
        QVERIFY(!KvCost(w, Dtype::BF16, 1, 16).samePerGpuSessionBytes(KvCost(w2, Dtype::BF16, 1, 16)));
        // TP 8 over 8 KV heads, and over a 4-head what-if (each GPU then holds one replicated
        // head): 2 x 1 x 128 x 2 B = 512 B per token per layer on a GPU either way, so one
        // 1,000-token session holds ceil(1000 / 16) x 16 = 1,008 tokens x 32 layers x 512 B.
        const KvCost eight(m, Dtype::BF16, 8, 16), four(m, Dtype::BF16, 8, 16, 4);
        QVERIFY(eight.samePerGpuSessionBytes(four));
        QCOMPARE(eight.sessionBytes(1000, true), qint64(1008) * 32 * 512);
        QCOMPARE(four.sessionBytes(1000, true), qint64(1008) * 32 * 512);
    }

    void interleavedWindow()
    {
        // google/gemma-3-27b-it: 62 layers, 16 KV heads x 128, window 1024,
        // 52 sliding + 10 global. At 100,000 tokens (16-token blocks):
        // 52 x 1024 x 8192 B + 10 x 100,000 x 8192 B.
        ModelShape m;
        LayerGroup g;
        g.kvHeads = 16;
        g.headDimK = g.headDimV = 128;
        g.kind = LayerKind::SlidingWindow;
        g.window = 1024;
        m.addLayers(g, 52);
        g.kind = LayerKind::FullAttention;
        g.window = 0;
        m.addLayers(g, 10);
        m.attentionHeads = 32;
        const KvCost cost(m, Dtype::BF16, 1, 16);
        QCOMPARE(cost.sessionBytes(100'000, false), qint64(52) * 1024 * 8192 + qint64(10) * 100'000 * 8192);
    }

    void recurrentState()
    {
        // ai21labs/Jamba-v0.1: d_inner = 2 x 4096 = 8192, d_conv 4, d_state 16:
        // (3 x 8192 + 16 x 8192) values x 4 B (fp32) = 622,592 B per Mamba layer per session.
        ModelShape m;
        m.attentionHeads = 32;
        LayerGroup mamba;
        mamba.kind = LayerKind::Recurrent;
        mamba.convStateValues = 3 * 8192;
        mamba.ssmStateValues = 16 * 8192;
        m.addLayers(mamba, 28);
        LayerGroup attn;
        attn.kvHeads = 8;
        attn.headDimK = attn.headDimV = 128;
        m.addLayers(attn, 4);
        const KvCost cost(m, Dtype::BF16, 1, 16);
        QCOMPARE(cost.stateBytesPerSession(), qint64(28) * 622'592);
        // The state is per session, not per token: 16 tokens add only the 4 attention layers'
        // 16 x 4,096 B, and 1,584 more tokens add 1,584 x 4,096 B per attention layer, no state.
        QCOMPARE(cost.sessionBytes(16, false), qint64(28) * 622'592 + qint64(4) * 16 * 4096);
        QCOMPARE(cost.sessionBytes(1600, false) - cost.sessionBytes(16, false), qint64(4) * 1584 * 4096);
        QCOMPARE(cost.sessionBytes(1600, false), qint64(28) * 622'592 + qint64(4) * 1600 * 4096);
        // Split across a TP group like heads.
        const KvCost tp2(m, Dtype::BF16, 2, 16);
        QCOMPARE(tp2.stateBytesPerSessionPerGpu(), qint64(28) * 311'296);
    }

    void tensorParallel_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<qint64>("perGpu");
        // meta-llama/Llama-3.1-70B: 80 layers, 64 heads, 8 KV heads, head_dim 128.
        // vLLM: num_kv_heads per GPU = max(1, 8 / TP); replicated past 8.
        QTest::newRow("TP 1: 8 heads") << 1 << qint64(80) * 2 * 8 * 128 * 2;
        QTest::newRow("TP 4: 2 heads per GPU") << 4 << qint64(80) * 2 * 2 * 128 * 2;
        QTest::newRow("TP 8: 1 head per GPU") << 8 << qint64(80) * 2 * 1 * 128 * 2;
        QTest::newRow("TP 16: 1 head, replicated twice") << 16 << qint64(80) * 2 * 1 * 128 * 2;
    }
    void tensorParallel()
    {
        QFETCH(int, tp);
        QFETCH(qint64, perGpu);
        const KvCost cost(dense(80, 64, 8, 128), Dtype::BF16, tp, 16);
        QCOMPARE(cost.bytesPerToken(), qint64(327680));
        QCOMPARE(cost.bytesPerTokenPerGpu(), perGpu);
    }

    void invalidTensorParallel()
    {
        try {
            KvCost(dense(80, 64, 8, 128), Dtype::BF16, 3, 16);
            QFAIL("TP 3 accepted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--tp"));
            QVERIFY2(e.message().contains(QStringLiteral("3")) && e.message().contains(QStringLiteral("64")), qPrintable(e.message()));
        }
        try {
            KvCost(dense(32, 48, 12, 128), Dtype::BF16, 8, 16); // 12 KV heads vs TP 8; 48 % 8 = 0
            QFAIL("TP 8 with 12 KV heads accepted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--tp"));
            QVERIFY(e.message().contains(QStringLiteral("12")) && e.message().contains(QStringLiteral("8")));
        }
    }

    void weightsSplitAndVllmRule()
    {
        Scenario s = seedA(100'000);
        s.engine = Engine::Vllm; // 80 GB x 0.9 = 72 GB usable (vLLM gpu_worker.py)
        CapacityResult r = computeCapacity(s);
        QCOMPARE(r.usableMemoryBytes, qint64(72'000'000'000));
        QCOMPARE(r.kvBudgetBytesPerGpu, qint64(52'000'000'000));
        QCOMPARE(r.maxSessions, qint64(3)); // 52e9 / 13.1072e9 = 3.97
        s.engine = Engine::Plain;
        s.tp = 2;
        r = computeCapacity(s);
        QCOMPARE(r.weightsBytesPerGpu, qint64(8'000'000'000));
        QCOMPARE(r.kvBytesPerTokenPerGpu, qint64(65536));
        QCOMPARE(r.maxSessions, qint64((80'000'000'000 - 8'000'000'000 - 4'000'000'000) / 6'553'600'000));
    }

    void preallocation()
    {
        // Llama-3.1-8B max_position_embeddings 131072: each session reserves 131,072 x 131,072 B.
        Scenario s = seedA(1000);
        s.model.maxPositionEmbeddings = 131072;
        s.preallocate = true;
        CapacityResult r = computeCapacity(s);
        QCOMPARE(r.reservedSessionBytesPerGpu, qint64(131072) * 131072);
        QCOMPARE(r.sessionBytes, qint64(1008) * 131072); // paged size of the 1,000-token session itself
        QCOMPARE(r.maxSessions, qint64(60'000'000'000 / (qint64(131072) * 131072)));
        s.maxModelLen = 32768;
        QCOMPARE(computeCapacity(s).reservedSessionBytesPerGpu, qint64(32768) * 131072);
    }

    void contextBeyondMaxIsFlagged()
    {
        Scenario s = seedA(200'000);
        s.model.maxPositionEmbeddings = 131072;
        const CapacityResult r = computeCapacity(s);
        QVERIFY(r.ok);
        QVERIFY(r.contextBeyondMax);
        QCOMPARE(r.sessionBytes, qint64(200'000) * 131072);
    }

    void badInputNamesTheField_data()
    {
        QTest::addColumn<Scenario>("scenario");
        QTest::addColumn<QString>("field");
        Scenario overflow = seedA(qint64(1) << 50);
        QTest::newRow("context that overflows 64 bits") << overflow << QStringLiteral("--context");
        Scenario zero = seedA(0);
        QTest::newRow("zero context") << zero << QStringLiteral("--context");
        Scenario noParams = seedA(1000);
        noParams.model.totalParams = 0;
        QTest::newRow("unknown parameter count") << noParams << QStringLiteral("--params");
        Scenario kvHeads = seedA(1000);
        kvHeads.kvHeadsOverride = 5;
        QTest::newRow("kv_heads not dividing the heads") << kvHeads << QStringLiteral("--kv-heads");
        Scenario util = seedA(1000);
        util.engine = Engine::Vllm;
        util.gpuMemoryUtilization = 1.5;
        QTest::newRow("utilization above 1") << util << QStringLiteral("--gpu-memory-utilization");
        Scenario prealloc = seedA(1000);
        prealloc.preallocate = true;
        QTest::newRow("preallocation without a maximum") << prealloc << QStringLiteral("--max-model-len");
    }
    void badInputNamesTheField()
    {
        QFETCH(Scenario, scenario);
        QFETCH(QString, field);
        const CapacityResult r = computeCapacity(scenario);
        QVERIFY(!r.ok);
        QCOMPARE(r.errorField, field);
        QVERIFY(r.error.startsWith(field));
    }

    void maxContextFor()
    {
        // Seed A: 60 GB budget / 4 sessions = 15 GB each = 114,440 tokens of 131,072 B
        // (15e9 / 131072 = 114,440.9), rounded down to whole 16-token blocks: 114,432.
        QCOMPARE(Headroom::maxContextFor(seedA(1000), 4), qint64(114'432));
    }

    // The report's sessions-against-context curve holds each session to the retention cap:
    // past 32,768 tokens, seed A's 60 GB budget / (32,768 x 131,072 B = 4,294,967,296 B) =
    // 13.97, 13 sessions, whatever the context (it once fell to 0 as if nothing were capped).
    void sessionsAcrossContextsHoldTheCap()
    {
        Scenario s = seedA(1000);
        s.retainTokens = 32768;
        const auto points = sessionsAcrossContexts(s);
        QVERIFY(!points.isEmpty() && points.last().first > 32768);
        for (const auto &[context, sessions] : points) {
            if (context >= 32768)
                QCOMPARE(sessions, qint64(13));
            else // 60e9 / (ceil(context / 16) x 16 x 131,072 B)
                QCOMPARE(sessions, qint64(60'000'000'000) / (((context + 15) / 16) * 16 * 131072));
        }
    }

    void derivationPlugsInTheNumbers()
    {
        const Scenario s = seedA(100'000);
        const QString text = explainCapacity(s, computeCapacity(s), UnitSystem::Decimal).join(QLatin1Char('\n'));
        QVERIFY2(text.contains(QStringLiteral("2 (K and V) × 8 KV heads × 128 head_dim × 2 B (bf16) = 4,096 B")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("32 × 4,096 B = 131,072 B")));
        QVERIFY(text.contains(QStringLiteral("13,107,200,000 B (13.1 GB)")));
        // 60,000,000,000 B / 13,107,200,000 B = 4.5776: shown truncated, so its floor reads true.
        QVERIFY2(text.contains(QStringLiteral("floor(60,000,000,000 B ÷ 13,107,200,000 B) = floor(4.57) = 4")), qPrintable(text));
        // The budget line checks by eye in exact bytes: 80e9 - 16e9 - 4e9 = 60e9.
        QVERIFY(text.contains(QStringLiteral("exactly: 80,000,000,000 − 16,000,000,000 − 4,000,000,000 = 60,000,000,000 B")));
    }
};

HEADROOM_TEST_MAIN(TestKvCache, QCoreApplication)
#include "tst_kvcache.moc"
