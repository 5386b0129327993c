// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom plan`: the capacity of one scenario, as text or --json; --solve, --save.
#include "commands/commands.h"

#include "cli.h"
#include "commands/options.h"
#include "commands/planflags.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "core/outputtarget.h"
#include "io/scenarioecho.h"
#include "io/scenariofile.h"
#include "plan/capacity.h"
#include "plan/fleetrisk.h"
#include "plan/levers.h"
#include "plan/visionpool.h"

#include <QFileInfo>
#include <QJsonArray>
#include <cmath>

namespace Headroom {

namespace {

/// Label and value rows of the text output, printed with the values aligned.
using Rows = QVector<QPair<QString, QString>>;

/// The --solve max-context answer: solved_context_tokens (null when no length fits) and
/// solved_context_tokens_reason (empty when solved).
QJsonObject solveContext(const Scenario &s, const CapacityResult &r, UnitSystem units)
{
    QJsonObject solved;
    // 0 is no length: null, with the reason beside it (an added field; empty when solved).
    const qint64 tokens = solveMaxContext(s, s.sessions);
    solved.insert(QStringLiteral("solved_context_tokens"), tokens > 0 ? QJsonValue(tokens) : QJsonValue());
    QString why;
    const auto cap = Engines::rule(s.engine).runningCap(s);
    if (tokens <= 0 && cap && s.sessions > cap->sessions)
        why = QStringLiteral("no context fits: %1 runs at most %2 sessions at once (%3), fewer than the %4 asked")
                  .arg(Engines::rule(s.engine).title(), Units::formatCount(cap->sessions), cap->setting, Units::formatCount(s.sessions));
    else if (tokens <= 0)
        why = r.kvBudgetBytesPerGpu <= 0
            ? QStringLiteral("no context fits: the weights and workspace leave no KV budget on the card (%1 of weights per GPU)")
                  .arg(Units::formatBytes(r.weightsBytesPerGpu, units))
            : QStringLiteral("no context fits: %1 do not fit the %2 KV budget per GPU at the risk even at 1 token each")
                  .arg(Units::plural(s.sessions, QStringLiteral("session"), QStringLiteral("sessions")),
                       Units::formatBytes(r.kvBudgetBytesPerGpu, units));
    solved.insert(QStringLiteral("solved_context_tokens_reason"), why);
    return solved;
}

/// The --solve answer's fields (solved_*), empty without --solve. Throws InputError naming
/// --solve for an unknown goal, or min-gpus without --target-sessions.
QJsonObject solveAsked(const QCommandLineParser &p, const Scenario &s, const CapacityResult &r, UnitSystem units)
{
    QJsonObject solved;
    if (!isSet(p, "solve"))
        return solved;
    const QString what = value(p, "solve");
    if (what == QLatin1String("max-context")) {
        solved = solveContext(s, r, units);
    } else if (what == QLatin1String("min-gpus")) {
        if (!s.targetSessions)
            throw InputError(QStringLiteral("--solve"), QStringLiteral("min-gpus needs --target-sessions N"));
        const auto [gpus, tp] = solveMinGpus(s, *s.targetSessions);
        solved.insert(QStringLiteral("solved_gpus"), gpus > 0 ? QJsonValue(gpus) : QJsonValue());
        solved.insert(QStringLiteral("solved_tp"), tp > 0 ? QJsonValue(tp) : QJsonValue());
    } else if (what == QLatin1String("max-model-len")) {
        solved.insert(QStringLiteral("solved_max_model_len"), solveMaxModelLen(s));
    } else {
        throw InputError(QStringLiteral("--solve"), QStringLiteral("must be max-context, min-gpus or max-model-len, got \"%1\"").arg(what));
    }
    return solved;
}

/// --save FILE: writes the resolved scenario; true when FILE is "-", whose scenario is then
/// the whole of standard output, in place of the plan. Throws InputError naming --save.
bool saveScenario(const QCommandLineParser &p, const Scenario &s)
{
    const QString path = value(p, "save");
    OutputTarget::check(path, OutputTarget::Kind::Scenario, inputFiles(p), QStringLiteral("--save"));
    if (OutputTarget::isStandardOutput(path)) {
        if (isSet(p, "json"))
            throw InputError(QStringLiteral("--save"), QStringLiteral("- (standard output) would mix the scenario with the --json plan; "
                                                                      "give the scenario a file name, or leave out --json"));
        namingTheFile(QStringLiteral("--save"), [&] { ScenarioFile::write(path, s, s.model.name + QStringLiteral(" on ") + s.gpu.name, inputFiles(p)); });
        return true;
    }
    namingTheFile(QStringLiteral("--save"), [&] { ScenarioFile::write(path, s, QFileInfo(path).completeBaseName(), inputFiles(p)); });
    return false;
}

/// The plan as one JSON object: the result, the solved fields, the inputs, the session basis
/// and the derivation's lines.
void printJson(QTextStream &out, const Scenario &s, const CapacityResult &r, const QJsonObject &solved, const QStringList &derivation)
{
    QJsonObject o = r.toJson();
    for (const QString &key : solved.keys())
        o.insert(key, solved.value(key));
    o.insert(QStringLiteral("inputs"), scenarioEcho(s));
    // With a cap, the count at the risk without it: what the cap buys (added field).
    const std::optional<qint64> open = uncappedSessions(s);
    o.insert(QStringLiteral("sessions_at_risk_without_cap"), open ? QJsonValue(*open) : QJsonValue());
    // The length reserved_tokens_per_session is, in the derivation's words (added field).
    o.insert(QStringLiteral("session_basis"), sessionBasis(s, r));
    o.insert(QStringLiteral("derivation"), QJsonArray::fromStringList(derivation));
    out << QString::fromUtf8(JsonNumbers::toJson(o));
}

/// The rows of one GPU's memory: KV per token and per session, the side pools, the budget,
/// the sessions that fit, the cost, and the warm sessions when a host tier or share is set.
Rows memoryRows(const Scenario &s, const CapacityResult &r, UnitSystem units)
{
    Rows rows;
    auto row = [&rows](const QString &label, const QString &value) { rows << qMakePair(label, value); };
    auto fmt = [units](qint64 b) { return Units::formatBytes(b, units); };
    auto both = [fmt](qint64 b) { return QStringLiteral("%1 (%2)").arg(Units::formatExactBytes(b), fmt(b)); };
    const QString perGpu = Cli::tr(" per GPU");
    const bool split = s.gpusPerReplica() > 1; // heads over TP, layers over PP: each GPU holds a share
    row(Cli::tr("KV bytes per token"), both(r.kvBytesPerToken)
        + (split ? Cli::tr("; %1%2").arg(both(r.kvBytesPerTokenPerGpu), perGpu) : QString()));
    if (r.draftKvBytesPerToken > 0)
        row(Cli::tr("Draft KV per token"), both(r.draftKvBytesPerToken));
    row(Cli::tr("Bytes per session"), both(r.reservedSessionBytesPerGpu) + (split ? perGpu : QString())
        + (r.draftKvBytesPerToken > 0 ? Cli::tr(" with the draft's KV") : QString()));
    if (r.draftWeightsBytes > 0)
        row(Cli::tr("Draft weights per GPU"), Cli::tr("%1 (whole draft %2)").arg(fmt(r.draftWeightsBytesPerGpu), fmt(r.draftWeightsBytes)));
    if (r.loraBytesPerGpu > 0)
        row(Cli::tr("LoRA slots per GPU"), fmt(r.loraBytesPerGpu));
    row(Cli::tr("KV budget per GPU"), fmt(r.kvBudgetBytesPerGpu));
    // Under a distribution this count is one of several: its label names its length.
    row(s.distribution ? Cli::tr("Sessions at %1 tokens").arg(Units::formatCount(r.reservedTokensPerSession)) : Cli::tr("Sessions that fit"),
        Units::formatCount(r.maxSessions) + perReplicaOf(s));
    // At one length the cap's gain is said here (under a distribution, with the risk's rows).
    if (!s.distribution && s.retainTokens)
        if (const std::optional<qint64> open = uncappedSessions(s))
            row(Cli::tr("Retention cap gains"), capEffect(s, r, *open));
    // Sessions asked beyond one replica size a fleet (the rows below): one GPU's share of them is no question asked.
    if (!r.distribution.fleetTargetFromSessions)
        row(s.distribution ? Cli::tr("KV for %1 at %2 tokens").arg(Units::plural(s.sessions, Cli::tr("session"), Cli::tr("sessions")),
                                                                  Units::formatCount(r.reservedTokensPerSession))
                           : Cli::tr("KV for %1").arg(Units::plural(s.sessions, Cli::tr("session"), Cli::tr("sessions"))),
            fmt(r.kvBytesForSessionsPerGpu) + perGpu + (r.fits ? Cli::tr(" (fits)") : Cli::tr(" (does not fit)")));
    auto perSessionHour = [](double usd) { return Units::formatUsdPer(usd, Cli::tr("session-hour")); };
    if (r.costPerSessionHourUsd)
        row(Cli::tr("Cost"), perSessionHour(*r.costPerSessionHourUsd)
            + (s.distribution ? Cli::tr(" (at the risk-based count)") : QString()));
    if (VisionPool::hasEncoder(s))
        row(Cli::tr("Vision encoder"), Cli::tr("%1, encoder cache %2 per GPU, %3 image tokens per request")
                                           .arg(r.encoderLoaded ? Cli::tr("%1 of weights").arg(fmt(r.encoderWeightsBytes)) : Cli::tr("not loaded"),
                                                fmt(r.encoderCacheBytesPerGpu), Units::formatCount(r.imageTokensPerRequest)));
    if (s.decodingShare || s.hostKvMemoryBytes) {
        const WarmSessions &w = r.warm;
        auto ms = [](const std::optional<double> &v) { return v ? Units::formatDecimal(*v, 1) + QStringLiteral(" ms") : Cli::tr("unknown"); };
        row(Cli::tr("Sessions warm per node"), Cli::tr("%1 retained (%2 decoding per GPU on average); resume %3 against recompute %4")
                                                   .arg(Units::formatCount(w.retainedPerNode), Units::formatDecimal(w.decodingPerGpu, 2),
                                                        ms(w.atContext.resumeMs), ms(w.atContext.recomputeMs)));
    }
    return rows;
}

/// The rows of the session lengths under a distribution (none without one): the count at
/// the risk, the worst case, the mean, the admission limit, the overflow probability, the
/// lengths' quantiles, the retention cap's cost and admission by prompt.
Rows lengthRows(const Scenario &s, const CapacityResult &r)
{
    Rows rows;
    if (!s.distribution)
        return rows;
    auto row = [&rows](const QString &label, const QString &value) { rows << qMakePair(label, value); };
    const DistributionFigures &d = r.distribution;
    row(Cli::tr("Sessions at risk"), Cli::tr("%1 (at a %2 risk of overflowing the KV pool%3)")
                                         .arg(Units::formatCount(d.sessionsAtRisk), Units::formatRisk(d.replicaRisk),
                                              s.fleetRisk ? Cli::tr(", each replica's for the fleet's %1").arg(Units::formatRisk(*s.fleetRisk))
                                                          : QString()));
    // The worst case is its own row only when it is not the count above at the same length.
    const qint64 longest = d.worstCaseTokens(s.retainTokens);
    if (longest != r.reservedTokensPerSession || s.preallocate)
        row(Cli::tr("Worst case"), Cli::tr("%1 (every session at %2 tokens, the longest%3)")
                                       .arg(Units::formatCount(d.sessionsWorstCase), Units::formatCount(longest),
                                            longest < d.maxTokens ? Cli::tr(" at the cap") : d.reservationWords()));
    // Under a cap the mean is the capped lengths' (what a session holds), named so beside the
    // lengths' own mean a row below (a trial read two "means" side by side).
    row(Cli::tr("At the mean"), Cli::tr("%1 (every session at %2 tokens%3)")
                                    .arg(Units::formatCount(d.sessionsAtMean), Units::formatCount(d.meanHeldTokens(s.retainTokens.has_value())),
                                         s.retainTokens ? Cli::tr(", the mean of the lengths as capped") : d.reservationWords()));
    row(Cli::tr("Admission limit"), Cli::tr("%1 (the budget less a %2% margin)")
                                        .arg(Units::formatCount(d.admissionLimit), Units::formatDecimal(s.marginFraction * 100, 2)));
    if (!d.fleetTargetFromSessions)
        row(Cli::tr("Overflow probability"), Cli::tr("%1 at %2").arg(Units::formatRisk(d.overflowProbability),
                                                                     Units::plural(s.sessions, Cli::tr("session"), Cli::tr("sessions"))));
    row(Cli::tr("Lengths (tokens)"), Cli::tr("mean %1, p50 %2, p90 %3, p99 %4, max %5")
                                         .arg(Units::formatCount(qint64(std::llround(d.meanTokens))), Units::formatCount(d.p50),
                                              Units::formatCount(d.p90), Units::formatCount(d.p99), Units::formatCount(d.maxTokens)));
    if (s.retainTokens) {
        // What it buys against no cap, as the window says it (a trial found only what it costs here).
        if (const std::optional<qint64> open = uncappedSessions(s))
            row(Cli::tr("Retention cap gains"), capEffect(s, r, *open));
        row(Cli::tr("Retention cap"), d.truncatedShare > 0 ? historyLost(r) : Cli::tr("no session loses history"));
    }
    if (d.hasPrompts)
        row(Cli::tr("Admitting by prompt"), Cli::tr("%1, a %2 overflow risk once they have grown")
                                                .arg(Units::plural(d.admissionByPrompt, Cli::tr("session"), Cli::tr("sessions")),
                                                     Units::formatRisk(d.riskAtGrownSize)));
    return rows;
}

/// The rows of the service: decode speed at the risk-based count, cost per million output
/// tokens, and the fleet for --target-sessions (with the margin when admission needs more).
Rows serviceRows(const Scenario &s, const CapacityResult &r)
{
    Rows rows;
    auto row = [&rows](const QString &label, const QString &value) { rows << qMakePair(label, value); };
    const DistributionFigures &d = r.distribution;
    if (d.itlMsAtRisk)
        row(Cli::tr("Decode at %1").arg(Units::plural(d.sessionsAtRisk, Cli::tr("session"), Cli::tr("sessions"))),
            Cli::tr("%1 ms per token (90% of measured engines: %2 to %3 ms), %4 tokens/s per GPU (%5 to %6)")
                .arg(Units::formatDecimal(*d.itlMsAtRisk, 1), Units::formatDecimal(d.itlAtRiskBand->low, 1), Units::formatDecimal(d.itlAtRiskBand->high, 1),
                     Units::formatCount(qint64(std::llround(d.tokensPerSecondPerGpu.value_or(0)))),
                     Units::formatCount(qint64(std::llround(d.tokensPerSecondBand->low))), Units::formatCount(qint64(std::llround(d.tokensPerSecondBand->high)))));
    if (d.ttftMs)
        row(Cli::tr("Time to first token (mean prompt, unloaded)"),
            Cli::tr("%1 ms (90% of measured engines at 8 sessions or fewer: %2 to %3 ms)").arg(Units::formatDecimal(*d.ttftMs, 1), Units::formatDecimal(d.ttftBand->low, 1),
                                                              Units::formatDecimal(d.ttftBand->high, 1)));
    if (d.costPerMillionTokensUsd)
        row(Cli::tr("Cost per million output tokens"), Units::formatUsd(*d.costPerMillionTokensUsd));
    if (d.gpusNeeded)
        row(Cli::tr("Fleet for %1").arg(Units::plural(*d.fleetTargetSessions, Cli::tr("session"), Cli::tr("sessions"))
                                        + (d.fleetTargetFromSessions ? Cli::tr(" asked") : QString())),
            Units::plural(*d.gpusNeeded, Cli::tr("GPU"), Cli::tr("GPUs"))
                + (d.fleetCostPerHourUsd ? Cli::tr(", %1 per hour, %2 per month").arg(Units::formatUsd(*d.fleetCostPerHourUsd), Units::formatUsd(*d.fleetCostPerMonthUsd))
                                         : QString()));
    else if (!d.fleetTargetSessions && s.dp > 1 && d.fleetGpus)
        row(Cli::tr("Fleet of %1").arg(Units::plural(s.dp, Cli::tr("replica"), Cli::tr("replicas"))),
            Units::plural(*d.fleetGpus, Cli::tr("GPU"), Cli::tr("GPUs"))
                + (d.fleetCostPerHourUsd ? Cli::tr(", %1 per hour, %2 per month").arg(Units::formatUsd(*d.fleetCostPerHourUsd), Units::formatUsd(*d.fleetCostPerMonthUsd))
                                         : QString()));
    // Which risk the answer holds, each replica's or the fleet's, and what the other comes to.
    if (const QString risk = FleetRisk::words(s, r); !risk.isEmpty())
        row(Cli::tr("Overflow risk"), risk);
    // Engines admitting the count to deploy (the admission limit) on that fleet may hold fewer
    // than the target: the fleet that holds it with the margin too.
    if (d.gpusNeeded && d.gpusNeededAtAdmissionLimit && *d.gpusNeededAtAdmissionLimit > *d.gpusNeeded)
        row(Cli::tr("With the margin"),
            Cli::tr("%1 (admitting %2; %3 hold %4)")
                .arg(Units::plural(*d.gpusNeededAtAdmissionLimit, Cli::tr("GPU"), Cli::tr("GPUs")), sessionsPerGpus(d.admissionLimit, s.gpusPerReplica()),
                     Units::plural(*d.gpusNeeded, Cli::tr("GPU"), Cli::tr("GPUs")),
                     Units::formatCount(d.admissionLimit * (*d.gpusNeeded / s.gpusPerReplica()))));
    return rows;
}

/// Prints the three blocks of rows, every value after the longest label of all three; a blank
/// line before the length rows when there are any.
void printRows(QTextStream &out, const Rows &memory, const Rows &lengths, const Rows &service)
{
    qsizetype width = 0;
    for (const auto *block : {&memory, &lengths, &service})
        for (const auto &[label, value] : *block)
            width = std::max(width, label.size());
    auto print = [&](const Rows &block) {
        for (const auto &[label, value] : block)
            out << QString(label + QLatin1Char(':')).leftJustified(width + 1) << ' ' << value << '\n';
    };
    print(memory);
    if (!lengths.isEmpty()) {
        out << '\n';
        print(lengths);
    }
    print(service);
}

/// The plan as text: its title, the rows, the --solve answers, the verdict with its fixes
/// and notes, and the derivation.
void printText(QTextStream &out, const Scenario &s, const CapacityResult &r, UnitSystem units, const QJsonObject &solved,
               const QStringList &derivation)
{
    out << Cli::tr("%1 on %2%3; every per-session figure at %4\n\n")
               .arg(s.model.name, s.gpusPerReplica() > 1 ? QStringLiteral("%1 x ").arg(s.gpusPerReplica()) : QString(), s.gpu.name, sessionBasis(s, r));
    printRows(out, memoryRows(s, r, units), lengthRows(s, r), serviceRows(s, r));
    for (const QString &key : solved.keys()) {
        if (key.endsWith(QLatin1String("_reason")))
            continue;
        const QString why = solved.value(key + QStringLiteral("_reason")).toString();
        out << key << ": " << (solved.value(key).isNull() ? Cli::tr("none") : Units::formatCount(solved.value(key).toInteger()))
            << (why.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(why)) << '\n';
    }
    // The fewest GPUs at another TP than the plan's: the fleet row above is the plan's TP, said
    // so (a trial read "Fleet for 8 sessions: 3 GPUs" beside "solved_gpus: 2, solved_tp: 2").
    if (const int tp = solved.value(QStringLiteral("solved_tp")).toInt(); tp > 0 && tp != s.tp && !solved.value(QStringLiteral("solved_gpus")).isNull())
        out << Cli::tr("The fleet above is at TP %1; the fewest GPUs are %2 at TP %3: plan with --tp %3 for its figures.")
                   .arg(s.tp)
                   .arg(Units::plural(solved.value(QStringLiteral("solved_gpus")).toInteger(), Cli::tr("GPU"), Cli::tr("GPUs")))
                   .arg(tp)
            << '\n';
    out << '\n' << r.verdict << '\n';
    for (const QString &f : r.fixes)
        out << Cli::tr("  fix: %1").arg(f) << '\n';
    for (const QString &w : r.warnings)
        out << Cli::tr("note: %1").arg(w) << '\n';
    out << '\n' << Cli::tr("Derivation:") << '\n';
    for (const QString &line : derivation)
        out << "  " << line << '\n';
}

} // namespace

int runPlan(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() > 1) {
        err << "error: unexpected argument \"" << pos.at(1) << "\"\n";
        return 2;
    }
    // Solving for the context needs none given (the plan is then shown at the length solved);
    // --solve max-model-len answers the engine's setting, not a session's length: the plan
    // beside it needs its context, as every plan does.
    const bool solvingLength = isSet(p, "solve") && value(p, "solve") == QLatin1String("max-context");
    Scenario s = scenarioFrom(p, err, !solvingLength || isSet(p, "context"));
    const UnitSystem units = unitsFrom(p);
    CapacityResult r = computeCapacity(s);
    if (!r.ok) {
        err << "error: " << r.error << '\n';
        return 1;
    }
    const QJsonObject solved = solveAsked(p, s, r, units);
    // A length solved without --context is the context the plan is shown at: every figure at the
    // length it found, not at a default nobody gave (an attacker read "at 100,000 tokens (the
    // context)" beside a solved length).
    if (solvingLength && !isSet(p, "context") && !s.distribution) {
        const QJsonValue length = solved.value(QStringLiteral("solved_context_tokens"));
        if (length.isDouble() && length.toInteger() > 0) {
            s.contextTokens = length.toInteger();
            r = computeCapacity(s);
            if (!r.ok) {
                err << "error: " << r.error << '\n';
                return 1;
            }
        }
    }
    const QStringList derivation = explainCapacity(s, r, units);
    if (isSet(p, "save") && saveScenario(p, s))
        return 0;
    if (isSet(p, "json"))
        printJson(out, s, r, solved, derivation);
    else
        printText(out, s, r, units, solved, derivation);
    return 0;
}

} // namespace Headroom
