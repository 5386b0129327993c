// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom presets add|edit|remove|export|import` run as a user would, with
// two data folders standing for two machines: a team's presets exported on
// one import on the other with every field intact; built-ins refuse edits;
// every refusal names the flag or the bundle field; and a store damaged on
// its index page is reported, kept aside and rebuilt, so `plan --model
// llama-3.1-8b` works again (issue 10, kind 7).
#include "common/clirun.h"
#include "core/units.h"
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

class TestPresetsCli : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_a; // one machine's data folder
    QTemporaryDir m_b; // another's

    struct Run
    {
        int code = -1;
        QString out;
        QString err;
    };

    static Run run(const QTemporaryDir &home, const QStringList &args)
    {
        const HeadroomTest::CliRun r = HeadroomTest::runHeadroom(args, home.path(), {}, 60000);
        return {r.code, r.outText(), r.errText()};
    }

    static QStringList args(const QString &first, const QStringList &rest)
    {
        return QStringList{QStringLiteral("presets"), first} + rest;
    }

    static QJsonArray bundlePresets(const QString &path)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("presets")).toArray();
    }

    static QJsonObject byId(const QJsonArray &presets, const QString &id)
    {
        for (const QJsonValue &v : presets)
            if (v.toObject().value(QStringLiteral("id")).toString() == id)
                return v.toObject();
        return {};
    }

    static QString storeFile(const QTemporaryDir &home)
    {
        QDirIterator it(home.path(), {QStringLiteral("presets.sqlite")}, QDir::Files, QDirIterator::Subdirectories);
        return it.hasNext() ? it.next() : QString();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_a.isValid() && m_b.isValid());
    }

    void addEditAndPlanWithThem()
    {
        // A negotiated price on a copy of the shipped card.
        Run r = run(m_a, args(QStringLiteral("add"), {QStringLiteral("gpu"), QStringLiteral("acme-h100"), QStringLiteral("--from"),
                                                     QStringLiteral("h100-sxm-80gb"), QStringLiteral("--name"), QStringLiteral("ACME H100"),
                                                     QStringLiteral("--price"), QStringLiteral("1.80"), QStringLiteral("--price-source"),
                                                     QStringLiteral("ACME contract 42"), QStringLiteral("--price-date"), QStringLiteral("2026-11-01")}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // A card given field by field, and a private model from its config.json.
        r = run(m_a, args(QStringLiteral("add"), {QStringLiteral("gpu"), QStringLiteral("lab-card"), QStringLiteral("--name"),
                                                 QStringLiteral("Lab card"), QStringLiteral("--memory"), QStringLiteral("24GB"),
                                                 QStringLiteral("--bandwidth"), QStringLiteral("1TB/s"), QStringLiteral("--tflops"),
                                                 QStringLiteral("165"), QStringLiteral("--source-date"), QStringLiteral("2026-06-30")}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = run(m_a, args(QStringLiteral("add"), {QStringLiteral("model"), QStringLiteral("private-qwen"), QStringLiteral("--config"),
                                                 QStringLiteral(HEADROOM_TEST_DATA "/qwen3-0.6b/config.json"), QStringLiteral("--name"),
                                                 QStringLiteral("Private Qwen"), QStringLiteral("--params"), QStringLiteral("596049920")}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = run(m_a, args(QStringLiteral("edit"), {QStringLiteral("acme-h100"), QStringLiteral("--price"), QStringLiteral("1.65")}));
        QVERIFY2(r.code == 0, qPrintable(r.err));

        // Qwen3-0.6B (config.json: 28 layers, 8 KV heads, head_dim 128, bf16):
        // 2 x 8 x 128 x 2 B x 28 = 114,688 B per token.
        r = run(m_a, {QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("private-qwen"), QStringLiteral("--gpu"),
                      QStringLiteral("acme-h100"), QStringLiteral("--context"), QStringLiteral("1000"), QStringLiteral("--json")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject plan = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(plan.value(QStringLiteral("kv_bytes_per_token")).toInteger(), qint64(114688));
        QCOMPARE(plan.value(QStringLiteral("gpu_memory_bytes")).toInteger(), qint64(81559) * 1048576); // the copied card's memory
        QCOMPARE(plan.value(QStringLiteral("inputs")).toObject().value(QStringLiteral("price_usd_per_gpu_hour")).toDouble(), 1.65);

        r = run(m_a, {QStringLiteral("presets"), QStringLiteral("list")});
        QVERIFY(r.out.contains(QStringLiteral("acme-h100")) && r.out.contains(QStringLiteral("(yours)")));

        // A model from its config.json without --params is listed with the count a plan uses
        // (its bf16 weights are 2 B a parameter), not "0 parameters".
        QTemporaryDir own; // its own store: the tests below count m_a's presets
        r = run(own, args(QStringLiteral("add"), {QStringLiteral("model"), QStringLiteral("counted-qwen"), QStringLiteral("--config"),
                                                 QStringLiteral(HEADROOM_TEST_DATA "/qwen3-0.6b/config.json")}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = run(own, {QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("counted-qwen"), QStringLiteral("--gpu"),
                      QStringLiteral("h100-sxm-80gb"), QStringLiteral("--context"), QStringLiteral("1000"), QStringLiteral("--json")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const qint64 weights = QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("weights_bytes")).toInteger();
        QVERIFY(weights > 0);
        r = run(own, {QStringLiteral("presets"), QStringLiteral("list")});
        QVERIFY2(r.out.contains(Headroom::Units::formatCount(weights / 2) + QStringLiteral(" parameters (counted from its config)")), qPrintable(r.out));
    }

    void refusalsNameTheField_data()
    {
        QTest::addColumn<QStringList>("command");
        QTest::addColumn<QString>("needle");
        QTest::newRow("edit a built-in") << QStringList{QStringLiteral("edit"), QStringLiteral("h100-sxm-80gb"), QStringLiteral("--price"), QStringLiteral("1")}
                                         << "error: ID: \"h100-sxm-80gb\" is a built-in preset, which cannot be edited";
        QTest::newRow("remove a built-in") << QStringList{QStringLiteral("remove"), QStringLiteral("llama-3.1-8b")}
                                           << "error: ID: \"llama-3.1-8b\" is a built-in preset, which cannot be removed";
        QTest::newRow("add over a built-in") << QStringList{QStringLiteral("add"), QStringLiteral("gpu"), QStringLiteral("l4"), QStringLiteral("--memory"), QStringLiteral("24GB")}
                                             << "error: ID: \"l4\" is a built-in preset";
        QTest::newRow("memory without a unit") << QStringList{QStringLiteral("add"), QStringLiteral("gpu"), QStringLiteral("x-card"), QStringLiteral("--memory"), QStringLiteral("24")}
                                               << "error: --memory:";
        QTest::newRow("a date that is not one") << QStringList{QStringLiteral("edit"), QStringLiteral("acme-h100"), QStringLiteral("--price-date"), QStringLiteral("yesterday")}
                                                << "error: --price-date:";
        QTest::newRow("a GPU flag on a model") << QStringList{QStringLiteral("edit"), QStringLiteral("private-qwen"), QStringLiteral("--memory"), QStringLiteral("8GB")}
                                               << "error: --memory: applies to gpu presets only";
        QTest::newRow("a bad id") << QStringList{QStringLiteral("add"), QStringLiteral("gpu"), QStringLiteral("My Card"), QStringLiteral("--memory"), QStringLiteral("8GB")}
                                  << "error: id:";
        QTest::newRow("clear a required field") << QStringList{QStringLiteral("edit"), QStringLiteral("acme-h100"), QStringLiteral("--clear"), QStringLiteral("memory")}
                                                << "error: --clear: memory is required";
        QTest::newRow("a model without its config") << QStringList{QStringLiteral("add"), QStringLiteral("model"), QStringLiteral("m")}
                                                    << "error: --config:";
    }
    void refusalsNameTheField()
    {
        QFETCH(QStringList, command);
        QFETCH(QString, needle);
        const Run r = run(m_a, QStringList{QStringLiteral("presets")} + command);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(needle), qPrintable(r.err));
    }

    void bundleFromOneMachineToAnother()
    {
        const QString bundle = m_a.filePath(QStringLiteral("team.json"));
        Run r = run(m_a, args(QStringLiteral("export"), {bundle}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("exported 3 presets")));
        const QJsonArray sent = bundlePresets(bundle);
        QCOMPARE(sent.size(), 3);
        QCOMPARE(byId(sent, QStringLiteral("acme-h100")).value(QStringLiteral("price_source")).toString(), QStringLiteral("ACME contract 42"));

        r = run(m_b, args(QStringLiteral("import"), {bundle}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("3 added")), qPrintable(r.out));
        // What the other machine exports again is what was sent, field for field.
        const QString back = m_b.filePath(QStringLiteral("back.json"));
        QCOMPARE(run(m_b, args(QStringLiteral("export"), {back})).code, 0);
        const QJsonArray received = bundlePresets(back);
        QCOMPARE(received.size(), 3);
        for (const QJsonValue &v : sent)
            QCOMPARE(byId(received, v.toObject().value(QStringLiteral("id")).toString()), v.toObject());
        // And it plans with them.
        r = run(m_b, {QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("private-qwen"), QStringLiteral("--gpu"),
                      QStringLiteral("lab-card"), QStringLiteral("--context"), QStringLiteral("1000"), QStringLiteral("--json")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("gpu_memory_bytes")).toInteger(), qint64(24'000'000'000));

        // Importing again changes nothing.
        r = run(m_b, args(QStringLiteral("import"), {bundle}));
        QVERIFY2(r.code == 0 && r.out.contains(QStringLiteral("3 unchanged")), qPrintable(r.out + r.err));
    }

    void importRefusesOverwritingUnlessReplace()
    {
        // A new price on machine A, exported; machine B still has the old one.
        QCOMPARE(run(m_a, args(QStringLiteral("edit"), {QStringLiteral("acme-h100"), QStringLiteral("--price"), QStringLiteral("1.50")})).code, 0);
        const QString bundle = m_a.filePath(QStringLiteral("team2.json"));
        QCOMPARE(run(m_a, args(QStringLiteral("export"), {bundle, QStringLiteral("acme-h100")})).code, 0);
        Run r = run(m_b, args(QStringLiteral("import"), {bundle}));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("presets[0].id \"acme-h100\"")) && r.err.contains(QStringLiteral("--replace")), qPrintable(r.err));
        const QString check = m_b.filePath(QStringLiteral("check.json"));
        QCOMPARE(run(m_b, args(QStringLiteral("export"), {check, QStringLiteral("acme-h100")})).code, 0);
        QCOMPARE(byId(bundlePresets(check), QStringLiteral("acme-h100")).value(QStringLiteral("price_usd_per_hour")).toDouble(), 1.65);
        // An id named twice is exported once, so the bundle imports (a repeated id is refused there).
        const QString twice = m_a.filePath(QStringLiteral("twice.json"));
        r = run(m_a, args(QStringLiteral("export"), {twice, QStringLiteral("acme-h100"), QStringLiteral("acme-h100")}));
        QVERIFY2(r.code == 0 && r.out.contains(QStringLiteral("exported 1 preset ")), qPrintable(r.out + r.err));
        QCOMPARE(bundlePresets(twice).size(), 1);

        r = run(m_b, args(QStringLiteral("import"), {bundle, QStringLiteral("--replace")}));
        QVERIFY2(r.code == 0 && r.out.contains(QStringLiteral("1 replaced")), qPrintable(r.out + r.err));
        QCOMPARE(run(m_b, args(QStringLiteral("export"), {check, QStringLiteral("acme-h100")})).code, 0);
        QCOMPARE(byId(bundlePresets(check), QStringLiteral("acme-h100")).value(QStringLiteral("price_usd_per_hour")).toDouble(), 1.50);
        // The replaced version is in the backup bundle the output names.
        const QString backup = r.out.section(QStringLiteral("the replaced presets as they were: "), 1).trimmed();
        QVERIFY2(QFile::exists(backup), qPrintable(r.out));
        QCOMPARE(byId(bundlePresets(backup), QStringLiteral("acme-h100")).value(QStringLiteral("price_usd_per_hour")).toDouble(), 1.65);
    }

    void exportNeverClobbersOtherFiles()
    {
        // The store itself, a config.json and a FIFO are refused and left as they were.
        const QString config = m_a.filePath(QStringLiteral("config.json"));
        QVERIFY(QFile::copy(QStringLiteral(HEADROOM_TEST_DATA "/qwen3-0.6b/config.json"), config));
        const QString fifo = m_a.filePath(QStringLiteral("pipe"));
        QCOMPARE(QProcess::execute(QStringLiteral("mkfifo"), {fifo}), 0);
        for (const QString &target : {storeFile(m_a), config, fifo}) {
            QFile f(target);
            const QByteArray before = QFileInfo(target).isFile() && f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
            f.close();
            const Run r = run(m_a, args(QStringLiteral("export"), {target}));
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.startsWith(QStringLiteral("error: presets export: ")) && r.err.contains(target), qPrintable(r.err));
            if (QFileInfo(target).isFile()) {
                QVERIFY(f.open(QIODevice::ReadOnly));
                QCOMPARE(f.readAll(), before);
            }
        }
        QCOMPARE(run(m_a, {QStringLiteral("presets"), QStringLiteral("list")}).code, 0);
    }

    void exportToStandardOutput()
    {
        // "presets export -" prints the bundle (and only the bundle: its count goes to stderr),
        // never a file named "-"; what it prints imports on the other machine with the preset's
        // own fields.
        QTemporaryDir work;
        Run r = run(m_a, args(QStringLiteral("add"), {QStringLiteral("gpu"), QStringLiteral("piped-card"), QStringLiteral("--memory"), QStringLiteral("24GB")}));
        QVERIFY2(r.code == 0 || r.err.contains(QStringLiteral("already")), qPrintable(r.err));
        const HeadroomTest::CliRun e = HeadroomTest::runHeadroom(args(QStringLiteral("export"), {QStringLiteral("-"), QStringLiteral("piped-card")}),
                                                                 m_a.path(), work.path(), 60000);
        QVERIFY2(e.code == 0, e.err.constData());
        QVERIFY(!QFileInfo::exists(work.filePath(QStringLiteral("-"))));
        QVERIFY2(e.errText().contains(QStringLiteral("exported 1 preset to standard output")), e.err.constData());
        const QJsonObject bundle = e.json();
        QCOMPARE(bundle.value(QStringLiteral("format")).toString(), QStringLiteral("headroom-presets"));
        const QJsonObject card = byId(bundle.value(QStringLiteral("presets")).toArray(), QStringLiteral("piped-card"));
        QCOMPARE(card.value(QStringLiteral("memory_bytes")).toInteger(), qint64(24'000'000'000)); // 24 GB = 24 x 10^9 B
        const QString path = work.filePath(QStringLiteral("piped.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(e.out) == e.out.size());
        f.close();
        QTemporaryDir other;
        r = run(other, args(QStringLiteral("import"), {path}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = run(other, {QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"),
                        QStringLiteral("piped-card"), QStringLiteral("--context"), QStringLiteral("1000"), QStringLiteral("--json")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    void unknownBundleKeysAreWarned()
    {
        // A typo in a preset and a key at the top are named with the file, and the preset still
        // imports with its readable fields; a model preset's config is a config.json, whose
        // many unused keys are never named.
        const QString path = m_a.filePath(QStringLiteral("typo.json"));
        QFile cfg(QStringLiteral(HEADROOM_TEST_DATA "/qwen3-0.6b/config.json"));
        QVERIFY(cfg.open(QIODevice::ReadOnly));
        QJsonObject config = QJsonDocument::fromJson(cfg.readAll()).object();
        config.insert(QStringLiteral("transformers_vesion"), QStringLiteral("4.51.0"));
        const QJsonObject card{{QStringLiteral("id"), QStringLiteral("typo-card")}, {QStringLiteral("kind"), QStringLiteral("gpu")},
                               {QStringLiteral("name"), QStringLiteral("Typo card")}, {QStringLiteral("memory_bytes"), 24e9},
                               {QStringLiteral("price_usd_per_huor"), 1.5}};
        const QJsonObject model{{QStringLiteral("id"), QStringLiteral("typo-model")}, {QStringLiteral("kind"), QStringLiteral("model")},
                                {QStringLiteral("name"), QStringLiteral("Typo model")}, {QStringLiteral("config"), config}};
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QJsonDocument(QJsonObject{{QStringLiteral("format"), QStringLiteral("headroom-presets")},
                                          {QStringLiteral("version"), 1},
                                          {QStringLiteral("comment"), QStringLiteral("from the team")},
                                          {QStringLiteral("presets"), QJsonArray{card, model}}})
                    .toJson());
        f.close();
        QTemporaryDir fresh;
        const Run r = run(fresh, args(QStringLiteral("import"), {path}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(r.err, QStringLiteral("warning: unknown key \"comment\" in %1: ignored\n"
                                       "warning: unknown key \"presets[0].price_usd_per_huor\" in %1: ignored\n").arg(path));
        QVERIFY(r.out.contains(QStringLiteral("2 added")));
    }

    void importRefusesBuiltInsAndBadFields()
    {
        const QString path = m_a.filePath(QStringLiteral("bad.json"));
        auto write = [&](const QJsonArray &presets) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(QJsonDocument(QJsonObject{{QStringLiteral("format"), QStringLiteral("headroom-presets")},
                                              {QStringLiteral("version"), 1},
                                              {QStringLiteral("presets"), presets}})
                        .toJson());
        };
        const QJsonObject l4{{QStringLiteral("id"), QStringLiteral("l4")}, {QStringLiteral("kind"), QStringLiteral("gpu")},
                             {QStringLiteral("name"), QStringLiteral("Cheap L4")}, {QStringLiteral("memory_bytes"), 24e9}};
        write({l4});
        Run r = run(m_b, args(QStringLiteral("import"), {path}));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("presets[0].id \"l4\"")) && r.err.contains(QStringLiteral("built-in")), qPrintable(r.err));
        QJsonObject bad = l4;
        bad.insert(QStringLiteral("id"), QStringLiteral("cheap-l4"));
        bad.insert(QStringLiteral("bandwidth_bytes_per_s"), -300);
        write({l4, bad});
        r = run(m_b, args(QStringLiteral("import"), {path}));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("error: presets[1].bandwidth_bytes_per_s:")), qPrintable(r.err));
    }

    void aCopyWithLessMemoryIsStillAPreset()
    {
        // h100-sxm-80gb carries torch_memory_bytes (torch's total, measured with 80 GB); a copy
        // given 24 GB drops that figure instead of holding a torch total above the card,
        // which the store (and every bundle import) refuses.
        QTemporaryDir home;
        Run r = run(home, args(QStringLiteral("add"), {QStringLiteral("gpu"), QStringLiteral("small-h100"), QStringLiteral("--from"),
                                                      QStringLiteral("h100-sxm-80gb"), QStringLiteral("--memory"), QStringLiteral("24GB")}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString bundle = home.filePath(QStringLiteral("small.json"));
        r = run(home, args(QStringLiteral("export"), {bundle}));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject small = byId(bundlePresets(bundle), QStringLiteral("small-h100"));
        QCOMPARE(small.value(QStringLiteral("memory_bytes")).toInteger(), qint64(24'000'000'000));
        QVERIFY(!small.contains(QStringLiteral("torch_memory_bytes")));
        QTemporaryDir other;
        r = run(other, args(QStringLiteral("import"), {bundle}));
        QVERIFY2(r.code == 0 && r.out.contains(QStringLiteral("1 added")), qPrintable(r.out + r.err));
    }

    // A stored row whose figures no longer read is named as the preset it is, with the commands
    // that mend it (an attacker's -5 B card said only "memory_bytes: must be a positive ...").
    void aDamagedRowIsNamedAsItsPreset()
    {
        QTemporaryDir home;
        QCOMPARE(run(home, args(QStringLiteral("add"), {QStringLiteral("gpu"), QStringLiteral("lab-card"), QStringLiteral("--memory"), QStringLiteral("24GB")})).code, 0);
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("edit"));
            db.setDatabaseName(storeFile(home));
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("UPDATE presets SET json = json_set(json, '$.memory_bytes', -5) WHERE id = 'lab-card'")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("edit"));
        const Run r = run(home, {QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"),
                                 QStringLiteral("lab-card"), QStringLiteral("--context"), QStringLiteral("1000")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("--gpu: the gpu preset \"lab-card\" is damaged (memory_bytes"))
                     && r.err.contains(QStringLiteral("`headroom presets edit lab-card`")),
                 qPrintable(r.err));
    }

    void damagedIndexIsReportedAndRepaired()
    {
        QTemporaryDir home;
        QCOMPARE(run(home, args(QStringLiteral("add"), {QStringLiteral("gpu"), QStringLiteral("lab-card"), QStringLiteral("--memory"), QStringLiteral("24GB")})).code, 0);
        const QString file = storeFile(home);
        QVERIFY(!file.isEmpty());
        qint64 root = 0;
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
            db.setDatabaseName(file);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_presets_1'")) && q.next());
            root = q.value(0).toLongLong();
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("raw"));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::ReadWrite));
            QByteArray bytes = f.readAll();
            const qint64 size = (quint8(bytes.at(16)) << 8) | quint8(bytes.at(17)); // page size, SQLite file header offset 16
            bytes.replace((root - 1) * size, size, QByteArray(size, '\xff'));
            f.seek(0);
            f.write(bytes);
        }
        const Run r = run(home, {QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"),
                                 QStringLiteral("lab-card"), QStringLiteral("--context"), QStringLiteral("1000"), QStringLiteral("--json")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("warning: The preset database ") + file + QStringLiteral(" was damaged"))
                     && r.err.contains(QStringLiteral("1 of your presets was recovered (lab-card)")),
                 qPrintable(r.err));
        const QString aside = r.err.section(QStringLiteral("It was kept as "), 1).section(QStringLiteral("; "), 0, 0);
        QVERIFY2(aside.startsWith(file + QStringLiteral(".damaged-")) && QFile::exists(aside), qPrintable(r.err));
        // The next run finds nothing wrong.
        const Run again = run(home, {QStringLiteral("presets"), QStringLiteral("list")});
        QCOMPARE(again.code, 0);
        QVERIFY2(again.err.isEmpty(), qPrintable(again.err));
        QVERIFY(again.out.contains(QStringLiteral("lab-card")));
    }
};

QTEST_GUILESS_MAIN(TestPresetsCli)
#include "tst_presets_cli.moc"
