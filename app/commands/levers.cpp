// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom levers`: the four levers (precision, attention, retention, memory) priced.
#include "commands/commands.h"

#include "cli.h"
#include "commands/options.h"
#include "commands/planflags.h"
#include "commands/presetlookup.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "plan/capacity.h"
#include "plan/levers.h"
#include "plan/riskwork.h"

#include <QLocale>
#include <cmath>

namespace Headroom {

namespace {

/// The target an option must meet: --target-sessions-per-gpu, --max-itl-ms, and whether
/// offloaded sessions decode from host memory (--decode-from-host). Throws InputError naming the flag.
LeverTarget targetFrom(const QCommandLineParser &p)
{
    LeverTarget target;
    if (isSet(p, "target-sessions-per-gpu"))
        target.sessionsPerGpu = Units::parseFraction(value(p, "target-sessions-per-gpu"), QStringLiteral("--target-sessions-per-gpu"), 0, 1e9);
    target.decodeFromHost = isSet(p, "decode-from-host");
    if (isSet(p, "max-itl-ms"))
        target.maxItlMs = Units::parseFraction(value(p, "max-itl-ms"), QStringLiteral("--max-itl-ms"), 0, 1e9);
    return target;
}

/// --shared-prefix in tokens (0 without it). Throws InputError naming it when it is not below
/// the shortest session of `s` (after the length scale).
qint64 sharedPrefixFrom(const QCommandLineParser &p, const Scenario &s)
{
    const qint64 prefix = isSet(p, "shared-prefix") ? countOpt(p, "shared-prefix") : 0;
    if (prefix > 0 && s.distribution && s.distribution->sharedPrefixTokens > 0)
        throw InputError(QStringLiteral("--shared-prefix"),
                         QStringLiteral("the trace's conversations already share a %1-token prefix, held once per card; a second would count it twice")
                             .arg(Units::formatCount(s.distribution->sharedPrefixTokens)));
    const LengthDistribution lengths = s.distribution ? s.distribution->scaled(s.lengthScale, s.field(Input::LengthScale)) : LengthDistribution::fixed(s.contextTokens);
    if (prefix >= lengths.lengths.first())
        throw InputError(QStringLiteral("--shared-prefix"), QStringLiteral("%1 tokens is not below the shortest session (%2 tokens): a shared prefix is part of every session")
                                                                 .arg(Units::formatCount(prefix), Units::formatCount(lengths.lengths.first())));
    return prefix;
}

/// The levers as text: the current sessions per GPU and cost, one aligned row per option
/// (the cheapest marked, `targetSet`: the cheapest meeting the target), then the answer.
void printLevers(QTextStream &out, const LeverReport &report, bool targetSet)
{
    out << Cli::tr("Now: %1%2")
               .arg(sessionsPerGpus(report.current.sessionsPerGroup, report.current.scenario.tp),
                    report.current.costPerSessionHourUsd
                        ? Cli::tr(", %1").arg(Units::formatUsdPer(*report.current.costPerSessionHourUsd, Cli::tr("session-hour")))
                        : QString())
        << "\n\n";
    struct Line { QString lever, option, perGpu, cost, effect; };
    QVector<Line> lines{{Cli::tr("lever"), Cli::tr("option"), Cli::tr("sessions"), Cli::tr("$/session-hour"), Cli::tr("price paid")}};
    for (const LeverOption &o : report.options)
        lines << Line{o.lever, o.option, sessionsPerGpus(o.sessionsPerGroup, o.scenario.tp, false),
                      o.costPerSessionHourUsd && o.sessionsPerGroup > 0 ? Units::formatUsd(*o.costPerSessionHourUsd) : QStringLiteral("—"),
                      o.sideEffect
                          + (o.cheapest ? (targetSet ? Cli::tr("  <- cheapest meeting the target") : Cli::tr("  <- cheapest"))
                             : o.changesRequirement ? Cli::tr("  [changes the requirement: %1]").arg(o.changesRequirementReason)
                                                    : QString())
                          + (o.runnable ? QString() : Cli::tr("  [not runnable, a what-if for another engine or card: %1]").arg(o.runnableReason))};
    qsizetype w[4] = {0, 0, 0, 0};
    for (const Line &l : lines) {
        w[0] = std::max(w[0], l.lever.size());
        w[1] = std::max(w[1], l.option.size());
        w[2] = std::max(w[2], l.perGpu.size());
        w[3] = std::max(w[3], l.cost.size());
    }
    for (const Line &l : lines)
        out << l.lever.leftJustified(w[0]) << "  " << l.option.leftJustified(w[1]) << "  " << l.perGpu.rightJustified(w[2]) << "  "
            << l.cost.rightJustified(w[3]) << "  " << l.effect << '\n';
    out << '\n' << report.answer << '\n';
}

} // namespace

int runLevers(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &)
{
    const Scenario s = scenarioFrom(p, err);
    const LeverTarget target = targetFrom(p);
    const qint64 prefix = sharedPrefixFrom(p, s);
    const qint64 host = isSet(p, "host-memory") ? Units::parseSize(value(p, "host-memory"), QStringLiteral("--host-memory"), true) : 256'000'000'000;
    // The current plan only to refuse a scenario with an error: its counts suffice (the
    // admission and overflow figures a full plan adds are never printed here, and
    // with a trace they cost a second law and its transforms).
    RiskWork check(RiskWork::Figures::Counts);
    const CapacityResult now = computeCapacity(s, check);
    if (!now.ok) {
        err << "error: " << now.error << '\n';
        return 1;
    }
    const LeverReport report = evaluateLevers(check, s, allModels(err), allGpus(err), target, prefix, host); // the check's count reused
    if (isSet(p, "json"))
        out << QString::fromUtf8(JsonNumbers::toJson(report.toJson()));
    else
        printLevers(out, report, target.sessionsPerGpu || target.maxItlMs);
    return 0;
}

} // namespace Headroom
