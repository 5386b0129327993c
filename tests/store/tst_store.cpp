// SPDX-License-Identifier: GPL-3.0-or-later
// The SQLite preset store: fresh seed, upgrade keeps the user's presets,
// damaged or foreign files are refused and left byte-for-byte untouched;
// and every built-in preset reads, with spot checks against its cited source.
#include "io/configimporter.h"
#include "kv/gpuspec.h"
#include "core/inputerror.h"
#include "kv/kvcost.h"
#include "presetstore.h"

#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;

class TestStore : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString fresh(const char *name) { return m_dir.filePath(QString::fromLatin1(name)); }

    static int countFiles(const QString &folder)
    {
        return int(QDir(QStringLiteral(HEADROOM_SOURCE) + folder).entryList({QStringLiteral("*.json")}, QDir::Files).size());
    }

    static PresetRecord builtIn(const QString &id)
    {
        for (const PresetRecord &r : PresetStore::builtInPresets())
            if (r.id == id)
                return r;
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void freshSeed()
    {
        PresetStore store(fresh("fresh.sqlite"));
        QString error;
        QVERIFY2(store.open(&error), qPrintable(error));
        const int models = countFiles(QStringLiteral("/presets/models")), gpus = countFiles(QStringLiteral("/presets/gpus"));
        QVERIFY(models >= 20); // issue #2: at least 20 models, 12 GPUs
        QVERIFY(gpus >= 12);
        QCOMPARE(store.list(QStringLiteral("model")).size(), models);
        QCOMPARE(store.list(QStringLiteral("gpu")).size(), gpus);
        QVERIFY(store.find(QStringLiteral("llama-3.1-8b")).builtIn);
        QVERIFY(store.find(QStringLiteral("no-such-preset")).id.isEmpty());
    }

    void everyBuiltInReadsAndCitesASource()
    {
        for (const PresetRecord &r : PresetStore::builtInPresets()) {
            QVERIFY2(!r.source.isEmpty(), qPrintable(r.id));
            QVERIFY2(!r.json.value(QStringLiteral("source_date")).toString().isEmpty(), qPrintable(r.id));
            QVERIFY2(r.id == r.id.toLower() && !r.id.contains(QLatin1Char(' ')), qPrintable(r.id));
            try {
                if (r.kind == QLatin1String("model")) {
                    const ModelShape m = ConfigImporter::fromPreset(r.json);
                    QVERIFY2(m.totalParams > 0, qPrintable(r.id));
                    QVERIFY2(KvCost(m, Dtype::BF16, 1, 16).bytesPerToken() > 0, qPrintable(r.id));
                } else {
                    const GpuSpec g = GpuSpec::fromPreset(r.json);
                    QVERIFY2(g.memoryBytes > 0 && g.bandwidthBytesPerSecond > 0, qPrintable(r.id));
                    QVERIFY2(g.priceUsdPerHour || r.json.value(QStringLiteral("price_usd_per_hour")).isNull(), qPrintable(r.id));
                }
            } catch (const InputError &e) {
                QFAIL(qPrintable(r.id + QStringLiteral(": ") + e.text()));
            }
        }
    }

    void presetFacts_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<qint64>("bytesPerToken");
        // KV bytes per token at bf16, derived from each published config.json:
        QTest::newRow("Llama-3.1-8B: 2 x 8 x 128 x 2 x 32") << QStringLiteral("llama-3.1-8b") << qint64(131072);
        QTest::newRow("Llama-2-7B: 2 x 32 x 128 x 2 x 32") << QStringLiteral("llama-2-7b") << qint64(524288);
        QTest::newRow("Llama-3.1-70B: 2 x 8 x 128 x 2 x 80") << QStringLiteral("llama-3.1-70b") << qint64(327680);
        QTest::newRow("Qwen3-8B: 2 x 8 x 128 x 2 x 36") << QStringLiteral("qwen3-8b") << qint64(147456);
        QTest::newRow("Gemma-2-9B: 2 x 8 x 256 x 2 x 42") << QStringLiteral("gemma-2-9b") << qint64(344064);
        QTest::newRow("DeepSeek-V3 MLA: (512 + 64) x 2 x 61") << QStringLiteral("deepseek-v3") << qint64(70272);
        QTest::newRow("Jamba-v0.1: 4 attention layers, 2 x 8 x 128 x 2") << QStringLiteral("jamba-v0.1") << qint64(16384);
    }
    void presetFacts()
    {
        QFETCH(QString, id);
        QFETCH(qint64, bytesPerToken);
        const PresetRecord r = builtIn(id);
        QVERIFY2(!r.id.isEmpty(), qPrintable(id));
        QCOMPARE(KvCost(ConfigImporter::fromPreset(r.json), Dtype::BF16, 1, 16).bytesPerToken(), bytesPerToken);
    }

    void gpuFacts()
    {
        // nvidia-smi "Total" for H100 80GB HBM3: 81559 MiB (shared/design/model-facts.md).
        const PresetRecord r = builtIn(QStringLiteral("h100-sxm-80gb"));
        QVERIFY(!r.id.isEmpty());
        QCOMPARE(GpuSpec::fromPreset(r.json).memoryBytes, qint64(81559) * 1048576);
    }

    void upgradeKeepsUserPresets()
    {
        const QString path = fresh("upgrade.sqlite");
        QString error;
        {
            PresetStore store(path);
            QVERIFY(store.open(&error));
            QJsonObject mine = store.find(QStringLiteral("llama-3.1-8b")).json;
            mine.insert(QStringLiteral("name"), QStringLiteral("My tuned Llama"));
            QVERIFY2(store.saveUserPreset(mine, &error), qPrintable(error));
            QJsonObject custom{{QStringLiteral("id"), QStringLiteral("my-card")}, {QStringLiteral("kind"), QStringLiteral("gpu")},
                               {QStringLiteral("name"), QStringLiteral("My card")}, {QStringLiteral("memory_bytes"), 1e10}};
            QVERIFY(store.saveUserPreset(custom, &error));
        }
        {
            // Simulate an older release: stale built-in rows and hash.
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("UPDATE meta SET value = 'old' WHERE key = 'builtin_hash'")));
            QVERIFY(q.exec(QStringLiteral("UPDATE presets SET json = '{\"id\":\"qwen3-8b\",\"kind\":\"model\",\"name\":\"stale\"}' WHERE id = 'qwen3-8b'")));
            QVERIFY(q.exec(QStringLiteral("INSERT INTO presets VALUES ('retired-model', 'model', 'builtin', '{}')")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("raw"));
        PresetStore store(path);
        QVERIFY2(store.open(&error), qPrintable(error));
        QCOMPARE(store.find(QStringLiteral("llama-3.1-8b")).name, QStringLiteral("My tuned Llama"));
        QVERIFY(!store.find(QStringLiteral("llama-3.1-8b")).builtIn);
        QCOMPARE(store.find(QStringLiteral("my-card")).name, QStringLiteral("My card"));
        QCOMPARE(store.find(QStringLiteral("qwen3-8b")).name, QStringLiteral("Qwen3-8B"));
        QVERIFY(store.find(QStringLiteral("retired-model")).id.isEmpty());
        // Removing the user's edit restores the shipped built-in.
        QVERIFY(store.removeUserPreset(QStringLiteral("llama-3.1-8b"), &error));
        QCOMPARE(store.find(QStringLiteral("llama-3.1-8b")).name, QStringLiteral("Llama-3.1-8B"));
    }

    void repairsDeletedBuiltInsAndSkipsDamagedRows()
    {
        const QString path = fresh("repair.sqlite");
        QString error;
        {
            PresetStore store(path);
            QVERIFY(store.open(&error));
        }
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw2"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("DELETE FROM presets WHERE id = 'llama-3.1-8b'")));
            QVERIFY(q.exec(QStringLiteral("INSERT INTO presets VALUES ('broken-one', 'gpu', 'user', '{broken')")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("raw2"));
        PresetStore store(path);
        QVERIFY(store.open(&error));
        QCOMPARE(store.find(QStringLiteral("llama-3.1-8b")).name, QStringLiteral("Llama-3.1-8B"));
        store.list();
        QCOMPARE(store.problems().size(), 1);
    }

    void rejectsBadIds()
    {
        PresetStore store(fresh("ids.sqlite"));
        QString error;
        QVERIFY(store.open(&error));
        QVERIFY(!store.saveUserPreset({{QStringLiteral("id"), QStringLiteral("Bad Id")}, {QStringLiteral("kind"), QStringLiteral("gpu")}}, &error));
        QVERIFY(error.startsWith(QStringLiteral("id:")));
        QVERIFY(!store.saveUserPreset({{QStringLiteral("id"), QStringLiteral("ok-id")}, {QStringLiteral("kind"), QStringLiteral("tpu")}}, &error));
        QVERIFY(error.startsWith(QStringLiteral("kind:")));
    }

    void damagedFilesAreRefusedAndKept_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("needle");
        QTest::newRow("text, not a database") << QByteArray("this is not sqlite\n").repeated(100) << QStringLiteral("damaged");
        QByteArray header("SQLite format 3");
        header.append('\0');
        QTest::newRow("truncated SQLite header") << header + QByteArray(80, '\xff') << QStringLiteral("damaged");
    }
    void damagedFilesAreRefusedAndKept()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, needle);
        const QString path = fresh("damaged.sqlite");
        QFile::remove(path);
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(content);
        }
        QString error;
        {
            PresetStore store(path);
            QVERIFY(!store.open(&error));
        }
        QVERIFY2(error.contains(path) && error.contains(needle), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), content);
    }

    void foreignAndNewerDatabasesAreRefused()
    {
        const QString foreign = fresh("foreign.sqlite");
        const QString newer = fresh("newer.sqlite");
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("mk"));
            db.setDatabaseName(foreign);
            QVERIFY(db.open());
            QSqlQuery(db).exec(QStringLiteral("CREATE TABLE photos (x)"));
            db.close();
            db.setDatabaseName(newer);
            QVERIFY(db.open());
            QSqlQuery(db).exec(QStringLiteral("PRAGMA user_version = 99"));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("mk"));
        QString error;
        {
            PresetStore store(foreign);
            QVERIFY(!store.open(&error));
            QVERIFY2(error.contains(QStringLiteral("not a Headroom preset store")), qPrintable(error));
        }
        {
            PresetStore store(newer);
            QVERIFY(!store.open(&error));
            QVERIFY2(error.contains(QStringLiteral("newer Headroom")), qPrintable(error));
        }
    }
};

HEADROOM_TEST_MAIN(TestStore, QCoreApplication)
#include "tst_store.moc"
