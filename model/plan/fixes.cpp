// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/capacityparts.h"
#include "engines/enginerule.h"
#include "engines/runnability.h"
#include "core/inputranges.h"

#include <cmath>

namespace Headroom::CapacityParts {

using Units::formatCount;

namespace {

// Sessions that fit a variant of the scenario by its answer (answersByRisk: the risk-based
// count, on `work`'s laws; else every session at its reserved length), or -1 when the
// variant is invalid.
qint64 sessionsOf(const Scenario &s, RiskWork &work)
{
    try {
        const KvCost cost = costOf(s);
        const Budget b = budgetOf(s);
        const qint64 reserved = reservedTokens(s);
        const qint64 per = cost.sessionBytes(reserved, true, reservedField(s));
        if (b.budget <= 0 || per <= 0)
            return 0;
        // Held to the engine's running cap as the plan is: a change that grows the KV cache runs no more.
        const qint64 cap = Engines::rule(s.engine).runningCap(s).value_or(RunningCap{std::numeric_limits<qint64>::max(), {}}).sessions;
        if (answersByRisk(s))
            return std::min(cap, admittedLaw(work, s, lengthsOf(s, reserved), cost, s.retainTokens.value_or(0))
                                     .sessionsAtRisk(sessionsBudget(s, cost, b.budget), s.risk).sessions);
        return std::min(cap, b.budget / per);
    } catch (const InputError &) {
        return -1;
    }
}

// The engine's own share of memory (EngineRule::memoryFraction) raised to the least hundredth
// that holds `want` sessions, as a fix ("gpu_memory_utilization 0.95: 12 sessions"); empty when
// the engine has none, or when even 0.95 does not hold them. 0.95 is Headroom's ceiling: the
// part the engine leaves out of its accounting (the driver, other processes, allocator slack)
// keeps at least 5% of the card. The count rises with the share, so the least is bisected.
QString memoryFractionFix(const Scenario &s, qint64 want, RiskWork &work)
{
    const EngineRule &rule = Engines::rule(s.engine);
    const auto now = rule.memoryFraction(s);
    if (!now)
        return QString();
    const int from = int(std::floor(now->second * 100 + 1e-9)) + 1, ceiling = 95;
    auto sessionsAt = [&](int hundredths) {
        Scenario v = s;
        rule.setMemoryFraction(v, hundredths / 100.0);
        return sessionsOf(v, work);
    };
    if (from > ceiling || sessionsAt(ceiling) < want)
        return QString();
    int low = from, high = ceiling;
    while (low < high) {
        const int mid = (low + high) / 2;
        if (sessionsAt(mid) >= want)
            high = mid;
        else
            low = mid + 1;
    }
    return Capacity::tr("%1 %2: %3")
        .arg(QString::fromLatin1(InputRanges::of(now->first).key), Units::formatDecimal(low / 100.0),
             Units::plural(sessionsAt(low), Capacity::tr("session"), Capacity::tr("sessions")));
}

// A retention cap that holds `want` sessions, said with what it does and whom it costs, or
// nothing when none does or it is no lever a reader can act on: against a distribution at most
// half of the sessions may lose any history (a 128-token cap on a chat trace answers another
// question), at one length (every session at the context) each keeps at least half of it (a
// 656-token cap on 8,192-token chats was offered).
QString capFix(const Scenario &s, qint64 want, const CapacityResult &r)
{
    const qint64 cap = maxContextFor(s, want);
    const LengthDistribution lengths = lengthsOf(s, r.reservedTokensPerSession);
    const bool oneLength = lengths.lengths.size() == 1;
    const bool sensible = oneLength ? 2 * cap >= lengths.maximum() : lengths.shareAbove(cap) <= 0.5;
    if (cap <= 0 || cap >= s.contextTokens || !sensible)
        return QString();
    return Capacity::tr("retention cap at %1 tokens (each session keeps only its latest %1 tokens; %2): %3")
        .arg(formatCount(cap),
             oneLength ? Capacity::tr("every session drops %1 of its %2").arg(formatCount(lengths.maximum() - cap), formatCount(lengths.maximum()))
                       : Capacity::tr("%1% of sessions lose history").arg(Units::formatDecimal(lengths.shareAbove(cap) * 100, 2)),
             Units::plural(want, Capacity::tr("session"), Capacity::tr("sessions")));
}

} // namespace

QStringList fixesFor(const Scenario &s, qint64 want, const CapacityResult &r, RiskWork &work)
{
    QStringList out;
    // The engine's own cap, where it holds the count below what the KV cache holds: raising it is
    // the fix (an attacker's plan offered fp8 and TP 2, each still running max_num_seqs 3).
    if (r.runningCap && r.kvSessions >= want)
        out << Capacity::tr("%1's %2 raised to at least %3: the KV cache holds %4")
                   .arg(Engines::rule(s.engine).title(), r.runningCap->setting.section(QLatin1Char(' '), 0, 0), formatCount(want), formatCount(r.kvSessions));
    auto offer = [&](const QString &what, const Scenario &variant) {
        const qint64 n = sessionsOf(variant, work);
        if (n >= want)
            out << Capacity::tr("%1: %2").arg(what, Units::plural(n, Capacity::tr("session"), Capacity::tr("sessions")));
    };
    for (Dtype d : {Dtype::FP8, Dtype::NVFP4}) {
        if (Dtypes::bytesFor(d, 1024, {}) < Dtypes::bytesFor(r.kvDtype, 1024, {})) {
            Scenario v = s;
            v.kvDtype = d;
            // A format the engine or card cannot run is no fix (the levers grey it out the same way).
            if (Runnability::of(v).runnable)
                offer(Capacity::tr("cache precision %1").arg(Dtypes::name(d)), v);
        }
    }
    for (Dtype d : {Dtype::FP8, Dtype::INT4}) {
        if (Dtypes::bytesFor(d, 1024, {}) < Dtypes::bytesFor(r.weightsDtype, 1024, {}) && s.model.totalParams > 0 && !s.weightsBytes) {
            Scenario v = s;
            v.weightsDtype = d;
            offer(Capacity::tr("weight precision %1").arg(Dtypes::name(d)), v);
        }
    }
    const int kvHeads = s.kvHeadsOverride.value_or(s.model.kvHeads);
    for (int heads : {8, 4, 1}) {
        if (heads < kvHeads && s.model.kvHeads > 0) {
            Scenario v = s;
            v.kvHeadsOverride = heads;
            offer(Capacity::tr("attention design: %1 KV heads (GQA what-if)").arg(heads), v);
            break;
        }
    }
    if (!s.preallocate) {
        if (const QString cap = capFix(s, want, r); !cap.isEmpty())
            out << cap;
    } else {
        Scenario v = s;
        v.preallocate = false;
        offer(Capacity::tr("paged allocation instead of preallocating %1 tokens").arg(formatCount(r.reservedTokensPerSession)), v);
    }
    // Side pools (issue #14): half the LoRA slots, a draft's fewer lookahead slots.
    if (s.lora.on() && s.lora.maxLoras > 1) {
        Scenario v = s;
        v.lora.maxLoras = s.lora.maxLoras / 2;
        offer(QStringLiteral("%1 LoRA slots").arg(v.lora.maxLoras), v);
    }
    if (s.speculative.hasDraft()) {
        Scenario v = s;
        v.speculative = SpeculativeDecoding{};
        offer(QStringLiteral("no speculative decoding (frees the draft's weights and KV)"), v);
    }
    if (const QString more = memoryFractionFix(s, want, work); !more.isEmpty())
        out << more;
    for (int tp = s.tp * 2; tp <= 16; tp *= 2) {
        Scenario v = s;
        v.tp = tp;
        const qint64 n = sessionsOf(v, work);
        if (n >= want) {
            // A replica is TP x PP GPUs: "TP 4 (4 GPUs per replica)" at PP 2 was 8 (attacker's report).
            out << Capacity::tr("more memory: TP %1 (%2 GPUs per replica): %3")
                       .arg(tp)
                       .arg(v.gpusPerReplica())
                       .arg(Units::plural(n, Capacity::tr("session"), Capacity::tr("sessions")));
            break;
        }
    }
    return out;
}

} // namespace Headroom::CapacityParts
