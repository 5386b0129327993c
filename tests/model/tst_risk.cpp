// SPDX-License-Identifier: GPL-3.0-or-later
// Planning against a distribution of session lengths: exact small cases
// (a two-point law gives a binomial tail), the saddlepoint and the tilted
// inversion against exact convolution, a Monte Carlo cross-check, both Azure traces end to end
// (figures computed from the CSV files independently), the retention cap and
// bad trace files.
#include "plan/capacity.h"
#include "core/inputerror.h"
#include "core/units.h"
#include "lengths/lengthdistribution.h"
#include "lengths/normaldistribution.h"
#include "lengths/overflowrisk.h"

#include "testshapes.h"

#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <optional>
#include "common/headroomtest.h"
#include <algorithm>
#include <cmath>
#include <functional>

using namespace Headroom;

namespace {

ModelShape llama8b()
{
    // Llama-3.1-8B config.json: 32 layers, 8 KV heads, head_dim 128 -> 131,072 B per token at bf16.
    ModelShape m;
    m.attentionHeads = 32;
    m.kvHeads = 8;
    LayerGroup g;
    g.kvHeads = 8;
    g.headDimK = g.headDimV = 128;
    m.addLayers(g, 32);
    return m;
}

const QString conv = QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-conv.csv");
const QString code = QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-code.csv");

LengthDistribution twoPoint(qint64 shortLen, qint64 longLen, double q)
{
    LengthDistribution d;
    d.kind = LengthDistribution::Kind::Trace;
    d.lengths = {shortLen, longLen};
    d.probabilities = {1 - q, q};
    return d;
}

// P(Binomial(n, q) > m), summed term by term.
double binomialTail(int n, double q, int m)
{
    double tail = 0;
    for (int k = m + 1; k <= n; ++k)
        tail += std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(q)
                         + (n - k) * std::log1p(-q));
    return tail;
}

// The share of `trials` seeded draws of `sessions` sessions from `d` whose KV bytes exceed `budget`.
double monteCarloOverflow(const LengthDistribution &d, const KvCost &cost, qint64 budget, qint64 sessions, int trials, quint32 seed)
{
    QVector<double> cdf;
    double c = 0;
    for (double q : d.probabilities)
        cdf << (c += q);
    QRandomGenerator rng(seed);
    int over = 0;
    for (int t = 0; t < trials; ++t) {
        qint64 sum = 0;
        for (qint64 i = 0; i < sessions; ++i) {
            const int j = int(std::lower_bound(cdf.begin(), cdf.end(), rng.generateDouble()) - cdf.begin());
            sum += cost.sessionBytes(d.lengths.at(std::min(j, int(d.lengths.size()) - 1)), true);
        }
        over += sum > budget;
    }
    return double(over) / trials;
}

} // namespace

class TestRisk : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void normalQuantile()
    {
        // Standard normal tables: z(0.99) = 2.326347874, z(0.90) = 1.281551566, z(1e-6) = -4.753424309.
        QVERIFY(std::abs(Normal::quantile(0.99) - 2.326347874) < 1e-8);
        QVERIFY(std::abs(Normal::quantile(0.90) - 1.281551566) < 1e-8);
        QVERIFY(std::abs(Normal::quantile(1e-6) + 4.753424309) < 1e-8);
    }

    void twoPointIsBinomial_data()
    {
        QTest::addColumn<int>("n");
        QTest::newRow("N = 10") << 10;
        QTest::newRow("N = 40") << 40;
        QTest::newRow("N = 100") << 100;
    }
    void twoPointIsBinomial()
    {
        // Short sessions of 1,600 tokens (100 blocks x 2 MiB = 209,715,200 B), long ones of
        // 16,000 (2,097,152,000 B) with probability 0.1. With N sessions and a budget B, the
        // pool overflows when more than m = floor((B - N x short) / (long - short)) are long.
        QFETCH(int, n);
        const KvCost cost(llama8b(), Dtype::BF16, 1, 16);
        const OverflowRisk risk(twoPoint(1600, 16000, 0.1), cost, 0);
        const qint64 shortB = 209'715'200, longB = 2'097'152'000;
        const qint64 budget = qint64(n) * shortB + qint64(std::max(1, n / 5)) * (longB - shortB) + 12345;
        const int m = int((budget - qint64(n) * shortB) / (longB - shortB));
        const double expected = binomialTail(n, 0.1, m);
        QVERIFY2(std::abs(risk.exactOverflow(n, budget) - expected) < 1e-12, qPrintable(QString::number(risk.exactOverflow(n, budget))));
        const double sp = risk.saddlepointOverflow(n, budget);
        QVERIFY2(std::abs(sp - expected) / expected < 0.08, qPrintable(QStringLiteral("%1 vs %2").arg(sp).arg(expected)));
    }

    void saddlepointAgreesWithExactConvolution_data()
    {
        QTest::addColumn<double>("scale");
        QTest::addColumn<double>("eps");
        QTest::newRow("conversation trace x8, eps 1e-2") << 8.0 << 1e-2;
        QTest::newRow("conversation trace x8, eps 1e-4") << 8.0 << 1e-4;
        QTest::newRow("conversation trace x8, eps 1e-6") << 8.0 << 1e-6;
    }
    void saddlepointAgreesWithExactConvolution()
    {
        QFETCH(double, scale);
        QFETCH(double, eps);
        const KvCost cost(llama8b(), Dtype::BF16, 1, 16);
        const OverflowRisk risk(LengthDistribution::fromTrace(conv, QStringLiteral("trace")).scaled(scale, QStringLiteral("--length-scale")), cost, 0);
        const qint64 budget = 20'000'000'000;
        // The count is right to the session against exact convolution.
        const qint64 n = risk.sessionsAtRisk(budget, eps).sessions;
        const double above = risk.exactOverflow(n + 1, budget);
        QVERIFY(risk.exactOverflow(n, budget) <= eps);
        QVERIFY(above > eps);
        // The two exact methods (direct convolution, tilted inversion) agree, within the inversion's bound.
        const auto inverted = risk.invertedOverflow(n + 1, budget);
        QVERIFY(inverted);
        QVERIFY2(inverted->error < 1e-9 * eps, qPrintable(QString::number(inverted->error)));
        // exactOverflow takes 1 - (the mass below the threshold): cancellation costs it up to
        // (thresholds + products) x 2^-52, about 1e-12 here.
        QVERIFY2(std::abs(inverted->value - above) <= inverted->error + 1e-12,
                 qPrintable(QStringLiteral("%1 vs %2").arg(inverted->value, 0, 'g', 17).arg(above, 0, 'g', 17)));
    }

    void fewSessionsByTruncatedPowers_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<qint64>("budget");
        QTest::addColumn<double>("eps");
        // Llama-3.1-8B, 16-token blocks of 2 MiB: thresholds of 700-1,900 blocks, 2-14 sessions.
        QTest::newRow("conversation trace, 3 GB, eps 1e-2") << conv << qint64(3'000'000'000) << 1e-2;
        QTest::newRow("conversation trace, 4 GB, eps 1e-2") << conv << qint64(4'000'000'000) << 1e-2;
        QTest::newRow("conversation trace, 4 GB, eps 1e-4") << conv << qint64(4'000'000'000) << 1e-4;
        QTest::newRow("code trace, 3 GB, eps 1e-2") << code << qint64(3'000'000'000) << 1e-2;
    }
    void fewSessionsByTruncatedPowers()
    {
        // A few sessions under a small threshold are settled by the truncated law's powers (FFT
        // products); their tails match direct convolution (exactOverflow, sums of non-negative
        // terms: within (N x sizes + s) x 2^-52 of exact) within the bound they give, a bound
        // that is itself small (not vacuous), and the count is right to the session.
        QFETCH(QString, trace);
        QFETCH(qint64, budget);
        QFETCH(double, eps);
        const KvCost cost(llama8b(), Dtype::BF16, 1, 16);
        const OverflowRisk risk(LengthDistribution::fromTrace(trace, QStringLiteral("trace")), cost, 0);
        const RiskCount count = risk.sessionsAtRisk(budget, eps);
        const qint64 n = count.sessions;
        QVERIFY2(n >= 2 && n <= 20, qPrintable(QString::number(n)));
        QCOMPARE(count.method, RiskCount::Method::Convolution);
        const double at = risk.exactOverflow(n, budget), above = risk.exactOverflow(n + 1, budget);
        QVERIFY2(at <= eps && above > eps, qPrintable(QStringLiteral("%1 %2").arg(at).arg(above)));
        QVERIFY2(count.errorBound > 0 && count.errorBound < 1e-9, qPrintable(QString::number(count.errorBound)));
        const double direct = 1e-11; // exactOverflow's own rounding here: (N x 354 + 2,000) x 2^-52 < 1e-12, with margin
        QVERIFY2(std::abs(count.tailAt - at) <= count.errorBound + direct,
                 qPrintable(QStringLiteral("%1 vs %2").arg(count.tailAt, 0, 'g', 17).arg(at, 0, 'g', 17)));
        QVERIFY2(std::abs(count.tailAbove - above) <= count.errorBound + direct,
                 qPrintable(QStringLiteral("%1 vs %2").arg(count.tailAbove, 0, 'g', 17).arg(above, 0, 'g', 17)));
    }

    void saddlepointTailAtLargeN_data()
    {
        QTest::addColumn<qint64>("budget");
        QTest::addColumn<double>("eps");
        QTest::newRow("conversation trace, 30 GB, eps 1e-2") << qint64(30'000'000'000) << 1e-2;
        QTest::newRow("conversation trace, 30 GB, eps 1e-6") << qint64(30'000'000'000) << 1e-6;
        QTest::newRow("conversation trace, 65 GB, eps 1e-6") << qint64(65'000'000'000) << 1e-6;
    }
    void saddlepointTailAtLargeN()
    {
        // Where the count is in the hundreds the exact tail (tilted inversion) settles it at the
        // boundary; the saddlepoint that brackets it agrees with it to well under 1%.
        QFETCH(qint64, budget);
        QFETCH(double, eps);
        const KvCost cost(llama8b(), Dtype::BF16, 1, 16);
        const OverflowRisk risk(LengthDistribution::fromTrace(conv, QStringLiteral("trace")), cost, 0);
        const RiskCount count = risk.sessionsAtRisk(budget, eps);
        const qint64 n = count.sessions;
        QVERIFY(n > 100);
        QCOMPARE(count.method, RiskCount::Method::Inversion);
        // The count sits at the inversion's boundary (the inversion itself is checked against an
        // independent FFT convolution in tst_tailexact).
        const double exactAbove = risk.invertedOverflow(n + 1, budget)->value;
        const double exactAt = risk.invertedOverflow(n, budget)->value;
        QVERIFY2(exactAt <= eps && exactAbove > eps, qPrintable(QStringLiteral("%1 %2").arg(exactAt).arg(exactAbove)));
        const double sp = risk.saddlepointOverflow(n + 1, budget);
        QVERIFY2(std::abs(sp - exactAbove) / exactAbove < 0.005, qPrintable(QStringLiteral("%1 vs %2").arg(sp).arg(exactAbove)));
    }

    void monteCarlo()
    {
        // 100,000 seeded draws of N sessions from the code trace; 4 standard errors of tolerance.
        const KvCost cost(llama8b(), Dtype::BF16, 1, 16);
        const LengthDistribution d = LengthDistribution::fromTrace(code, QStringLiteral("trace"));
        const OverflowRisk risk(d, cost, 0);
        const int n = 60;
        const qint64 budget = 18'500'000'000;
        const double p = risk.overflowProbability(n, budget);
        QVERIFY(p > 0.01 && p < 0.5);
        QVector<double> cdf;
        double c = 0;
        for (double q : d.probabilities)
            cdf << (c += q);
        QRandomGenerator rng(20231116);
        const int trials = 100000;
        int over = 0;
        for (int t = 0; t < trials; ++t) {
            qint64 sum = 0;
            for (int i = 0; i < n; ++i) {
                const double u = rng.generateDouble();
                const int j = int(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
                sum += cost.sessionBytes(d.lengths.at(std::min(j, int(d.lengths.size()) - 1)), true);
            }
            over += sum > budget;
        }
        const double mc = double(over) / trials, se = std::sqrt(p * (1 - p) / trials);
        QVERIFY2(std::abs(mc - p) < 4 * se, qPrintable(QStringLiteral("model %1, Monte Carlo %2").arg(p).arg(mc)));
    }

    void azureTraces_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<qint64>("rows");
        QTest::addColumn<double>("mean");
        QTest::addColumn<qint64>("p50");
        QTest::addColumn<qint64>("p99");
        QTest::addColumn<qint64>("max");
        QTest::addColumn<double>("above4096");
        QTest::addColumn<double>("dropped4096");
        QTest::addColumn<double>("rate");
        // Computed from the CSV files by tests/tools/azure_trace_figures.py (standard-library
        // Python, no Headroom code; run it to recheck): context + generated per row, nearest-rank
        // quantiles, arrival rate = (rows - 1) / (last - first TIMESTAMP).
        QTest::newRow("Azure conversation trace 2023") << conv << qint64(19366) << 1365.8233502 << qint64(1412) << qint64(4259)
                                                       << qint64(14089) << 0.0832386657 << 14.3967262 << 5.5301364;
        QTest::newRow("Azure code trace 2023") << code << qint64(8819) << 2075.7308085 << qint64(1493) << qint64(7462) << qint64(7841)
                                               << 0.1425331670 << 291.0756322 << 2.5663950;
    }
    void azureTraces()
    {
        QFETCH(QString, path);
        QFETCH(qint64, rows);
        QFETCH(double, mean);
        QFETCH(qint64, p50);
        QFETCH(qint64, p99);
        QFETCH(qint64, max);
        QFETCH(double, above4096);
        QFETCH(double, dropped4096);
        QFETCH(double, rate);
        const LengthDistribution d = LengthDistribution::fromTrace(path, QStringLiteral("trace"));
        QCOMPARE(d.requests, rows);
        QVERIFY(std::abs(d.mean() - mean) < 1e-6);
        QCOMPARE(d.quantile(0.5), p50);
        QCOMPARE(d.quantile(0.99), p99);
        QCOMPARE(d.maximum(), max);
        QVERIFY(std::abs(d.shareAbove(4096) - above4096) < 1e-9);
        QVERIFY(std::abs(d.meanDropped(4096) - dropped4096) < 1e-6);
        QVERIFY2(std::abs(d.arrivalRatePerSecond / rate - 1) < 1e-4, qPrintable(QString::number(d.arrivalRatePerSecond)));
        QVERIFY(!d.promptLengths.isEmpty());

        // End to end on Llama-3.1-8B with a 60 GB budget: worst case <= at risk <= at mean.
        Scenario s;
        s.model = llama8b();
        s.model.totalParams = s.model.activeParams = 8'000'000'000;
        s.gpu = GpuSpec::custom(80'000'000'000);
        s.workspaceBytes = 4'000'000'000;
        s.distribution = d;
        s.contextTokens = d.maximum();
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.distribution.sessionsWorstCase, qint64(60'000'000'000) / (Units::ceilDiv(max, 16) * 16 * 131072));
        QVERIFY(r.distribution.sessionsWorstCase <= r.distribution.sessionsAtRisk);
        QVERIFY(r.distribution.sessionsAtRisk <= r.distribution.sessionsAtMean);
        QVERIFY(r.distribution.admissionLimit <= r.distribution.sessionsAtRisk);
        // Admission by prompt lets in more sessions than their grown size holds at 1%.
        QVERIFY(r.distribution.admissionByPrompt >= r.distribution.sessionsAtRisk);
        QVERIFY(r.distribution.riskAtGrownSize >= s.risk);
    }

    void retentionCap()
    {
        // four-lengths.csv: 1,000, 3,000, 3,000, 9,000 tokens; cap at 2,500:
        // 3 of 4 lose history; dropped 0, 500, 500, 6,500: mean 1,875; p99 6,500.
        const LengthDistribution d = LengthDistribution::fromTrace(QStringLiteral(HEADROOM_TEST_DATA "/traces/four-lengths.csv"), QStringLiteral("t"));
        QCOMPARE(d.shareAbove(2500), 0.75);
        QCOMPARE(d.meanDropped(2500), 1875.0);
        QCOMPARE(d.droppedQuantile(2500, 0.99), qint64(6500));
        // Over those who lose history only (issue 31: the all-sessions mean was read as theirs):
        // (500 + 500 + 6,500) / 3 = 2,500 tokens each; no session is longer than 9,000.
        QCOMPARE(d.meanDroppedByThoseLosing(2500), 2500.0);
        QCOMPARE(d.meanDroppedByThoseLosing(9000), 0.0);
        // The plan says both, each average named with the sessions it is over.
        Scenario s = Headroom::Test::seedA(9000);
        s.distribution = d;
        s.retainTokens = 2500;
        const CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(historyLost(r), QStringLiteral("75% of sessions lose history: 2,500 tokens on average over those who lose history; "
                                                "1,875 on average over all sessions (p99 over all: 6,500)"));
        // Capped sessions cost their cap: the largest is ceil(2,500/16) x 16 = 2,512 tokens x 131,072 B.
        const OverflowRisk capped(d, KvCost(llama8b(), Dtype::BF16, 1, 16), 2500);
        QCOMPARE(capped.maxBytes(), qint64(2512) * 131072);
    }

    void lengthsPastContextAndMaxModelLen()
    {
        // four-lengths.csv: 1,000, 3,000, 3,000, 9,000 tokens (tests/data/traces/SOURCE.md).
        const LengthDistribution d = LengthDistribution::fromTrace(QStringLiteral(HEADROOM_TEST_DATA "/traces/four-lengths.csv"), QStringLiteral("t"));
        Scenario s = Headroom::Test::seedA(2000);
        s.distribution = d;
        s.maxModelLen = 8000;
        // A context of 2,000: 3 of 4 sessions are longer; max_model_len 8,000: 1 of 4 is.
        CapacityResult r = computeCapacity(s);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.distribution.shareLongerThanContext, 0.75);
        QCOMPARE(r.distribution.shareLongerThanMaxModelLen, 0.25);
        const QString pastContext = QStringLiteral("75% of the distribution's sessions are longer than the context of 2,000 tokens (the longest is 9,000)");
        const QString pastMax = QStringLiteral("25% of the distribution's sessions are longer than the max_model_len of 8,000 tokens (the longest is 9,000 tokens)");
        auto said = [&](const QString &text) {
            return std::any_of(r.warnings.cbegin(), r.warnings.cend(), [&](const QString &w) { return w.startsWith(text); });
        };
        QVERIFY2(said(pastContext) && said(pastMax), qPrintable(r.warnings.join(QLatin1Char('\n'))));
        // The cap holds every session to 2,500 first: none past max_model_len, 3 of 4 past the context.
        s.retainTokens = 2500;
        r = computeCapacity(s);
        QCOMPARE(r.distribution.shareLongerThanMaxModelLen, 0.0);
        QCOMPARE(r.distribution.shareLongerThanContext, 0.75);
        QVERIFY(!said(pastMax));
        // A context at the distribution's longest (what the command line sets without --context): no word.
        s.retainTokens.reset();
        s.contextTokens = 9000;
        s.maxModelLen.reset();
        r = computeCapacity(s);
        QCOMPARE(r.distribution.shareLongerThanContext, 0.0);
        QCOMPARE(r.distribution.shareLongerThanMaxModelLen, 0.0); // seedA's model states no maximum
    }

    void parametricShapes()
    {
        const LengthDistribution ln = LengthDistribution::parse(QStringLiteral("lognormal:median=2000,p99=60000"), QStringLiteral("d"));
        QVERIFY(std::abs(double(ln.quantile(0.5)) / 2000.0 - 1) < 0.01);
        QVERIFY(std::abs(double(ln.quantile(0.99)) / 60000.0 - 1) < 0.02);
        const LengthDistribution capped = LengthDistribution::parse(QStringLiteral("lognormal:median=2000,p90=8000,max=20000"), QStringLiteral("d"));
        QVERIFY(capped.maximum() <= 20000);
        const LengthDistribution q = LengthDistribution::parse(QStringLiteral("quantiles:p50=1000,p90=4000,p99=16000,max=64000"), QStringLiteral("d"));
        QVERIFY(std::abs(double(q.quantile(0.5)) / 1000.0 - 1) < 0.01);
        QVERIFY(std::abs(double(q.quantile(0.9)) / 4000.0 - 1) < 0.01);
        QVERIFY(q.maximum() <= 64000 && q.maximum() > 50000);
        QCOMPARE(LengthDistribution::parse(QStringLiteral("fixed:100000"), QStringLiteral("d")).mean(), 100000.0);
        QCOMPARE(LengthDistribution::fixed(4000).scaled(2.5, QStringLiteral("--length-scale")).maximum(), qint64(10000));
    }

    // scaled() names the scale as the caller's source spells it (a .headroom file's
    // "inputs.length_scale", the flag), the way parse names its own field; the plan passes
    // the scenario's name for it through, so a file's scale is not blamed on the flag.
    void scaledNamesItsField()
    {
        const QString f = QStringLiteral("inputs.length_scale");
        const qint64 half = qint64(1) << 52;
        // 2^52 x 2 = 2^53 is the longest length allowed; 2^52 + 1 doubled is 2^53 + 2, beyond it.
        QCOMPARE(LengthDistribution::fixed(half).scaled(2, f).maximum(), LengthDistribution::maxTokens);
        const QString beyond = QStringLiteral("x 2 makes the longest session %1 tokens, beyond 2^53")
                                   .arg(double(LengthDistribution::maxTokens + 2), 0, 'g', 3);
        auto refused = [&](const std::function<void()> &call, const QString &message) {
            try {
                call();
                QTest::qFail(qPrintable(QStringLiteral("accepted; expected ") + message), __FILE__, __LINE__);
            } catch (const InputError &e) {
                QCOMPARE(e.field(), f);
                QCOMPARE(e.message(), message);
            }
        };
        refused([&] { LengthDistribution::fixed(half + 1).scaled(2, f); }, beyond);
        refused([&] { LengthDistribution::fixed(4000).scaled(0, f); }, QStringLiteral("must be a positive number, got 0"));
        refused([&] { LengthDistribution::fixed(4000).scaled(-0.5, f); }, QStringLiteral("must be a positive number, got -0.5"));

        // Through a plan whose inputs are named as a scenario file names them.
        Scenario s = Headroom::Test::seedA(4000);
        s.names.useAll(InputSource::ScenarioFile);
        s.distribution = LengthDistribution::fixed(half + 1);
        s.lengthScale = 2;
        const CapacityResult r = computeCapacity(s);
        QVERIFY(!r.ok);
        QCOMPARE(r.errorField, f);
        QVERIFY2(r.error.contains(beyond), qPrintable(r.error));
    }

    void heavyTailOneSessionAloneOverflows()
    {
        // log-normal median 1,000, p99 1,000,000: sigma = ln(1000) / 2.3263 = 2.9693. A 60 GB
        // budget holds 457,763 tokens of 131,072 B; P(one session is longer) =
        // 1 - Phi(ln(457763 / 1000) / 2.9693) = 1 - Phi(2.0637) = 1.95%: above a 1% risk even
        // for one session, so none may be admitted at that risk.
        const KvCost cost(llama8b(), Dtype::BF16, 1, 16);
        const OverflowRisk risk(LengthDistribution::parse(QStringLiteral("lognormal:median=1000,p99=1000000"), QStringLiteral("d")), cost, 0);
        const qint64 budget = 60'000'000'000;
        const double one = risk.overflowProbability(1, budget);
        QVERIFY2(std::abs(one - 0.0195) < 0.001, qPrintable(QString::number(one)));
        QCOMPARE(risk.sessionsAtRisk(budget, 0.01).sessions, qint64(0));
        QVERIFY(risk.sessionsAtRisk(budget, 0.05).sessions > 0);
    }

    void heavyTailAgainstMonteCarlo()
    {
        // An unbounded log-normal (median 2,000, p99 50,000 tokens) on Llama-3.1-70B at TP 4
        // (81,920 B per token per GPU, 46.2 GB budget): the count at 1% must hold in a seeded
        // Monte Carlo (4 standard errors), and not be grossly conservative (30% more overflows).
        ModelShape m = Headroom::Test::dense(80, 64, 8, 128);
        const KvCost cost(m, Dtype::BF16, 4, 16);
        const LengthDistribution d = LengthDistribution::parse(QStringLiteral("lognormal:median=2000,p99=50000"), QStringLiteral("d"));
        const OverflowRisk risk(d, cost, 0);
        const qint64 budget = 46'243'956'736;
        const qint64 n = risk.sessionsAtRisk(budget, 0.01).sessions;
        auto monteCarlo = [&](qint64 sessions) { return monteCarloOverflow(d, cost, budget, sessions, 40000, 7); };
        const double at = monteCarlo(n);
        QVERIFY2(at <= 0.01 + 4 * std::sqrt(0.01 * 0.99 / 40000), qPrintable(QStringLiteral("%1 sessions: %2").arg(n).arg(at)));
        const double beyond = monteCarlo(qint64(std::ceil(n * 1.3)));
        QVERIFY2(beyond > 0.01, qPrintable(QStringLiteral("%1 sessions: %2").arg(qint64(std::ceil(n * 1.3))).arg(beyond)));
    }

    void heavyTailPastAThousandSessions()
    {
        // An unbounded log-normal (median 200, p99 6,000 tokens) on Llama-3.1-8B at TP 8: 1 of the 8
        // KV heads per GPU, 32 x 2 x 128 x 2 B = 16,384 B per token per GPU; a 79.5 GB budget holds
        // about 8,000 sessions at the mean. From 1,000 sessions a wider tilt made e^{t x} over the
        // longest sizes overflow: every tail read as 1 (its bound infinite) and the count stopped
        // at 1,157. By the central limit theorem the sum of ~8,000 such sessions (a coefficient of
        // variation of sqrt(e^{sigma^2} - 1) = 2.7 each, sigma = ln 30 / 2.326) spreads ~3% of its
        // mean, so the count at 1% lies within 20% of the at-mean count; a seeded Monte Carlo
        // (2,000 trials) must see no more than 1% overflows there (4 standard errors).
        ModelShape m = llama8b();
        const KvCost cost(m, Dtype::BF16, 8, 16);
        QCOMPARE(cost.bytesPerTokenPerGpu(), qint64(16384));
        const LengthDistribution d = LengthDistribution::parse(QStringLiteral("lognormal:median=200,p99=6000"), QStringLiteral("d"));
        const OverflowRisk risk(d, cost, 0);
        const qint64 budget = 79'500'000'000;
        double meanBytes = 0;
        for (int i = 0; i < d.lengths.size(); ++i)
            meanBytes += d.probabilities.at(i) * double(cost.sessionBytes(d.lengths.at(i), true));
        const double atMean = double(budget) / meanBytes;
        const RiskCount count = risk.sessionsAtRisk(budget, 0.01);
        QVERIFY2(double(count.sessions) >= 0.8 * atMean && double(count.sessions) <= atMean,
                 qPrintable(QStringLiteral("%1 sessions against %2 at the mean").arg(count.sessions).arg(atMean)));
        QVERIFY2(std::isfinite(count.errorBound) && count.errorBound < 1e-3, qPrintable(QString::number(count.errorBound)));
        const int trials = 2000;
        const double over = monteCarloOverflow(d, cost, budget, count.sessions, trials, 11);
        QVERIFY2(over <= 0.01 + 4 * std::sqrt(0.01 * 0.99 / trials), qPrintable(QStringLiteral("%1 of the draws overflowed").arg(over)));
    }

    void windowsPast64Bits()
    {
        // One layer, one KV head of head_dim 1 at int4 (1 B per token, paged by 1), 1,000 TB of budget:
        // the sum of the sessions spans ~10^15 sizes and a window sized to it doubled past 2^63, where it
        // wrapped to 0 and the doubling never ended (a hang). The count comes back, at most the at-mean one.
        const KvCost cost(Headroom::Test::dense(1, 1, 1, 1), Dtype::INT4, 1, 1);
        const LengthDistribution d = LengthDistribution::parse(QStringLiteral("lognormal:median=2,p99=100"), QStringLiteral("d"));
        const OverflowRisk risk(d, cost, 0);
        const qint64 budget = 1'000'000'000'000'000;
        const RiskCount count = risk.sessionsAtRisk(budget, 0.01);
        QVERIFY(count.sessions > 0);
        QVERIFY(count.sessions <= risk.sessionsAtMean(budget));
    }

    void carriageReturnLineEndings()
    {
        const LengthDistribution d = LengthDistribution::fromTrace(QStringLiteral(HEADROOM_TEST_DATA "/traces/cr-line-endings.csv"), QStringLiteral("t"));
        QCOMPARE(d.lengths, (QVector<qint64>{100, 200, 300}));
    }

    // The same three requests written as spreadsheets and scripts write CSV: the reader gives
    // one law whatever the line endings, byte-order mark, quoting or spacing. From the rows:
    // resident 100 + 20 = 120 tokens twice and 300 + 50 = 350 once; prompts 100 (2/3) and 300
    // (1/3); mean output (20 + 50 + 20) / 3 = 30 tokens; arrivals 2 s apart: 2 gaps over 4 s = 0.5/s.
    void traceDialects_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        const QByteArray rows[] = {"TIMESTAMP,ContextTokens,GeneratedTokens", "2023-11-16 18:15:46.5,100,20",
                                   "2023-11-16 18:15:48.5,300,50", "2023-11-16 18:15:50.5,100,20"};
        auto joined = [&](const char *end) {
            QByteArray b;
            for (const QByteArray &r : rows)
                b += r + end;
            return b;
        };
        QTest::newRow("\\n") << joined("\n");
        QTest::newRow("\\r\\n (Windows)") << joined("\r\n");
        QTest::newRow("lone \\r (CSV Macintosh)") << joined("\r");
        QTest::newRow("UTF-8 byte-order mark, \\r\\n") << QByteArray("\xEF\xBB\xBF") + joined("\r\n");
        QTest::newRow("every cell quoted") << QByteArray("\"TIMESTAMP\",\"ContextTokens\",\"GeneratedTokens\"\r\n"
                                                         "\"2023-11-16 18:15:46.5\",\"100\",\"20\"\r\n"
                                                         "\"2023-11-16 18:15:48.5\",\"300\",\"50\"\r\n"
                                                         "\"2023-11-16 18:15:50.5\",\"100\",\"20\"\r\n");
        QTest::newRow("spaces, blank lines, no final newline") << QByteArray("\n  TIMESTAMP , ContextTokens,GeneratedTokens \n\n"
                                                                             "2023-11-16 18:15:46.5, 100 ,20\n \t\n"
                                                                             "2023-11-16 18:15:48.5,300, \"50\" \n"
                                                                             "2023-11-16 18:15:50.5,100,20");
        // BurstGPT's columns (HPMLL/BurstGPT README: Timestamp in seconds; Request tokens,
        // Response tokens) and Mooncake's JSON lines (timestamp in milliseconds, as NVIDIA
        // Dynamo's benchmarks/data_generator README gives the kvcache-ai/Mooncake format).
        QTest::newRow("rows not in time order") << QByteArray("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                                              "2023-11-16 18:15:50.5,100,20\n"
                                                              "2023-11-16 18:15:46.5,100,20\n"
                                                              "2023-11-16 18:15:48.5,300,50\n");
        QTest::newRow("BurstGPT CSV") << QByteArray("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                                                    "5,ChatGPT,100,20,120,Conversation log\n"
                                                    "7,ChatGPT,300,50,350,Conversation log\n"
                                                    "9,GPT-4,100,20,120,API log\n");
        // (Without hash_ids: each request is a session of its own; with them the trace is read
        // per conversation, tst_replay.)
        QTest::newRow("Mooncake JSON lines") << QByteArray("{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 20}\n"
                                                           "{\"timestamp\": 2000, \"input_length\": 300, \"output_length\": 50}\r\n"
                                                           "{\"timestamp\": 4000, \"input_length\": 100, \"output_length\": 20}");
    }

    // The refusal of the trace `bytes` (a file called `name`) as --distribution reads it; none when read.
    static std::optional<InputError> refusalOf(const QByteArray &bytes, const QString &name)
    {
        QTemporaryDir dir;
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write the trace");
        f.close();
        try {
            LengthDistribution::fromTrace(f.fileName(), QStringLiteral("--distribution"));
        } catch (const InputError &e) {
            return e;
        }
        return std::nullopt;
    }

    // A time that is not one is refused with its line and column, as a bad count is: read as
    // untimed it moved the arrival rate (and the concurrency from traffic) without a word.
    void malformedTimesAreRefused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("says");
        const QByteArray azure = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.5,100,20\n";
        const QByteArray burst = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,100,20,120,x\n";
        QTest::newRow("30 February") << azure + "2023-02-30 18:15:48.5,300,50\n" << QStringLiteral("line 3, TIMESTAMP:");
        QTest::newRow("18:99:99") << azure + "2023-11-16 18:99:99.0,300,50\n" << QStringLiteral("line 3, TIMESTAMP:");
        QTest::newRow("24:00:00") << azure + "2023-11-16 24:00:00,300,50\n" << QStringLiteral("line 3, TIMESTAMP:");
        QTest::newRow("BurstGPT abc") << burst + "abc,ChatGPT,300,50,350,x\n" << QStringLiteral("line 3, Timestamp:");
        QTest::newRow("BurstGPT nan") << burst + "nan,ChatGPT,300,50,350,x\n" << QStringLiteral("line 3, Timestamp:");
        QTest::newRow("BurstGPT -5") << burst + "-5,ChatGPT,300,50,350,x\n" << QStringLiteral("line 3, Timestamp:");
        QTest::newRow("BurstGPT empty") << burst + ",ChatGPT,300,50,350,x\n" << QStringLiteral("line 3, Timestamp:");
    }
    void malformedTimesAreRefused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, says);
        const std::optional<InputError> e = refusalOf(bytes, QStringLiteral("t.csv"));
        QVERIFY2(e, "accepted");
        QCOMPARE(e->field(), QStringLiteral("--distribution"));
        QVERIFY2(e->message().contains(says), qPrintable(e->message()));
    }

    // A JSON-lines trace's bad line is refused with its line number and key.
    void jsonLinesRefusals_data()
    {
        QTest::addColumn<QByteArray>("second");
        QTest::addColumn<QString>("says");
        QTest::newRow("input_length missing") << QByteArray("{\"timestamp\": 5, \"output_length\": 3}") << QStringLiteral("line 2, input_length: is missing");
        QTest::newRow("input_length negative") << QByteArray("{\"input_length\": -4}") << QStringLiteral("line 2, input_length:");
        QTest::newRow("output_length a fraction") << QByteArray("{\"input_length\": 4, \"output_length\": 2.5}") << QStringLiteral("line 2, output_length:");
        QTest::newRow("timestamp negative") << QByteArray("{\"input_length\": 4, \"output_length\": 1, \"timestamp\": -1}") << QStringLiteral("line 2, timestamp:");
        QTest::newRow("output_length missing (0 would be optimistic)") << QByteArray("{\"input_length\": 4, \"timestamp\": 5}") << QStringLiteral("line 2, output_length: is missing");
        QTest::newRow("not JSON") << QByteArray("{\"input_length\": 4,") << QStringLiteral("line 2:");
        QTest::newRow("an array") << QByteArray("[4]") << QStringLiteral("line 2: not a JSON object");
        QTest::newRow("0 tokens") << QByteArray("{\"input_length\": 0, \"output_length\": 0}") << QStringLiteral("line 2: a request of 0 tokens");
    }
    void jsonLinesRefusals()
    {
        QFETCH(QByteArray, second);
        QFETCH(QString, says);
        const std::optional<InputError> e = refusalOf("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2}\n" + second + "\n",
                                                      QStringLiteral("t.jsonl"));
        QVERIFY2(e, "accepted");
        QCOMPARE(e->field(), QStringLiteral("--distribution"));
        QVERIFY2(e->message().contains(says), qPrintable(e->message()));
    }
    void traceDialects()
    {
        QFETCH(QByteArray, bytes);
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("t.csv")));
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size());
        f.close();
        const LengthDistribution d = LengthDistribution::fromTrace(f.fileName(), QStringLiteral("t"));
        QCOMPARE(d.requests, qint64(3));
        QCOMPARE(d.lengths, (QVector<qint64>{120, 350}));
        QCOMPARE(d.probabilities, (QVector<double>{2.0 / 3.0, 1.0 / 3.0}));
        QCOMPARE(d.promptLengths, (QVector<qint64>{100, 300}));
        QCOMPARE(d.promptProbabilities, (QVector<double>{2.0 / 3.0, 1.0 / 3.0}));
        QCOMPARE(d.meanOutputTokens, 30.0);
        QCOMPARE(d.arrivalRatePerSecond, 0.5);
    }

    // A row the reader takes in one pass (plain digits, a stamp, \n or \r\n) and the same
    // row in a spelling it reads cell by cell (spaces around the cells, quotes, a lone \r)
    // are the same request: a trace written each way, or mixing the two row by row, gives
    // the same law, prompt law, mean output and arrival rate. Stamps with 0 to 15 digits of
    // fraction (past 13 they are parsed as a decimal), a T between date and time, two
    // dates; BurstGPT's whole seconds, and one column of lengths, likewise.
    void traceRowSpellingsGiveOneLaw()
    {
        QTemporaryDir dir;
        const auto read = [&](const QByteArray &bytes) {
            QFile f(dir.filePath(QStringLiteral("t.csv")));
            if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size())
                qFatal("cannot write the trace");
            f.close();
            LengthDistribution d = LengthDistribution::fromTrace(f.fileName(), QStringLiteral("t"));
            d.spec.clear();
            return d;
        };
        const auto check = [&](const QByteArray &header, const QList<QList<QByteArray>> &rows) {
            QByteArray plain = header + "\n", spaced = header + "\r\n", quoted = header + "\r", mixed = header + "\n";
            for (int i = 0; i < rows.size(); ++i) {
                const QList<QByteArray> &cells = rows.at(i);
                const QByteArray row = cells.join(',');
                QByteArray padded, inQuotes;
                for (const QByteArray &c : cells) {
                    padded += (padded.isEmpty() ? " " : ", ") + c + ' ';
                    inQuotes += (inQuotes.isEmpty() ? "\"" : ",\"") + c + '"';
                }
                plain += row + (i % 2 ? "\r\n" : "\n");
                spaced += padded + "\r\n";
                quoted += inQuotes + "\r";
                mixed += (i % 2 ? padded : row) + "\n";
            }
            const LengthDistribution expected = read(plain);
            QCOMPARE(expected.requests, qint64(rows.size()));
            QCOMPARE(read(spaced), expected);
            QCOMPARE(read(quoted), expected);
            QCOMPARE(read(mixed), expected);
        };
        QList<QList<QByteArray>> azure, burst, lengths;
        for (int i = 0; i < 40; ++i) {
            QByteArray stamp = QByteArray("2023-11-") + QByteArray::number(16 + i / 20) + (i % 3 ? " " : "T") + "18:15:"
                + QByteArray::number(10 + i);
            if (i % 16)
                stamp += '.' + QByteArray("7305918264730591").left(i % 16);
            const QByteArray context = QByteArray::number(1 + 37 * i % 911), output = QByteArray::number(i % 7 ? 13 * i % 97 : 0);
            azure << QList<QByteArray>{stamp, context, output};
            burst << QList<QByteArray>{QByteArray::number(3 * i), "ChatGPT", context, output, "0", "Conversation log"};
            lengths << QList<QByteArray>{context};
        }
        check("TIMESTAMP,ContextTokens,GeneratedTokens", azure);
        check("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type", burst);
        check("length", lengths);
        // A fraction of m digits, 2^-m for m = 1 .. 15 (0.5, 0.25, ..., 0.0001220703125, then
        // two read as a decimal): exact in a double, as is its sum with the day's seconds
        // (about 2.1e11 s: steps of 2^-15 s), so two rows that far apart arrive at 2^m a second,
        // in a row read in one pass and in a row read by cells alike.
        for (int m = 1; m <= 15; ++m) {
            const QByteArray fraction = QByteArray::number(std::ldexp(1.0, -m), 'f', m);
            for (const char *pad : {"", " "}) {
                const QByteArray bytes = QByteArray("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:10,5,5\n") + pad
                    + "2023-11-16 18:15:1" + fraction + pad + ",5,5\n";
                QCOMPARE(read(bytes).arrivalRatePerSecond, std::ldexp(1.0, m));
            }
        }
    }

    // A trace cell reads as a count on the command line does (README: counts accept 8e9,
    // 100,000, 8k and 1.5M): a spreadsheet's "1,000" is 1,000 tokens, in a one-column file
    // (whose first line is then data, not a header) and in the Azure columns alike.
    void traceCellsReadAsFlags_data()
    {
        QTest::addColumn<QByteArray>("cell");
        QTest::addColumn<qint64>("tokens");
        QTest::newRow("\"1,000\"") << QByteArray("\"1,000\"") << qint64(1000);
        QTest::newRow("\"1,000,000\"") << QByteArray("\"1,000,000\"") << qint64(1000000);
        QTest::newRow("1_000") << QByteArray("1_000") << qint64(1000);
        QTest::newRow("1e5") << QByteArray("1e5") << qint64(100000);
        QTest::newRow("8k") << QByteArray("8k") << qint64(8000);
        QTest::newRow("1.5M") << QByteArray("1.5M") << qint64(1500000);
        QTest::newRow("plain 4808") << QByteArray("4808") << qint64(4808);
    }
    void traceCellsReadAsFlags()
    {
        QFETCH(QByteArray, cell);
        QFETCH(qint64, tokens);
        QByteArray unquoted = cell;
        unquoted.replace('"', "");
        QCOMPARE(Units::parseCount(QString::fromLatin1(unquoted), QStringLiteral("--context")), tokens); // the flags' reading
        QTemporaryDir dir;
        auto read = [&](const QByteArray &bytes) {
            QFile f(dir.filePath(QStringLiteral("t.csv")));
            if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size())
                qFatal("cannot write the trace");
            f.close();
            return LengthDistribution::fromTrace(f.fileName(), QStringLiteral("t"));
        };
        const LengthDistribution one = read(cell + "\n7\n");
        QCOMPARE(one.requests, qint64(2));
        QCOMPARE(one.lengths, tokens > 7 ? QVector<qint64>({7, tokens}) : QVector<qint64>({tokens, 7}));
        const LengthDistribution azure = read("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.5," + cell + "," + cell + "\n");
        QCOMPARE(azure.lengths, QVector<qint64>({2 * tokens}));
        QCOMPARE(azure.promptLengths, QVector<qint64>({tokens}));
        QCOMPARE(azure.meanOutputTokens, double(tokens));
    }

    // A first line that starts as a number is data, even malformed: refused on line 1 with
    // the reason, never skipped as a one-column header (which lost the row in silence).
    void malformedFirstCellIsRefusedNotSkipped_data()
    {
        QTest::addColumn<QByteArray>("cell");
        QTest::newRow("\"100,0000\"") << QByteArray("\"100,0000\"");
        QTest::newRow("\"1,000.5\"") << QByteArray("\"1,000.5\"");
        QTest::newRow("12.5") << QByteArray("12.5");
        QTest::newRow("-3") << QByteArray("-3");
    }
    void malformedFirstCellIsRefusedNotSkipped()
    {
        QFETCH(QByteArray, cell);
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("t.csv")));
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(cell + "\n500\n") > 0);
        f.close();
        try {
            LengthDistribution::fromTrace(f.fileName(), QStringLiteral("--distribution"));
            QFAIL("the first line was skipped as a header");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--distribution"));
            QVERIFY2(e.message().startsWith(f.fileName() + QStringLiteral(" line 1")), qPrintable(e.message()));
        }
    }

    // The reader takes a file 1 MiB at a time: a \r\n split across two blocks ends one line,
    // not two, so the line numbers of later errors stay right. A header padded with 4 spaces
    // (11 bytes) and rows "1000\r\n" (6 bytes): row k's \r is byte 11 + 6k + 4, the last of
    // the first block (2^20 - 1 = 1,048,575) for k = 174,760. Rows 0 .. 174,770 are lines
    // 2 .. 174,772, so the bad cell after them is on line 174,773.
    void traceLineEndingAcrossBlocks()
    {
        QByteArray bytes = "length    \n";
        for (int k = 0; k <= 174770; ++k)
            bytes += "1000\r\n";
        QCOMPARE(bytes.mid(1048575, 2), QByteArray("\r\n"));
        bytes += "abc\r\n";
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("long.csv")));
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size());
        f.close();
        try {
            LengthDistribution::fromTrace(f.fileName(), QStringLiteral("t"));
            QFAIL("accepted a non-numeric cell");
        } catch (const InputError &e) {
            QCOMPARE(e.message(), f.fileName() + QStringLiteral(" line 174773, length: \"abc\" is not a whole number (write e.g. 100000, 100,000, 1e5, 8k or 1.5M)"));
        }
        bytes.chop(5);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size());
        f.close();
        const LengthDistribution d = LengthDistribution::fromTrace(f.fileName(), QStringLiteral("t"));
        QCOMPARE(d.requests, qint64(174771));
        QCOMPARE(d.lengths, (QVector<qint64>{1000}));
    }

    // Every refusal of LengthDistribution::parse and fromTrace (lengthdistribution.cpp), by the
    // field it names and its message.
    void badInput_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        const QString f = QStringLiteral("--distribution");
        const QString data = QStringLiteral(HEADROOM_TEST_DATA "/traces/");
        // Trace files (fromTrace).
        QTest::newRow("trace: non-numeric cell") << QStringLiteral("trace:") + data + QStringLiteral("non-numeric.csv") << f
                                                 << data + QStringLiteral("non-numeric.csv line 4, length: \"abc\" is not a whole number (write e.g. 100000, 100,000, 1e5, 8k or 1.5M)");
        QTest::newRow("trace: negative length") << QStringLiteral("trace:") + data + QStringLiteral("negative.csv") << f
                                                << data + QStringLiteral("negative.csv line 2, length: a length cannot be negative (-5)");
        QTest::newRow("trace: Azure ContextTokens -1") << QStringLiteral("trace:") + data + QStringLiteral("negative-context.csv") << f
                                                       << data + QStringLiteral("negative-context.csv line 2, ContextTokens: a length cannot be negative (-1)");
        QTest::newRow("trace: empty file") << QStringLiteral("trace:") + data + QStringLiteral("empty.csv") << f
                                           << data + QStringLiteral("empty.csv holds no lengths");
        QTest::newRow("trace: unknown header") << QStringLiteral("trace:") + data + QStringLiteral("wrong-header.csv") << f
                                               << data + QStringLiteral("wrong-header.csv line 1: expected the Azure trace header");
        // A column named twice: which holds the lengths is a guess (the last copy was read in silence).
        QTest::newRow("trace: a column twice") << QStringLiteral("trace:") + data + QStringLiteral("duplicate-column.csv") << f
                                               << data + QStringLiteral("duplicate-column.csv line 1: columns 2 and 4 are both \"ContextTokens\"; keep one");
        // A spreadsheet's semicolon export: its header is one cell, said as such.
        QTest::newRow("trace: semicolons") << QStringLiteral("trace:") + data + QStringLiteral("semicolons.csv") << f
                                           << data + QStringLiteral("semicolons.csv line 1: the header is separated by semicolons, not commas");
        QTest::newRow("trace: missing file") << QStringLiteral("trace:/nonexistent.csv") << f << QStringLiteral("/nonexistent.csv is not a readable file");
        QTest::newRow("trace: Azure row of 0 tokens") << QStringLiteral("trace:") + data + QStringLiteral("zero-request.csv") << f
                                                      << data + QStringLiteral("zero-request.csv line 3: a request of 0 tokens");
        QTest::newRow("trace: one-column length 0") << QStringLiteral("trace:") + data + QStringLiteral("zero-length.csv") << f
                                                    << data + QStringLiteral("zero-length.csv line 3: a session of 0 tokens");
        // 2^63 - 1 context tokens: refused before any sum, as a length beyond 2^53 tokens
        // (LengthDistribution::maxTokens, where a double stops holding every whole number).
        QTest::newRow("trace: 2^63 - 1 tokens, beyond 2^53") << QStringLiteral("trace:") + data + QStringLiteral("overflow.csv") << f
                                                             << data + QStringLiteral("overflow.csv line 2, ContextTokens: 9223372036854775807 tokens is beyond 2^53");
        QTest::newRow("trace: two columns, no header") << QStringLiteral("trace:") + data + QStringLiteral("two-columns-no-header.csv") << f
                                                       << data + QStringLiteral("two-columns-no-header.csv line 1: expected one length per line");
        // 1000, 2 0 NUL 0 0, 3000: the NUL is the 8th byte (the reader stopped there and read 20).
        QTest::newRow("trace: a NUL byte") << QStringLiteral("trace:") + data + QStringLiteral("nul-byte.csv") << f
                                           << data + QStringLiteral("nul-byte.csv holds a NUL byte at byte 8: a trace is plain text");
        // Specs (parse).
        QTest::newRow("spec without a kind") << QStringLiteral("lognormal") << f
                                             << QStringLiteral("\"lognormal\" must start with trace:, lognormal:, quantiles: or fixed:");
        QTest::newRow("unknown kind") << QStringLiteral("weibull:k=2") << f
                                      << QStringLiteral("unknown distribution \"weibull\"; use trace, lognormal, quantiles or fixed");
        QTest::newRow("unknown parameter") << QStringLiteral("lognormal:median=5,p99=40,mode=3") << f << QStringLiteral("unknown parameter mode");
        QTest::newRow("a parameter twice") << QStringLiteral("lognormal:median=5,median=6,p99=40") << f << QStringLiteral("median is given twice");
        QTest::newRow("a parameter without =value") << QStringLiteral("lognormal:median=5,p99") << f << QStringLiteral("\"p99\" must be name=value");
        QTest::newRow("a thousands separator") << QStringLiteral("lognormal:median=1,000,p99=40000") << f
                                               << QStringLiteral("\"median=1,000\": commas separate the parameters, so write the number without separators (1000)");
        QTest::newRow("a thousands separator after another") << QStringLiteral("quantiles:p50=12,500,p99=1,000,000") << f
                                                             << QStringLiteral("\"p50=12,500\": commas separate the parameters, so write the number without separators (12500)");
        QTest::newRow("a parameter with two =") << QStringLiteral("lognormal:median=5=6,p99=40") << f << QStringLiteral("\"median=5=6\" must be name=value");
        QTest::newRow("lognormal without median") << QStringLiteral("lognormal:p99=40") << f << QStringLiteral("lognormal needs median=N");
        QTest::newRow("lognormal without p99") << QStringLiteral("lognormal:median=40") << f << QStringLiteral("lognormal needs p99=N");
        QTest::newRow("lognormal: p90 and p99 together") << QStringLiteral("lognormal:median=5,p90=10,p99=20") << f << QStringLiteral("give p99 or p90, not both");
        QTest::newRow("lognormal: median 0 (parseCount)") << QStringLiteral("lognormal:median=0,p99=40") << QStringLiteral("--distribution median")
                                                          << QStringLiteral("must be at least 1, got 0");
        QTest::newRow("lognormal: p99 not a count (parseCount)") << QStringLiteral("lognormal:median=5,p99=lots") << QStringLiteral("--distribution p99")
                                                                 << QStringLiteral("\"lots\" is not a whole number");
        QTest::newRow("lognormal: p99 under the median") << QStringLiteral("lognormal:median=5000,p99=4000") << f
                                                         << QStringLiteral("p99 (4000) must be above the median (5000)");
        QTest::newRow("lognormal: p90 equal to the median") << QStringLiteral("lognormal:median=5000,p90=5000") << f
                                                            << QStringLiteral("p90 (5000) must be above the median (5000)");
        QTest::newRow("lognormal: max below the median") << QStringLiteral("lognormal:median=5000,p99=6000,max=4000") << f
                                                         << QStringLiteral("max (4000) must not be below the median (5000)");
        QTest::newRow("lognormal: max below p99") << QStringLiteral("lognormal:median=5000,p99=8000,max=7999") << f
                                                  << QStringLiteral("max (7999) must be at least p99 (8000)");
        QTest::newRow("quantiles below the one before") << QStringLiteral("quantiles:p50=5000,p90=4000,max=9000") << f
                                                        << QStringLiteral("p90 = 4000 tokens is below the quantile before it");
        QTest::newRow("quantiles: max below p99") << QStringLiteral("quantiles:p50=1000,p99=4000,max=3999") << f
                                                  << QStringLiteral("max (3999) must be at least the highest quantile");
        QTest::newRow("quantiles without max") << QStringLiteral("quantiles:p50=1000") << f << QStringLiteral("quantiles needs max=N");
        QTest::newRow("fixed: 0 tokens (parseCount)") << QStringLiteral("fixed:0") << f << QStringLiteral("must be at least 1, got 0");
    }
    void badInput()
    {
        QFETCH(QString, spec);
        QFETCH(QString, field);
        QFETCH(QString, message);
        try {
            LengthDistribution::parse(spec, QStringLiteral("--distribution"));
            QFAIL("accepted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), field);
            QVERIFY2(e.message().startsWith(message), qPrintable(e.message()));
        }
    }

    // The refusals parse cannot reach, which the GUI's spin boxes can (distributionview.cpp
    // calls logNormal and quantiles directly), and the trace size limit.
    void badInputDirect()
    {
        const QString f = QStringLiteral("log-normal");
        auto refused = [&](const std::function<void()> &call, const QString &message) {
            try {
                call();
                QTest::qFail(qPrintable(QStringLiteral("accepted; expected ") + message), __FILE__, __LINE__);
            } catch (const InputError &e) {
                QCOMPARE(e.field(), f);
                QCOMPARE(e.message(), message);
            }
        };
        refused([&] { LengthDistribution::logNormal(0.5, 100, 0.99, 0, f); }, QStringLiteral("median must be from 1 to 2^53 tokens"));
        refused([&] { LengthDistribution::logNormal(std::nan(""), 100, 0.99, 0, f); }, QStringLiteral("median must be from 1 to 2^53 tokens"));
        QCOMPARE(LengthDistribution::logNormal(1, 100, 0.99, 100, f).maximum(), qint64(100)); // the edges are allowed
        refused([&] { LengthDistribution::quantiles({{0.9, 4000}, {0.5, 1000}}, 9000, f); }, QStringLiteral("quantile p50 is out of order"));
        refused([&] { LengthDistribution::quantiles({{0.5, 1000}, {0.5, 2000}}, 9000, f); }, QStringLiteral("quantile p50 is out of order"));
        refused([&] { LengthDistribution::quantiles({{1.0, 1000}}, 9000, f); }, QStringLiteral("quantile p100 is out of order"));
        refused([&] { LengthDistribution::quantiles({{0.5, 0}}, 9000, f); }, QStringLiteral("p50 = 0 tokens is below the quantile before it"));
        refused([&] { LengthDistribution::quantiles({}, 0, f); }, QStringLiteral("max (0) must be at least the highest quantile"));
        QCOMPARE(LengthDistribution::quantiles({{0.5, 1}, {0.9, 1000}}, 1000, f).maximum(), qint64(1000)); // equal knots are allowed

        // 256 MiB + 1 byte (a sparse file: nothing is written or read).
        QTemporaryDir dir;
        QFile big(dir.filePath(QStringLiteral("big.csv")));
        QVERIFY(big.open(QIODevice::WriteOnly) && big.resize(256 * Units::MiB + 1));
        big.close();
        try {
            LengthDistribution::fromTrace(big.fileName(), QStringLiteral("--distribution"));
            QFAIL("accepted a file over 256 MiB");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--distribution"));
            QCOMPARE(e.message(), big.fileName() + QStringLiteral(" is larger than 256 MiB; sample it first"));
        }
    }
};

HEADROOM_TEST_MAIN(TestRisk, QCoreApplication)
#include "tst_risk.moc"
