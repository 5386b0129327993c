// SPDX-License-Identifier: GPL-3.0-or-later
// Admission (issue 32): TensorRT-LLM's capacity scheduler. GUARANTEED_NO_EVICT, its default,
// admits a request only when its prompt and its maximum output fit ("Useful Runtime Options",
// TensorRT-LLM performance tuning guide; the reservation ceil((prompt + max_output) /
// tokens_per_block) blocks as NVIDIA's dynamo mocker states it, scheduler/trtllm/policy.rs);
// MAX_UTILIZATION pages, as vLLM does. Counts are checked against hand arithmetic and against
// a law the test builds itself from the Azure trace's CSV rows.
#include "plan/capacity.h"
#include "plan/levers.h"
#include "core/inputerror.h"
#include "core/units.h"
#include "lengths/lengthdistribution.h"

#include "testshapes.h"

#include <QFile>
#include <QJsonObject>
#include <QMap>
#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;
using Headroom::Test::dense;

namespace {

const QString conv = QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-conv.csv");

// Llama-3.1-8B's shape (config.json: 32 layers, 32 heads, 8 KV heads, head_dim 128): 131,072 B
// per token in bf16; the KV budget pinned to 60 GB (--kv-cache-memory), as issue 32 states it.
Scenario pinned(Engine engine)
{
    Scenario s;
    s.model = dense(32, 32, 8, 128);
    s.model.totalParams = s.model.activeParams = 8'030'261'248;
    s.gpu = GpuSpec::custom(80 * Units::GiB);
    s.engine = engine;
    s.engineSettings.kvCacheMemory = 60'000'000'000;
    s.contextTokens = 8192;
    s.sessions = 1;
    return s;
}

// The Azure conversation trace read by the test itself: each row's ContextTokens + `add`
// tokens (the prompt plus a reserved output), as a law of equal weights.
LengthDistribution promptsPlus(qint64 add)
{
    QFile f(conv);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(conv));
    QMap<qint64, double> counts;
    double rows = 0;
    f.readLine(); // header
    while (!f.atEnd()) {
        const QList<QByteArray> cells = f.readLine().trimmed().split(',');
        if (cells.size() < 3)
            continue;
        counts[cells.at(1).toLongLong() + add] += 1;
        rows += 1;
    }
    LengthDistribution d;
    d.kind = LengthDistribution::Kind::Trace;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        d.lengths << it.key();
        d.probabilities << it.value() / rows;
    }
    return d;
}

} // namespace

class TestAdmission : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // One length: 8,192-token sessions of which 512 are output, so a 7,680-token prompt.
    // GUARANTEED_NO_EVICT with --max-output-tokens 2048 reserves 7,680 + 2,048 = 9,728 tokens
    // (304 blocks of 32): 9,728 x 131,072 B = 1,275,068,416 B, 60e9 / that = 47.06, so 47.
    // MAX_UTILIZATION and vLLM page: 8,192 x 131,072 B = 1,073,741,824 B, 60e9 / that = 55.88, so 55.
    void oneLengthReservesPromptAndMaxOutput()
    {
        Scenario gne = pinned(Engine::Trtllm);
        gne.outputTokens = 512;
        gne.engineSettings.maxOutputTokens = 2048;
        const CapacityResult a = computeCapacity(gne);
        QVERIFY2(a.ok, qPrintable(a.error));
        QCOMPARE(a.reservedTokensPerSession, qint64(9728));
        QCOMPARE(a.maxSessions, qint64(47));
        QCOMPARE(a.admission.name, QStringLiteral("GUARANTEED_NO_EVICT"));
        QCOMPARE(*a.admission.reservedOutputTokens, qint64(2048));

        Scenario mu = gne;
        mu.engineSettings.schedulerPolicy = SchedulerPolicy::MaxUtilization;
        const CapacityResult b = computeCapacity(mu);
        QCOMPARE(b.maxSessions, qint64(55));
        QCOMPARE(b.admission.name, QStringLiteral("MAX_UTILIZATION"));
        QVERIFY(!b.admission.reservedOutputTokens);

        Scenario vllm = pinned(Engine::Vllm);
        vllm.outputTokens = 512;
        QCOMPARE(computeCapacity(vllm).maxSessions, qint64(55));
        QCOMPARE(computeCapacity(vllm).admission.name, QStringLiteral("paged"));
    }

    // The reservation stops at max_seq_len: a 2,048-token build ceiling holds 7,680 + 2,048
    // to 2,048 tokens (the request is refused longer prompts; here it only caps the count).
    void reservationStopsAtMaxSeqLen()
    {
        Scenario s = pinned(Engine::Trtllm);
        s.contextTokens = 1024;
        s.outputTokens = 256;
        s.engineSettings.maxOutputTokens = 4096;
        s.engineSettings.trtMaxSeqLen = 2048;
        QCOMPARE(computeCapacity(s).reservedTokensPerSession, qint64(2048));
    }

    // The Azure conversation trace with the budget pinned: under GUARANTEED_NO_EVICT and
    // --max-output-tokens 1024 each request is counted at its prompt + 1,024, so the count is
    // the paged count of a law of ContextTokens + 1,024 (built here from the CSV), and below
    // vLLM's; under MAX_UTILIZATION it is vLLM's paging in the same 32-token blocks (TensorRT-LLM's
    // tokens_per_block, KvCacheConfig; vLLM's --block-size 32).
    void traceAdmitsFewerUnderGuaranteedNoEvict()
    {
        auto planned = [](Engine engine, std::optional<qint64> maxOutput, SchedulerPolicy policy, const LengthDistribution &lengths, int block = 16) {
            Scenario s = pinned(engine);
            s.blockSize = block;
            s.distribution = lengths;
            s.contextTokens = lengths.maximum();
            s.engineSettings.maxOutputTokens = maxOutput;
            s.engineSettings.schedulerPolicy = policy;
            const CapacityResult r = computeCapacity(s);
            if (!r.ok)
                qFatal("%s", qPrintable(r.error));
            return r.distribution.sessionsAtRisk;
        };
        const LengthDistribution trace = LengthDistribution::fromTrace(conv, QStringLiteral("trace"));
        const qint64 vllm = planned(Engine::Vllm, std::nullopt, SchedulerPolicy::GuaranteedNoEvict, trace);
        const qint64 gne = planned(Engine::Trtllm, 1024, SchedulerPolicy::GuaranteedNoEvict, trace);
        const qint64 mu = planned(Engine::Trtllm, 1024, SchedulerPolicy::MaxUtilization, trace);
        const qint64 reference = planned(Engine::Trtllm, std::nullopt, SchedulerPolicy::MaxUtilization, promptsPlus(1024));
        QVERIFY2(gne < vllm, qPrintable(QStringLiteral("%1 vs %2").arg(gne).arg(vllm)));
        QCOMPARE(gne, reference);
        QCOMPARE(mu, planned(Engine::Vllm, std::nullopt, SchedulerPolicy::GuaranteedNoEvict, trace, 32));
        QVERIFY(mu <= vllm);
        QVERIFY(vllm > 0);
    }

    // TensorRT-LLM pages in tokens_per_block (32 by default: KvCacheConfig), vLLM in 16: a
    // 1,000-token session holds 32 blocks = 1,024 tokens there, 63 blocks = 1,008 here.
    // 60e9 / (1,024 x 131,072) = 447.0; 60e9 / (1,008 x 131,072) = 454.1.
    void tensorRtPagesInItsOwnBlocks()
    {
        Scenario trt = pinned(Engine::Trtllm);
        trt.contextTokens = 1000;
        trt.engineSettings.schedulerPolicy = SchedulerPolicy::MaxUtilization;
        QCOMPARE(computeCapacity(trt).maxSessions, qint64(447));
        trt.engineSettings.trtTokensPerBlock = 64; // 16 blocks = 1,024 tokens again
        QCOMPARE(computeCapacity(trt).maxSessions, qint64(447));
        Scenario vllm = pinned(Engine::Vllm);
        vllm.contextTokens = 1000;
        QCOMPARE(computeCapacity(vllm).maxSessions, qint64(454));
    }

    // A reservation never counts a session below what it holds, whatever the settings: the
    // output at most --max-output-tokens (a request stops there; more is refused by name), a
    // max_seq_len below the length, a retention cap. GUARANTEED_NO_EVICT never admits more than
    // paging at the same lengths and blocks.
    void reservationNeverBelowTheLength_data()
    {
        QTest::addColumn<qint64>("context");
        QTest::addColumn<qint64>("maxOutput");
        QTest::addColumn<qint64>("maxSeqLen"); // 0: none
        QTest::addColumn<qint64>("retain");    // 0: none
        QTest::newRow("max_seq_len below the context") << qint64(8192) << qint64(1000) << qint64(4096) << qint64(0);
        QTest::newRow("a 1-token maximum output") << qint64(8192) << qint64(1) << qint64(0) << qint64(0);
        QTest::newRow("a retention cap") << qint64(8192) << qint64(1000) << qint64(0) << qint64(4096);
    }
    void reservationNeverBelowTheLength()
    {
        QFETCH(qint64, context);
        QFETCH(qint64, maxOutput);
        QFETCH(qint64, maxSeqLen);
        QFETCH(qint64, retain);
        Scenario paged = pinned(Engine::Trtllm);
        paged.contextTokens = context;
        if (maxSeqLen)
            paged.engineSettings.trtMaxSeqLen = maxSeqLen;
        if (retain)
            paged.retainTokens = retain;
        paged.engineSettings.schedulerPolicy = SchedulerPolicy::MaxUtilization;
        Scenario gne = paged;
        gne.engineSettings.schedulerPolicy = SchedulerPolicy::GuaranteedNoEvict;
        gne.engineSettings.maxOutputTokens = maxOutput;
        const CapacityResult a = computeCapacity(paged), b = computeCapacity(gne);
        QVERIFY2(b.maxSessions <= a.maxSessions, qPrintable(QStringLiteral("%1 > %2").arg(b.maxSessions).arg(a.maxSessions)));
        QVERIFY(b.reservedTokensPerSession >= a.reservedTokensPerSession);
        // The same against a distribution of that one length: both counts agree.
        gne.distribution = LengthDistribution::fixed(context);
        const CapacityResult c = computeCapacity(gne);
        QCOMPARE(c.distribution.sessionsWorstCase, b.maxSessions);
    }

    void outputBeyondTheMaximumRefused()
    {
        Scenario s = pinned(Engine::Trtllm);
        s.engineSettings.maxOutputTokens = 1000;
        s.outputTokens = 2000;
        const CapacityResult r = computeCapacity(s);
        QVERIFY(!r.ok);
        QCOMPARE(r.errorField, QStringLiteral("--output-tokens"));
        QVERIFY2(r.error.contains(QStringLiteral("--max-output-tokens")), qPrintable(r.error));
    }

    // In plan --json: the rule by name, its sentence, and the output it reserves.
    void admissionRuleInJson()
    {
        Scenario s = pinned(Engine::Trtllm);
        s.engineSettings.maxOutputTokens = 1024;
        const QJsonObject o = computeCapacity(s).toJson();
        QCOMPARE(o.value(QStringLiteral("admission_rule")).toString(), QStringLiteral("GUARANTEED_NO_EVICT"));
        QVERIFY(o.value(QStringLiteral("admission_rule_text")).toString().contains(QStringLiteral("1,024")));
        QCOMPARE(o.value(QStringLiteral("admission_reserved_output_tokens")).toInteger(), qint64(1024));
        QCOMPARE(computeCapacity(pinned(Engine::Vllm)).toJson().value(QStringLiteral("admission_rule")).toString(), QStringLiteral("paged"));
    }

    // The engine's cap on sessions running at once bounds every count, whatever the KV cache holds
    // (an attacker read "45 sessions fit" beside --max-num-seqs 3): vLLM's max_num_seqs ("Maximum
    // number of sequences to be processed in a single iteration", vllm/config/scheduler.py),
    // TensorRT-LLM's max_batch_size ("the maximum number of requests that the engine can schedule",
    // its tuning guide), llama.cpp's n_seq slots once n_ctx is set (tools/server/server.cpp).
    // 60 GB pinned / (8,192 tokens x 131,072 B) = 55 sessions by the KV cache alone.
    void theEnginesRunningCapBoundsTheCount()
    {
        const qint64 held = 60'000'000'000 / (8192 * qint64(131072));
        QCOMPARE(held, qint64(55));
        Scenario v = pinned(Engine::Vllm);
        v.engineSettings.maxNumSeqs = 3;
        Scenario t = pinned(Engine::Trtllm);
        t.engineSettings.trtMaxBatchSize = 3;
        t.engineSettings.schedulerPolicy = SchedulerPolicy::MaxUtilization;
        for (const Scenario &s : {v, t}) {
            const CapacityResult r = computeCapacity(s);
            QVERIFY2(r.ok, qPrintable(r.error));
            QCOMPARE(r.maxSessions, qint64(3));
            QVERIFY(r.runningCap);
            QCOMPARE(r.kvSessions, held);
            const QString verdict = capacityVerdict(s, r, UnitSystem::Decimal);
            QVERIFY2(verdict.contains(QStringLiteral("%1 3 is the limit: the KV cache holds 55").arg(s.engine == Engine::Vllm ? QStringLiteral("max_num_seqs") : QStringLiteral("max_batch_size"))),
                     qPrintable(verdict));
            const QJsonObject o = r.toJson();
            QCOMPARE(o.value(QStringLiteral("running_cap")).toInteger(), qint64(3));
            QCOMPARE(o.value(QStringLiteral("kv_sessions_before_running_cap")).toInteger(), held);
            // Against a distribution too: the risk-based count, and the fleet it sizes (30 asked: 10 replicas).
            Scenario d = s;
            d.distribution = LengthDistribution::fromTrace(conv, QStringLiteral("t"));
            d.contextTokens = d.distribution->maximum();
            d.targetSessions = 30;
            const CapacityResult rd = computeCapacity(d);
            QVERIFY2(rd.ok, qPrintable(rd.error));
            QCOMPARE(rd.distribution.sessionsAtRisk, qint64(3));
            QVERIFY(rd.distribution.kvSessionsAtRisk > 3);
            QCOMPARE(rd.distribution.gpusNeeded.value_or(-1), qint64(10));
            // Its overflow risk is that of the 3 it runs, as a plan asked for 3 without a cap gives
            // it (an attacker read 20 sessions at the 76's 9.5e-3, and a fleet risk of 76%).
            Scenario three = d;
            three.engineSettings.maxNumSeqs.reset();
            three.engineSettings.trtMaxBatchSize.reset();
            three.targetSessions.reset();
            three.sessions = 3;
            QCOMPARE(rd.distribution.riskTailAt, computeCapacity(three).distribution.overflowProbability);
            // Ten asked: the fix is the cap itself, not a change that grows a KV cache it never fills;
            // and no context holds ten at once.
            Scenario ten = s;
            ten.sessions = 10;
            const CapacityResult rt = computeCapacity(ten);
            QVERIFY2(rt.fixes.size() == 1 && rt.fixes.first().contains(QStringLiteral(" raised to at least 10: the KV cache holds 55")), qPrintable(rt.fixes.join(QLatin1Char('\n'))));
            QCOMPARE(solveMaxContext(ten, 10), qint64(0));
        }
        // vLLM's default (256 on a card this size) is above 55: the KV cache is the limit, said so.
        const CapacityResult plain = computeCapacity(pinned(Engine::Vllm));
        QCOMPARE(plain.maxSessions, held);
        QVERIFY(!plain.runningCap);
        // llama.cpp: n_seq 2 slots of n_ctx 500,000 / 2 cells each hold 2 sessions of 8,192 tokens;
        // a slot of n_ctx 5,000 (padded to 5,120) / 1 cannot hold one, and the verdict says so first.
        Scenario l = pinned(Engine::LlamaCpp);
        l.engineSettings.kvCacheMemory.reset();
        l.engineSettings.nCtx = 500'000;
        l.engineSettings.nSeq = 2;
        QCOMPARE(computeCapacity(l).maxSessions, qint64(2));
        l.engineSettings.nCtx = 5000;
        l.engineSettings.nSeq = 1;
        const CapacityResult small = computeCapacity(l);
        QVERIFY2(capacityVerdict(l, small, UnitSystem::Decimal).startsWith(QStringLiteral("llama.cpp cannot hold these sessions: each of its slots holds 5,120 tokens")),
                 qPrintable(capacityVerdict(l, small, UnitSystem::Decimal)));
        // Ollama's num_ctx is each slot's (it starts llama.cpp with --ctx-size num_ctx x num_parallel,
        // server.go): a slot of 4,096 needs num_ctx raised to the session's 8,192, not to 8,192 x 4.
        Scenario o = pinned(Engine::Ollama);
        o.engineSettings.kvCacheMemory.reset();
        o.engineSettings.nCtx = 4096;
        o.engineSettings.nSeq = 4;
        const QString ollama = capacityVerdict(o, computeCapacity(o), UnitSystem::Decimal);
        QVERIFY2(ollama.startsWith(QStringLiteral("Ollama cannot hold these sessions: each of its slots holds 4,096 tokens"))
                     && ollama.contains(QStringLiteral("raised to at least 8,192:")),
                 qPrintable(ollama));
    }

    // A policy word the engine does not have, and a maximum output out of range, are refused by name.
    void badInputsNameTheirField()
    {
        try {
            SchedulerPolicies::parse(QStringLiteral("fifo"), QStringLiteral("--scheduler-policy"));
            QFAIL("fifo was taken");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--scheduler-policy"));
        }
        QCOMPARE(SchedulerPolicies::parse(QStringLiteral("MAX_UTILIZATION"), QString()), SchedulerPolicy::MaxUtilization);
        Scenario s = pinned(Engine::Trtllm);
        s.engineSettings.maxOutputTokens = qint64(1) << 60;
        const CapacityResult r = computeCapacity(s);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.contains(QStringLiteral("--max-output-tokens")), qPrintable(r.error));
    }
};

HEADROOM_TEST_MAIN(TestAdmission, QCoreApplication)
#include "tst_admission.moc"
