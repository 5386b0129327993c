// SPDX-License-Identifier: GPL-3.0-or-later
// The side pools' flags under attack (issues 10 and 14): every engine profile x every
// side-pool flag at its range ends, zero, negative, NaN, infinities, -0, 2^63 - 1, 2^63,
// 1e300, empty and "1,000", through plan, plan --json, levers, report and calibrate;
// MoE and MLA models with LoRA, a draft, MTP and images on a text-only model; and the
// same refusal reached from a flag, a .headroom file and a plan --json reopened, each
// naming the input as that source spells it. Every row states the field and the words
// it expects, or a figure derived here from the cited config.json.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QLocale>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include "common/clirun.h"
#include "common/headroomtest.h"

namespace {

using Run = HeadroomTest::CliRun;

const QStringList engines = {QStringLiteral("plain"), QStringLiteral("vllm"), QStringLiteral("sglang"),
                             QStringLiteral("trtllm"), QStringLiteral("llamacpp"), QStringLiteral("ollama")};

// The ranges the side-pool flags document (headroom --help; core/inputranges.h
// InputRanges::of: speculative tokens 0..64, draft layers 0..256, LoRA slots 0..1,024,
// rank 1..1,024; plan/visionpool.h: 0..999 images, vLLM's per-prompt limit; the host
// tier's 1..1,024 cards per node).
struct Count
{
    const char *flag;
    qint64 low;
    qint64 high;
    const char *with; // the flags it needs beside it
};
const Count counts[] = {
    {"--num-speculative-tokens", 0, 64, ""},
    {"--draft-layers", 0, 256, "--num-speculative-tokens 2"},
    {"--max-loras", 0, 1024, ""},
    {"--max-lora-rank", 1, 1024, "--max-loras 2"},
    {"--images-per-request", 0, 999, ""},
    {"--gpus-per-node", 1, 1024, "--host-kv-memory 1TB"},
};

// Llama-3.1-8B (config.json: hidden_size 4,096, 8 KV heads x head_dim 128,
// intermediate_size 14,336, 32 layers, vocab_size 128,256; 8,030,261,248 parameters).
// LoRA values per rank, Σ (in + out) over the seven adapted layers of one decoder layer:
// q 4,096 + 4,096, k 4,096 + 1,024, v 4,096 + 1,024, o 4,096 + 4,096, gate, up 4,096 +
// 14,336 each, down 14,336 + 4,096 = 81,920; x 32 layers = 2,621,440 (vLLM lora_a
// (rank, in) + lora_b (out, rank) per slot, in bf16).
constexpr qint64 llamaLoraValuesPerRank = 81'920 * 32;
// One MTP / EAGLE layer of Llama-3.1-8B: (8,030,261,248 - 2 x 128,256 x 4,096 embeddings
// and head) / 32 = 218,112,128 parameters; its KV 2 x 8 x 128 x 2 B = 4,096 B per token.
constexpr qint64 llamaParamsPerLayer = (8'030'261'248 - 2 * 128'256 * 4'096) / 32;
constexpr qint64 llamaKvPerTokenPerLayer = 2 * 8 * 128 * 2;

} // namespace

class TestSidePoolsAttack : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_home;
    QTemporaryDir m_work;

    Run run(const QStringList &args)
    {
        return HeadroomTest::runHeadroom(args, m_home.path(), m_work.path());
    }

    // Exit 1 with exactly one error line, naming `field` with `words` in it.
    static QString refusal(const Run &r, const QString &field, const QString &words)
    {
        if (r.code == -2)
            return QStringLiteral("hung (still running after 120 s)");
        if (r.code != 1)
            return QStringLiteral("exit %1, not a refusal: %2").arg(r.code).arg(QString::fromUtf8(r.err.left(400) + r.out.left(400)));
        const QStringList lines = QString::fromUtf8(r.err).split(QLatin1Char('\n'), Qt::SkipEmptyParts).filter(QStringLiteral("error: "));
        if (lines.size() != 1)
            return QStringLiteral("not one error line: ") + QString::fromUtf8(r.err);
        if (!lines.first().startsWith(QStringLiteral("error: %1: ").arg(field)))
            return QStringLiteral("the error does not name %1: %2").arg(field, lines.first());
        if (!lines.first().contains(words))
            return QStringLiteral("the error lacks \"%1\": %2").arg(words, lines.first());
        return {};
    }

    // The command a row runs: `cmd` (plan, plan --json, levers --json, report, calibrate)
    // over the base scenario and `flags`.
    QStringList command(const QString &cmd, const QString &engine, const QStringList &flags) const
    {
        const QStringList base = {QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"),
                                  QStringLiteral("h100-sxm-80gb"), QStringLiteral("--context"), QStringLiteral("32768")};
        if (cmd == QLatin1String("calibrate")) // the log names its engine; the model is given
            return QStringList{cmd, QStringLiteral(HEADROOM_TEST_DATA "/logs/vllm-0.11-llama-3.1-8b-h100.log"), QStringLiteral("--model"),
                               QStringLiteral("llama-3.1-8b")} + flags;
        QStringList args = cmd.split(QLatin1Char(' ')) + base + QStringList{QStringLiteral("--engine"), engine} + flags;
        if (cmd == QLatin1String("report"))
            args << QStringLiteral("-o") << QDir(m_work.path()).filePath(QStringLiteral("report.pdf"));
        return args;
    }

    // `.headroom` or plan --json text with `key` ("lora.modules", "inputs.pp") set to `value`.
    static QByteArray mutated(const QByteArray &text, const QString &key, const QJsonValue &value)
    {
        QJsonObject o = QJsonDocument::fromJson(text).object();
        const QStringList path = key.split(QLatin1Char('.'));
        if (path.size() == 1) {
            o.insert(key, value);
        } else {
            QJsonObject inner = o.value(path.at(0)).toObject();
            inner.insert(path.at(1), value);
            o.insert(path.at(0), inner);
        }
        return QJsonDocument(o).toJson();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        QVERIFY(m_work.isValid());
    }

    // Refusals at the command line: each side-pool flag's bad values, under every engine
    // and command in turn, named by the flag with the words of its rule.
    void refused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("words");
        const QStringList commands = {QStringLiteral("plan --json"), QStringLiteral("plan"), QStringLiteral("levers --json"),
                                      QStringLiteral("report"), QStringLiteral("calibrate")};
        int i = 0;
        auto row = [&](const QString &flag, const QString &value, const QString &with, const QString &field, const QString &words) {
            const QString cmd = commands.at(i % commands.size());
            const QString engine = engines.at((i / commands.size() + i) % engines.size());
            ++i;
            QStringList flags = with.split(QLatin1Char(' '), Qt::SkipEmptyParts);
            flags << flag << value;
            QTest::addRow("%s %s %s '%s'", qPrintable(cmd), qPrintable(engine), qPrintable(flag), qPrintable(value))
                << command(cmd, engine, flags) << field << words;
        };
        for (const Count &c : counts) {
            const QString f = QString::fromLatin1(c.flag), with = QString::fromLatin1(c.with);
            // Whole numbers out of range: "must be a whole number from L to H" (the
            // images and the cards per node say "at most H" / "at least L").
            const bool ranged = f != QLatin1String("--images-per-request") && f != QLatin1String("--gpus-per-node");
            const QString above = ranged ? QStringLiteral("must be a whole number from") : QStringLiteral("must be at most");
            row(f, QString::number(c.high + 1), with, f, above);
            row(f, QStringLiteral("9223372036854775807"), with, f, above);
            if (c.low > 0)
                row(f, QString::number(c.low - 1), with, f, ranged ? above : QStringLiteral("must be at least"));
            else
                row(f, QStringLiteral("-1"), with, f, QStringLiteral("must not be negative"));
            for (const char *v : {"nan", "inf", "-inf", ""})
                row(f, QString::fromLatin1(v), with, f, QStringLiteral("is not a whole number"));
            row(f, QStringLiteral("0.5"), with, f, QStringLiteral("is not a whole number"));
            for (const char *v : {"9223372036854775808", "1e300"})
                row(f, QString::fromLatin1(v), with, f, QStringLiteral("too large: it overflows 64 bits"));
            if (c.high < 1000) // "1,000" reads as 1,000 (headroom --help: counts take "100,000")
                row(f, QStringLiteral("1,000"), with, f, above);
        }
        // The decoding share: 1e-6 to 1 (core/inputranges.h).
        for (const char *v : {"0", "-0", "-1", "1.0000001", "1e300", "9223372036854775807"})
            row(QStringLiteral("--decoding-share"), QString::fromLatin1(v), {}, QStringLiteral("--decoding-share"), QStringLiteral("must be a number from 1e-06 to 1"));
        for (const char *v : {"nan", "inf", "", "1,000"})
            row(QStringLiteral("--decoding-share"), QString::fromLatin1(v), {}, QStringLiteral("--decoding-share"), QStringLiteral("is not a number"));
        // Turn and think: 0 to 1e9 seconds each, a turn above 0.
        for (const char *v : {"nan", "inf", "-1", "1e300", "", "1,000"})
            row(QStringLiteral("--turn-seconds"), QString::fromLatin1(v), QStringLiteral("--think-seconds 10"), QStringLiteral("--turn-seconds"),
                QStringLiteral("must be a number of seconds from 0 to 1e9"));
        for (const char *v : {"0", "-0"})
            row(QStringLiteral("--turn-seconds"), QString::fromLatin1(v), QStringLiteral("--think-seconds 10"), QStringLiteral("--turn-seconds"),
                QStringLiteral("must be above 0"));
        // Host KV memory: a size with a unit, 0 to 2^63 - 1 bytes (2^63 B used to lose its last
        // digit and read as 2^63 - 8 B).
        for (const char *v : {"9223372036854775808B", "1e300GB", "9300000000TB"})
            row(QStringLiteral("--host-kv-memory"), QString::fromLatin1(v), {}, QStringLiteral("--host-kv-memory"), QStringLiteral("overflows 64-bit bytes"));
        row(QStringLiteral("--host-kv-memory"), QStringLiteral("-1GB"), {}, QStringLiteral("--host-kv-memory"), QStringLiteral("must not be negative"));
        for (const char *v : {"nanGB", "infGB", ""})
            row(QStringLiteral("--host-kv-memory"), QString::fromLatin1(v), {}, QStringLiteral("--host-kv-memory"), QStringLiteral("is not a memory size"));
        for (const char *v : {"1,000", "0", "1e300"})
            row(QStringLiteral("--host-kv-memory"), QString::fromLatin1(v), {}, QStringLiteral("--host-kv-memory"), QStringLiteral("has no unit"));
        // LoRA modules: a comma list of q,k,v,o,gate,up,down; a draft: a preset or a path.
        for (const char *v : {"", "1,000", "nan", "q,,lm_head"})
            row(QStringLiteral("--lora-modules"), QString::fromLatin1(v), QStringLiteral("--max-loras 2"), QStringLiteral("--lora-modules"), QString());
        for (const char *v : {"nan", "1,000", "no-such-model"})
            row(QStringLiteral("--draft-model"), QString::fromLatin1(v), QStringLiteral("--num-speculative-tokens 2"), QStringLiteral("--draft-model"), QString());
        // A draft proposes tokens: without --num-speculative-tokens it is refused, not ignored.
        row(QStringLiteral("--draft-layers"), QStringLiteral("1"), {}, QStringLiteral("--num-speculative-tokens"), QStringLiteral("is needed with a draft"));
        row(QStringLiteral("--max-lora-rank"), QStringLiteral("8"), {}, QStringLiteral("--max-loras"), QStringLiteral("is needed with --max-lora-rank"));
    }

    void refused()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, field);
        QFETCH(QString, words);
        const Run r = run(args);
        const QString fault = refusal(r, field, words);
        QVERIFY2(fault.isEmpty(), qPrintable(fault + QStringLiteral("\n  headroom ") + args.join(QLatin1Char(' '))));
    }

    // Range ends that are right answers, under every engine: the pool each flag drives,
    // derived from Llama-3.1-8B's config.json above, and no flag left without a word.
    void accepted_data()
    {
        QTest::addColumn<QString>("engine");
        QTest::addColumn<QString>("flags");
        QTest::addColumn<QString>("key");    // a plan --json figure
        QTest::addColumn<qint64>("expected"); // its value
        QTest::addColumn<QString>("warning"); // words a warning must hold ("" = none)
        for (const QString &e : engines) {
            const QByteArray n = e.toLatin1();
            // 1,024 slots of rank 1 and 1 slot of rank 1,024: 1,024 x 2,621,440 x 2 B.
            QTest::addRow("%s 1024 LoRA slots, rank 1", n.constData()) << e << QStringLiteral("--max-loras 1024 --max-lora-rank 1")
                << QStringLiteral("lora_bytes") << 1024 * llamaLoraValuesPerRank * 2 << QString();
            QTest::addRow("%s 1 LoRA slot, rank 1024", n.constData()) << e << QStringLiteral("--max-loras 1 --max-lora-rank 1024")
                << QStringLiteral("lora_bytes") << 1024 * llamaLoraValuesPerRank * 2 << QString();
            QTest::addRow("%s -0 LoRA slots", n.constData()) << e << QStringLiteral("--max-loras -0") << QStringLiteral("lora_bytes") << qint64(0) << QString();
            // 256 MTP / EAGLE layers (the range's top): 256 x 218,112,128 parameters x 2 B, and
            // 256 x 4,096 B of KV per token. Ollama starts no draft: it must say so.
            const QString ollama = e == QLatin1String("ollama") ? QStringLiteral("Ollama runs no speculative decoding") : QString();
            QTest::addRow("%s 256 draft layers, weights", n.constData()) << e << QStringLiteral("--draft-layers 256 --num-speculative-tokens 64")
                << QStringLiteral("draft_weights_bytes") << 256 * llamaParamsPerLayer * 2 << ollama;
            QTest::addRow("%s 256 draft layers, KV", n.constData()) << e << QStringLiteral("--draft-layers 256 --num-speculative-tokens 64")
                << QStringLiteral("draft_kv_bytes_per_token") << 256 * llamaKvPerTokenPerLayer << ollama;
            QTest::addRow("%s -0 draft layers", n.constData()) << e << QStringLiteral("--draft-layers -0") << QStringLiteral("draft_kv_bytes_per_token")
                << qint64(0) << QString();
            // Images on a text-only model: nothing to encode, and said so.
            QTest::addRow("%s 999 images, text-only", n.constData()) << e << QStringLiteral("--images-per-request 999")
                << QStringLiteral("image_tokens_per_request") << qint64(0) << QStringLiteral("has no vision encoder: --images-per-request 999 is ignored");
            QTest::addRow("%s 0 images", n.constData()) << e << QStringLiteral("--images-per-request 0") << QStringLiteral("encoder_cache_bytes_per_gpu")
                << qint64(0) << QString();
            // Host tier at its ends: 0 B (-0 GB) of host memory holds no session there.
            QTest::addRow("%s 0 B host, 1024 cards", n.constData()) << e << QStringLiteral("--host-kv-memory -0GB --gpus-per-node 1024")
                << QStringLiteral("sessions_in_host_per_node") << qint64(0) << QString();
        }
    }

    void accepted()
    {
        QFETCH(QString, engine);
        QFETCH(QString, flags);
        QFETCH(QString, key);
        QFETCH(qint64, expected);
        QFETCH(QString, warning);
        const QStringList args = command(QStringLiteral("plan --json"), engine, flags.split(QLatin1Char(' ')));
        const Run r = run(args);
        QVERIFY2(r.code == 0, qPrintable(QStringLiteral("exit %1: %2").arg(r.code).arg(QString::fromUtf8(r.err))));
        const QJsonObject o = r.json();
        QVERIFY2(o.contains(key), qPrintable(key));
        QCOMPARE(o.value(key).toInteger(-1), expected);
        const QJsonArray warnings = o.value(QStringLiteral("warnings")).toArray();
        bool said = false;
        for (const QJsonValue &w : warnings)
            said = said || (!warning.isEmpty() && w.toString().contains(warning));
        QVERIFY2(warning.isEmpty() || said, qPrintable(QStringLiteral("no warning \"%1\" in %2").arg(warning, QString::fromUtf8(QJsonDocument(warnings).toJson()))));
    }

    // Levers with side pools on, under every engine: the levers' "now" is the plan's own
    // answer for the same flags (sessions per GPU at TP 1 = max_sessions), not a plan
    // without the pools.
    void leversWithSidePools_data()
    {
        QTest::addColumn<QString>("engine");
        for (const QString &e : engines)
            QTest::newRow(e.toLatin1().constData()) << e;
    }

    void leversWithSidePools()
    {
        QFETCH(QString, engine);
        const QStringList flags = QStringLiteral("--max-loras 4 --draft-layers 1 --num-speculative-tokens 2 --host-kv-memory 1TB").split(QLatin1Char(' '));
        const Run plan = run(command(QStringLiteral("plan --json"), engine, flags));
        QVERIFY2(plan.code == 0, plan.err.constData());
        const Run bare = run(command(QStringLiteral("plan --json"), engine, {}));
        QVERIFY2(bare.code == 0, bare.err.constData());
        const Run levers = run(command(QStringLiteral("levers --json"), engine, flags));
        QVERIFY2(levers.code == 0, levers.err.constData());
        const qint64 sessions = plan.json().value(QStringLiteral("max_sessions")).toInteger(-1);
        QCOMPARE(levers.json().value(QStringLiteral("sessions_per_gpu_now")).toInteger(-2), sessions);
        // The pools take memory: 4 x 16 x 2,621,440 x 2 B of LoRA plus one layer's weights.
        QCOMPARE(plan.json().value(QStringLiteral("lora_bytes")).toInteger(), 4 * 16 * llamaLoraValuesPerRank * 2);
        QCOMPARE(plan.json().value(QStringLiteral("draft_weights_bytes")).toInteger(), llamaParamsPerLayer * 2);
        QVERIFY(sessions <= bare.json().value(QStringLiteral("max_sessions")).toInteger(-1));
    }

    // Calibration against a vLLM 0.11 log (tests/data/logs, Llama-3.1-8B on an H100) with
    // side pools on: the predicted KV memory falls by exactly the pools' bytes per GPU (a
// measured run: the figures the log prints are what the pools are sized from).
    void calibrateWithSidePools_data()
    {
        QTest::addColumn<QString>("flags");
        QTest::addColumn<qint64>("poolBytes");
        QTest::newRow("4 LoRA slots") << QStringLiteral("--max-loras 4") << 4 * 16 * llamaLoraValuesPerRank * 2;
        QTest::newRow("2 LoRA slots of rank 64, q and v") << QStringLiteral("--max-loras 2 --max-lora-rank 64 --lora-modules q,v")
                                                          << qint64(2) * 64 * (4'096 + 4'096 + 4'096 + 1'024) * 32 * 2;
        // The layer's weights at the target's bytes per parameter as loaded: the log's "Model
        // loading took 14.99 GiB" x 218,112,128 / 8,030,261,248 parameters.
        QTest::newRow("1 MTP layer") << QStringLiteral("--draft-layers 1 --num-speculative-tokens 2")
                                     << qint64(14.99 * 1073741824.0 * double(llamaParamsPerLayer) / 8'030'261'248.0);
    }

    void calibrateWithSidePools()
    {
        QFETCH(QString, flags);
        QFETCH(qint64, poolBytes);
        QString note; // the side pools' line among the warnings
        auto predicted = [&](const QStringList &f) {
            const Run r = run(command(QStringLiteral("calibrate"), {}, f + QStringList{QStringLiteral("--json")}));
            const QJsonArray rows = r.json().value(QStringLiteral("comparison")).toArray();
            note.clear();
            for (const QJsonValue &w : r.json().value(QStringLiteral("warnings")).toArray())
                if (w.toString().startsWith(QStringLiteral("Side pools")))
                    note = w.toString();
            // The KV memory from the log's measured terms, where the pools are taken off.
            return r.code == 0 && !rows.isEmpty() ? rows.first().toObject().value(QStringLiteral("from_measured")).toDouble() : -1.0;
        };
        const double bare = predicted({});
        QVERIFY2(note.isEmpty(), qPrintable(note)); // no pools, nothing to say
        const double with = predicted(flags.split(QLatin1Char(' ')));
        QVERIFY(bare > 0 && with > 0);
        // GiB printed to 4 decimals at most; the difference within half a MiB.
        QVERIFY2(std::abs((bare - with) * 1073741824.0 - double(poolBytes)) < 524288.0,
                 qPrintable(QStringLiteral("%1 GiB - %2 GiB vs %3 B").arg(bare).arg(with).arg(poolBytes)));
        // The output says what was taken off the measured log and that the log may hold it already.
        QVERIFY2(note.startsWith(QStringLiteral("Side pools from the flags, per GPU: ")) && note.contains(QStringLiteral("counted twice")),
                 qPrintable(note));
        const QString exact = QStringLiteral("(%1 B)").arg(QLocale(QLocale::English).toString(poolBytes));
        if (flags.contains(QStringLiteral("lora"))) {
            // LoRA alone: the slots' bytes, exactly, and the budget falls by the same.
            QVERIFY2(note.contains(QStringLiteral("LoRA slots ")) && note.count(exact) == 2, qPrintable(note + QStringLiteral(" / ") + exact));
        } else {
            // One MTP layer of the target's shape: 2 (K and V) x 8 KV heads x 128 x 2 B = 4,096 B a
            // token of its own KV, and K = 2 lookahead slots in every session.
            QVERIFY2(note.contains(QStringLiteral("draft weights ")) && note.contains(QStringLiteral("the draft's KV, 4,096 B per token"))
                         && note.contains(QStringLiteral("2 lookahead slots per session")),
                     qPrintable(note));
        }
    }

    // MoE and MLA models with LoRA, a draft or MTP, and images, refused from a flag, a
    // .headroom file and a plan --json reopened: each error names the input as that source
    // spells it, with the reason. `valid` plans; the file and the output then have `key`
    // set to `value`, which the flags reach with `bad`.
    void sources_data()
    {
        QTest::addColumn<QString>("valid");
        QTest::addColumn<QString>("bad");
        QTest::addColumn<QString>("fileKey");
        QTest::addColumn<QString>("planKey");
        QTest::addColumn<QJsonValue>("fileValue");
        QTest::addColumn<QJsonValue>("planValue");
        QTest::addColumn<QStringList>("fields"); // flag, file field, plan field
        QTest::addColumn<QString>("words");
        const QString mixtral = QStringLiteral("--model mixtral-8x7b-v0.1 --gpu h100-sxm-80gb --tp 2 --context 32768 --max-loras 2 --lora-modules q,k,v,o");
        QTest::newRow("Mixtral: LoRA on the experts")
            << mixtral << QStringLiteral("--lora-modules gate,up") << QStringLiteral("lora.modules") << QStringLiteral("inputs.lora_modules")
            << QJsonValue(QStringLiteral("gate,up")) << QJsonValue(QStringLiteral("gate,up"))
            << QStringList{QStringLiteral("--lora-modules"), QStringLiteral("lora.modules"), QStringLiteral("inputs.lora_modules")}
            << QStringLiteral("is a mixture of experts");
        const QString qwen = QStringLiteral("--model qwen3-30b-a3b --gpu h100-sxm-80gb --context 32768 --max-loras 4 --lora-modules q,v");
        QTest::newRow("Qwen3-30B-A3B: LoRA on every module")
            << qwen << QStringLiteral("--lora-modules q,k,v,o,gate,up,down") << QStringLiteral("lora.modules") << QStringLiteral("inputs.lora_modules")
            << QJsonValue(QStringLiteral("q,k,v,o,gate,up,down")) << QJsonValue(QStringLiteral("q,k,v,o,gate,up,down"))
            << QStringList{QStringLiteral("--lora-modules"), QStringLiteral("lora.modules"), QStringLiteral("inputs.lora_modules")}
            << QStringLiteral("is a mixture of experts");
        // DeepSeek-V3: MLA attention and routed experts, its MTP module as one draft layer;
        // LoRA slots on every module (the default) meet the MLA projections first.
        const QString deepseek = QStringLiteral("--model deepseek-v3 --gpu b200 --tp 8 --context 32768 --draft-layers 1 --num-speculative-tokens 1");
        QTest::newRow("DeepSeek-V3 with MTP: LoRA on MLA attention")
            << deepseek << QStringLiteral("--max-loras 1") << QStringLiteral("lora") << QStringLiteral("inputs.max_loras")
            << QJsonValue(QJsonObject{{QStringLiteral("max_loras"), 1}}) << QJsonValue(1)
            << QStringList{QStringLiteral("--lora-modules"), QStringLiteral("lora.modules"), QStringLiteral("inputs.lora_modules")}
            << QStringLiteral("has MLA attention");
        // A draft beside pipeline stages: planned at --pp 1 only.
        const QString llama = QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --draft-layers 1 --num-speculative-tokens 3");
        QTest::newRow("Llama: MTP layers under PP 2")
            << llama << QStringLiteral("--pp 2") << QStringLiteral("engine.pp") << QStringLiteral("inputs.pp") << QJsonValue(2) << QJsonValue(2)
            << QStringList{QStringLiteral("--draft-layers"), QStringLiteral("speculative.draft_layers"), QStringLiteral("inputs.draft_layers")}
            << QStringLiteral("is planned with --pp 1 only");
        // Gemma-3-27B-IT: 256 tokens per image (config.json mm_tokens_per_image); 200 images
        // are 51,200 tokens, past a 32,768-token context.
        const QString gemma = QStringLiteral("--model gemma-3-27b-it --gpu h100-sxm-80gb --engine vllm --context 32768 --images-per-request 2");
        QTest::newRow("Gemma-3: images past the context")
            << gemma << QStringLiteral("--images-per-request 200") << QStringLiteral("inputs.images_per_request")
            << QStringLiteral("inputs.images_per_request") << QJsonValue(200) << QJsonValue(200)
            << QStringList{QStringLiteral("--images-per-request"), QStringLiteral("inputs.images_per_request"), QStringLiteral("inputs.images_per_request")}
            << QStringLiteral("200 × 256 image tokens = 51,200 do not fit the context of 32,768 tokens");
    }

    void sources()
    {
        QFETCH(QString, valid);
        QFETCH(QString, bad);
        QFETCH(QString, fileKey);
        QFETCH(QString, planKey);
        QFETCH(QJsonValue, fileValue);
        QFETCH(QJsonValue, planValue);
        QFETCH(QStringList, fields);
        QFETCH(QString, words);
        const QStringList plan = {QStringLiteral("plan"), QStringLiteral("--json")};
        const QStringList validArgs = valid.split(QLatin1Char(' '));
        // The bad flags in place of the valid ones they name (a flag given twice is refused as such).
        const QStringList badArgs = bad.split(QLatin1Char(' '));
        QStringList replaced = validArgs;
        for (const QString &a : badArgs)
            if (const qsizetype i = a.startsWith(QLatin1String("--")) ? replaced.indexOf(a) : -1; i >= 0)
                replaced.remove(i, i + 1 < replaced.size() && !replaced.at(i + 1).startsWith(QLatin1String("--")) ? 2 : 1);
        QString fault = refusal(run(plan + replaced + badArgs), fields.at(0), words);
        QVERIFY2(fault.isEmpty(), qPrintable(QStringLiteral("from the flags: ") + fault));
        // Saved, the bad value written into the file, reopened.
        const QString saved = QDir(m_work.path()).filePath(QStringLiteral("valid.headroom"));
        const Run save = run(plan + validArgs + QStringList{QStringLiteral("--save"), saved});
        QVERIFY2(save.code == 0, save.err.constData());
        QFile f(saved);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString badFile = QDir(m_work.path()).filePath(QStringLiteral("bad.headroom"));
        QFile b(badFile);
        QVERIFY(b.open(QIODevice::WriteOnly));
        b.write(mutated(f.readAll(), fileKey, fileValue));
        b.close();
        fault = refusal(run(plan + QStringList{QStringLiteral("--scenario"), badFile}), fields.at(1), words);
        QVERIFY2(fault.isEmpty(), qPrintable(QStringLiteral("from the .headroom file: ") + fault));
        // The plan --json output, the bad value written into its inputs, reopened.
        const QString badPlan = QDir(m_work.path()).filePath(QStringLiteral("bad-plan.json"));
        QFile p(badPlan);
        QVERIFY(p.open(QIODevice::WriteOnly));
        p.write(mutated(save.out, planKey, planValue));
        p.close();
        fault = refusal(run(plan + QStringList{QStringLiteral("--scenario"), badPlan}), fields.at(2), words);
        QVERIFY2(fault.isEmpty(), qPrintable(QStringLiteral("from the plan --json output: ") + fault));
    }
};

HEADROOM_TEST_MAIN(TestSidePoolsAttack, QCoreApplication)
#include "tst_sidepoolsattack.moc"
