// SPDX-License-Identifier: GPL-3.0-or-later
// The .headroom file: written atomically, read back identically, older
// formats migrate, newer or damaged ones are refused and nothing is written.
#include "plan/capacity.h"
#include "io/configimporter.h"
#include "core/inputerror.h"
#include "io/scenariofile.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;

namespace {
Scenario rich()
{
    Scenario s;
    s.model = ConfigImporter::fromFile(QStringLiteral(HEADROOM_TEST_DATA "/gemma-3-27b-it/config.json"), QStringLiteral("m"));
    s.model.totalParams = 27'432'396'272;
    s.gpu = GpuSpec::custom(85'520'809'984);
    s.gpu.priceUsdPerHour = 2.95;
    s.tp = 2;
    s.contextTokens = 131072;
    s.sessions = 12;
    s.kvDtype = Dtype::FP8;
    s.kvHeadsOverride = 8;
    s.weightsBytes = qint64(9'007'199'254'740'993); // above 2^53: must survive JSON exactly
    s.engine = Engine::Vllm;
    s.engineSettings.activationPeak = 1'116'691'496;
    s.engineSettings.vllmMinor = 10;
    s.engineSettings.nCtx = 32768;
    s.maxModelLen = 65536;
    s.distribution = LengthDistribution::fromTrace(QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-code.csv"), QStringLiteral("t"));
    s.lengthScale = 4.0;
    s.retainTokens = 16384;
    s.risk = 1e-4;
    s.targetSessions = 500;
    return s;
}
} // namespace

class TestScenarioFile : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void roundTrip()
    {
        const Scenario s = rich();
        const QString path = m_dir.filePath(QStringLiteral("a.headroom"));
        ScenarioFile::write(path, s, QStringLiteral("Before"));
        QString name;
        const Scenario back = ScenarioFile::read(path, &name);
        QCOMPARE(name, QStringLiteral("Before"));
        QCOMPARE(back, s);
        QCOMPARE(*back.weightsBytes, qint64(9'007'199'254'740'993));
        // And the plan from it is the same plan.
        QCOMPARE(computeCapacity(back).toJson(), computeCapacity(s).toJson());
    }

    void newerOrDamagedIsRefused_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("needle");
        QJsonObject newer = ScenarioFile::toJson(rich(), QStringLiteral("x"));
        newer.insert(QStringLiteral("version"), ScenarioFile::formatVersion + 1);
        QTest::newRow("newer version") << QJsonDocument(newer).toJson() << QStringLiteral("newer Headroom");
        QTest::newRow("truncated") << QJsonDocument(ScenarioFile::toJson(rich(), QStringLiteral("x"))).toJson().left(500)
                                   << QStringLiteral("damaged");
        QJsonObject broken = ScenarioFile::toJson(rich(), QStringLiteral("x"));
        QJsonObject model = broken.value(QStringLiteral("model")).toObject();
        model.insert(QStringLiteral("groups"), QJsonArray());
        broken.insert(QStringLiteral("model"), model);
        QTest::newRow("model without layers") << QJsonDocument(broken).toJson() << QStringLiteral("model.groups");
        QTest::newRow("not a scenario") << QByteArray("{\"hello\": 1}") << QStringLiteral("not a Headroom scenario");
        QJsonObject noHeads = ScenarioFile::toJson(rich(), QStringLiteral("x"));
        QJsonObject m2 = noHeads.value(QStringLiteral("model")).toObject();
        QJsonArray groups = m2.value(QStringLiteral("groups")).toArray();
        QJsonObject g0 = groups.at(0).toObject();
        g0.insert(QStringLiteral("kv_heads"), 0);
        groups.replace(0, g0);
        m2.insert(QStringLiteral("groups"), groups);
        noHeads.insert(QStringLiteral("model"), m2);
        QTest::newRow("attention group with 0 KV heads") << QJsonDocument(noHeads).toJson() << QStringLiteral("model.groups.kv_heads");
        QJsonObject wrapped = ScenarioFile::toJson(rich(), QStringLiteral("x"));
        QJsonObject in = wrapped.value(QStringLiteral("inputs")).toObject();
        in.insert(QStringLiteral("tp"), 4294967297.0);
        wrapped.insert(QStringLiteral("inputs"), in);
        QTest::newRow("TP that would wrap to 1") << QJsonDocument(wrapped).toJson() << QStringLiteral("inputs.tp");
        QJsonObject negative = ScenarioFile::toJson(rich(), QStringLiteral("x"));
        in = negative.value(QStringLiteral("inputs")).toObject();
        in.insert(QStringLiteral("price_usd_per_gpu_hour"), -3);
        negative.insert(QStringLiteral("inputs"), in);
        QTest::newRow("negative price") << QJsonDocument(negative).toJson() << QStringLiteral("inputs.price_usd_per_gpu_hour");
    }
    void newerOrDamagedIsRefused()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, needle);
        const QString path = m_dir.filePath(QStringLiteral("bad.headroom"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(content);
        }
        try {
            ScenarioFile::read(path, nullptr);
            QFAIL("accepted");
        } catch (const InputError &e) {
            QVERIFY2(e.text().contains(needle), qPrintable(e.text()));
        }
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), content); // untouched
    }

    void failedWriteLosesNothing()
    {
        // A path that cannot be replaced (a folder holding the user's data): the write is
        // refused with the path named and what was there stays.
        const QString path = m_dir.filePath(QStringLiteral("folder.headroom"));
        QVERIFY(QDir().mkpath(path + QStringLiteral("/inside")));
        try {
            ScenarioFile::write(path, rich(), QStringLiteral("New"));
            QFAIL("written over a folder");
        } catch (const InputError &e) {
            QVERIFY2(e.text().contains(path), qPrintable(e.text()));
        }
        QVERIFY(QDir(path + QStringLiteral("/inside")).exists());
    }

    void planOutputMigrates()
    {
        // Version 0: what `headroom plan --json` prints; its inputs name presets.
        const QJsonObject plan{{QStringLiteral("kv_bytes_per_token"), 131072},
                               {QStringLiteral("inputs"), QJsonObject{{QStringLiteral("model"), QStringLiteral("llama-3.1-8b")},
                                                                      {QStringLiteral("gpu"), QStringLiteral("custom")},
                                                                      {QStringLiteral("gpu_memory_bytes"), 80e9},
                                                                      {QStringLiteral("context_tokens"), 100000},
                                                                      {QStringLiteral("sessions"), 4},
                                                                      {QStringLiteral("kv_dtype"), QStringLiteral("bf16")},
                                                                      {QStringLiteral("weights_dtype"), QStringLiteral("bf16")},
                                                                      {QStringLiteral("workspace_bytes_per_gpu"), 4e9},
                                                                      {QStringLiteral("engine"), QStringLiteral("plain")},
                                                                      {QStringLiteral("tp"), 1}}}};
        auto models = [](const QString &id) {
            ModelShape m = ConfigImporter::fromFile(QStringLiteral(HEADROOM_TEST_DATA "/llama-3.1-8b/config.json"), QStringLiteral("m"));
            m.id = id;
            m.totalParams = 8'000'000'000;
            return m;
        };
        const Scenario s = ScenarioFile::fromJson(plan, nullptr, models, [](const QString &) { return GpuSpec{}; });
        // Seed figures A: 131,072 B per token, 4 sessions of 100,000 tokens in 80 - 16 - 4 GB.
        const CapacityResult r = computeCapacity(s);
        QCOMPARE(r.kvBytesPerToken, qint64(131072));
        QCOMPARE(r.maxSessions, qint64(4));
        QCOMPARE(s.sessions, qint64(4));
    }
};

HEADROOM_TEST_MAIN(TestScenarioFile, QCoreApplication)
#include "tst_scenariofile.moc"
