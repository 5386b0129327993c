// SPDX-License-Identifier: GPL-3.0-or-later
// The .headroom file: written atomically, read back identically, older
// formats migrate, newer or damaged ones are refused and nothing is written.
#include "plan/capacity.h"
#include "io/configimporter.h"
#include "core/inputerror.h"
#include "io/scenariofile.h"
#include "core/units.h"
#include "core/jsonnumbers.h"
#include "core/inputranges.h"
#include "core/filekind.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QRegularExpression>
#include <QTest>
#include "common/headroomtest.h"
#include <functional>
#include <limits>
#include <tuple>

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
// The rich scenario as its file holds it (read once: the trace takes a moment).
const QJsonObject &richJson()
{
    static const QJsonObject o = ScenarioFile::toJson(rich(), QStringLiteral("x"));
    return o;
}

// The rich scenario's file with one value of one section replaced ("" = the top level).
QByteArray patched(const char *section, const char *key, const QJsonValue &value)
{
    QJsonObject o = richJson();
    if (!*section) {
        o.insert(QString::fromLatin1(key), value);
    } else {
        QJsonObject part = o.value(QString::fromLatin1(section)).toObject();
        part.insert(QString::fromLatin1(key), value);
        o.insert(QString::fromLatin1(section), part);
    }
    return QJsonDocument(o).toJson();
}

// The rich scenario's file with the first layer group's fields replaced.
QByteArray patchedGroup(const QJsonObject &fields, qsizetype index = 0)
{
    QJsonObject o = richJson();
    QJsonObject model = o.value(QStringLiteral("model")).toObject();
    QJsonArray groups = model.value(QStringLiteral("groups")).toArray();
    QJsonObject g = groups.at(index).toObject();
    for (auto it = fields.begin(); it != fields.end(); ++it)
        g.insert(it.key(), it.value());
    groups.replace(index, g);
    model.insert(QStringLiteral("groups"), groups);
    o.insert(QStringLiteral("model"), model);
    return QJsonDocument(o).toJson();
}

// A plan --json output (format version 0) whose inputs name `model` and `gpu`.
QJsonObject planOutput(const QString &model, const QString &gpu)
{
    return QJsonObject{{QStringLiteral("kv_bytes_per_token"), 131072},
                       {QStringLiteral("inputs"), QJsonObject{{QStringLiteral("model"), model}, {QStringLiteral("gpu"), gpu},
                                                              {QStringLiteral("gpu_memory_bytes"), 80e9}, {QStringLiteral("context_tokens"), 100000}}}};
}

// A scenario for the round-trip table: founding example A (seed-figures.md: 8B GQA bf16,
// 80 GB card) with one edit. Each edit puts fields at the edge of what the command line
// and the window accept, so every accepted value must save and reopen unchanged.
using Edit = std::function<void(Scenario &)>;
Scenario edited(const Edit &edit)
{
    Scenario s;
    s.model = ConfigImporter::fromFile(QStringLiteral(HEADROOM_TEST_DATA "/llama-3.1-8b/config.json"), QStringLiteral("m"));
    s.model.totalParams = s.model.activeParams = 8'000'000'000;
    s.gpu = GpuSpec::custom(80'000'000'000);
    s.workspaceBytes = 4'000'000'000;
    s.contextTokens = 100'000;
    edit(s);
    return s;
}

// A preset lookup as the front ends have them (mainwindow.cpp, app/commands/presetlookup.cpp): unknown ids are refused.
ModelShape noModel(const QString &id)
{
    throw InputError(QStringLiteral("model"), QStringLiteral("unknown model preset \"%1\"").arg(id));
}
GpuSpec noGpu(const QString &id)
{
    throw InputError(QStringLiteral("gpu"), QStringLiteral("unknown gpu preset \"%1\"").arg(id));
}
} // namespace

Q_DECLARE_METATYPE(Edit)

class TestScenarioFile : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void everyShippedFileIsOfItsKind()
    {
        // FileKind (issue 31: a reader given another reader's file names what it is): every file the
        // repository ships as an example of a kind is told as that kind, by its content alone.
        using K = FileKind::Kind;
        auto kindOf = [](const QString &path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? FileKind::detect(f.readAll()) : K::Unknown;
        };
        int files = 0;
        const QDir data(QStringLiteral(HEADROOM_TEST_DATA));
        for (const QFileInfo &log : QDir(data.filePath(QStringLiteral("logs"))).entryInfoList({QStringLiteral("*.log")}, QDir::Files)) {
            QVERIFY2(kindOf(log.filePath()) == K::EngineLog, qPrintable(log.fileName()));
            ++files;
        }
        for (const QFileInfo &bench : QDir(data.filePath(QStringLiteral("benchmarks"))).entryInfoList({QStringLiteral("*.txt")}, QDir::Files)) {
            QVERIFY2(kindOf(bench.filePath()) == K::Benchmark, qPrintable(bench.fileName()));
            ++files;
        }
        for (const QFileInfo &config : data.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot))
            if (QFileInfo::exists(config.filePath() + QStringLiteral("/config.json"))) {
                QVERIFY2(kindOf(config.filePath() + QStringLiteral("/config.json")) == K::Config, qPrintable(config.fileName()));
                ++files;
            }
        const QDir samples(QStringLiteral(HEADROOM_SAMPLES));
        QCOMPARE(kindOf(samples.filePath(QStringLiteral("mooncake-fast25-conversation.jsonl"))), K::TraceJsonLines);
        QCOMPARE(kindOf(samples.filePath(QStringLiteral("azure-llm-inference-2023-conv.csv"))), K::TraceCsv);
        QCOMPARE(kindOf(data.filePath(QStringLiteral("traces/four-lengths.csv"))), K::TraceLengths);
        QVERIFY2(files > 60, qPrintable(QString::number(files)));
        // A scenario as written, a bundle, a PDF's magic.
        Scenario s;
        s.model = ConfigImporter::fromFile(data.filePath(QStringLiteral("llama-3.1-8b/config.json")), QStringLiteral("config"));
        s.model.totalParams = 8'030'000'000;
        s.gpu = GpuSpec::custom(80'000'000'000);
        s.contextTokens = 1000;
        QCOMPARE(FileKind::detect(QJsonDocument(ScenarioFile::toJson(s, QStringLiteral("x"))).toJson()), K::Scenario);
        QCOMPARE(FileKind::detect(R"({"format": "headroom-presets", "presets": []})"), K::PresetBundle);
        QCOMPARE(FileKind::detect("%PDF-1.4\n"), K::Pdf);
        // What no kind claims stays Unknown, so the reader's own message says what is wrong.
        QCOMPARE(FileKind::detect("{ not json"), K::Unknown);
        QCOMPARE(FileKind::detect("a year of notes\n"), K::Unknown);
    }

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

    // Save -> open -> save gives the same bytes, the same scenario and the same plan, for
    // every engine, distribution kind, config.json model, what-if and range edge.
    void roundTripTable_data()
    {
        QTest::addColumn<Edit>("edit");
        constexpr qint64 max64 = std::numeric_limits<qint64>::max();
        constexpr qint64 above53 = (qint64(1) << 53) + 1; // the first whole number a double cannot hold
        // A card from a preset, with torch's figure: vLLM budgets from it (gpuspec.h).
        const Edit h100 = [](Scenario &s) {
            s.gpu = GpuSpec::fromPreset(QJsonObject{{QStringLiteral("id"), QStringLiteral("h100")},
                                                    {QStringLiteral("name"), QStringLiteral("H100")},
                                                    {QStringLiteral("vendor"), QStringLiteral("NVIDIA")},
                                                    {QStringLiteral("memory_bytes"), 85'520'809'984.0},
                                                    {QStringLiteral("torch_memory_bytes"), 85'031'714'816.0},
                                                    {QStringLiteral("torch_memory_source"), QStringLiteral("a vLLM log")},
                                                    {QStringLiteral("bandwidth_bytes_per_s"), 3.35e12},
                                                    {QStringLiteral("bf16_dense_tflops"), 989.0},
                                                    {QStringLiteral("price_usd_per_hour"), 2.5}});
        };
        QTest::newRow("card figures above 2^53 (memory, bandwidth, host link as strings)") << Edit([=](Scenario &s) {
            s.gpu.memoryBytes = max64;
            s.gpu.bandwidthBytesPerSecond = above53;
            s.gpu.hostLinkBytesPerSecond = max64 - 1;
            s.gpu.torchMemoryBytes = above53;
        });
        QTest::newRow("vllm on a card with torch_memory_bytes") << Edit([=](Scenario &s) {
            h100(s);
            s.engine = Engine::Vllm;
            s.workspaceBytes.reset();
        });
        for (const Engine e : {Engine::Plain, Engine::Vllm, Engine::Sglang, Engine::Trtllm, Engine::LlamaCpp, Engine::Ollama})
            QTest::newRow(qPrintable(QStringLiteral("engine %1").arg(Engines::name(e)))) << Edit([=](Scenario &s) {
                h100(s);
                s.engine = e;
                s.contextTokens = 8192;
                s.engineSettings.nCtx = 8192;
                s.maxModelLen = 8192;
            });
        QTest::newRow("whole numbers at 2^53 + 1 and 2^63 - 1") << Edit([=](Scenario &s) {
            s.weightsBytes = above53;
            s.contextTokens = above53;
            s.sessions = max64;
            s.targetSessions = max64;
            s.maxModelLen = max64;
            s.retainTokens = max64;
            s.engineSettings.kvCacheMemory = above53;
            s.engineSettings.maxNumBatchedTokens = max64;
        });
        QTest::newRow("reals at their lowest") << Edit([](Scenario &s) {
            s.gpuMemoryUtilization = InputRanges::of(RealInput::GpuMemoryUtilization).low;
            s.engineSettings.memFractionStatic = InputRanges::of(RealInput::MemFractionStatic).low;
            s.engineSettings.freeGpuMemoryFraction = InputRanges::of(RealInput::FreeGpuMemoryFraction).low;
            s.lengthScale = InputRanges::of(RealInput::LengthScale).low;
            s.trafficMultiplier = InputRanges::of(RealInput::TrafficMultiplier).low;
            s.priceUsdPerGpuHour = InputRanges::of(RealInput::Price).low;
            s.bandwidthEfficiency = InputRanges::of(RealInput::BandwidthEfficiency).low;
            s.computeUtilization = InputRanges::of(RealInput::ComputeUtilization).low;
            s.risk = InputRanges::of(RealInput::Risk).low;
            s.marginFraction = InputRanges::of(RealInput::Margin).low;
        });
        QTest::newRow("reals at their highest, a trace") << Edit([](Scenario &s) {
            s.distribution = LengthDistribution::fromTrace(QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-conv.csv"), QStringLiteral("t"));
            s.gpuMemoryUtilization = InputRanges::of(RealInput::GpuMemoryUtilization).high;
            s.engineSettings.memFractionStatic = InputRanges::of(RealInput::MemFractionStatic).high;
            s.engineSettings.freeGpuMemoryFraction = InputRanges::of(RealInput::FreeGpuMemoryFraction).high;
            s.trafficMultiplier = InputRanges::of(RealInput::TrafficMultiplier).high;
            s.priceUsdPerGpuHour = InputRanges::of(RealInput::Price).high;
            s.bandwidthEfficiency = InputRanges::of(RealInput::BandwidthEfficiency).high;
            s.computeUtilization = InputRanges::of(RealInput::ComputeUtilization).high;
            s.risk = InputRanges::of(RealInput::Risk).high;
            s.marginFraction = InputRanges::of(RealInput::Margin).high;
            s.distribution->arrivalRatePerSecond = InputRanges::of(RealInput::ArrivalRate).high;
            // The most a mean output can be: the longest session (the output is part of its length).
            s.distribution->meanOutputTokens = double(s.distribution->maximum());
        });
        QTest::newRow("lognormal, scaled x 10^6") << Edit([](Scenario &s) {
            s.distribution = LengthDistribution::parse(QStringLiteral("lognormal:median=1000,p99=8000"), QStringLiteral("d"));
            s.lengthScale = InputRanges::of(RealInput::LengthScale).high;
        });
        QTest::newRow("quantiles with a retention cap") << Edit([](Scenario &s) {
            s.distribution = LengthDistribution::parse(QStringLiteral("quantiles:p50=2000,p90=9000,p99=30000,max=120000"), QStringLiteral("d"));
            s.retainTokens = 16384;
        });
        QTest::newRow("what-ifs: kv heads, precisions, memory, parallelism") << Edit([](Scenario &s) {
            s.kvHeadsOverride = 1;
            s.weightsDtype = Dtype::INT4;
            s.kvDtype = Dtype::FP8;
            s.gpuMemoryBytes = 1;
            s.tp = 8;
            s.pp = 4;
            s.dp = 1'000'000;
            s.ep = 1; // a dense model: expert parallelism above 1 is refused (tst_absurd)
            s.preallocate = true;
            s.blockSize = 1;
        });
        for (const char *config : {"deepseek-v3", "jamba-v0.1", "qwen3-next-80b-a3b-instruct", "gemma-3-27b-it", "gpt-oss-20b"})
            QTest::newRow(qPrintable(QStringLiteral("model from %1/config.json").arg(QLatin1String(config)))) << Edit([=](Scenario &s) {
                s.model = ConfigImporter::fromFile(QStringLiteral(HEADROOM_TEST_DATA "/%1/config.json").arg(QLatin1String(config)), QStringLiteral("m"));
            });
    }

    void roundTripTable()
    {
        QFETCH(Edit, edit);
        const Scenario s = edited(edit);
        const QString first = m_dir.filePath(QStringLiteral("first.headroom")), second = m_dir.filePath(QStringLiteral("second.headroom"));
        QFile::remove(first);
        QFile::remove(second);
        ScenarioFile::write(first, s, QStringLiteral("Table"));
        const Scenario back = ScenarioFile::read(first, nullptr);
        QCOMPARE(back, s);
        ScenarioFile::write(second, back, QStringLiteral("Table"));
        QFile a(first), b(second);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(b.readAll(), a.readAll());
        // The same plan, down to its derivation (a scenario that reopens as another budget is a defect).
        const CapacityResult before = computeCapacity(s), after = computeCapacity(back);
        if (!before.ok) {
            // The same refusal; reopened, it names the input as the file spells it ("inputs.context_tokens").
            QVERIFY(!after.ok);
            QCOMPARE(after.error.mid(after.errorField.size()), before.error.mid(before.errorField.size()));
            QVERIFY2(!after.errorField.startsWith(QLatin1String("--")), qPrintable(after.error));
            return;
        }
        // Reopened, a note names an input as the file spells it ("inputs.risk" for "--risk"), as errors do.
        QStringList asFiled = before.warnings;
        for (QString &w : asFiled)
            for (int i = 0; i < inputCount; ++i) {
                const InputSpelling &sp = InputRanges::spelling(Input(i));
                if (sp.flag && sp.fileKey)
                    w.replace(QRegularExpression(QRegularExpression::escape(QString::fromLatin1(sp.flag)) + QStringLiteral("(?![-a-z])")),
                              QString::fromLatin1(sp.fileKey));
            }
        QCOMPARE(after.warnings, asFiled);
        QJsonObject reopened = after.toJson(), planned = before.toJson();
        reopened.remove(QStringLiteral("warnings"));
        planned.remove(QStringLiteral("warnings"));
        QCOMPARE(reopened, planned);
        QCOMPARE(explainCapacity(back, after, UnitSystem::Decimal), explainCapacity(s, before, UnitSystem::Decimal));
    }

    void planOutputTracePathIsTheFilesOwn()
    {
        // `headroom plan --distribution trace:four-lengths.csv --json > plan.json` run in the
        // trace's folder: the relative path is the plan's, beside plan.json, whatever the
        // folder the file is opened from later.
        QTemporaryDir folder;
        QVERIFY(QFile::copy(QStringLiteral(HEADROOM_TEST_DATA "/traces/four-lengths.csv"), folder.filePath(QStringLiteral("four-lengths.csv"))));
        QJsonObject plan = planOutput(QStringLiteral("m"), QStringLiteral("custom"));
        QJsonObject in = plan.value(QStringLiteral("inputs")).toObject();
        in.insert(QStringLiteral("distribution"), QStringLiteral("trace:four-lengths.csv"));
        plan.insert(QStringLiteral("inputs"), in);
        QFile f(folder.filePath(QStringLiteral("plan.json")));
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(plan).toJson()) > 0);
        f.close();
        QVERIFY(QDir::current().absolutePath() != folder.path());
        auto models = [](const QString &) { return edited([](Scenario &) {}).model; };
        const Scenario s = ScenarioFile::read(f.fileName(), nullptr, models, noGpu);
        QVERIFY(s.distribution);
        QCOMPARE(s.distribution->requests, LengthDistribution::fromTrace(folder.filePath(QStringLiteral("four-lengths.csv")), QStringLiteral("t")).requests);
    }

    void planOutputWholeNumbersStayExact()
    {
        // plan --json prints 2^53 + 1 as the integer it is; reading it back must not round it to 2^53.
        QJsonObject plan = planOutput(QStringLiteral("m"), QStringLiteral("custom"));
        QJsonObject in = plan.value(QStringLiteral("inputs")).toObject();
        in.insert(QStringLiteral("context_tokens"), QJsonValue(qint64((qint64(1) << 53) + 1)));
        plan.insert(QStringLiteral("inputs"), in);
        const QJsonObject reparsed = QJsonDocument::fromJson(QJsonDocument(plan).toJson()).object();
        auto models = [](const QString &) { return edited([](Scenario &) {}).model; };
        const Scenario s = ScenarioFile::fromJson(reparsed, nullptr, models, noGpu);
        QCOMPARE(s.contextTokens, (qint64(1) << 53) + 1);
    }

    void torchMemoryAboveTheCardIsRefused()
    {
        // torch sees the card less the driver's share (gpuspec.h), never more than the card.
        QByteArray bytes = patched("gpu", "torch_memory_bytes", QJsonValue(1e12));
        const QString path = m_dir.filePath(QStringLiteral("torch.headroom"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(bytes) > 0);
        f.close();
        try {
            ScenarioFile::read(path, nullptr);
            QFAIL("a torch total above the card was read");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("gpu.torch_memory_bytes"));
        }
    }

    void nonFiniteFiguresAreNeverWrittenAsNull()
    {
        // JSON has no infinity; QJsonDocument would write null. The one writer refuses, naming the path.
        try {
            JsonNumbers::toJson(QJsonObject{{QStringLiteral("a"), QJsonObject{{QStringLiteral("b"), QJsonArray{1.0, std::numeric_limits<double>::infinity()}}}}});
            QFAIL("an infinity was written");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("a.b[1]"));
        }
        QCOMPARE(JsonNumbers::toJson(QJsonObject{{QStringLiteral("a"), 1.5}}, QJsonDocument::Compact), QByteArray("{\"a\":1.5}"));
    }

    void wholeFiguresHeldInDoublesAreWrittenAsIntegers_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QByteArray>("written");
        // 2^60 = 1,152,921,504,606,846,976 is exact in a double; QJsonDocument's shortest form
        // of it, 1152921504606847000, is another number. 1.5e16 is 15 followed by 15 zeros.
        QTest::newRow("2^60") << 1152921504606846976.0 << QByteArray("1152921504606846976");
        QTest::newRow("1.5e16") << 1.5e16 << QByteArray("15000000000000000");
        QTest::newRow("2^53 + 2") << 9007199254740994.0 << QByteArray("9007199254740994");
        QTest::newRow("2.5 rounds half away from 0") << 2.5 << QByteArray("3");
        QTest::newRow("-0") << -0.0 << QByteArray("0");
        // Past qint64 it stays a double, in QJsonDocument's shortest digits (no byte count gets there).
        QTest::newRow("2^63: beyond 64 bits, a double") << 9223372036854775808.0 << QByteArray("9223372036854776000");
    }
    void wholeFiguresHeldInDoublesAreWrittenAsIntegers()
    {
        // plan --json: bytes are integers (README), exact whatever their size.
        QFETCH(double, value);
        QFETCH(QByteArray, written);
        QCOMPARE(JsonNumbers::toJson(QJsonObject{{QStringLiteral("a"), JsonNumbers::wholeValue(value)}}, QJsonDocument::Compact),
                 QByteArray("{\"a\":") + written + "}");
    }

    void sparseMlaRoundTrip()
    {
        // A DeepSeek-V3.2-like group (61 MLA layers, 512 + 64, index_head_dim 128) keeps its indexer.
        Scenario s = rich();
        LayerGroup g;
        g.kind = LayerKind::Mla;
        g.count = 61;
        g.latentDim = 512;
        g.ropeDim = 64;
        g.indexerHeadDim = 128;
        s.model.groups = {g};
        s.kvHeadsOverride.reset();
        const QString path = m_dir.filePath(QStringLiteral("sparse.headroom"));
        ScenarioFile::write(path, s, QStringLiteral("Sparse"));
        const Scenario back = ScenarioFile::read(path, nullptr);
        QCOMPARE(back.model.groups.first().indexerHeadDim, 128);
        QCOMPARE(back, s);
    }

    void sidePoolsRoundTrip()
    {
        // A draft model (its whole shape, so the file opens without the preset), K = 4 and
        // LoRA slots on q and v keep their figures; the plan from the file is the same plan.
        Scenario s = rich();
        s.kvHeadsOverride.reset();
        s.speculative.draftModel = s.model;
        s.speculative.draftModel->id = QStringLiteral("draft");
        s.speculative.speculativeTokens = 4;
        s.lora.maxLoras = 3;
        s.lora.maxRank = 8;
        s.lora.modules = {QStringLiteral("q"), QStringLiteral("v")};
        const QString path = m_dir.filePath(QStringLiteral("pools.headroom"));
        ScenarioFile::write(path, s, QStringLiteral("Pools"));
        const Scenario back = ScenarioFile::read(path, nullptr);
        QCOMPARE(back.speculative, s.speculative);
        QCOMPARE(back.lora, s.lora);
        QCOMPARE(back, s);
        QCOMPARE(computeCapacity(back).toJson(), computeCapacity(s).toJson());
        // Off is the default: a file without the objects opens with every pool off.
        QVERIFY(!ScenarioFile::fromJson(richJson(), nullptr).speculative.on());
        QVERIFY(!ScenarioFile::fromJson(richJson(), nullptr).lora.on());
    }

    // A key the reader does not take is kept out of the scenario but named, with its path and
    // the file: a typo ("contxt_length") or a newer Headroom's field. A file as written has none,
    // with every part present (a draft model, LoRA slots, a distribution, layer groups).
    void unknownKeysAreNamed()
    {
        Scenario s = rich();
        s.kvHeadsOverride.reset();
        s.speculative.draftModel = s.model;
        s.speculative.speculativeTokens = 2;
        s.lora.maxLoras = 1;
        const QJsonObject written = ScenarioFile::toJson(s, QStringLiteral("x"));
        QStringList unknown;
        const Scenario clean = ScenarioFile::fromJson(written, nullptr, {}, {}, {}, &unknown);
        QCOMPARE(unknown, QStringList());

        QJsonObject o = written;
        o.insert(QStringLiteral("comment"), QStringLiteral("for the team"));
        QJsonObject in = o.value(QStringLiteral("inputs")).toObject();
        in.insert(QStringLiteral("contxt_length"), 100000);
        o.insert(QStringLiteral("inputs"), in);
        QJsonObject model = o.value(QStringLiteral("model")).toObject();
        QJsonArray groups = model.value(QStringLiteral("groups")).toArray();
        const qsizetype last = groups.size() - 1; // Gemma 3: sliding-window and global layers
        QJsonObject g = groups.at(last).toObject();
        g.insert(QStringLiteral("kv_head"), 4);
        groups.replace(last, g);
        model.insert(QStringLiteral("groups"), groups);
        o.insert(QStringLiteral("model"), model);
        QJsonObject sp = o.value(QStringLiteral("speculative")).toObject();
        QJsonObject draft = sp.value(QStringLiteral("draft_model")).toObject();
        draft.insert(QStringLiteral("num_hiden_layers"), 2);
        sp.insert(QStringLiteral("draft_model"), draft);
        o.insert(QStringLiteral("speculative"), sp);
        unknown.clear();
        const Scenario read = ScenarioFile::fromJson(o, nullptr, {}, {}, {}, &unknown);
        unknown.sort();
        QCOMPARE(unknown, (QStringList{QStringLiteral("comment"), QStringLiteral("inputs.contxt_length"), QStringLiteral("model.groups[%1].kv_head").arg(last),
                                       QStringLiteral("speculative.draft_model.num_hiden_layers")}));
        QCOMPARE(read, clean); // ignored: the scenario is the one without them

        // read() names the file in each warning.
        const QString path = m_dir.filePath(QStringLiteral("typo.headroom"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(o).toJson()) > 0);
        f.close();
        QStringList warnings;
        ScenarioFile::read(path, nullptr, {}, {}, &warnings);
        QCOMPARE(warnings.size(), 4);
        QVERIFY2(warnings.contains(QStringLiteral("unknown key \"inputs.contxt_length\" in %1: ignored").arg(path)), qPrintable(warnings.join(QLatin1Char('\n'))));

        // 5,000 stray keys (and one of 100,000 characters) cannot flood a terminal or the status
        // bar: 10 lines, each key cut to 80 characters, then one for the other 4,990 + 1.
        for (int i = 0; i < 5000; ++i)
            o.insert(QStringLiteral("stray%1").arg(i, 4, 10, QLatin1Char('0')), i);
        o.insert(QString(100000, QLatin1Char('k')), 1);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(QJsonDocument(o).toJson()) > 0);
        f.close();
        warnings.clear();
        ScenarioFile::read(path, nullptr, {}, {}, &warnings);
        QCOMPARE(warnings.size(), 11);
        QCOMPARE(warnings.last(), QStringLiteral("... and %1 more unknown keys in %2: ignored").arg(5000 + 1 + 4 - 10).arg(path));
        for (const QString &w : std::as_const(warnings))
            QVERIFY2(w.size() <= 80 + path.size() + 60, qPrintable(w.left(200)));
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
        QTest::newRow("attention group with 0 KV heads") << QJsonDocument(noHeads).toJson() << QStringLiteral("model.groups[0].kv_heads");
        QJsonObject wrapped = ScenarioFile::toJson(rich(), QStringLiteral("x"));
        QJsonObject in = wrapped.value(QStringLiteral("inputs")).toObject();
        in.insert(QStringLiteral("tp"), 4294967297.0);
        wrapped.insert(QStringLiteral("inputs"), in);
        QJsonObject beyond = ScenarioFile::toJson(rich(), QStringLiteral("x"));
        in = beyond.value(QStringLiteral("inputs")).toObject();
        in.insert(QStringLiteral("host_kv_memory_bytes"), 9223372036854775808.0); // 2^63
        beyond.insert(QStringLiteral("inputs"), in);
        QTest::newRow("host memory of 2^63 B, a size from 0") << QJsonDocument(beyond).toJson()
            << QStringLiteral("inputs.host_kv_memory_bytes: must be a whole number from 0 to 9,223,372,036,854,775,807, got a number beyond 64 bits (about 9.223e+18)");
        in.insert(QStringLiteral("host_kv_memory_bytes"), -1);
        beyond.insert(QStringLiteral("inputs"), in);
        QTest::newRow("negative host memory") << QJsonDocument(beyond).toJson()
            << QStringLiteral("inputs.host_kv_memory_bytes: must be a whole number from 0 to 9,223,372,036,854,775,807, got -1");
        QTest::newRow("TP that would wrap to 1") << QJsonDocument(wrapped).toJson() << QStringLiteral("inputs.tp");
        QJsonObject negative = ScenarioFile::toJson(rich(), QStringLiteral("x"));
        in = negative.value(QStringLiteral("inputs")).toObject();
        in.insert(QStringLiteral("price_usd_per_gpu_hour"), -3);
        negative.insert(QStringLiteral("inputs"), in);
        QTest::newRow("negative price") << QJsonDocument(negative).toJson() << QStringLiteral("inputs.price_usd_per_gpu_hour");
        // Texts the outputs print hold no control character nor a bidirectional override: a
        // distribution's label "fixed:1\0evil" printed a NUL byte (attacker's report), an escape
        // sequence in a model's name would have reached the terminal.
        Scenario traced = rich();
        traced.distribution = LengthDistribution::fixed(1000);
        QJsonObject labelled = ScenarioFile::toJson(traced, QStringLiteral("x"));
        QJsonObject dist = labelled.value(QStringLiteral("distribution")).toObject();
        dist.insert(QStringLiteral("spec"), QString(QStringLiteral("fixed:1") + QChar(0) + QStringLiteral("evil")));
        labelled.insert(QStringLiteral("distribution"), dist);
        QTest::newRow("NUL in the distribution's label") << QJsonDocument(labelled).toJson()
                                                         << QStringLiteral("distribution.spec: holds the control character U+0000 at character 8");
        QJsonObject escaped = ScenarioFile::toJson(rich(), QStringLiteral("x"));
        QJsonObject m3 = escaped.value(QStringLiteral("model")).toObject();
        m3.insert(QStringLiteral("name"), QString(QStringLiteral("Llama") + QChar(0x1b) + QStringLiteral("[2J")));
        escaped.insert(QStringLiteral("model"), m3);
        QTest::newRow("escape in the model's name") << QJsonDocument(escaped).toJson() << QStringLiteral("model.name: holds the control character U+001b");
        QJsonObject bidi = ScenarioFile::toJson(rich(), QStringLiteral("x"));
        QJsonObject m4 = bidi.value(QStringLiteral("model")).toObject();
        m4.insert(QStringLiteral("source"), QString(QStringLiteral("config") + QChar(0x202e) + QStringLiteral("nosj.fdp")));
        bidi.insert(QStringLiteral("model"), m4);
        QTest::newRow("bidirectional override in the model's source") << QJsonDocument(bidi).toJson()
                                                                      << QStringLiteral("model.source: holds the control character U+202e at character 7");
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

    // Every refusal of the reader (scenariofile.cpp), by the field it names and its message.
    void refusals_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        const QString int1 = QStringLiteral("must be a whole number from 1 to 10,000,000, got 0");
        const QString unit = QStringLiteral("must be a number from 1e-06 to 1");
        // Side pools (readSidePools), by their range rules (core/inputranges.h).
        QTest::newRow("speculative.num_speculative_tokens 65") << patched("speculative", "num_speculative_tokens", 65)
                                                              << QStringLiteral("speculative.num_speculative_tokens") << QStringLiteral("from 0 to 64");
        QTest::newRow("speculative.draft_layers -1") << patched("speculative", "draft_layers", -1)
                                                     << QStringLiteral("speculative.draft_layers") << QStringLiteral("from 0 to 256");
        QTest::newRow("lora.max_loras 1025") << patched("lora", "max_loras", 1025) << QStringLiteral("lora.max_loras") << QStringLiteral("from 0 to 1,024");
        QTest::newRow("lora.max_lora_rank 0") << patched("lora", "max_lora_rank", 0) << QStringLiteral("lora.max_lora_rank") << QStringLiteral("from 1 to 1,024");
        QTest::newRow("lora.modules \"lm_head\"") << patched("lora", "modules", QStringLiteral("lm_head")) << QStringLiteral("lora.modules")
                                                << QStringLiteral("unknown module");
        QTest::newRow("lora as a number") << patched("", "lora", 4) << QStringLiteral("lora") << QStringLiteral("must be an object");
        // Engine settings (readEngineSettings, shared with plan --json outputs).
        for (const char *key : {"kv_cache_memory", "free_memory_before", "free_memory_after", "activation_peak", "non_torch", "cuda_graph"})
            QTest::newRow(qPrintable(QStringLiteral("engine.%1 -1 (readEngineSettings bytes)").arg(QString::fromLatin1(key))))
                << patched("engine", key, -1) << QStringLiteral("engine.") + QString::fromLatin1(key) << QStringLiteral("must be a whole number from 0 to");
        QTest::newRow("engine.kv_cache_memory \"lots\" (readBig)") << patched("engine", "kv_cache_memory", QStringLiteral("lots"))
                                                              << QStringLiteral("engine.kv_cache_memory") << QStringLiteral("must be a whole number");
        QTest::newRow("engine.mem_fraction_static 0 (readBounded)") << patched("engine", "mem_fraction_static", 0)
                                                                    << QStringLiteral("engine.mem_fraction_static") << unit;
        QTest::newRow("engine.mem_fraction_static 1.5 (readBounded)") << patched("engine", "mem_fraction_static", 1.5)
                                                                      << QStringLiteral("engine.mem_fraction_static") << unit;
        QTest::newRow("engine.mem_fraction_static \"high\" (readOptionalDouble)") << patched("engine", "mem_fraction_static", QStringLiteral("high"))
                                                                                << QStringLiteral("engine.mem_fraction_static") << QStringLiteral("must be a number");
        QTest::newRow("engine.free_gpu_memory_fraction 0 (readBounded)") << patched("engine", "free_gpu_memory_fraction", 0)
                                                                         << QStringLiteral("engine.free_gpu_memory_fraction") << unit;
        QTest::newRow("engine.max_num_batched_tokens 0 (readEngineSettings positive)") << patched("engine", "max_num_batched_tokens", 0)
                                                                                       << QStringLiteral("engine.max_num_batched_tokens") << QStringLiteral("must be a whole number from 1 to");
        QTest::newRow("engine.n_ctx 0 (readEngineSettings positive)") << patched("engine", "n_ctx", 0) << QStringLiteral("engine.n_ctx")
                                                                      << QStringLiteral("must be a whole number from 1 to");
        // A fraction is refused with the range the key takes (1 and up), not the whole 64-bit range.
        QTest::newRow("engine.max_output_tokens 1.5 (readEngineSettings positive)") << patched("engine", "max_output_tokens", 1.5)
                                                                                    << QStringLiteral("engine.max_output_tokens") << QStringLiteral("must be a whole number from 1 to");
        // (0.11.1 is taken, as --vllm-version takes it.)
        QTest::newRow("engine.vllm_version 0.11.1.1 (version format)") << patched("engine", "vllm_version", QStringLiteral("0.11.1.1"))
                                                                       << QStringLiteral("engine.vllm_version") << QStringLiteral("must look like 0.10 or 0.11.2");
        QTest::newRow("engine.vllm_version eleven (version format)") << patched("engine", "vllm_version", QStringLiteral("eleven"))
                                                                     << QStringLiteral("engine.vllm_version") << QStringLiteral("must look like 0.10 or 0.11.2");
        QTest::newRow("engine.vllm_version 1234.1 (version format)") << patched("engine", "vllm_version", QStringLiteral("1234.1"))
                                                                     << QStringLiteral("engine.vllm_version") << QStringLiteral("must look like 0.10 or 0.11.2");
        for (const char *key : {"n_seq", "n_batch", "tokens_per_block", "block_size"})
            QTest::newRow(qPrintable(QStringLiteral("engine.%1 0 (readInt)").arg(QString::fromLatin1(key))))
                << patched("engine", key, 0) << QStringLiteral("engine.") + QString::fromLatin1(key)
                << QStringLiteral("must be a whole number from 1 to 1,000,000, got 0");
        QTest::newRow("engine.n_seq 1,000,001 (readInt)") << patched("engine", "n_seq", 1'000'001) << QStringLiteral("engine.n_seq")
                                                         << QStringLiteral("must be a whole number from 1 to 1,000,000, got 1,000,001");
        QTest::newRow("engine.n_seq \"four\" (readBig)") << patched("engine", "n_seq", QStringLiteral("four")) << QStringLiteral("engine.n_seq")
                                                       << QStringLiteral("must be a whole number");
        QTest::newRow("engine.gpu_memory_utilization 0 (readBounded)") << patched("engine", "gpu_memory_utilization", 0)
                                                                       << QStringLiteral("engine.gpu_memory_utilization") << unit;
        QTest::newRow("engine.gpu_memory_utilization 1.01 (readBounded)") << patched("engine", "gpu_memory_utilization", 1.01)
                                                                          << QStringLiteral("engine.gpu_memory_utilization") << unit;
        QTest::newRow("engine.engine mystery (Engines::parse)") << patched("engine", "engine", QStringLiteral("mystery"))
                                                                << QStringLiteral("engine.engine") << QStringLiteral("mystery");

        // The format version (fromJson).
        QTest::newRow("version 0 (unknown version)") << patched("", "version", 0) << QStringLiteral("version") << QStringLiteral("0 is not a known version");
        QTest::newRow("version -3 (unknown version)") << patched("", "version", -3) << QStringLiteral("version") << QStringLiteral("-3 is not a known version");
        QTest::newRow("version 2 (newer)") << patched("", "version", ScenarioFile::formatVersion + 1) << QStringLiteral("version")
                                           << QStringLiteral("2 was written by a newer Headroom (this one reads up to 1)");
        QTest::newRow("version 1.5 (readBig)") << patched("", "version", 1.5) << QStringLiteral("version") << QStringLiteral("must be a whole number");
        QTest::newRow("format other (not a scenario)") << patched("", "format", QStringLiteral("other")) << QStringLiteral("format")
                                                       << QStringLiteral("is not a Headroom scenario");

        // The model (modelFromJson).
        QTest::newRow("model.groups.kind 4 (unknown layer kind)") << patchedGroup({{QStringLiteral("kind"), 4}}) << QStringLiteral("model.groups[0].kind")
                                                                  << QStringLiteral("unknown layer kind 4");
        // The refusal names the group at fault (an attacker's file with two groups said only "model.groups.kind").
        // The parts of a model agree (an attacker's hand edits: 64 KV heads of 32 query heads; one
        // group of 10,000 layers in a 62-layer model; 10^13 active of the total parameters).
        QTest::newRow("model.groups[0].kv_heads past the attention heads") << patchedGroup({{QStringLiteral("kv_heads"), 100000}})
                                                                          << QStringLiteral("model.groups[0].kv_heads")
                                                                          << QStringLiteral("is more than num_attention_heads");
        QTest::newRow("model.groups past num_hidden_layers") << patchedGroup({{QStringLiteral("count"), 10000}}) << QStringLiteral("model.groups")
                                                             << QStringLiteral("more than num_hidden_layers");
        QTest::newRow("model.active_params past total_params") << patched("model", "active_params", QStringLiteral("10000000000000000"))
                                                               << QStringLiteral("model.active_params") << QStringLiteral("is more than total_params");
        QTest::newRow("model.groups[1].kind 4 (the second group)") << patchedGroup({{QStringLiteral("kind"), 4}}, 1)
                                                                   << QStringLiteral("model.groups[1].kind") << QStringLiteral("unknown layer kind 4");
        {
            QJsonObject o = richJson();
            QJsonObject model = o.value(QStringLiteral("model")).toObject();
            QJsonArray groups = model.value(QStringLiteral("groups")).toArray();
            groups.replace(1, 7);
            model.insert(QStringLiteral("groups"), groups);
            o.insert(QStringLiteral("model"), model);
            QTest::newRow("model.groups[1] a number (not a group)") << QJsonDocument(o).toJson() << QStringLiteral("model.groups[1]")
                                                                   << QStringLiteral("must be a layer-group object ({...}), got 7");
        }
        QTest::newRow("model.groups.kind -1 (unknown layer kind)") << patchedGroup({{QStringLiteral("kind"), -1}}) << QStringLiteral("model.groups[0].kind")
                                                                   << QStringLiteral("unknown layer kind -1");
        QTest::newRow("model.groups.window 0 for a sliding group") << patchedGroup({{QStringLiteral("kind"), int(LayerKind::SlidingWindow)}, {QStringLiteral("window"), 0}})
                                                                   << QStringLiteral("model.groups[0].window")
                                                                   << QStringLiteral("a sliding-window group needs a window of at least 1 token");
        QTest::newRow("model.groups.ssm_state_values: recurrent with no state")
            << patchedGroup({{QStringLiteral("kind"), int(LayerKind::Recurrent)}, {QStringLiteral("conv_state_values"), 0}, {QStringLiteral("ssm_state_values"), 0}})
            << QStringLiteral("model.groups[0].ssm_state_values") << QStringLiteral("a recurrent group needs a positive state");
        QTest::newRow("model.groups.conv_state_values -1") << patchedGroup({{QStringLiteral("conv_state_values"), -1}})
                                                           << QStringLiteral("model.groups[0].conv_state_values") << QStringLiteral("must not be negative");
        QTest::newRow("model.groups.ssm_state_values -1") << patchedGroup({{QStringLiteral("ssm_state_values"), -1}})
                                                          << QStringLiteral("model.groups[0].ssm_state_values") << QStringLiteral("a recurrent group needs a positive state");
        QTest::newRow("model.groups.count 0 (readInt)") << patchedGroup({{QStringLiteral("count"), 0}}) << QStringLiteral("model.groups[0].count") << int1;
        QTest::newRow("model.groups.head_dim_k 0 for attention (readInt)") << patchedGroup({{QStringLiteral("head_dim_k"), 0}})
                                                                           << QStringLiteral("model.groups[0].head_dim_k") << int1;
        QTest::newRow("model.groups.indexer_head_dim on an attention group")
            << patchedGroup({{QStringLiteral("indexer_head_dim"), 128}}) << QStringLiteral("model.groups[0].indexer_head_dim")
            << QStringLiteral("a sparse-attention indexer belongs to an MLA group");
        QTest::newRow("model.groups.indexer_head_dim -1 (readInt)")
            << patchedGroup({{QStringLiteral("kind"), int(LayerKind::Mla)}, {QStringLiteral("latent_dim"), 512}, {QStringLiteral("indexer_head_dim"), -1}})
            << QStringLiteral("model.groups[0].indexer_head_dim") << QStringLiteral("must be a whole number from 0 to 10,000,000, got -1");
        QTest::newRow("model.groups.latent_dim 0 for MLA (readInt)") << patchedGroup({{QStringLiteral("kind"), int(LayerKind::Mla)}, {QStringLiteral("latent_dim"), 0}})
                                                                     << QStringLiteral("model.groups[0].latent_dim") << int1;
        {
            QJsonObject o = richJson();
            QJsonObject model = o.value(QStringLiteral("model")).toObject();
            QJsonArray many;
            for (int i = 0; i < 1001; ++i)
                many.append(model.value(QStringLiteral("groups")).toArray().at(0));
            model.insert(QStringLiteral("groups"), many);
            o.insert(QStringLiteral("model"), model);
            QTest::newRow("model.groups: 1,001 groups") << QJsonDocument(o).toJson() << QStringLiteral("model.groups")
                                                        << QStringLiteral("1001 layer groups: a model has a handful");
        }
        QTest::newRow("model.total_params -1") << patched("model", "total_params", -1) << QStringLiteral("model.total_params")
                                               << QStringLiteral("must not be negative");
        QTest::newRow("model.num_attention_heads 10,000,001 (readInt)") << patched("model", "num_attention_heads", 10'000'001)
                                                                        << QStringLiteral("model.num_attention_heads")
                                                                        << QStringLiteral("must be a whole number from 0 to 10,000,000, got 10,000,001");
        QTest::newRow("model.weights_dtype float13 (Dtypes::parse)") << patched("model", "weights_dtype", QStringLiteral("float13"))
                                                                     << QStringLiteral("model.weights_dtype") << QStringLiteral("float13");

        // The card (GpuSpec::fromPreset on the file's gpu object).
        QTest::newRow("gpu.memory_bytes 0") << patched("gpu", "memory_bytes", 0) << QStringLiteral("gpu.memory_bytes")
                                            << QStringLiteral("must be a positive whole number of bytes");

        // The inputs (fromJson).
        // TP, PP, DP, EP and the block size in the command line's range (--tp 2,000,000 is refused there).
        const QString toMillion = QStringLiteral("must be a whole number from 1 to 1,000,000, got ");
        QTest::newRow("inputs.tp 0 (readInt)") << patched("inputs", "tp", 0) << QStringLiteral("inputs.tp") << toMillion + QStringLiteral("0");
        QTest::newRow("engine.dp 2,000,000") << patched("engine", "dp", 2'000'000) << QStringLiteral("engine.dp") << toMillion + QStringLiteral("2,000,000");
        QTest::newRow("inputs.context_tokens 0") << patched("inputs", "context_tokens", 0) << QStringLiteral("inputs.context_tokens")
                                                 << QStringLiteral("must be a whole number from 1 to");
        // Each field is named by itself (sessions -1 was once named as the context); 0 as --sessions 0.
        QTest::newRow("inputs.sessions -1") << patched("inputs", "sessions", -1) << QStringLiteral("inputs.sessions")
                                            << QStringLiteral("must be a whole number from 1 to");
        QTest::newRow("inputs.sessions 0") << patched("inputs", "sessions", 0) << QStringLiteral("inputs.sessions")
                                           << QStringLiteral("must be a whole number from 1 to");
        // What every file holds is required: a file without it was planned at a default in silence.
        for (const auto &[section, key] : {std::pair{"inputs", "context_tokens"}, {"inputs", "sessions"}, {"inputs", "tp"}, {"engine", "engine"}, {"", "version"}})
            QTest::newRow(qPrintable(QStringLiteral("%1.%2 missing").arg(QLatin1String(section), QLatin1String(key))))
                << patched(section, key, QJsonValue(QJsonValue::Undefined))
                << (*section ? QStringLiteral("%1.%2").arg(QLatin1String(section), QLatin1String(key)) : QString::fromLatin1(key))
                << QStringLiteral("is missing");
        QTest::newRow("model.intermediate_size -1") << patched("model", "intermediate_size", -1) << QStringLiteral("model.intermediate_size")
                                                    << QStringLiteral("must not be negative");
        QTest::newRow("inputs.kv_dtype 8 (not a name)") << patched("inputs", "kv_dtype", 8) << QStringLiteral("inputs.kv_dtype")
                                                        << QStringLiteral("must be a precision name such as bf16");
        QTest::newRow("inputs.weights_dtype float13 (Dtypes::parse)") << patched("inputs", "weights_dtype", QStringLiteral("float13"))
                                                                      << QStringLiteral("inputs.weights_dtype") << QStringLiteral("float13");
        QTest::newRow("inputs.preallocate \"yes\"") << patched("inputs", "preallocate", QStringLiteral("yes")) << QStringLiteral("inputs.preallocate")
                                                  << QStringLiteral("must be true or false");
        for (const auto &[key, value, range] : {std::tuple{"risk", 0.6, "1e-06 to 0.5"}, {"margin", 0.95, "0 to 0.9"}, {"length_scale", 0.0, "1e-06 to 1e+06"},
                                                {"bandwidth_efficiency", 1.5, "1e-06 to 1"}, {"compute_utilization", 0.0, "1e-06 to 1"},
                                                {"traffic_multiplier", 2e6, "1e-06 to 1e+06"}, {"price_usd_per_gpu_hour", 0.0, "1e-09 to 1e+06"}})
            QTest::newRow(qPrintable(QStringLiteral("inputs.%1 %2 (readBounded)").arg(QString::fromLatin1(key)).arg(value)))
                << patched("inputs", key, value) << QStringLiteral("inputs.") + QString::fromLatin1(key)
                << QStringLiteral("must be a number from ") + QString::fromLatin1(range);
        for (const char *key : {"max_model_len", "retain_tokens", "target_sessions"})
            QTest::newRow(qPrintable(QStringLiteral("inputs.%1 0").arg(QString::fromLatin1(key))))
                << patched("inputs", key, 0) << QStringLiteral("inputs.") + QString::fromLatin1(key) << QStringLiteral("must be at least 1");
        // A card of 0 bytes is no card (the command line's --gpu-memory refuses it too).
        QTest::newRow("inputs.gpu_memory_bytes 0") << patched("inputs", "gpu_memory_bytes", 0) << QStringLiteral("inputs.gpu_memory_bytes")
                                                   << QStringLiteral("must be at least 1 byte");
        for (const char *key : {"weights_bytes", "workspace_bytes"})
            QTest::newRow(qPrintable(QStringLiteral("inputs.%1 -1").arg(QString::fromLatin1(key))))
                << patched("inputs", key, -1) << QStringLiteral("inputs.") + QString::fromLatin1(key) << QStringLiteral("must not be negative");

        // The distribution block (distributionFromJson).
        QTest::newRow("distribution 5 (not an object)") << patched("", "distribution", 5) << QStringLiteral("distribution") << QStringLiteral("must be an object");
        QTest::newRow("distribution.kind 4 (unknown kind)") << patched("distribution", "kind", 4) << QStringLiteral("distribution.kind")
                                                            << QStringLiteral("unknown kind 4");
        QTest::newRow("distribution.lengths[1] \"long\"") << patched("distribution", "lengths", QJsonArray{100, QStringLiteral("long")})
                                                         << QStringLiteral("distribution.lengths[1]") << QStringLiteral("must be a whole number");
        QTest::newRow("distribution.probabilities [\"half\"]") << patched("distribution", "probabilities", QJsonArray{QStringLiteral("half")})
                                                               << QStringLiteral("distribution.probabilities") << QStringLiteral("must hold numbers");
        {
            QJsonObject o = richJson();
            const QJsonObject base = o.value(QStringLiteral("distribution")).toObject();
            auto with = [&](const QJsonObject &fields) {
                QJsonObject d = base;
                for (auto it = fields.begin(); it != fields.end(); ++it)
                    d.insert(it.key(), it.value());
                QJsonObject file = o;
                file.insert(QStringLiteral("distribution"), d);
                return QJsonDocument(file).toJson();
            };
            const QJsonArray prompt{100}, one{1.0};
            QTest::newRow("distribution: 0.4 + 0.5 (sum)") << with({{QStringLiteral("lengths"), QJsonArray{100, 200}},
                                                                  {QStringLiteral("probabilities"), QJsonArray{0.4, 0.5}},
                                                                  {QStringLiteral("prompt_lengths"), prompt}, {QStringLiteral("prompt_probabilities"), one}})
                                                           << QStringLiteral("distribution") << QStringLiteral("lengths and probabilities do not form a distribution");
            QTest::newRow("distribution: 2 lengths, 1 probability") << with({{QStringLiteral("lengths"), QJsonArray{100, 200}}, {QStringLiteral("probabilities"), one}})
                                                                    << QStringLiteral("distribution") << QStringLiteral("do not form a distribution");
            QTest::newRow("distribution: 1 prompt length, no probability") << with({{QStringLiteral("lengths"), QJsonArray{100}}, {QStringLiteral("probabilities"), one},
                                                                                    {QStringLiteral("prompt_lengths"), prompt}, {QStringLiteral("prompt_probabilities"), QJsonArray{}}})
                                                                            << QStringLiteral("distribution") << QStringLiteral("do not form a distribution");
            QTest::newRow("distribution.lengths descending") << with({{QStringLiteral("lengths"), QJsonArray{200, 100}}, {QStringLiteral("probabilities"), QJsonArray{0.5, 0.5}},
                                                                      {QStringLiteral("prompt_lengths"), prompt}, {QStringLiteral("prompt_probabilities"), one}})
                                                             << QStringLiteral("distribution.lengths") << QStringLiteral("must be positive and ascending");
            QTest::newRow("distribution.lengths twice the same") << with({{QStringLiteral("lengths"), QJsonArray{100, 100}}, {QStringLiteral("probabilities"), QJsonArray{0.5, 0.5}},
                                                                          {QStringLiteral("prompt_lengths"), prompt}, {QStringLiteral("prompt_probabilities"), one}})
                                                                 << QStringLiteral("distribution.lengths") << QStringLiteral("must be positive and ascending");
            QTest::newRow("distribution.lengths 0") << with({{QStringLiteral("lengths"), QJsonArray{0}}, {QStringLiteral("probabilities"), one},
                                                             {QStringLiteral("prompt_lengths"), QJsonArray{}}, {QStringLiteral("prompt_probabilities"), QJsonArray{}}})
                                                    << QStringLiteral("distribution.lengths") << QStringLiteral("must be positive and ascending");
            QTest::newRow("distribution.lengths: a negative probability") << with({{QStringLiteral("lengths"), QJsonArray{100, 200}}, {QStringLiteral("probabilities"), QJsonArray{-0.5, 1.5}},
                                                                                   {QStringLiteral("prompt_lengths"), prompt}, {QStringLiteral("prompt_probabilities"), one}})
                                                                          << QStringLiteral("distribution.lengths") << QStringLiteral("must be positive and ascending");
            QTest::newRow("distribution.prompt_lengths descending") << with({{QStringLiteral("lengths"), QJsonArray{100, 200}}, {QStringLiteral("probabilities"), QJsonArray{0.5, 0.5}},
                                                                             {QStringLiteral("prompt_lengths"), QJsonArray{50, 20}}, {QStringLiteral("prompt_probabilities"), QJsonArray{0.5, 0.5}}})
                                                                    << QStringLiteral("distribution.prompt_lengths") << QStringLiteral("must be positive and ascending");
            QTest::newRow("distribution.prompt_probabilities: prompts longer than the sessions")
                << with({{QStringLiteral("lengths"), QJsonArray{100}}, {QStringLiteral("probabilities"), one},
                         {QStringLiteral("prompt_lengths"), QJsonArray{101}}, {QStringLiteral("prompt_probabilities"), one}})
                << QStringLiteral("distribution.prompt_probabilities") << QStringLiteral("prompts must form a distribution no longer than the sessions");
            QTest::newRow("distribution.prompt_probabilities summing to 0.5")
                << with({{QStringLiteral("lengths"), QJsonArray{100}}, {QStringLiteral("probabilities"), one},
                         {QStringLiteral("prompt_lengths"), prompt}, {QStringLiteral("prompt_probabilities"), QJsonArray{0.5}}})
                << QStringLiteral("distribution.prompt_probabilities") << QStringLiteral("prompts must form a distribution no longer than the sessions");
            QTest::newRow("distribution: requests -1") << with({{QStringLiteral("requests"), -1}}) << QStringLiteral("distribution.requests")
                                                       << QStringLiteral("must not be negative");
            // Their range rules (core/inputranges.h): 0 to 10^9 requests per second, 0 to 2^53 tokens.
            QTest::newRow("distribution: arrival_rate_per_second -1") << with({{QStringLiteral("arrival_rate_per_second"), -1}})
                                                                      << QStringLiteral("distribution.arrival_rate_per_second")
                                                                      << QStringLiteral("must be a number from 0 to 1e+09, got -1");
            QTest::newRow("distribution: arrival_rate_per_second 1e308 (inf once scaled by the traffic multiplier)")
                << with({{QStringLiteral("arrival_rate_per_second"), 1e308}}) << QStringLiteral("distribution.arrival_rate_per_second")
                << QStringLiteral("must be a number from 0 to 1e+09, got 1e+308");
            QTest::newRow("distribution: mean_output_tokens -1") << with({{QStringLiteral("mean_output_tokens"), -1}})
                                                                 << QStringLiteral("distribution.mean_output_tokens")
                                                                 << QStringLiteral("must be a number from 0 to 9007199254740992, got -1");
            // Within the range rule but past the longest session (an attacker's 10^12 quartered the decode time).
            QTest::newRow("distribution: mean_output_tokens past the longest") << with({{QStringLiteral("mean_output_tokens"), 1e12}})
                                                                               << QStringLiteral("distribution.mean_output_tokens")
                                                                               << QStringLiteral("is more than the longest session");
            QTest::newRow("distribution.arrival_rate_per_second \"fast\" (readOptionalDouble)")
                << with({{QStringLiteral("arrival_rate_per_second"), QStringLiteral("fast")}})
                << QStringLiteral("distribution.arrival_rate_per_second") << QStringLiteral("must be a number");
        }
    }
    void refusals()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, field);
        QFETCH(QString, message);
        const QString path = m_dir.filePath(QStringLiteral("refused.headroom"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(content);
        }
        try {
            ScenarioFile::read(path, nullptr);
            QFAIL("accepted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), field);
            QVERIFY2(e.message().contains(message), qPrintable(e.message()));
            QVERIFY2(e.message().endsWith(QStringLiteral("(in %1)").arg(path)), qPrintable(e.message()));
        }
    }

    // The file itself (ScenarioFile::read): missing, a folder, too large, not an object.
    void fileRefusals()
    {
        auto refused = [](const QString &path, const QString &message) {
            try {
                ScenarioFile::read(path, nullptr);
                QTest::qFail(qPrintable(QStringLiteral("accepted ") + path), __FILE__, __LINE__);
            } catch (const InputError &e) {
                QCOMPARE(e.field(), QStringLiteral("file"));
                QCOMPARE(e.message(), message);
            }
        };
        const QString missing = m_dir.filePath(QStringLiteral("missing.headroom"));
        refused(missing, missing + QStringLiteral(" is not a readable file"));
        refused(m_dir.path(), m_dir.path() + QStringLiteral(" is not a readable file"));
        // 256 MiB + 1 byte (sparse: nothing is written or read).
        QFile big(m_dir.filePath(QStringLiteral("big.headroom")));
        QVERIFY(big.open(QIODevice::WriteOnly) && big.resize(256 * Units::MiB + 1));
        big.close();
        refused(big.fileName(), big.fileName() + QStringLiteral(" is too large for a scenario"));
        QFile array(m_dir.filePath(QStringLiteral("array.headroom")));
        QVERIFY(array.open(QIODevice::WriteOnly));
        array.write("[1, 2]\n");
        array.close();
        refused(array.fileName(), array.fileName() + QStringLiteral(" is not a Headroom scenario"));
        QFile damaged(m_dir.filePath(QStringLiteral("damaged.headroom")));
        QVERIFY(damaged.open(QIODevice::WriteOnly));
        damaged.write("{\n  \"format\": \"headroom-scenario\",\n  \"version\": \n}\n");
        damaged.close();
        try {
            ScenarioFile::read(damaged.fileName(), nullptr);
            QFAIL("accepted a damaged file");
        } catch (const InputError &e) {
            // Qt's parser names the fault (its words); the line is where it stopped: the "}" on line 4.
            QCOMPARE(e.field(), QStringLiteral("file"));
            QVERIFY2(e.message().startsWith(damaged.fileName() + QStringLiteral(" is damaged: ")) && e.message().endsWith(QStringLiteral(" at line 4")),
                     qPrintable(e.message()));
        }
    }

    // The attacker's report: engine.engine 0.5, true, [1] or null read as "plain"; engine.ep
    // "two" was dropped; vllm_version 0.9 (a number) read as 0.11. The whole kind: every field
    // of every section, given a value of another JSON type than the file writes, is refused
    // naming that field, never read as its default.
    void everyFieldRefusesAnotherType()
    {
        const QJsonObject base = richJson();
        int checked = 0;
        auto refusedAs = [&](const QJsonObject &file, const QString &field, const QJsonValue &given) {
            try {
                QString name;
                ScenarioFile::fromJson(file, &name);
                return QStringLiteral("%1 = %2 was read").arg(field, QString::fromUtf8(QJsonDocument(QJsonArray{given}).toJson(QJsonDocument::Compact)));
            } catch (const InputError &e) {
                if (!e.field().startsWith(field))
                    return QStringLiteral("%1 = %2 was refused naming %3: %4")
                        .arg(field, QString::fromUtf8(QJsonDocument(QJsonArray{given}).toJson(QJsonDocument::Compact)), e.field(), e.message());
            }
            ++checked;
            return QString();
        };
        const QList<QJsonValue> kinds{QJsonValue(0.5), QJsonValue(true), QJsonArray{1}, QJsonObject{{QStringLiteral("a"), 1}},
                                      QJsonValue(QStringLiteral("junk"))};
        for (const QString &section : {QStringLiteral("model"), QStringLiteral("gpu"), QStringLiteral("engine"), QStringLiteral("inputs")}) {
            const QJsonObject part = base.value(section).toObject();
            for (auto it = part.begin(); it != part.end(); ++it) {
                if (it.value().isNull())
                    continue; // an absent optional: which type it takes is the field's own rule
                for (const QJsonValue &wrong : kinds) {
                    // A whole number may be written as a decimal string (above 2^53); a real
                    // setting may be given as a whole one.
                    if (wrong.type() == it.value().type() || (it.value().isDouble() && wrong.isDouble()))
                        continue;
                    QJsonObject file = base, changed = part;
                    changed.insert(it.key(), wrong);
                    file.insert(section, changed);
                    const QString problem = refusedAs(file, section + QLatin1Char('.') + it.key(), wrong);
                    QVERIFY2(problem.isEmpty(), qPrintable(problem));
                }
            }
        }
        for (const char *key : {"model", "gpu", "engine", "inputs", "distribution", "name"}) {
            QJsonObject file = base;
            file.insert(QString::fromLatin1(key), QJsonArray{1});
            const QString problem = refusedAs(file, QString::fromLatin1(key), QJsonArray{1});
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        QVERIFY2(checked > 200, qPrintable(QString::number(checked)));
        // For vLLM engine_version is vllm_version (as --engine-version is --vllm-version); two
        // different releases are refused, one is taken.
        QJsonObject file = base, engine = base.value(QStringLiteral("engine")).toObject();
        engine.insert(QStringLiteral("engine_version"), QStringLiteral("0.8"));
        file.insert(QStringLiteral("engine"), engine);
        QVERIFY_THROWS_EXCEPTION(InputError, ScenarioFile::fromJson(file, nullptr));
        engine.remove(QStringLiteral("vllm_version"));
        file.insert(QStringLiteral("engine"), engine);
        const Scenario s = ScenarioFile::fromJson(file, nullptr);
        QCOMPARE(s.engineSettings.vllmMinor, 8);
    }

    // Version 0 (plan --json output): what a plan output cannot stand for.
    void planOutputRefusals_data()
    {
        QTest::addColumn<QJsonObject>("plan");
        QTest::addColumn<bool>("lookups");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        QTest::newRow("inputs.model custom (migrateFromPlanOutput)") << planOutput(QStringLiteral("custom"), QStringLiteral("custom")) << true
                                                                     << QStringLiteral("inputs.model")
                                                                     << QStringLiteral("a custom shape is not named in a plan output: save it with plan --save FILE.headroom");
        QTest::newRow("inputs.model unknown preset (lookup)") << planOutput(QStringLiteral("llama-9-1t"), QStringLiteral("custom")) << true
                                                              << QStringLiteral("inputs.model") << QStringLiteral("unknown model preset \"llama-9-1t\"");
        QTest::newRow("inputs.gpu unknown preset (lookup)") << planOutput(QStringLiteral("llama-3.1-8b"), QStringLiteral("h900")) << false
                                                            << QStringLiteral("inputs.gpu") << QStringLiteral("unknown gpu preset \"h900\"");
        QJsonObject tp = planOutput(QStringLiteral("llama-3.1-8b"), QStringLiteral("custom"));
        QJsonObject in = tp.value(QStringLiteral("inputs")).toObject();
        in.insert(QStringLiteral("tp"), QStringLiteral("two"));
        tp.insert(QStringLiteral("inputs"), in);
        QTest::newRow("inputs.tp \"two\" (readBig)") << tp << false << QStringLiteral("inputs.tp") << QStringLiteral("must be a whole number");
        QJsonObject risk = planOutput(QStringLiteral("llama-3.1-8b"), QStringLiteral("custom"));
        in = risk.value(QStringLiteral("inputs")).toObject();
        in.insert(QStringLiteral("risk"), QStringLiteral("low"));
        risk.insert(QStringLiteral("inputs"), in);
        QTest::newRow("inputs.risk \"low\" (readDouble)") << risk << false << QStringLiteral("inputs.risk") << QStringLiteral("must be a number");
        QTest::newRow("inputs: no preset store (migrateFromPlanOutput)") << planOutput(QStringLiteral("llama-3.1-8b"), QStringLiteral("custom")) << false
                                                                         << QStringLiteral("inputs")
                                                                         << QStringLiteral("a plan output names presets, and no preset store is at hand");
    }
    void planOutputRefusals()
    {
        QFETCH(QJsonObject, plan);
        QFETCH(bool, lookups);
        QFETCH(QString, field);
        QFETCH(QString, message);
        // Lookups that refuse every id, none at all (the row "no preset store"), or one that
        // finds the model (the other rows whose lookups column is false).
        auto someModel = [](const QString &) { return ConfigImporter::fromFile(QStringLiteral(HEADROOM_TEST_DATA "/llama-3.1-8b/config.json"), QStringLiteral("m")); };
        const bool modelFound = field != QLatin1String("inputs");
        try {
            if (lookups)
                ScenarioFile::fromJson(plan, nullptr, noModel, noGpu);
            else if (modelFound)
                ScenarioFile::fromJson(plan, nullptr, someModel, noGpu);
            else
                ScenarioFile::fromJson(plan, nullptr);
            QFAIL("accepted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), field);
            QVERIFY2(e.message().contains(message), qPrintable(e.message()));
        }
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
