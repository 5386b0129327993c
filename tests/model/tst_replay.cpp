// SPDX-License-Identifier: GPL-3.0-or-later
// The replay of a trace on a fleet (issue 29), against references built here:
// - a five-request trace written in the test, whose conversations, shared prefix and prefix
//   hits are worked out by hand below (512-token blocks as Mooncake's, 16-token engine blocks);
// - Mooncake's conversation hour (resources/traces, 12,031 requests; README: block 0, the system
//   prompt, opens every request), whose conversations are counted here by a reading of our own.
// Replays run on shapes made here (fixed step and prefill times), never on the program's
// figures, so that every expected value follows from the trace and the rule alone.
#include "core/inputerror.h"
#include "lengths/lengthdistribution.h"
#include "lengths/traffictrace.h"
#include "traffic/replay.h"
#include "traffic/replaysummary.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include "common/headroomtest.h"

using namespace Headroom;

namespace {

const QString mooncake = QStringLiteral(HEADROOM_SAMPLES "/mooncake-fast25-conversation.jsonl");

/// A shape of `pool` 16-token engine blocks, 1 byte per token, 10 ms a decode step and 10 us
/// a prefilled token: times small beside the trace's gaps, so that the order of events is the
/// arrivals' order.
ReplayShape shapeOf(qint64 pool)
{
    ReplayShape s;
    s.poolBlocks = pool;
    s.engineBlockTokens = 16;
    s.kvBytesPerTokenPerGpu = 1;
    s.stepSeconds = [](qint64, double) { return 0.01; };
    s.prefillSeconds = [](qint64 tokens) { return double(tokens) * 1e-5; };
    s.gpuHourUsd = 2.0;
    return s;
}

/// Writes `lines` as a JSON-lines trace in `dir`; returns its path.
QString writeTrace(const QTemporaryDir &dir, const QByteArray &lines, const char *name = "trace.jsonl")
{
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(lines) != lines.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

/// The hand-made trace. Block 100 is a 512-token system prompt. A1 and A2 are one
/// conversation (A2 repeats A1's full blocks 100, 1; A1's partial block 2 came back as 4),
/// B1 and B2 another (100, 10), C1 a prompt of its own (one partial block, 200); D, when
/// given, a long prompt of its own at 10 s whose 198 engine blocks (6 x 32 + ceil(96 / 16))
/// plus one for its output leave a 200-block pool one block free.
QByteArray handTrace(bool withD)
{
    QByteArray t = "{\"timestamp\": 0, \"input_length\": 1300, \"output_length\": 50, \"hash_ids\": [100, 1, 2]}\n"
                   "{\"timestamp\": 1000, \"input_length\": 1100, \"output_length\": 20, \"hash_ids\": [100, 10, 11]}\n";
    if (withD)
        t += "{\"timestamp\": 10000, \"input_length\": 3168, \"output_length\": 1, \"hash_ids\": [300, 301, 302, 303, 304, 305, 306]}\n";
    t += "{\"timestamp\": 30000, \"input_length\": 2000, \"output_length\": 20, \"hash_ids\": [100, 1, 4, 5]}\n"
         "{\"timestamp\": 40000, \"input_length\": 400, \"output_length\": 5, \"hash_ids\": [200]}\n"
         "{\"timestamp\": 50000, \"input_length\": 1800, \"output_length\": 20, \"hash_ids\": [100, 10, 13, 14]}\n";
    return t;
}

} // namespace

class TestReplay : public QObject
{
    Q_OBJECT
private slots:
    // Conversations A, B, C (and D); the common prefix is block 100, in 4 of 5 requests (4 of 6).
    void conversationsAndSharedPrefixOfTheHandTrace()
    {
        QTemporaryDir dir;
        for (const bool withD : {false, true}) {
            const TrafficTrace t = TrafficTrace::read(writeTrace(dir, handTrace(withD)), QStringLiteral("--trace"));
            QCOMPARE(t.conversationRule(), QStringLiteral("hash_ids"));
            QCOMPARE(t.commonPrefixBlocks, 1);
            QCOMPARE(t.commonPrefixTokens(), qint64(512));
            QCOMPARE(t.conversations, qint64(withD ? 4 : 3));
            const qsizetype a2 = withD ? 3 : 2, b2 = withD ? 5 : 4;
            QCOMPARE(t.requests.at(a2).conversation, t.requests.at(0).conversation);
            QCOMPARE(t.requests.at(b2).conversation, t.requests.at(1).conversation);
            QVERIFY(t.requests.at(0).conversation != t.requests.at(1).conversation);
            QCOMPARE(t.requests.at(a2).arrivalSeconds, 30.0);
            QCOMPARE(t.durationSeconds, 50.0);
            // By hand: B1 finds 100 (512), A2 finds 100, 1 (1,024), C1 nothing, B2 finds 100, 10 (1,024).
            QCOMPARE(t.prefixHitCeilingTokens(), qint64(512 + 1024 + 1024));
        }
    }

    // The length distribution of a trace with prefix blocks is one of conversations: A (1,100
    // then 1,700 + 30 tokens, its second turn repeating its first's full blocks 0 and 1), B
    // (700 + 10), C (600 + 5) and D (800 + 0), each at its longest turn less the 512-token
    // block 0 that all five requests share and a card holds once: 1,730 - 512 = 1,218,
    // 198, 93 and 288, each weighing 1/4. (Block 1 opens 2 of 5 requests: not shared.)
    void lengthsAreOfConversations()
    {
        QTemporaryDir dir;
        const QString path = writeTrace(dir, "{\"timestamp\": 0, \"input_length\": 1100, \"output_length\": 40, \"hash_ids\": [0, 1, 2]}\n"
                                             "{\"timestamp\": 500, \"input_length\": 700, \"output_length\": 10, \"hash_ids\": [0, 5]}\n"
                                             "{\"timestamp\": 700, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [0, 6]}\n"
                                             "{\"timestamp\": 800, \"input_length\": 800, \"output_length\": 0, \"hash_ids\": [0, 7]}\n"
                                             "{\"timestamp\": 9000, \"input_length\": 1700, \"output_length\": 30, \"hash_ids\": [0, 1, 3, 4]}\n");
        const LengthDistribution d = LengthDistribution::fromTrace(path, QStringLiteral("--distribution"));
        QCOMPARE(d.requests, qint64(5));
        QCOMPARE(d.conversations, qint64(4));
        QCOMPARE(d.sharedPrefixTokens, qint64(512));
        QCOMPARE(d.lengths, (QVector<qint64>{93, 198, 288, 1218}));
        QCOMPARE(d.probabilities, (QVector<double>{0.25, 0.25, 0.25, 0.25}));
        QCOMPARE(d.promptLengths, (QVector<qint64>{88, 188, 288, 1188}));
    }

    // Only conversations that start with the shared prefix leave it out: three of five requests
    // open with blocks 0 and 1 (1,024 tokens, the common prefix: more than half hold it), two
    // do not. An attacker's trace of this shape had every conversation cut by the prefix.
    // By hand: 2,000 + 24 - 1,024 = 1,000 for each of the three; 2,000 + 24 whole for the two.
    void onlyConversationsHoldingThePrefixLeaveItOut()
    {
        QTemporaryDir dir;
        const QString path = writeTrace(dir, "{\"timestamp\": 0, \"input_length\": 2000, \"output_length\": 24, \"hash_ids\": [0, 1, 10, 11]}\n"
                                             "{\"timestamp\": 100, \"input_length\": 2000, \"output_length\": 24, \"hash_ids\": [0, 1, 20, 21]}\n"
                                             "{\"timestamp\": 200, \"input_length\": 2000, \"output_length\": 24, \"hash_ids\": [0, 1, 30, 31]}\n"
                                             "{\"timestamp\": 300, \"input_length\": 2000, \"output_length\": 24, \"hash_ids\": [40, 41, 42, 43]}\n"
                                             "{\"timestamp\": 400, \"input_length\": 2000, \"output_length\": 24, \"hash_ids\": [50, 51, 52, 53]}\n");
        const LengthDistribution d = LengthDistribution::fromTrace(path, QStringLiteral("--distribution"));
        QCOMPARE(d.conversations, qint64(5));
        QCOMPARE(d.sharedPrefixTokens, qint64(1024));
        QCOMPARE(d.lengths, (QVector<qint64>{1000, 2024}));
        QCOMPARE(d.probabilities, (QVector<double>{0.6, 0.4}));
        QCOMPARE(d.promptLengths, (QVector<qint64>{976, 2000}));
    }

    // With a pool that holds everything and no idle limit, the replay hits what the ceiling
    // counts, preempts nothing and queues nothing.
    void unboundedMemoryReachesTheCeiling()
    {
        QTemporaryDir dir;
        const TrafficTrace t = TrafficTrace::read(writeTrace(dir, handTrace(true)), QStringLiteral("--trace"));
        const ReplayResult r = replay(t, shapeOf(1'000'000), {});
        QCOMPARE(r.prefixHitTokens, qint64(2560));
        QCOMPARE(r.hostHitTokens, qint64(0));
        QCOMPARE(r.preemptions, qint64(0));
        QCOMPARE(r.rejected, qint64(0));
        QCOMPARE(r.promptTokens, qint64(1300 + 1100 + 3168 + 2000 + 400 + 1800));
        QCOMPARE(r.queueMsP99, 0.0);
        QCOMPARE(r.gpus, qint64(1));
        QCOMPARE(*r.fleetCostPerMonthUsd, 2.0 * 730);
        // The timeline: a point every 10 s from 0 to past the last arrival at 50 s.
        QVERIFY(r.timeline.size() >= 6);
        QCOMPARE(r.timeline.at(5).tSeconds, 50.0);
        qint64 hits = 0;
        for (const ReplayPoint &p : r.timeline)
            hits += p.prefixHitTokens;
        QCOMPARE(hits, r.prefixHitTokens);
    }

    // D's 199 blocks evict every idle block of a 200-block pool: A2 then misses 100 and 1,
    // and B2 finds only 100 (A2 brought it back), so the hits are B1's 512 + B2's 512.
    void aTurnWhoseBlocksWereEvictedMissesThem()
    {
        QTemporaryDir dir;
        const TrafficTrace t = TrafficTrace::read(writeTrace(dir, handTrace(true)), QStringLiteral("--trace"));
        const ReplayResult r = replay(t, shapeOf(200), {});
        QCOMPARE(r.prefixHitTokens, qint64(512 + 512));
        QCOMPARE(r.preemptions, qint64(0));
        QVERIFY(r.peakKvBytesPerGpu <= 200 * 16);
        // Kept for 5 s only: B1 (1 s after A1) finds 100; every later turn comes after a longer pause.
        ReplayOptions idle;
        idle.keepIdleSeconds = 5;
        QCOMPARE(replay(t, shapeOf(1'000'000), idle).prefixHitTokens, qint64(512));
    }

    // Host memory keeps what the GPU evicts: A2's 100 and 1 come back from the host.
    void hostMemoryServesWhatTheGpuEvicted()
    {
        QTemporaryDir dir;
        const TrafficTrace t = TrafficTrace::read(writeTrace(dir, handTrace(true)), QStringLiteral("--trace"));
        ReplayShape shape = shapeOf(200);
        shape.hostBlocks = 1'000'000;
        shape.hostLinkBytesPerSecond = 1e9;
        const ReplayResult r = replay(t, shape, {});
        QCOMPARE(r.prefixHitTokens + r.hostHitTokens, qint64(2560));
        QVERIFY2(r.hostHitTokens >= 1024, qPrintable(QString::number(r.hostHitTokens)));
        // On the real hour, a small pool and a small host tier both evicting: the host serves
        // some of what the GPU lost, and the two never pass the ceiling.
        const TrafficTrace hour = TrafficTrace::read(mooncake, QStringLiteral("--trace"));
        ReplayShape small = shapeOf(20'000);
        small.hostBlocks = 40'000;
        small.hostLinkBytesPerSecond = 1e9;
        ReplayOptions four;
        four.replicas = 4;
        const ReplayResult tiered = replay(hour, small, four);
        const ReplayResult gpuOnly = replay(hour, shapeOf(20'000), four);
        QVERIFY(tiered.hostHitTokens > 0);
        QVERIFY(tiered.prefixHitTokens + tiered.hostHitTokens <= hour.prefixHitCeilingTokens());
        QVERIFY(tiered.prefixHitTokens + tiered.hostHitTokens > gpuOnly.prefixHitTokens);
    }

    // Growth beyond the pool preempts the newest request and recomputes it later; a pool
    // holding every request at once preempts nothing.
    void preemptionOnlyWhenGrowthOverflows()
    {
        QByteArray lines;
        for (int i = 0; i < 8; ++i) // eight 160-token prompts at once, each growing by 480 tokens
            lines += QByteArrayLiteral("{\"timestamp\": 0, \"input_length\": 160, \"output_length\": 480}\n");
        QTemporaryDir dir;
        const TrafficTrace t = TrafficTrace::read(writeTrace(dir, lines), QStringLiteral("--trace"));
        QCOMPARE(t.conversationRule(), QStringLiteral("none"));
        QCOMPARE(t.conversations, qint64(8));
        // Each request needs 10 + 30 blocks at its end: 8 x 40 = 320 blocks hold all of them at once.
        QCOMPARE(replay(t, shapeOf(320), {}).preemptions, qint64(0));
        const ReplayResult tight = replay(t, shapeOf(160), {});
        QVERIFY(tight.preemptions > 0);
        QVERIFY(tight.recomputedTokens > 0);
        QCOMPARE(tight.rejected, qint64(0));
    }

    // On the real hour: hits never fall and preemptions never rise as the pool grows;
    // preemptions never rise as replicas are added; hits stay under the ceiling.
    void monotoneInMemoryAndReplicas()
    {
        const TrafficTrace t = TrafficTrace::read(mooncake, QStringLiteral("--trace"));
        const qint64 ceiling = t.prefixHitCeilingTokens();
        qint64 hits = -1, preemptions = std::numeric_limits<qint64>::max();
        for (const qint64 pool : {20'000, 40'000, 80'000, 160'000, 320'000}) {
            ReplayOptions o;
            o.replicas = 8;
            const ReplayResult r = replay(t, shapeOf(pool), o);
            QVERIFY2(r.prefixHitTokens >= hits, qPrintable(QStringLiteral("pool %1: %2 < %3").arg(pool).arg(r.prefixHitTokens).arg(hits)));
            QVERIFY2(r.preemptions <= preemptions, qPrintable(QStringLiteral("pool %1").arg(pool)));
            QVERIFY(r.prefixHitTokens + r.hostHitTokens <= ceiling);
            hits = r.prefixHitTokens;
            preemptions = r.preemptions;
        }
        preemptions = std::numeric_limits<qint64>::max();
        for (const int replicas : {2, 4, 8, 16}) {
            ReplayOptions o;
            o.replicas = replicas;
            const ReplayResult r = replay(t, shapeOf(20'000), o);
            QVERIFY2(r.preemptions <= preemptions, qPrintable(QStringLiteral("%1 replicas").arg(replicas)));
            preemptions = r.preemptions;
        }
        QVERIFY(preemptions < std::numeric_limits<qint64>::max());
    }

    // Mooncake's conversations, counted by a reading of our own: block 0 opens every request
    // (the README), so a conversation is a distinct second block; a request of one block is
    // its own. The ceiling: leading blocks some earlier request held, counted here too.
    void mooncakeConversationsCountedIndependently()
    {
        QFile f(mooncake);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QSet<qint64> second, seen;
        qint64 alone = 0, requests = 0, ceiling = 0;
        while (!f.atEnd()) {
            const QJsonObject o = QJsonDocument::fromJson(f.readLine()).object();
            const QJsonArray ids = o.value(QStringLiteral("hash_ids")).toArray();
            QCOMPARE(ids.at(0).toInteger(), qint64(0));
            ++requests;
            if (ids.size() > 1)
                second.insert(ids.at(1).toInteger());
            else
                ++alone;
            qsizetype k = 0;
            while (k < ids.size() && seen.contains(ids.at(k).toInteger()))
                ++k;
            ceiling += std::min<qint64>(512 * k, o.value(QStringLiteral("input_length")).toInteger());
            for (const QJsonValue &v : ids)
                seen.insert(v.toInteger());
        }
        const TrafficTrace t = TrafficTrace::read(mooncake, QStringLiteral("--trace"));
        QCOMPARE(t.requests.size(), qsizetype(12031));
        QCOMPARE(requests, qint64(12031));
        QCOMPARE(t.commonPrefixBlocks, 1);
        QCOMPARE(t.conversations, qint64(second.size()) + alone);
        QCOMPARE(t.prefixHitCeilingTokens(), ceiling);
    }

    // K times the traffic: K times the requests and conversations (K whole), the system
    // prompt still shared, each conversation's own blocks renamed per copy, arrivals kept in
    // the span; --users finds the multiplier at which N conversations are alive, within 2%.
    void scaledTrafficAndUsers()
    {
        const TrafficTrace t = TrafficTrace::read(mooncake, QStringLiteral("--trace"));
        const TrafficTrace two = scaledTraffic(t, 2, QStringLiteral("--traffic-multiplier"));
        QCOMPARE(two.requests.size(), 2 * t.requests.size());
        QCOMPARE(two.conversations, 2 * t.conversations);
        for (qsizetype i = 1; i < two.requests.size(); ++i)
            QVERIFY(two.requests.at(i).arrivalSeconds >= two.requests.at(i - 1).arrivalSeconds);
        qint64 opensWithZero = 0;
        for (qsizetype i = 0; i < two.requests.size(); ++i)
            opensWithZero += two.blocksOf(i)[0] == 0 ? 1 : 0;
        QCOMPARE(opensWithZero, two.requests.size());
        // The copies share the blocks several conversations hold (the system prompt); a
        // conversation's own blocks are renamed: distinct ids = 2 x distinct - shared.
        QHash<qint64, qint32> owner;
        QSet<qint64> shared, ids, idsOfTwo;
        for (qsizetype i = 0; i < t.requests.size(); ++i)
            for (qint32 b = 0; b < t.requests.at(i).blockCount; ++b) {
                const qint64 id = t.blocksOf(i)[b];
                ids.insert(id);
                if (owner.contains(id) && owner.value(id) != t.requests.at(i).conversation)
                    shared.insert(id);
                owner.insert(id, t.requests.at(i).conversation);
            }
        for (qsizetype i = 0; i < two.requests.size(); ++i)
            for (qint32 b = 0; b < two.requests.at(i).blockCount; ++b)
                idsOfTwo.insert(two.blocksOf(i)[b]);
        QVERIFY(shared.contains(0));
        QCOMPARE(idsOfTwo.size(), 2 * ids.size() - shared.size());
        ReplayOptions o;
        o.replicas = 16;
        o.keepIdleSeconds = 600;
        for (const double users : {400.0, 1500.0}) {
            const auto [k, r] = replayForUsers(t, shapeOf(100'000), o, users, QStringLiteral("--users"));
            QVERIFY2(std::abs(r.meanAliveConversations - users) <= 0.02 * users,
                     qPrintable(QStringLiteral("%1 users: %2 alive at x%3").arg(users).arg(r.meanAliveConversations).arg(k)));
        }
        // Scaled down past its last conversation the trace is empty: refused, never replayed as 0
        // requests (an attacker's x 1e-6 "solved" a fleet for nothing).
        // The least it names keeps one conversation.
        try {
            scaledTraffic(t, 1e-9, QStringLiteral("--traffic-multiplier"));
            QFAIL("an empty trace replayed");
        } catch (const InputError &e) {
            const QString least = e.message().section(QStringLiteral("at least "), 1).section(QLatin1Char(' '), 0, 0);
            QVERIFY2(scaledTraffic(t, least.toDouble(), QStringLiteral("--traffic-multiplier")).conversations >= 1, qPrintable(e.message()));
        }
        // Past the 10,000,000 requests a replay holds, the refusal is said in users, the input
        // given (a trial read "3,945.678 times 8,819 requests", a multiplier never typed).
        try {
            replayForUsers(t, shapeOf(100'000), o, 1e9, QStringLiteral("--users"));
            QFAIL("a billion users replayed");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--users"));
            QVERIFY2(e.message().startsWith(QStringLiteral("1,000,000,000 users are about")) && e.message().contains(QStringLiteral("at most about")),
                     qPrintable(e.message()));
        }
    }

    // Users are counted at unloaded speed; a loaded fleet runs each request longer than alone,
    // so more requests may run at once than users were asked (a trial read "of the 3,000 users
    // alive, 21,783 are running"). The summary says which, never more running than alive.
    void usersAgainstRunningRequests()
    {
        const TrafficTrace t = TrafficTrace::read(mooncake, QStringLiteral("--trace"));
        ReplayOptions o;
        o.replicas = 1;
        // A 2 s decode step: each of Mooncake's requests runs minutes on one replica, far longer
        // than the 10 ms steps the users were counted at.
        ReplayShape slow = shapeOf(100'000);
        const auto [k, fast] = replayForUsers(t, slow, o, 20, QStringLiteral("--users"));
        slow.stepSeconds = [](qint64, double) { return 2.0; };
        ReplayResult r = replay(scaledTraffic(t, k, QStringLiteral("--users")), slow, o);
        r.meanAliveConversations = fast.meanAliveConversations;
        QVERIFY2(r.meanRunning > r.meanAliveConversations, qPrintable(QString::number(r.meanRunning)));
        ReplaySummaryInput in;
        in.users = 20;
        in.multiplier = k;
        in.traceConversations = t.conversations;
        auto users = [&](const ReplayResult &x) {
            for (const auto &row : replaySummary(x, in))
                if (row.first == QLatin1String("Users and sessions"))
                    return row.second;
            return QString();
        };
        const QString loaded = users(r);
        QVERIFY2(loaded.startsWith(Units::formatDecimal(r.meanRunning, 0) + QStringLiteral(" requests run at once on average"))
                     && loaded.contains(QStringLiteral("users alive at unloaded speed")),
                 qPrintable(loaded));
        QVERIFY2(!loaded.contains(QStringLiteral("of the ")), qPrintable(loaded));
        // Two-second steps on one replica outrun the arrivals: requests still wait at the span's
        // end and the last ends past 1.5 times it, said as its own row; the fast replay keeps up.
        QVERIFY(r.endSeconds > 1.5 * r.durationSeconds);
        QVERIFY(r.cannotKeepUp());
        QVERIFY(!fast.cannotKeepUp());
        bool said = false;
        for (const auto &row : replaySummary(r, in))
            said = said || row.first == QLatin1String("Cannot keep up");
        QVERIFY(said);
        // At the speed the users were counted, fewer run than are alive: the first wording.
        QVERIFY(fast.meanRunning <= fast.meanAliveConversations);
        QVERIFY2(users(fast).startsWith(QStringLiteral("of the %1 users alive").arg(Units::formatDecimal(fast.meanAliveConversations, 0))),
                 qPrintable(users(fast)));
    }

    // Below 1, every conversation c with floor((c + 1) k) > floor(c k) at its own times: a
    // tenth of the conversations, every tenth one; beyond 10^7 requests, refused.
    void fewerAndTooManyConversations()
    {
        const TrafficTrace t = TrafficTrace::read(mooncake, QStringLiteral("--trace"));
        const TrafficTrace tenth = scaledTraffic(t, 0.1, QStringLiteral("--traffic-multiplier"));
        qint64 expected = 0;
        for (qint64 c = 0; c < t.conversations; ++c)
            expected += std::floor(double(c + 1) * 0.1) > std::floor(double(c) * 0.1) ? 1 : 0;
        QCOMPARE(tenth.conversations, expected);
        QCOMPARE(tenth.requests.constFirst().arrivalSeconds, t.requests.at([&t] {
            qsizetype i = 0;
            while (t.requests.at(i).conversation != 9) // the first conversation kept: c = 9
                ++i;
            return i;
        }()).arrivalSeconds);
        try {
            scaledTraffic(t, 1000, QStringLiteral("--traffic-multiplier"));
            QFAIL("12,031,000 requests accepted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--traffic-multiplier"));
            QVERIFY2(e.message().contains(QStringLiteral("10,000,000")), qPrintable(e.message()));
        }
    }

    // The fewest replicas meeting no preemption: one fewer preempts.
    void solveMinReplicasIsTheFewest()
    {
        const TrafficTrace t = TrafficTrace::read(mooncake, QStringLiteral("--trace"));
        const std::optional<ReplayResult> solved = solveMinReplicas(t, shapeOf(20'000), {}, 0, std::nullopt, 256);
        QVERIFY(solved);
        QCOMPARE(solved->preemptions, qint64(0));
        if (solved->replicas > 1) {
            ReplayOptions fewer;
            fewer.replicas = solved->replicas - 1;
            QVERIFY(replay(t, shapeOf(20'000), fewer).preemptions > 0);
        }
    }

    // A fleet the arrivals outrun is no answer, preemptions or not: the solve's fewest replicas
    // keep up (a trial's window solved 68 GPUs and then said they "cannot keep up"). Two-second
    // steps on the users' trace outrun one replica (usersAgainstRunningRequests).
    void solveMinReplicasKeepsUp()
    {
        const TrafficTrace t = TrafficTrace::read(mooncake, QStringLiteral("--trace"));
        ReplayOptions o;
        ReplayShape slow = shapeOf(100'000);
        const double k = replayForUsers(t, slow, o, 20, QStringLiteral("--users")).first;
        slow.stepSeconds = [](qint64, double) { return 2.0; };
        const TrafficTrace users = scaledTraffic(t, k, QStringLiteral("--users"));
        const std::optional<ReplayResult> solved = solveMinReplicas(users, slow, o, 1e12, std::nullopt, 256);
        QVERIFY(solved);
        QVERIFY2(!solved->cannotKeepUp(), qPrintable(QString::number(solved->replicas)));
        o.replicas = solved->replicas - 1;
        QVERIFY(o.replicas >= 1);
        QVERIFY(replay(users, slow, o).cannotKeepUp());
    }

    // Bad traces: each refusal names the line and the field.
    void badTracesNameTheLineAndField_data()
    {
        QTest::addColumn<QByteArray>("lines");
        QTest::addColumn<QString>("expected");
        const QByteArray ok = "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 2, \"hash_ids\": [1, 2]}\n";
        QTest::newRow("decreasing timestamps") << ok + "{\"timestamp\": 3, \"input_length\": 10, \"output_length\": 2}\n"
                                               << QStringLiteral("line 2, timestamp");
        QTest::newRow("hash_ids past the prompt's blocks") << QByteArray("{\"timestamp\": 0, \"input_length\": 512, \"output_length\": 2, \"hash_ids\": [1, 2]}\n")
                                                           << QStringLiteral("line 1, hash_ids: 2 blocks for a prompt of 512 tokens");
        QTest::newRow("a block id past 2^63") << QByteArray("{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 2, \"hash_ids\": [1, 18446744073709551616]}\n")
                                              << QStringLiteral("line 1, hash_ids[1]");
        QTest::newRow("a negative block id") << QByteArray("{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 2, \"hash_ids\": [-1, 2]}\n")
                                             << QStringLiteral("line 1, hash_ids[0]");
        QTest::newRow("a gap of a year") << ok + "{\"timestamp\": 31536000005, \"input_length\": 10, \"output_length\": 2}\n"
                                         << QStringLiteral("line 2, timestamp: 365");
        QTest::newRow("no timestamp") << ok + "{\"input_length\": 10, \"output_length\": 2}\n" << QStringLiteral("line 2: no arrival time");
        QTest::newRow("a negative length") << ok + "{\"timestamp\": 6, \"input_length\": -10, \"output_length\": 2}\n" << QStringLiteral("line 2, input_length");
        QTest::newRow("a mistyped length") << ok + "{\"timestamp\": 6, \"input_length\": \"ten\", \"output_length\": 2}\n" << QStringLiteral("line 2, input_length");
        QTest::newRow("no output length") << ok + "{\"timestamp\": 6, \"input_length\": 10}\n" << QStringLiteral("line 2, output_length");
        QTest::newRow("cut off mid-line") << ok + "{\"timestamp\": 6, \"input_length\": 10, \"outp" << QStringLiteral("line 2");
        QTest::newRow("hash_ids fewer than the prompt's blocks") << QByteArray("{\"timestamp\": 0, \"input_length\": 1000000, \"output_length\": 2, \"hash_ids\": [0]}\n")
                                                                 << QStringLiteral("line 1, hash_ids: 1 blocks for a prompt of 1000000 tokens, which has 1954");
        QTest::newRow("a block id of 2^53 + 1, which a double cannot hold")
            << QByteArray("{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 2, \"hash_ids\": [0, 9007199254740993]}\n")
            << QStringLiteral("line 1, hash_ids[1]");
        QTest::newRow("lengths without arrivals") << QByteArray("100\n200\n") << QStringLiteral("no requests with arrivals");
        QTest::newRow("hash_ids not a list") << QByteArray("{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 2, \"hash_ids\": 7}\n")
                                             << QStringLiteral("line 1, hash_ids");
    }
    void badTracesNameTheLineAndField()
    {
        QFETCH(QByteArray, lines);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        try {
            TrafficTrace::read(writeTrace(dir, lines), QStringLiteral("--trace"));
            QFAIL("accepted");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("--trace"));
            QVERIFY2(e.message().contains(expected), qPrintable(e.message()));
        }
    }

    // A request larger than a whole replica's pool is rejected, never waited on for ever.
    void aRequestLargerThanThePoolIsRejected()
    {
        QTemporaryDir dir;
        const TrafficTrace t = TrafficTrace::read(writeTrace(dir, "{\"timestamp\": 0, \"input_length\": 100000, \"output_length\": 2}\n"
                                                                  "{\"timestamp\": 1000, \"input_length\": 100, \"output_length\": 2}\n"),
                                                  QStringLiteral("--trace"));
        const ReplayResult r = replay(t, shapeOf(100), {});
        QCOMPARE(r.rejected, qint64(1));
        QCOMPARE(r.requests, qint64(2));
    }
};

HEADROOM_TEST_MAIN(TestReplay, QCoreApplication)
#include "tst_replay.moc"
