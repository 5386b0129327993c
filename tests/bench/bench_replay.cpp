// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark (not a test): the replay of traffic (issue 29). Targets: Mooncake's 12,031-request
// hour on 8 replicas in at most 100 ms and 50 MB; --solve min-replicas in at most 1 s; a
// synthetic day of 1,000,000 requests (generated here, seeded) in at most 10 s and 500 MB.
// In-process rows time the model alone (read, replay) on Llama-3.1-8B-like figures; process
// rows time `headroom replay` as a user runs it, with the peak resident memory of the process.
#include "lengths/traffictrace.h"
#include "traffic/replay.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <sys/resource.h>
#include <sys/wait.h>

using namespace Headroom;

namespace {
const QString hour = QStringLiteral(HEADROOM_SAMPLES "/mooncake-fast25-conversation.jsonl");

/// Llama-3.1-8B on an H100 at bf16 KV, roughly: 131,072 B per token, about 55 GB of budget in
/// 16-token blocks; a step of 16 GB of weights plus the batch's KV at 2.68 TB/s; prefill at
/// 2 x 8e9 FLOPs per token at 495 TFLOPS.
ReplayShape llamaOnH100()
{
    ReplayShape s;
    s.engineBlockTokens = 16;
    s.kvBytesPerTokenPerGpu = 131072;
    s.poolBlocks = qint64(55e9) / (16 * 131072);
    s.stepSeconds = [](qint64 batch, double meanTokens) { return (16e9 + double(batch) * meanTokens * 131072.0) / 2.68e12; };
    s.prefillSeconds = [](qint64 tokens) { return 2 * 8e9 * double(tokens) / 495e12; };
    return s;
}

void row(const char *name, double ms, double mb = -1)
{
    if (mb >= 0)
        std::printf("%-60s %10.1f ms %8.1f MB\n", name, ms, mb);
    else
        std::printf("%-60s %10.1f ms\n", name, ms);
}

/// The wall time of `headroom args` and its peak resident memory (wait4's ru_maxrss).
std::pair<double, double> timeProcess(const QStringList &args)
{
    QProcess p;
    p.setStandardOutputFile(QProcess::nullDevice()); // wait4 below runs no event loop to drain a pipe
    QElapsedTimer t;
    t.start();
    p.start(QStringLiteral(HEADROOM_BINARY), args);
    p.waitForStarted();
    const pid_t pid = pid_t(p.processId());
    int status = 0;
    rusage use{};
    wait4(pid, &status, 0, &use);
    const double ms = double(t.nsecsElapsed()) / 1e6;
    p.waitForFinished(1000);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "headroom %s failed\n", qPrintable(args.join(QLatin1Char(' '))));
        std::exit(1);
    }
    return {ms, double(use.ru_maxrss) / 1024.0};
}

/// A day of `requests` requests in conversations of 1 to 8 turns, each opening with the shared
/// block 0, a turn repeating the earlier turns' full blocks, arrivals spread over 24 hours.
QString writeDay(const QTemporaryDir &dir, qint64 requests)
{
    struct Line { qint64 ms; QByteArray text; };
    std::vector<Line> lines;
    lines.reserve(size_t(requests));
    QRandomGenerator rng(29);
    qint64 nextId = 1;
    while (qint64(lines.size()) < requests) {
        const int turns = 1 + int(rng.bounded(8));
        double t = rng.bounded(86400.0 * 1000.0);
        qint64 input = 600 + rng.bounded(7400);
        std::vector<qint64> blocks{0};
        for (int k = 0; k < turns && qint64(lines.size()) < requests; ++k) {
            const qint64 need = (input + 511) / 512;
            while (qint64(blocks.size()) < need)
                blocks.push_back(nextId++);
            QByteArray ids;
            for (qint64 b = 0; b < need; ++b)
                ids += (b ? ", " : "") + QByteArray::number(blocks[size_t(b)]);
            lines.push_back({qint64(t), "{\"timestamp\": " + QByteArray::number(qint64(t)) + ", \"input_length\": " + QByteArray::number(input)
                                            + ", \"output_length\": " + QByteArray::number(20 + rng.bounded(780)) + ", \"hash_ids\": [" + ids + "]}\n"});
            blocks.resize(size_t(input / 512));
            input += 200 + rng.bounded(1800);
            t += 20000 + rng.bounded(280000.0);
        }
    }
    std::stable_sort(lines.begin(), lines.end(), [](const Line &a, const Line &b) { return a.ms < b.ms; });
    const QString path = dir.filePath(QStringLiteral("day.jsonl"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        std::exit(1);
    for (const Line &l : lines)
        f.write(l.text);
    return path;
}
} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QElapsedTimer t;
    t.start();
    const TrafficTrace trace = TrafficTrace::read(hour, QStringLiteral("--trace"));
    row("read the Mooncake hour (12,031 requests)", double(t.nsecsElapsed()) / 1e6);
    ReplayOptions eight;
    eight.replicas = 8;
    for (int i = 0; i < 3; ++i) {
        t.restart();
        const ReplayResult r = replay(trace, llamaOnH100(), eight);
        row("replay it on 8 replicas (model only)", double(t.nsecsElapsed()) / 1e6);
        if (r.requests != 12031)
            return 1;
    }
    t.restart();
    solveMinReplicas(trace, llamaOnH100(), {}, 0, 2000.0, 4096);
    row("--solve min-replicas, queue p99 <= 2 s (model only)", double(t.nsecsElapsed()) / 1e6);

    const QStringList plan{QStringLiteral("replay"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"),
                           QStringLiteral("h100-sxm-80gb"), QStringLiteral("--engine"), QStringLiteral("vllm"), QStringLiteral("--json")};
    auto [ms, mb] = timeProcess(plan + QStringList{QStringLiteral("--trace"), hour, QStringLiteral("--replicas"), QStringLiteral("8")});
    row("headroom replay: the hour on 8 replicas", ms, mb);
    std::tie(ms, mb) = timeProcess(plan + QStringList{QStringLiteral("--trace"), hour, QStringLiteral("--solve"), QStringLiteral("min-replicas"),
                                                      QStringLiteral("--max-queue-ms"), QStringLiteral("2000")});
    row("headroom replay --solve min-replicas (queue p99 <= 2 s)", ms, mb);

    QTemporaryDir dir;
    t.restart();
    const QString day = writeDay(dir, argc > 1 ? QByteArray(argv[1]).toLongLong() : 1'000'000);
    row("write the synthetic day", double(t.nsecsElapsed()) / 1e6);
    std::tie(ms, mb) = timeProcess(plan + QStringList{QStringLiteral("--trace"), day, QStringLiteral("--replicas"), QStringLiteral("64")});
    row("headroom replay: the synthetic day (1,000,000 requests), 64 replicas", ms, mb);
    return 0;
}
