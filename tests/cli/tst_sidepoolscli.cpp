// SPDX-License-Identifier: GPL-3.0-or-later
// The command line's side-pool flags (issue 14): the JSON fields they drive and
// the errors that name them. Figures derived in tests/model/tst_sidepools.cpp.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include "common/clirun.h"
#include "common/headroomtest.h"

class TestSidePoolsCli : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_home;

    struct Run
    {
        int code = -1;
        QJsonObject json;
        QByteArray err;
    };

    Run run(const QString &args)
    {
        const HeadroomTest::CliRun r = HeadroomTest::runHeadroom(QStringList{QStringLiteral("plan"), QStringLiteral("--json")} + args.split(QLatin1Char(' ')), m_home.path(), {}, 60000);
        // A refusal prints no JSON: only a run that succeeded is read as JSON (and must be).
        return {r.code, r.code == 0 ? r.json() : QJsonObject(), r.err};
    }

private Q_SLOTS:
    void visionFields()
    {
        const QString base = QStringLiteral("--model gemma-3-27b-it --gpu h100-sxm-80gb --engine vllm --context 32768");
        Run r = run(base + QStringLiteral(" --images-per-request 2"));
        QCOMPARE(r.code, 0);
        // 423,060,336 encoder parameters x 2 B; 8,192 x 5,376 x 2 B; 2 x 256 image tokens.
        QCOMPARE(r.json.value(QStringLiteral("encoder_weights_bytes")).toInteger(), qint64(846'120'672));
        QCOMPARE(r.json.value(QStringLiteral("encoder_cache_bytes_per_gpu")).toInteger(), qint64(88'080'384));
        QCOMPARE(r.json.value(QStringLiteral("image_tokens_per_request")).toInteger(), qint64(512));
        QCOMPARE(r.json.value(QStringLiteral("inputs")).toObject().value(QStringLiteral("images_per_request")).toInt(), 2);
        const qint64 weights = r.json.value(QStringLiteral("weights_bytes")).toInteger();
        r = run(base + QStringLiteral(" --images-per-request 0"));
        QCOMPARE(r.json.value(QStringLiteral("encoder_cache_bytes_per_gpu")).toInteger(), qint64(0));
        QCOMPARE(weights - r.json.value(QStringLiteral("weights_bytes")).toInteger(), qint64(846'120'672));
        r = run(base + QStringLiteral(" --images-per-request 1000"));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("--images-per-request"), r.err.constData());
    }

    void warmFields()
    {
        const QString base = QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --context 100000 --host-kv-memory 1TB");
        // A 10 s turn after 90 s of thought: a decoding share of 10 / (10 + 90) = 0.1.
        Run r = run(base + QStringLiteral(" --turn-seconds 10 --think-seconds 90"));
        QCOMPARE(r.code, 0);
        QCOMPARE(r.json.value(QStringLiteral("decoding_share")).toDouble(), 0.1);
        // Llama-3.1-8B: 131,072 B per token x 100,000 = 13,107,200,000 B per session;
        // resume over the H100 preset's 64 GB/s host link: 204.8 ms.
        QCOMPARE(r.json.value(QStringLiteral("resume_ms")).toDouble(), 204.8);
        const qint64 card = r.json.value(QStringLiteral("max_sessions")).toInteger() * 8;
        const qint64 host = qint64(1'000'000'000'000) / 13'107'200'000;
        QCOMPARE(r.json.value(QStringLiteral("sessions_retained_per_node")).toInteger(), std::min(card + host, qint64(card / 0.1)));
        QVERIFY(r.json.value(QStringLiteral("recompute_ms")).toDouble() > 0);
        QVERIFY(r.json.value(QStringLiteral("resume_vs_recompute")).toArray().size() > 1);
        r = run(base + QStringLiteral(" --turn-seconds 10"));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("--think-seconds"), r.err.constData());
        r = run(base + QStringLiteral(" --decoding-share 0"));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("--decoding-share"), r.err.constData());
        r = run(base + QStringLiteral(" --gpus-per-node 0"));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("--gpus-per-node"), r.err.constData());
    }

    void warmFieldsAcrossTensorParallelReplicas_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("gpusPerNode");
        QTest::newRow("--tp 2, 8 per node: 4 replicas") << 2 << 8;
        QTest::newRow("--tp 4, 8 per node: 2 replicas") << 4 << 8;
        QTest::newRow("--tp 4, 6 per node: 1 replica, 4 cards in use") << 4 << 6;
    }

    void warmFieldsAcrossTensorParallelReplicas()
    {
        // Llama-3.1-8B (config.json: 32 layers, 8 KV heads, head_dim 128, bf16): 131,072 B per token,
        // 131,072 / tp on each GPU of a replica. warmsessions.h: the node's host memory holds whole
        // sessions of a replica (every GPU's shard), the cards hold max_sessions per replica.
        QFETCH(int, tp);
        QFETCH(int, gpusPerNode);
        const Run r = run(QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --context 100000 --host-kv-memory 1TB --decoding-share 0.1 --tp %1 --gpus-per-node %2")
                              .arg(tp).arg(gpusPerNode));
        QCOMPARE(r.code, 0);
        const qint64 replicas = gpusPerNode / tp;
        const qint64 card = r.json.value(QStringLiteral("max_sessions")).toInteger() * replicas;
        QVERIFY(card > 0);
        const qint64 host = qint64(1'000'000'000'000) / (qint64(100000) * 131072); // 76, whatever the TP
        const qint64 retained = std::min(card + host, qint64(std::floor(double(card) / 0.1)));
        QCOMPARE(r.json.value(QStringLiteral("sessions_on_card_per_node")).toInteger(), card);
        QCOMPARE(r.json.value(QStringLiteral("sessions_retained_per_node")).toInteger(), retained);
        QCOMPARE(r.json.value(QStringLiteral("sessions_in_host_per_node")).toInteger(), std::min(host, retained - card));
        QVERIFY(qFuzzyCompare(r.json.value(QStringLiteral("sessions_decoding_per_gpu")).toDouble(),
                              std::min(double(card), 0.1 * double(retained)) / double(replicas * tp)));
        // Each GPU pulls its own shard over its own 64 GB/s link (the H100 preset's host_link_bytes_per_s):
        // 100,000 x 131,072 / tp B / 64e9 B/s = 102.4 ms at TP 2, 51.2 ms at TP 4.
        QVERIFY(qFuzzyCompare(r.json.value(QStringLiteral("resume_ms")).toDouble(), 1e5 * (131072.0 / tp) / 64e9 * 1e3));
    }
};

HEADROOM_TEST_MAIN(TestSidePoolsCli, QCoreApplication)
#include "tst_sidepoolscli.moc"
