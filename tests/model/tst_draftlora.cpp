// SPDX-License-Identifier: GPL-3.0-or-later
// Side pools on the card beside the target's weights and KV (issue #14): a
// speculative-decoding draft (its weights, its own KV for every session, the
// lookahead slots) and LoRA adapter slots, each derived here by hand from the
// presets' published config.json figures and vLLM's allocation rules.
#include "io/configimporter.h"
#include "plan/capacity.h"
#include "plan/sidepools.h"
#include "plan/levers.h"

#include <algorithm>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;

namespace {

ModelShape preset(const char *id)
{
    QFile f(QStringLiteral(HEADROOM_SOURCE "/presets/models/%1.json").arg(QString::fromLatin1(id)));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing preset %s", id);
    return ConfigImporter::fromPreset(QJsonDocument::fromJson(f.readAll()).object());
}

// A roomy custom card (plain rule: the budget is card - weights - workspace), so every
// difference below is the side pool alone.
Scenario on(const char *model, qint64 context, int tp = 1)
{
    Scenario s;
    s.model = preset(model);
    s.gpu = GpuSpec::custom(400'000'000'000);
    s.tp = tp;
    s.contextTokens = context;
    return s;
}

} // namespace

class TestDraftLora : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void offByDefault()
    {
        const CapacityResult r = computeCapacity(on("llama-3.1-8b", 8192));
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.draftKvBytesPerToken, qint64(0));
        QCOMPARE(r.draftWeightsBytes, qint64(0));
        QCOMPARE(r.loraBytesPerGpu, qint64(0));
        QCOMPARE(r.lookaheadTokens, qint64(0));
        QVERIFY(SidePools::explain(on("llama-3.1-8b", 8192), r, UnitSystem::Decimal).isEmpty());
    }

    void draftModelAddsItsKvAndWeights()
    {
        // Issue #14 "Done when": Llama-3.1-70B with a Llama-3.1-8B draft. The 8B's
        // config.json: 32 layers x 8 KV heads x head_dim 128 x 2 (K and V) x 2 B (bf16)
        // = 131,072 B per token, for every session, in the target's block pool.
        // Its weights: 8,030,261,248 parameters (preset, HF safetensors) x 2 B = 16,060,522,496 B.
        Scenario base = on("llama-3.1-70b", 8192);
        Scenario s = base;
        s.speculative.draftModel = preset("llama-3.1-8b");
        const CapacityResult without = computeCapacity(base);
        const CapacityResult with = computeCapacity(s);
        QVERIFY2(with.ok, qPrintable(with.error));
        QCOMPARE(with.draftKvBytesPerToken, qint64(32 * 8 * 128 * 2 * 2));
        QCOMPARE(with.draftKvBytesPerToken, qint64(131'072));
        QCOMPARE(with.kvBytesPerToken, without.kvBytesPerToken); // the target's own figure is unchanged
        QCOMPARE(with.sessionBytes - without.sessionBytes, qint64(131'072) * 8192);
        QCOMPARE(with.draftWeightsBytes, qint64(16'060'522'496));
        QCOMPARE(without.kvBudgetBytesPerGpu - with.kvBudgetBytesPerGpu, qint64(16'060'522'496));
        // Sessions: the budget over (70B's 80 x 4,096 + 131,072) B x 8,192 tokens.
        QCOMPARE(with.maxSessions, with.kvBudgetBytesPerGpu / ((80 * 4096 + 131'072) * qint64(8192)));
        QCOMPARE(with.draftKvBytesForSessionsPerGpu, qint64(131'072) * 8192);
    }

    void draftSplitsUnderTensorParallelism()
    {
        // At TP 4 the draft's weights split like the target's (ceil(16,060,522,496 / 4)) and
        // its 8 KV heads go 2 to a GPU: 32 x 2 x 128 x 2 x 2 B = 32,768 B per token per GPU.
        Scenario s = on("llama-3.1-70b", 8192, 4);
        s.speculative.draftModel = preset("llama-3.1-8b");
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.draftWeightsBytesPerGpu, qint64(4'015'130'624));
        QCOMPARE(r.draftKvBytesPerTokenPerGpu, qint64(32 * 2 * 128 * 2 * 2));
        QCOMPARE(r.draftKvBytesPerToken, qint64(131'072));
    }

    void lookaheadSlots()
    {
        // K = 4: vLLM allocates slots for the session's tokens + 4 lookahead, in blocks of 16:
        // ceil((8,192 + 4) / 16) = 513 blocks = 8,208 tokens, in every target and draft layer.
        Scenario s = on("llama-3.1-70b", 8192);
        s.speculative.draftModel = preset("llama-3.1-8b");
        s.speculative.speculativeTokens = 4;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.lookaheadTokens, qint64(4));
        QCOMPARE(r.reservedSessionBytesPerGpu, qint64(8208) * (80 * 4096 + 131'072));
        // An n-gram proposer: the lookahead slots with no draft.
        Scenario ngram = on("llama-3.1-70b", 8192);
        ngram.speculative.speculativeTokens = 4;
        QCOMPARE(computeCapacity(ngram).reservedSessionBytesPerGpu, qint64(8208) * (80 * 4096));
    }

    void mtpLayersOfTheTargetsShape()
    {
        // DeepSeek-V3's MTP module: one more MLA layer, (512 latent + 64 RoPE) x 2 B = 1,152 B
        // per token (config.json kv_lora_rank 512, qk_rope_head_dim 64).
        Scenario s = on("deepseek-v3", 4096);
        s.weightsBytes = 700'000'000'000;
        s.gpu = GpuSpec::custom(1'000'000'000'000);
        s.speculative.draftLayers = 1;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.draftKvBytesPerToken, qint64(1152));
        QVERIFY(r.draftWeightsBytes > 0 && r.draftWeightsBytes < s.weightsBytes.value() / 61 * 2);
    }

    void loraSlotsOnEveryLinearLayer()
    {
        // Issue #14 "Done when": Llama-3.1-8B, 4 slots of rank 16 on q, k, v, o, gate, up, down,
        // bf16. Per layer, (in + out) of each (hidden 4,096, 32 x 128 query, 8 x 128 K/V,
        // intermediate 14,336; config.json):
        //   q 4,096 + 4,096 = 8,192   k 4,096 + 1,024 = 5,120   v 5,120   o 4,096 + 4,096 = 8,192
        //   gate 4,096 + 14,336 = 18,432   up 18,432   down 14,336 + 4,096 = 18,432
        //   sum 81,920 values per rank per slot.
        // x 16 rank x 4 slots x 32 layers x 2 B = 335,544,320 B (vLLM lora_a + lora_b).
        Scenario s = on("llama-3.1-8b", 8192);
        s.lora.maxLoras = 4;
        s.lora.maxRank = 16;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.loraBytes, qint64(81'920) * 16 * 4 * 32 * 2);
        QCOMPARE(r.loraBytes, qint64(335'544'320));
        QCOMPARE(r.loraBytesPerGpu, r.loraBytes);
        QCOMPARE(computeCapacity(on("llama-3.1-8b", 8192)).kvBudgetBytesPerGpu - r.kvBudgetBytesPerGpu, qint64(335'544'320));
    }

    void loraSplitsAsVllmShardsIt()
    {
        // TP 2: column-parallel q, k, v, gate, up keep the whole input, halve the output;
        // row-parallel o, down halve the input, keep the output (vllm/lora/layers):
        //   q 4,096 + 2,048  k 4,096 + 512  v 4,096 + 512  o 2,048 + 4,096
        //   gate 4,096 + 7,168  up 4,096 + 7,168  down 7,168 + 4,096  = 55,296
        // x 16 x 4 x 32 x 2 B = 226,492,416 B per GPU.
        Scenario s = on("llama-3.1-8b", 8192, 2);
        s.lora.maxLoras = 4;
        s.lora.maxRank = 16;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.loraBytesPerGpu, qint64(55'296) * 16 * 4 * 32 * 2);
        QCOMPARE(r.loraBytes, qint64(335'544'320));
    }

    void loraModulesNarrow()
    {
        // q and v only: (8,192 + 5,120) x 16 x 4 x 32 x 2 B = 54,525,952 B.
        Scenario s = on("llama-3.1-8b", 8192);
        s.lora.maxLoras = 4;
        s.lora.modules = LoraSlots::parseModules(QStringLiteral("q_proj, v"), QStringLiteral("--lora-modules"));
        QCOMPARE(s.lora.modules, (QStringList{QStringLiteral("q"), QStringLiteral("v")}));
        QCOMPARE(computeCapacity(s).loraBytes, qint64(13'312) * 16 * 4 * 32 * 2);
    }

    void leversSeeThePools()
    {
        // Llama-3.1-70B at TP 4 with an 8B draft and 8 slots of rank 64: the levers offer a
        // smaller draft of the same vocabulary (Llama-3.1-8B's 128,256 tokens: no smaller
        // preset shares it, so none), half the slots and half the rank, each freeing memory.
        Scenario s = on("llama-3.1-70b", 32768, 4);
        s.gpu = GpuSpec::custom(80'000'000'000);
        s.speculative.draftModel = preset("llama-3.1-8b");
        s.speculative.speculativeTokens = 4;
        s.lora.maxLoras = 8;
        s.lora.maxRank = 64;
        const LeverReport report = evaluateLevers(s, {preset("llama-3.1-8b"), preset("qwen2.5-7b-instruct"), preset("mixtral-8x7b-v0.1")},
                                                  {}, LeverTarget{});
        auto find = [&](const QString &name) -> const LeverOption * {
            for (const LeverOption &o : report.options)
                if (o.option == name)
                    return &o;
            return nullptr;
        };
        const LeverOption *fewer = find(QStringLiteral("4 LoRA slots"));
        const LeverOption *rank = find(QStringLiteral("LoRA rank 32"));
        const LeverOption *off = find(QStringLiteral("no speculative decoding"));
        QVERIFY(fewer && rank && off);
        QVERIFY(find(QStringLiteral("2 speculative tokens per step"))); // K = 4 halved
        Scenario two = s;
        two.speculative.speculativeTokens = 2;
        const LeverReport halvedToOne = evaluateLevers(two, {}, {}, LeverTarget{});
        QVERIFY(std::any_of(halvedToOne.options.cbegin(), halvedToOne.options.cend(),
                            [](const LeverOption &o) { return o.option == QStringLiteral("1 speculative token per step"); }));
        QCOMPARE(fewer->lever, QStringLiteral("side pools"));
        QVERIFY(fewer->sessionsPerGroup > report.current.sessionsPerGroup);
        QVERIFY(off->sessionsPerGroup > report.current.sessionsPerGroup);
        QVERIFY(rank->changesRequirement && off->changesRequirement && !fewer->changesRequirement);
        QVERIFY(!find(QStringLiteral("smaller draft Qwen2.5-7B-Instruct"))); // another tokenizer
        // Another model takes the pools it can: Mixtral's 32,000-token vocabulary drops the
        // Llama draft, and a mixture of experts keeps LoRA slots on attention only.
        const LeverOption *mixtral = find(QStringLiteral("model Mixtral-8x7B-v0.1"));
        QVERIFY(mixtral);
        QVERIFY2(mixtral->sessionsPerGroup > 0, qPrintable(mixtral->sideEffect));
        QVERIFY(!mixtral->scenario.speculative.on());
        QCOMPARE(mixtral->scenario.lora.effectiveModules(), (QStringList{QStringLiteral("q"), QStringLiteral("k"), QStringLiteral("v"), QStringLiteral("o")}));
    }

    void refusedByName_data()
    {
        QTest::addColumn<QString>("field");
        QTest::newRow("MoE experts are not planned") << QStringLiteral("--lora-modules");
        QTest::newRow("K past its range") << QStringLiteral("--num-speculative-tokens");
        QTest::newRow("rank past its range") << QStringLiteral("--max-lora-rank");
        QTest::newRow("a draft under pipeline parallelism") << QStringLiteral("--draft-model");
        QTest::newRow("an unknown module") << QStringLiteral("--lora-modules");
    }

    void refusedByName()
    {
        QFETCH(QString, field);
        const QByteArray row = QTest::currentDataTag();
        Scenario s = on("llama-3.1-8b", 8192);
        if (row.startsWith("MoE")) {
            s = on("mixtral-8x7b-v0.1", 8192);
            s.lora.maxLoras = 2;
        } else if (row.startsWith("K")) {
            s.speculative.speculativeTokens = 65;
        } else if (row.startsWith("rank")) {
            s.lora.maxLoras = 1;
            s.lora.maxRank = 2048;
        } else if (row.startsWith("a draft")) {
            s.pp = 2;
            s.speculative.draftModel = preset("llama-3.1-8b");
        } else {
            QVERIFY_THROWS_EXCEPTION(InputError, LoraSlots::parseModules(QStringLiteral("q,lm_head"), field));
            return;
        }
        const CapacityResult r = computeCapacity(s);
        QVERIFY(!r.ok);
        QCOMPARE(r.errorField, field);
    }
};

HEADROOM_TEST_MAIN(TestDraftLora, QCoreApplication)
#include "tst_draftlora.moc"
