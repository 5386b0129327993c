// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark (not a test): whole command-line processes, as a user or a script runs them, and
// the trace reader alone. Each command runs 15 times (after one warm-up run); the table gives
// the median and the fastest wall time in ms. Targets (issue 15): a risk-based `plan` on a small
// card within 1.5x of a plain `plan`, `levers` against a trace within 2x, and the 19,366-row
// conversation trace parsed in well under 5 ms.
#include "lengths/lengthdistribution.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <algorithm>
#include <cstdio>

using namespace Headroom;

namespace {
const QString conv = QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-conv.csv");

void row(const char *name, QVector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    std::printf("%-52s %9.2f %9.2f\n", name, ms.at(ms.size() / 2), ms.first());
}

QVector<double> timeProcess(const QStringList &args)
{
    QVector<double> ms;
    for (int i = 0; i <= 15; ++i) {
        QProcess p;
        QElapsedTimer t;
        t.start();
        p.start(QStringLiteral(HEADROOM_BINARY), args);
        p.waitForFinished(60000);
        if (p.exitCode() != 0) {
            std::fprintf(stderr, "headroom %s failed: %s\n", qPrintable(args.join(QLatin1Char(' '))), p.readAllStandardError().constData());
            std::exit(1);
        }
        if (i > 0) // the first run warms the page cache
            ms.append(double(t.nsecsElapsed()) / 1e6);
    }
    return ms;
}
} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    std::printf("%-52s %9s %9s\n", "", "median ms", "best ms");
    QVector<double> parse;
    for (int i = 0; i < 30; ++i) {
        QElapsedTimer t;
        t.start();
        const LengthDistribution d = LengthDistribution::fromTrace(conv, QStringLiteral("trace"));
        parse.append(double(t.nsecsElapsed()) / 1e6);
        if (d.requests != 19366)
            return 1;
    }
    row("read the conversation trace (19,366 rows)", parse);
    const QStringList plain{QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"),
                            QStringLiteral("--gpu"), QStringLiteral("rtx-4090"), QStringLiteral("--context"),
                            QStringLiteral("8192"), QStringLiteral("--json")};
    row("plan --json, RTX 4090 (plain)", timeProcess(plain));
    const QStringList trace{QStringLiteral("--distribution"), QStringLiteral("trace:") + conv, QStringLiteral("--risk"), QStringLiteral("1e-6")};
    row("plan --json, RTX 4090, trace at risk 1e-6", timeProcess(plain + trace));
    const QStringList levers{QStringLiteral("levers"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"),
                             QStringLiteral("--gpu"), QStringLiteral("rtx-4090"), QStringLiteral("--context"),
                             QStringLiteral("8192"), QStringLiteral("--json")};
    row("levers --json, RTX 4090 (no distribution)", timeProcess(levers));
    row("levers --json, RTX 4090, trace", timeProcess(levers + trace));
    return 0;
}
