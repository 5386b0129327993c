// SPDX-License-Identifier: GPL-3.0-or-later
// Absurd inputs (issue 10): 10^15-token contexts, 10^6 sessions, 1 byte of
// GPU memory, NaN, infinities, -0, values beyond 32 and 64 bits, in every
// numeric flag, scenario-file field and config.json field. Each must give a
// clear error naming the field (exit 1, one "error: FIELD: ..." line), or a
// right answer (exit 0, figures that are not negative and agree with each
// other); never a wrapped number, a hang or a crash.
#include "common/clirun.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "core/inputranges.h"
#include "io/configimporter.h"
#include "io/scenariofile.h"
#include "plan/capacity.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <functional>

namespace {

using Run = HeadroomTest::CliRun;

// True when `text` names `field` as a whole name: "--tp:" and "layers[0].kind" name tp and kind,
// "output" and "kindly" do not (a substring test let a short field pass on any message).
bool namesField(const QString &text, const QString &field)
{
    const QRegularExpression whole(QStringLiteral("(?<![A-Za-z0-9_])") + QRegularExpression::escape(field) + QStringLiteral("(?![A-Za-z0-9_])"));
    return whole.match(text).hasMatch();
}

// The values every numeric input is tried with.
const QStringList absurdValues = {
    QStringLiteral("nan"),  QStringLiteral("inf"),    QStringLiteral("-inf"), QStringLiteral("-0"),
    QStringLiteral("0"),    QStringLiteral("1e-300"), QStringLiteral("0.5"),  QStringLiteral("-1"),
    QStringLiteral("1e15"), QStringLiteral("4294967297"), QStringLiteral("9223372036854775808"),
    QStringLiteral("9223372036854775807"), QStringLiteral("1e308"),
};

// JSON stand-ins: JSON has no NaN or infinity, so 1e308 and a string take their place.
const QList<QJsonValue> absurdJson = {QJsonValue(-0.0), QJsonValue(0), QJsonValue(0.5), QJsonValue(-1), QJsonValue(1e-300),
                                      QJsonValue(1e15), QJsonValue(4294967297.0), QJsonValue(9.3e18), QJsonValue(1e308), QJsonValue(-1e300),
                                      QJsonValue(QStringLiteral("nan")), QJsonValue(QStringLiteral("99999999999999999999"))};

} // namespace

class TestAbsurd : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_home;

    Run run(const QStringList &args)
    {
        return HeadroomTest::runHeadroom(args, m_home.path());
    }

    // Exit 1 with one error line naming `field`, or exit 0 with a plan whose
    // figures agree: max_sessions x session_bytes <= budget < (max_sessions + 1) x session_bytes.
    static QString judge(const Run &r, const QString &field)
    {
        if (r.code == -2)
            return QStringLiteral("hung (still running after 120 s)");
        if (r.code == -1)
            return QStringLiteral("crashed: ") + QString::fromUtf8(r.err.right(400));
        const QString err = QString::fromUtf8(r.err);
        if (r.code == 1) {
            const QStringList lines = err.split(QLatin1Char('\n'), Qt::SkipEmptyParts).filter(QStringLiteral("error: "));
            if (lines.size() != 1)
                return QStringLiteral("exit 1 without exactly one error line: ") + err;
            if (!namesField(lines.first(), field))
                return QStringLiteral("the error does not name %1: %2").arg(field, lines.first());
            return {};
        }
        if (r.code != 0)
            return QStringLiteral("exit %1: %2").arg(r.code).arg(err);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        return figures(o.value(QStringLiteral("kv_bytes_per_token")).toInteger(-1), o.value(QStringLiteral("session_bytes")).toInteger(-1),
                       o.value(QStringLiteral("reserved_session_bytes_per_gpu")).toInteger(-1),
                       o.value(QStringLiteral("kv_budget_bytes_per_gpu")).toInteger(-1), o.value(QStringLiteral("max_sessions")).toInteger(-1),
                       o.value(QStringLiteral("running_cap")).isDouble() ? std::optional<qint64>(o.value(QStringLiteral("running_cap")).toInteger()) : std::nullopt);
    }

    // Figures of an accepted plan: none negative, and max_sessions =
    // floor(KV budget per GPU / reserved bytes per session per GPU).
    static QString figures(qint64 perToken, qint64 session, qint64 reserved, qint64 budget, qint64 sessions, std::optional<qint64> runningCap)
    {
        if (perToken < 0 || session < 0 || reserved < 0 || budget < 0 || sessions < 0)
            return QStringLiteral("a negative or missing figure: %1 B/token, %2 B/session, %3 B reserved, %4 B budget, %5 sessions")
                .arg(perToken).arg(session).arg(reserved).arg(budget).arg(sessions);
        // The engine's running cap (running_cap: vLLM's max_num_seqs, llama.cpp's slots) holds it lower.
        if (reserved > 0 && sessions != std::min(budget / reserved, runningCap.value_or(std::numeric_limits<qint64>::max())))
            return QStringLiteral("max_sessions %1 disagrees with %2 B per session and a %3 B budget").arg(sessions).arg(reserved).arg(budget);
        return {};
    }

    // In-process: the scenario `read` gives, planned; an InputError or a failed
    // plan must name `field`, an accepted one must hold figures that agree and
    // save and open again as itself.
    static QString judgeModel(const std::function<Headroom::Scenario()> &read, const QString &field)
    {
        using namespace Headroom;
        try {
            const Scenario s = read();
            const CapacityResult r = computeCapacity(s);
            if (!r.ok)
                return namesField(r.error, field) ? QString() : QStringLiteral("the error does not name %1: %2").arg(field, r.error);
            if (const QString p = figures(r.kvBytesPerToken, r.sessionBytes, r.reservedSessionBytesPerGpu, r.kvBudgetBytesPerGpu, r.maxSessions,
                                               r.runningCap ? std::optional<qint64>(r.runningCap->sessions) : std::nullopt);
                !p.isEmpty())
                return p;
            try {
                // Through the bytes a file holds (doubles and decimal strings), as a user's save would go.
                const QJsonObject saved = QJsonDocument::fromJson(JsonNumbers::toJson(ScenarioFile::toJson(s, QStringLiteral("absurd")))).object();
                if (ScenarioFile::fromJson(saved, nullptr) != s)
                    return QStringLiteral("saved and opened again as a different scenario");
            } catch (const InputError &e) {
                return QStringLiteral("accepted, saved, then refused on opening: ") + e.text();
            }
        } catch (const InputError &e) {
            return namesField(e.text(), field) ? QString() : QStringLiteral("the error does not name %1: %2").arg(field, e.text());
        }
        return {};
    }

    static QStringList planArgs(const QString &extra)
    {
        return QStringList{QStringLiteral("plan"), QStringLiteral("--json")} + extra.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_home.isValid()); }

    void flags_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("field");
        // Every numeric flag of `plan` (headroom --help), each with the absurd values.
        const QString base = QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --context 1000");
        const QString vllm = base + QStringLiteral(" --engine vllm");
        const QString dist = QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --distribution lognormal:median=1000,p99=8000");
        const QString custom = QStringLiteral("--layers 32 --kv-heads 8 --head-dim 128 --gpu-memory 80GB --context 1000");
        const QList<QPair<const char *, QString>> flags = {
            {"--context", base}, {"--sessions", base}, {"--tp", base}, {"--params", base}, {"--kv-heads", base},
            {"--block-size", base}, {"--max-model-len", base}, {"--price", base}, {"--target-sessions", dist},
            {"--layers", custom}, {"--head-dim", custom}, {"--heads", custom},
            {"--gpu-memory-utilization", vllm}, {"--max-num-batched-tokens", vllm},
            {"--mem-fraction-static", base + QStringLiteral(" --engine sglang")},
            {"--free-gpu-memory-fraction", base + QStringLiteral(" --engine trtllm")},
            {"--tokens-per-block", base + QStringLiteral(" --engine trtllm")},
            {"--n-ctx", base + QStringLiteral(" --engine llamacpp")}, {"--n-seq", base + QStringLiteral(" --engine llamacpp")},
            {"--n-batch", base + QStringLiteral(" --engine ollama")},
            {"--length-scale", dist}, {"--retain", dist}, {"--risk", dist}, {"--margin", dist},
            {"--bandwidth-efficiency", dist}, {"--compute-utilization", dist}, {"--traffic-multiplier", dist},
            // A trace with arrivals: the multiplier scales its rate into Little's law (a 1e308 once gave null).
            {"--traffic-multiplier", QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --distribution trace:" HEADROOM_SAMPLES "/azure-llm-inference-2023-conv.csv")},
        };
        // The flag in place of the base's own value (a flag given twice is refused as such).
        auto with = [](const QString &args, const char *flag, const QString &v) {
            QStringList a = planArgs(args);
            if (const qsizetype i = a.indexOf(QString::fromLatin1(flag)); i >= 0)
                a.remove(i, 2);
            return a << QString::fromLatin1(flag) << v;
        };
        for (const auto &[flag, args] : flags)
            for (const QString &v : absurdValues)
                QTest::newRow(qPrintable(QStringLiteral("%1 %2%3").arg(QString::fromLatin1(flag), v, args.contains(QLatin1String("trace:")) ? QStringLiteral(" (trace)") : QString())))
                    << with(args, flag, v) << QString::fromLatin1(flag);
        // Sizes: a byte, a zettabyte, NaN and -0 with a unit.
        const QList<QPair<const char *, QString>> sizes = {
            {"--gpu-memory", QStringLiteral("--model llama-3.1-8b --context 1000")}, {"--weights", base}, {"--workspace", base},
            {"--kv-cache-memory", vllm}, {"--activation-peak", vllm}, {"--non-torch", vllm}, {"--cuda-graph", vllm},
            {"--free-memory-before", base + QStringLiteral(" --engine sglang --free-memory-after 60GB")},
            {"--free-memory-after", base + QStringLiteral(" --engine trtllm")},
        };
        for (const auto &[flag, args] : sizes)
            for (const char *v : {"1B", "0B", "-0GB", "nanGB", "infGB", "1e-300GB", "1e15TB", "9223372036854775807B", "0.4B"})
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QString::fromLatin1(flag), QString::fromLatin1(v))))
                    << with(args, flag, QString::fromLatin1(v))
                    // Free memory before and after loading are judged together.
                    << QString::fromLatin1(flag).replace(QLatin1String("-before"), QString()).replace(QLatin1String("-after"), QString());
        // Distributions at the edge of 64 bits and of the 2^53-token limit.
        for (const char *spec : {"lognormal:median=1000,p90=810001", "lognormal:median=1,p99=1e9", "lognormal:median=1e15,p99=2e15",
                                 "lognormal:median=1,p99=1.0000001", "lognormal:median=nan,p99=10", "quantiles:p50=1,p99=1e18,max=9e18",
                                 "quantiles:p50=-0,max=10", "fixed:1e15", "fixed:9007199254740993", "fixed:-0", "fixed:0"})
            QTest::newRow(spec) << planArgs(QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --distribution ") + QString::fromLatin1(spec))
                                << QStringLiteral("--distribution");
        // 10^15-token contexts, 10^6 sessions, 1 byte of GPU memory: the right answer or the field.
        QTest::newRow("10^15 tokens") << with(base, "--context", QStringLiteral("1e15")) << QStringLiteral("--context");
        QTest::newRow("10^6 sessions") << planArgs(base + QStringLiteral(" --sessions 1e6")) << QStringLiteral("--sessions");
        QTest::newRow("1 byte of GPU memory") << planArgs(QStringLiteral("--model llama-3.1-8b --gpu-memory 1B --context 1000"))
                                              << QStringLiteral("--gpu-memory");
        QTest::newRow("10^15 tokens scaled x 10^6") << planArgs(dist + QStringLiteral(" --length-scale 1e6 --retain 1e15"))
                                                    << QStringLiteral("--length-scale");
    }
    void flags()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, field);
        const QString problem = judge(run(args), field);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void oneRulePerInput_data()
    {
        QTest::addColumn<int>("input");
        for (int i = 0; i <= int(Headroom::RealInput::DecodingShare); ++i)
            QTest::newRow(Headroom::InputRanges::of(Headroom::RealInput(i)).flag) << i;
    }
    void oneRulePerInput()
    {
        // Issue 10, kind 5: what the command line accepts and saves, the file
        // reader opens again; just outside the range both refuse.
        QFETCH(int, input);
        const Headroom::RealRange &r = Headroom::InputRanges::of(Headroom::RealInput(input));
        const QString flag = QString::fromLatin1(r.flag);
        // An engine's own setting is given with that engine (any other refuses it).
        const QString engine = flag == QLatin1String("--gpu-memory-utilization") ? QStringLiteral(" --engine vllm")
                               : flag == QLatin1String("--mem-fraction-static")  ? QStringLiteral(" --engine sglang")
                               : flag == QLatin1String("--free-gpu-memory-fraction") ? QStringLiteral(" --engine trtllm")
                                                                                     : QString();
        const QString base = QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --distribution lognormal:median=1000,p99=8000") + engine;
        const QString saved = m_home.filePath(QStringLiteral("edge.headroom"));
        for (double edge : {r.low, r.high}) {
            const Run save = run(planArgs(base) << flag << QString::number(edge, 'g', 17) << QStringLiteral("--save") << saved);
            QVERIFY2(save.code == 0, save.err.constData());
            const Run reopen = run(planArgs(QStringLiteral("--scenario ") + saved));
            QVERIFY2(reopen.code == 0, reopen.err.constData());
        }
        for (double outside : {r.low > 0 ? r.low / 2 : -0.001, r.high * 1.5}) {
            const Run refused = run(planArgs(base) << flag << QString::number(outside, 'g', 17));
            QCOMPARE(refused.code, 1);
            QVERIFY2(refused.err.contains(r.flag), refused.err.constData());
        }
    }

    void oneCountRulePerInput_data()
    {
        QTest::addColumn<int>("input");
        for (int i = 0; i <= int(Headroom::CountInput::MaxLoraRank); ++i)
            QTest::newRow(Headroom::InputRanges::of(Headroom::CountInput(i)).flag) << i;
    }
    void oneCountRulePerInput()
    {
        // The side pools' whole numbers (issue #14) under the same rule: both ends save and
        // reopen, one past either end is refused by the flag's name.
        QFETCH(int, input);
        const Headroom::CountRange &r = Headroom::InputRanges::of(Headroom::CountInput(input));
        const QString flag = QString::fromLatin1(r.flag);
        QString base = QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --context 1000");
        if (Headroom::CountInput(input) == Headroom::CountInput::DraftLayers)
            base += QStringLiteral(" --num-speculative-tokens 1"); // a draft proposes tokens
        if (Headroom::CountInput(input) == Headroom::CountInput::MaxLoraRank)
            base += QStringLiteral(" --max-loras 1"); // a rank needs slots
        const QString saved = m_home.filePath(QStringLiteral("count.headroom"));
        for (qint64 edge : {r.low, r.high}) {
            const Run save = run(planArgs(base) << flag << QString::number(edge) << QStringLiteral("--save") << saved);
            QVERIFY2(save.code == 0, save.err.constData());
            const Run reopen = run(planArgs(QStringLiteral("--scenario ") + saved));
            QVERIFY2(reopen.code == 0, reopen.err.constData());
        }
        for (qint64 outside : {r.low - 1, r.high + 1}) {
            const Run refused = run(planArgs(base) << flag << QString::number(outside));
            QCOMPARE(refused.code, 1);
            QVERIFY2(refused.err.contains(r.flag), refused.err.constData());
        }
    }

    void arithmetic_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("says"); // what the error must say; empty: a right answer
        // Products of counts near 2^63 in the engine rules: each one overflowed signed 64 bits
        // (UB; --n-ctx 2^63 - 1 padded to 256 cells wrapped negative: "must not be negative").
        const QString base = QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --context 1000");
        const QString gemma = QStringLiteral("--model gemma-3-27b-it --gpu h100-sxm-80gb --context 1000");
        QTest::newRow("llama.cpp n_ctx 2^63-1") << planArgs(base + QStringLiteral(" --engine llamacpp --n-ctx 9223372036854775807"))
                                                << QStringLiteral("--n-ctx") << QStringLiteral("overflows 64 bits");
        QTest::newRow("ollama n_ctx 2^63-1") << planArgs(base + QStringLiteral(" --engine ollama --n-ctx 9223372036854775807"))
                                             << QStringLiteral("--n-ctx") << QStringLiteral("overflows 64 bits");
        // num_ctx x num_parallel: 1,000 x 10^6 fits; 10^13 x 10^6 does not, and n_ctx is the larger factor.
        QTest::newRow("ollama n_seq 10^6") << planArgs(gemma + QStringLiteral(" --engine ollama --n-ctx 1000 --n-seq 1000000"))
                                           << QString() << QString();
        QTest::newRow("ollama n_ctx x n_seq") << planArgs(base + QStringLiteral(" --engine ollama --n-ctx 1e13 --n-seq 1000000"))
                                              << QStringLiteral("--n-ctx") << QStringLiteral("token count overflows");
        QTest::newRow("ollama n_seq x n_ctx") << planArgs(base + QStringLiteral(" --engine ollama --n-ctx 1e6 --n-seq 1000000 --n-batch 1000000"))
                                              << QString() << QString();
        QTest::newRow("llama.cpp window x n_seq") << planArgs(gemma + QStringLiteral(" --engine llamacpp --n-ctx 1e15 --n-seq 1000000"))
                                                  << QStringLiteral("--n-ctx") << QStringLiteral("overflows 64 bits");
        QTest::newRow("vllm max_model_len 2^63-1") << planArgs(base + QStringLiteral(" --engine vllm --max-model-len 9223372036854775807"))
                                                   << QStringLiteral("--max-model-len") << QStringLiteral("overflows 64 bits");
        // Gemma 3's sliding layers: min(window - 1 + max_num_batched_tokens, max_model_len) summed past 2^63.
        QTest::newRow("vllm sliding max_model_len 2^63-1")
            << planArgs(gemma + QStringLiteral(" --engine vllm --images-per-request 0 --max-model-len 9223372036854775807 --max-num-batched-tokens 9223372036854775807"))
            << QString() << QString();
        // With images, vLLM's encoder cache is max_num_batched_tokens x hidden_size (5,376) x 2 B
        // (compute_mm_encoder_budget): past 2^63 it is refused by the flag that drives it.
        QTest::newRow("vllm encoder cache 2^63-1 tokens")
            << planArgs(gemma + QStringLiteral(" --engine vllm --max-num-batched-tokens 9223372036854775807"))
            << QStringLiteral("--max-num-batched-tokens") << QStringLiteral("overflows 64 bits");
        // A card of 2^63 - 1 bytes overflowed inside SGLang's and TensorRT-LLM's rules only (the
        // attacker's report): every engine refuses a card past 1 PiB alike, naming the limit.
        for (const char *engine : {"plain", "vllm", "sglang", "trtllm", "llamacpp", "ollama"})
            QTest::newRow(qPrintable(QStringLiteral("%1 card 2^63-1 B").arg(QLatin1String(engine))))
                << planArgs(base + QStringLiteral(" --engine %1 --gpu-memory 9223372036854775807B").arg(QLatin1String(engine)))
                << QStringLiteral("--gpu-memory") << QStringLiteral("at most 1 PiB (1,125,899,906,842,624 B) per card");
        QTest::newRow("card 1 PiB + 1 B") << planArgs(base + QStringLiteral(" --gpu-memory 1125899906842625B"))
                                          << QStringLiteral("--gpu-memory") << QStringLiteral("at most 1 PiB");
        // SGLang 0.5's automatic mem_fraction_static on a 2 GiB card: (2,048 - (512 + 2,048 x 1.5 +
        // 8 x 2 + 1/8 x 1,024)) / 2,048 < 0 (server_args.py): the card is named, not a flag never given.
        QTest::newRow("sglang automatic fraction on a 2 GiB card")
            << planArgs(QStringLiteral("--model llama-3.1-8b --gpu-memory 2GiB --weights 0.5GB --context 1000 --engine sglang"))
            << QStringLiteral("--gpu-memory") << QStringLiteral("too small for SGLang's automatic mem_fraction_static");
        // Found by the fresh round: TensorRT-LLM's decoder buffers (max_batch_size x (vocab x 8 +
        // max_seq_len x 4)) at a 2^53 + 1 token length blamed --max-batch-size, the smaller factor.
        QTest::newRow("trtllm max_model_len 2^53+1") << planArgs(base + QStringLiteral(" --engine trtllm --max-model-len 9007199254740993"))
                                                     << QStringLiteral("--max-model-len") << QStringLiteral("overflows 64 bits");
        // vLLM splits num_hidden_layers over the stages (get_pp_indices, vllm/distributed/utils.py):
        // 33 stages for Llama-3.1-8B's 32 layers leave one empty; 32 is the most.
        QTest::newRow("pp above layers") << planArgs(base + QStringLiteral(" --pp 33")) << QStringLiteral("--pp") << QStringLiteral("32 layers");
        QTest::newRow("pp = layers") << planArgs(base + QStringLiteral(" --pp 32")) << QString() << QString();
        // Expert parallelism spreads routed experts (vLLM FusedMoE): a dense model has none.
        QTest::newRow("ep on a dense model") << planArgs(base + QStringLiteral(" --ep 1000000")) << QStringLiteral("--ep")
                                             << QStringLiteral("dense model");
        // DeepSeek-V3: 256 routed experts per layer (config.json n_routed_experts).
        // MTP layers' share of the weights: 256 layers of a 32-layer model's 8 PB (--weights) is past 2^63 B;
        // it wrapped to "--draft-model: must not be negative" (a flag never given).
        QTest::newRow("draft layers x weights") << planArgs(base + QStringLiteral(" --weights 8000000TB --draft-layers 256 --num-speculative-tokens 4"))
                                                << QStringLiteral("--weights") << QStringLiteral("overflow 64 bits");
        // A session of 2^53 tokens of Llama-3.1-8B (131,072 B a token: 2 x 8 KV heads x 128 x 32
        // layers x 2 B) is 2^70 B. The distribution is no number: "--distribution: is too large"
        // had no subject; the message names the length that is.
        QTest::newRow("distribution's longest 2^53 tokens") << planArgs(QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --distribution fixed:9007199254740992"))
                                                            << QStringLiteral("--distribution")
                                                            << QStringLiteral("--distribution: its longest session, 9,007,199,254,740,992 tokens, is too large: the byte count overflows 64 bits");
        QTest::newRow("distribution scaled to 2^53 tokens") << planArgs(QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --distribution fixed:4503599627370496 --length-scale 2"))
                                                            << QStringLiteral("--distribution")
                                                            << QStringLiteral("--distribution: its longest session, 9,007,199,254,740,992 tokens, is too large");
        // One session of 10^14 tokens at Qwen3-Next's 12,288 B per token per GPU is 1.2e18 B per GPU,
        // within 64 bits, but 9.8e18 B across the replica's 8 GPUs: the host tier's figure (no host
        // holds it) refused the plan naming --host-kv-memory, a flag never given (attacker's report).
        QTest::newRow("session x replica past 2^63 B") << planArgs(QStringLiteral("--model qwen3-next-80b-a3b-instruct --gpu b200 --tp 8 --context 100000000000000"))
                                                       << QString() << QString();
        QTest::newRow("ep above experts") << planArgs(QStringLiteral("--model deepseek-v3 --gpu h100-sxm-80gb --context 1000 --tp 8 --ep 257"))
                                          << QStringLiteral("--ep") << QStringLiteral("256 experts");
    }
    void arithmetic()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, field);
        QFETCH(QString, says);
        const Run r = run(args);
        if (field.isEmpty()) {
            QVERIFY2(r.code == 0, r.err.constData());
            QVERIFY2(judge(r, field).isEmpty(), qPrintable(judge(r, field)));
            return;
        }
        QVERIFY2(r.code == 1, r.out.left(400).constData());
        QVERIFY2(judge(r, field).isEmpty(), qPrintable(judge(r, field)));
        QVERIFY2(r.err.contains(says.toUtf8()), r.err.constData());
    }

    void namedAsGiven_data()
    {
        QTest::addColumn<int>("input");
        for (int i = 0; i < Headroom::inputCount; ++i)
            QTest::newRow(Headroom::InputRanges::spelling(Headroom::Input(i)).fileKey) << i;
    }
    void namedAsGiven()
    {
        // Issue 10: an error names the input as the place it came from spells it. Every
        // input, -1 from the command line names its flag; -1 in a .headroom file names the
        // file's field (section.key), however the file's value is found wrong.
        QFETCH(int, input);
        const Headroom::InputSpelling &sp = Headroom::InputRanges::spelling(Headroom::Input(input));
        const QString base = QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --context 1000");
        const QString flag = QString::fromLatin1(sp.flag);
        QStringList args = planArgs(base);
        if (const qsizetype i = args.indexOf(flag); i >= 0) // in place of the base's own value: a flag is given once
            args.remove(i, 2);
        const Run byFlag = run(args << flag << QStringLiteral("-1"));
        QCOMPARE(byFlag.code, 1);
        QVERIFY2(judge(byFlag, flag).isEmpty(), qPrintable(judge(byFlag, flag)));

        const QString saved = m_home.filePath(QStringLiteral("named.headroom"));
        const Run save = run(planArgs(base + QStringLiteral(" --engine llamacpp --save ")) << saved);
        QVERIFY2(save.code == 0, save.err.constData());
        QFile in(saved);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject o = QJsonDocument::fromJson(in.readAll()).object();
        const QStringList key = QString::fromLatin1(sp.fileKey).split(QLatin1Char('.'));
        if (key.size() == 1) {
            o.insert(key.at(0), -1);
        } else {
            QJsonObject part = o.value(key.at(0)).toObject();
            part.insert(key.at(1), -1);
            o.insert(key.at(0), part);
        }
        const QString problem = judgeModel([&] { return Headroom::ScenarioFile::fromJson(o, nullptr); }, QString::fromLatin1(sp.fileKey));
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void namedAfterReading_data()
    {
        QTest::addColumn<QString>("section");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("field");
        // Values a .headroom file holds that its reader takes and the plan then refuses:
        // the refusal names the file's field, not the flag it stands for.
        QTest::newRow("sessions 4e18") << "inputs" << "sessions" << QJsonValue(4e18) << "inputs.sessions";
        QTest::newRow("context 1e18") << "inputs" << "context_tokens" << QJsonValue(1e18) << "inputs.context_tokens";
        QTest::newRow("runtime reserve 2^63-1") << "inputs" << "runtime_reserve_bytes" << QJsonValue(QStringLiteral("9223372036854775807"))
                                                << "inputs.runtime_reserve_bytes";
        QTest::newRow("gpu memory 0") << "inputs" << "gpu_memory_bytes" << QJsonValue(0) << "inputs.gpu_memory_bytes";
        // Llama-3.1-8B: 32 attention heads (config.json); TP 3 divides neither them nor the 8 KV heads.
        QTest::newRow("tp 3") << "inputs" << "tp" << QJsonValue(3) << "inputs.tp";
        QTest::newRow("pp 33 of 32 layers") << "engine" << "pp" << QJsonValue(33) << "engine.pp";
        QTest::newRow("ep on a dense model") << "engine" << "ep" << QJsonValue(8) << "engine.ep";
        QTest::newRow("n_ctx 2^63-1") << "engine" << "n_ctx" << QJsonValue(QStringLiteral("9223372036854775807")) << "engine.n_ctx";
    }
    void namedAfterReading()
    {
        QFETCH(QString, section);
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        QFETCH(QString, field);
        const QString saved = m_home.filePath(QStringLiteral("after.headroom"));
        const Run save = run(planArgs(QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --context 1000 --engine llamacpp --save ")) << saved);
        QVERIFY2(save.code == 0, save.err.constData());
        QFile in(saved);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject o = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject part = o.value(section).toObject();
        part.insert(key, value);
        o.insert(section, part);
        // Refused by the reader or by the plan: either way the file's field is named.
        QString named = QStringLiteral("(accepted)"), text;
        try {
            const Headroom::CapacityResult r = Headroom::computeCapacity(Headroom::ScenarioFile::fromJson(o, nullptr));
            if (!r.ok)
                named = r.errorField, text = r.error;
        } catch (const Headroom::InputError &e) {
            named = e.field(), text = e.text();
        }
        QVERIFY2(named == field, qPrintable(text));
        // The same file, opened by the command line, with a flag for the same input: the flag is named.
        in.close();
        QFile out(saved);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(QJsonDocument(o).toJson());
        out.close();
        const Run fromFile = run(planArgs(QStringLiteral("--scenario ")) << saved);
        QCOMPARE(fromFile.code, 1);
        QVERIFY2(fromFile.err.startsWith(QByteArray(QByteArray("error: ") + field.toUtf8() + ':')), fromFile.err.constData());
    }

    void layerSum()
    {
        // 220 groups of 10^7 layers each (every group within the reader's 10^7) summed to
        // 2.2 x 10^9 in an int: "layers": -2094967296 in the plan's inputs echo. The whole
        // model is held to 10^7 layers, the group's field named.
        const QString saved = m_home.filePath(QStringLiteral("layers.headroom"));
        const Run save = run(planArgs(QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --context 1000 --save ")) << saved);
        QVERIFY2(save.code == 0, save.err.constData());
        QFile in(saved);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject o = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject model = o.value(QStringLiteral("model")).toObject();
        QJsonObject g = model.value(QStringLiteral("groups")).toArray().at(0).toObject();
        QJsonArray groups;
        for (int i = 0; i < 220; ++i) {
            g.insert(QStringLiteral("count"), 10'000'000);
            g.insert(QStringLiteral("head_dim_k"), 1 + i % 200);
            groups.append(g);
        }
        model.insert(QStringLiteral("groups"), groups);
        model.insert(QStringLiteral("num_hidden_layers"), 0);
        o.insert(QStringLiteral("model"), model);
        try {
            Headroom::ScenarioFile::fromJson(o, nullptr);
            QFAIL("2.2 x 10^9 layers accepted");
        } catch (const Headroom::InputError &e) {
            // The second group of 10^7 layers takes the whole past 10^7: that group is named.
            QCOMPARE(e.field(), QStringLiteral("model.groups[1].count"));
        }
    }

    void namedByLogLine_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("field");
        // A log's figure the plan refuses is named by the log's line, in the engine's words.
        // Llama-3.1-8B's 32 attention heads are not split 3 ways (config.json num_attention_heads).
        QTest::newRow("TP 3") << "tensor_parallel_size=1," << "tensor_parallel_size=3,"
                              << "LOGFILE line 1 (tensor_parallel_size=3)";
        // A card of 0 GiB is no figure: refused as the log is read, naming the line.
        QTest::newRow("0 GiB card") << "Free memory on device (78.57/79.18 GiB)" << "Free memory on device (0.00/0.00 GiB)"
                                    << "LOGFILE: line 4: the card's total memory is 0";
    }
    void namedByLogLine()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, field);
        QFile f(QStringLiteral(HEADROOM_TEST_DATA "/logs/vllm-0.11-llama-3.1-8b-h100.log"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QString text = QString::fromUtf8(f.readAll());
        QVERIFY2(text.contains(from), qPrintable(from));
        text.replace(from, to);
        const QString path = m_home.filePath(QStringLiteral("bad.log"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(text.toUtf8());
        out.close();
        const Run r = run({QStringLiteral("calibrate"), path, QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"),
                           QStringLiteral("--gpu"), QStringLiteral("h100-sxm-80gb")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.startsWith(QByteArray(QByteArray("error: ") + field.toUtf8())), r.err.constData());
        QVERIFY2(!r.err.contains("--gpu-memory") && !r.err.contains("--tp"), r.err.constData());
    }

    void rightAnswers()
    {
        // 10^6 sessions of 1,000 tokens: 131,072 B per token (2 x 8 KV heads x
        // 128 x 2 B x 32 layers, Llama-3.1-8B's config.json) x 1,008 tokens
        // (1,000 rounded up to 16-token blocks) = 132,120,576 B per session;
        // 10^6 of them need 132 TB, more than an 80 GB card holds.
        const Run many = run(planArgs(QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --context 1000 --sessions 1e6")));
        QCOMPARE(many.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(many.out).object();
        QCOMPARE(o.value(QStringLiteral("session_bytes")).toInteger(), qint64(132'120'576));
        QCOMPARE(o.value(QStringLiteral("fits")).toBool(true), false);
        // 1 byte of memory holds no weights: no session fits (or the card is refused by name).
        const Run tiny = run(planArgs(QStringLiteral("--model llama-3.1-8b --gpu-memory 1B --context 1000")));
        QVERIFY2(judge(tiny, QStringLiteral("--gpu-memory")).isEmpty(), tiny.err.constData());
        if (tiny.code == 0)
            QCOMPARE(QJsonDocument::fromJson(tiny.out).object().value(QStringLiteral("max_sessions")).toInteger(-1), qint64(0));
    }

    void scenarioFields_data()
    {
        QTest::addColumn<QString>("section");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value");
        // Every numeric field a saved scenario holds (written by plan --save below).
        const QList<QPair<const char *, const char *>> fields = {
            {"inputs", "tp context_tokens sessions kv_heads_override gpu_memory_bytes weights_bytes workspace_bytes runtime_reserve_bytes activation_bytes max_model_len price_usd_per_gpu_hour length_scale retain_tokens risk margin target_sessions bandwidth_efficiency compute_utilization traffic_multiplier"},
            {"engine", "kv_cache_memory free_memory_before free_memory_after activation_peak non_torch cuda_graph mem_fraction_static free_gpu_memory_fraction max_num_batched_tokens n_ctx n_seq n_batch tokens_per_block gpu_memory_utilization block_size"},
            {"model", "num_attention_heads num_key_value_heads head_dim hidden_size num_hidden_layers intermediate_size vocab_size total_params active_params checkpoint_bytes max_position_embeddings num_experts num_experts_per_tok"},
            {"gpu", "memory_bytes bandwidth_bytes_per_s bf16_dense_tflops host_link_bytes_per_s price_usd_per_hour"},
            {"distribution", "kind arrival_rate_per_second mean_output_tokens requests"},
            {"model.groups", "kind count kv_heads head_dim_k head_dim_v window latent_dim rope_dim"},
            {"distribution.lengths", "0"},
        };
        for (const auto &[section, keys] : fields)
            for (const QString &key : QString::fromLatin1(keys).split(QLatin1Char(' ')))
                for (const QJsonValue &v : absurdJson)
                    QTest::newRow(qPrintable(QStringLiteral("%1.%2 = %3").arg(QString::fromLatin1(section), key,
                                                                               QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)))))
                        << QString::fromLatin1(section) << key << v;
    }
    void scenarioFields()
    {
        QFETCH(QString, section);
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        const QString saved = m_home.filePath(QStringLiteral("base.headroom"));
        if (!QFile::exists(saved)) {
            const Run r = run(planArgs(QStringLiteral("--model llama-3.1-8b --gpu h100-sxm-80gb --distribution lognormal:median=1000,p99=8000 "
                                                      "--price 2 --save ") + saved));
            QVERIFY2(r.code == 0, r.err.constData());
        }
        QFile in(saved);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject o = QJsonDocument::fromJson(in.readAll()).object();
        // Set the field (in the first layer group, or the first length).
        if (section == QLatin1String("model.groups")) {
            QJsonObject model = o.value(QStringLiteral("model")).toObject();
            QJsonArray groups = model.value(QStringLiteral("groups")).toArray();
            QJsonObject g = groups.at(0).toObject();
            g.insert(key, value);
            groups.replace(0, g);
            model.insert(QStringLiteral("groups"), groups);
            o.insert(QStringLiteral("model"), model);
        } else if (section == QLatin1String("distribution.lengths")) {
            QJsonObject d = o.value(QStringLiteral("distribution")).toObject();
            QJsonArray lengths = d.value(QStringLiteral("lengths")).toArray();
            lengths.replace(0, value);
            d.insert(QStringLiteral("lengths"), lengths);
            o.insert(QStringLiteral("distribution"), d);
        } else {
            QJsonObject part = o.value(section).toObject();
            part.insert(key, value);
            o.insert(section, part);
        }
        // The field is named as the file spells it (never the flag it stands for), or
        // the plan is a right answer that saves and opens again.
        const QString field = section.startsWith(QLatin1String("distribution.")) ? QStringLiteral("distribution") : key;
        const QString problem = judgeModel([&] { return Headroom::ScenarioFile::fromJson(o, nullptr); }, field);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void configFields_data()
    {
        QTest::addColumn<QString>("config");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value");
        // Every numeric field of a dense, an MoE + Mamba, an MLA and a DeltaNet config.
        for (const char *name : {"llama-3.1-8b", "jamba-v0.1", "deepseek-v3", "qwen3-next-80b-a3b-instruct", "gemma-3-27b-it"}) {
            QFile f(QStringLiteral(HEADROOM_TEST_DATA "/%1/config.json").arg(QString::fromLatin1(name)));
            QVERIFY(f.open(QIODevice::ReadOnly));
            QJsonObject c = QJsonDocument::fromJson(f.readAll()).object();
            if (c.value(QStringLiteral("text_config")).isObject())
                c = c.value(QStringLiteral("text_config")).toObject();
            for (auto it = c.begin(); it != c.end(); ++it)
                if (it.value().isDouble())
                    for (const QJsonValue &v : absurdJson)
                        QTest::newRow(qPrintable(QStringLiteral("%1 %2 = %3").arg(QString::fromLatin1(name), it.key(),
                                                                                   QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)))))
                            << QString::fromLatin1(name) << it.key() << v;
        }
    }
    void configFields()
    {
        QFETCH(QString, config);
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        QFile f(QStringLiteral(HEADROOM_TEST_DATA "/%1/config.json").arg(config));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
        if (root.value(QStringLiteral("text_config")).isObject()) {
            QJsonObject c = root.value(QStringLiteral("text_config")).toObject();
            c.insert(key, value);
            root.insert(QStringLiteral("text_config"), c);
        } else {
            root.insert(key, value);
        }
        const QString path = m_home.filePath(QStringLiteral("config.json"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(QJsonDocument(root).toJson());
        out.close();
        const QString problem = judgeModel(
            [&] {
                Headroom::Scenario s;
                s.model = Headroom::ConfigImporter::fromFile(path, QStringLiteral("--model"));
                s.model.totalParams = s.model.activeParams = 8'000'000'000; // --params 8e9: weights whatever the shapes
                s.gpu = Headroom::GpuSpec::custom(192 * Headroom::Units::GB);
                s.contextTokens = 1000;
                return s;
            },
            key);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
};

QTEST_GUILESS_MAIN(TestAbsurd)
#include "tst_absurd.moc"
