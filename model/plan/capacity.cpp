// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/capacity.h"
#include "plan/capacityparts.h"
#include "plan/speedfigures.h"
#include "plan/fleetrisk.h"
#include "plan/riskwork.h"
#include "engines/enginerule.h"
#include "engines/runnability.h"
#include "lengths/overflowrisk.h"
#include "plan/servingestimate.h"
#include "plan/visionpool.h"
#include "plan/warmsessions.h"
#include "plan/sidepools.h"
#include "core/inputerror.h"
#include "core/inputranges.h"

#include <QCoreApplication>
#include <QLocale>
#include <cmath>

namespace Headroom {

using namespace CapacityParts;

namespace {

using Units::formatCount;

// A share of sessions as a percentage, never rounded to a silent 0.00%.
QString percentOf(double share)
{
    return share < 0.00005 ? Capacity::tr("under 0.01%") : Units::formatDecimal(share * 100, 2) + QLatin1Char('%');
}

// What the risk-based count does with lengths past the context or past max_model_len.
// (No flag is named: the same words serve the command line, a scenario file and the window.)
void lengthWarnings(const Scenario &s, CapacityResult &r)
{
    const DistributionFigures &d = r.distribution;
    const qint64 longest = s.retainTokens ? std::min(d.maxTokens, *s.retainTokens) : d.maxTokens;
    const qint64 maxLen = s.effectiveMaxModelLen();
    if (d.shareLongerThanMaxModelLen > 0)
        r.warnings << Capacity::tr("%1 of the distribution's sessions are longer than %2 (the longest is %3 tokens): vLLM refuses "
                                   "a longer prompt and stops a session there, but the risk-based count takes their full length; "
                                   "a retention cap at %4 tokens holds every session to it.")
                          .arg(percentOf(d.shareLongerThanMaxModelLen),
                               s.maxModelLen ? Capacity::tr("the max_model_len of %1 tokens").arg(formatCount(maxLen))
                                             : Capacity::tr("the %1 tokens %2 holds, its max_position_embeddings").arg(formatCount(maxLen), s.model.name),
                               formatCount(longest), formatCount(maxLen));
    // Past a context at or above max_model_len the warning above says it all.
    if (d.shareLongerThanContext > 0 && !(d.shareLongerThanMaxModelLen > 0 && maxLen <= s.contextTokens))
        r.warnings << Capacity::tr("%1 of the distribution's sessions are longer than the context of %2 tokens (the longest is %3): "
                                   "the risk-based count takes their full length, the per-session figures stop at the context; "
                                   "a retention cap at %2 tokens holds every session to it.")
                          .arg(percentOf(d.shareLongerThanContext), formatCount(s.contextTokens), formatCount(longest));
}

// The KV figures of `cost` into `r`: per token (the target's and the draft's apart, the pool
// holding both), the side pools loaded with the weights (`b`), and one session's bytes at the
// context and at the length it reserves. Throws InputError naming the length's field on overflow.
void addKvFigures(CapacityResult &r, const Scenario &s, const KvCost &cost, const Budget &b)
{
    r.weightsDtype = s.effectiveWeightsDtype();
    r.kvDtype = s.effectiveKvDtype();
    r.groups = cost.groups();
    r.blockSize = s.effectiveBlockSize();
    // The target's own per-token figures; the draft's apart (the pool holds both).
    r.kvBytesPerToken = cost.bytesPerToken() - cost.draftBytesPerToken();
    r.kvBytesPerTokenPerGpu = cost.bytesPerTokenPerGpu() - cost.draftBytesPerTokenPerGpu();
    r.draftKvBytesPerToken = cost.draftBytesPerToken();
    r.draftKvBytesPerTokenPerGpu = cost.draftBytesPerTokenPerGpu();
    r.lookaheadTokens = cost.lookahead();
    r.draftWeightsBytes = b.draftWeights;
    r.draftWeightsBytesPerGpu = b.draftWeightsPerGpu;
    r.draftWeightsBasis = b.draftBasis;
    r.loraBytes = b.loraWhole;
    r.loraBytesPerGpu = b.loraPerGpu;
    r.indexerKvBytesPerToken = cost.indexerBytesPerToken();
    r.stateBytesPerSession = cost.stateBytesPerSession();
    r.sessionBytes = cost.sessionBytes(s.contextTokens, false, contextField(s));
    if (s.pp > 1) {
        // `cost` is one pipeline stage's (its share of the layers): the model's own figures are
        // every stage's layers (an attacker read the stage's 65,536 B as Llama-3.1-8B's KV per token).
        const KvCost whole(s.model, s.effectiveKvDtype(), s.tp, s.effectiveBlockSize(), s.kvHeadsOverride, s.kvCostNames());
        r.kvBytesPerToken = whole.bytesPerToken();
        r.indexerKvBytesPerToken = whole.indexerBytesPerToken();
        r.stateBytesPerSession = whole.stateBytesPerSession();
        r.sessionBytes = whole.sessionBytes(s.contextTokens, false, contextField(s));
    }
    r.sessionBytesPerGpu = cost.sessionBytes(s.contextTokens, true, contextField(s));
    r.reservedTokensPerSession = reservedTokens(s);
    r.reservedSessionBytesPerGpu = cost.sessionBytes(r.reservedTokensPerSession, true, reservedField(s));
}

// The card's carving into `r`: weights, workspace and the KV budget per GPU (`b`), and what
// the engine would print, with its token count at the low and high ends of the budget's
// stated uncertainty before hardware. Throws InputError naming --gpu-memory past 2^63 - 1.
void addMemoryFigures(CapacityResult &r, const Scenario &s, const KvCost &cost, const Budget &b)
{
    r.weightsBytes = b.weights;
    r.weightsBasis = b.weightsBasis;
    r.weightsBytesPerGpu = b.weightsPerGpu;
    r.workspaceBytesPerGpu = b.workspace;
    r.gpuMemoryBytes = b.memory;
    r.usableMemoryBytes = b.usable;
    r.heldBackBytesPerGpu = std::max<qint64>(0, b.memory - b.usable);
    r.kvBudgetBytesPerGpu = std::max<qint64>(0, b.budget);
    r.budgetRule = b.rule;
    r.admission = Engines::rule(s.engine).admission(s);
    r.engineFigures = computeEngineFigures(s, cost, b.budget);
    r.engineFigures.activationPeakBytes = b.activationPeak;
    r.engineMemoryBytes = b.engineMemory;
    // The spread before hardware: the figures at the budget's low and high ends.
    // (Checked: a card near 2^63 bytes must not wrap the high end.)
    const QString memory = s.field(Input::GpuMemory);
    r.engineFigures.kvCacheTokensLow = b.spreadDown > 0 ? computeEngineFigures(s, cost, Units::sub(b.budget, b.spreadDown, memory)).kvCacheTokens
                                                        : r.engineFigures.kvCacheTokens;
    r.engineFigures.kvCacheTokensHigh = b.spreadUp > 0 ? computeEngineFigures(s, cost, Units::sub(b.budget, -b.spreadUp, memory)).kvCacheTokens
                                                       : r.engineFigures.kvCacheTokens;
    r.engineFigures.budgetSpreadDownBytes = b.spreadDown;
    r.engineFigures.budgetSpreadUpBytes = b.spreadUp;
    r.engineFigures.spreadTerms = b.spreadTerms;
    r.shortfallBytesPerGpu = std::max<qint64>(0, -b.budget);
}

// The sessions into `r`: tokens the budget holds, how many sessions fit at the reserved length,
// the asked sessions' KV (the indexer's and the draft's shares apart) and what is left or
// overflows, the vision encoder's figures and the sessions kept warm in host memory.
// Throws InputError naming --sessions (or the block size) past 2^63 - 1.
void addSessionFigures(CapacityResult &r, const Scenario &s, const KvCost &cost, const Budget &b)
{
    if (cost.bytesPerTokenPerGpu() > 0) {
        // The pool's rate: the draft's layers take their share of every block.
        const qint64 blockBytes = Units::mul(cost.bytesPerTokenPerGpu(), s.effectiveBlockSize(), s.field(Input::BlockSize));
        r.kvCapacityTokens = r.kvBudgetBytesPerGpu / blockBytes * s.effectiveBlockSize();
    }
    // A conversation trace's shared prefix is held once, beside the sessions (sessionsBudget).
    const qint64 forSessions = sessionsBudget(s, cost, r.kvBudgetBytesPerGpu);
    r.maxSessions = r.reservedSessionBytesPerGpu > 0 ? forSessions / r.reservedSessionBytesPerGpu : 0;
    // The engine runs no more at once than its cap (vLLM's max_num_seqs, ...), whatever the KV holds.
    if (const auto cap = Engines::rule(s.engine).runningCap(s); cap && cap->sessions < r.maxSessions) {
        r.runningCap = cap;
        r.kvSessions = r.maxSessions;
        r.maxSessions = cap->sessions;
    }
    r.sessionsExact = r.reservedSessionBytesPerGpu > 0 ? double(forSessions) / double(r.reservedSessionBytesPerGpu) : 0.0;
    r.sessions = s.sessions;
    r.kvBytesForSessionsPerGpu = Units::mul(s.sessions, r.reservedSessionBytesPerGpu, s.field(Input::Sessions));
    // Side pool: the sparse-attention indexer's part of that KV (its own band on the chart).
    r.indexerBytesForSessionsPerGpu = Units::mul(s.sessions, cost.indexerSessionBytes(r.reservedTokensPerSession, reservedField(s)),
                                                 s.field(Input::Sessions));
    r.encoderLoaded = VisionPool::hasEncoder(s) && VisionPool::towerLoaded(s);
    r.encoderWeightsBytes = b.encoderWeights;
    r.encoderWeightsBytesPerGpu = b.weights > 0 ? qint64((long double)b.weightsPerGpu * (long double)b.encoderWeights / (long double)b.weights + 0.5L) : 0;
    r.imageTokensPerRequest = VisionPool::imageTokensPerRequest(s);
    r.encoderCacheTokens = VisionPool::encoderCacheTokens(s);
    r.encoderCacheBytesPerGpu = b.encoderCache;
    r.warm = warmSessions(s, cost, r.maxSessions, r.reservedTokensPerSession, b.weightsPerGpu);
    r.draftKvBytesForSessionsPerGpu = Units::mul(s.sessions, cost.draftSessionBytes(r.reservedTokensPerSession, true, reservedField(s)),
                                                 s.field(Input::Sessions));
    const qint64 left = Units::sub(b.budget, r.kvBytesForSessionsPerGpu, s.field(Input::Sessions));
    r.freeBytesPerGpu = std::max<qint64>(0, left);
    r.overflowBytesPerGpu = b.budget >= 0 ? std::max<qint64>(0, -left) : r.kvBytesForSessionsPerGpu;
    r.fits = b.budget >= 0 && s.sessions <= r.maxSessions;
}

// The engine settings of `s` its rule does not read, or that pass the card of `card` bytes,
// said as warnings into `r` (in the words of the one check, Engines::foreignSetting). Throws
// InputError naming --kv-cache-memory for a pinned KV pool past the card.
void addEngineSettingWarnings(CapacityResult &r, const Scenario &s, qint64 card)
{
    // An engine setting the rule does not read (from a file or the window: the command line
    // refuses it), in the words of the one check (Engines::foreignSetting).
    auto foreign = [&](Input input) {
        r.warnings << Capacity::tr("%1 %2; ignored here.").arg(s.field(input), Engines::foreignSetting(s.engine, input));
    };
    if (!Engines::rule(s.engine).usesUtilization() && s.gpuMemoryUtilizationGiven)
        foreign(Input::GpuMemoryUtilization);
    if (s.weightsBytes && s.weightsDtype)
        r.warnings << Capacity::tr("The given weights size wins over the weights precision.");
    const EngineSettings &es = s.engineSettings;
    // A pinned KV pool past the card is no budget any engine starts with (the derivation's
    // "card - weights - workspace = 1000.0 GB" did not add up): refused, naming the field.
    if (es.kvCacheMemory && *es.kvCacheMemory > card && Engines::rule(s.engine).honoursKvCacheMemory())
        throw InputError(s.field(Input::KvCacheMemory), QStringLiteral("%1 is more than the card holds (%2 per GPU)")
                                                            .arg(Units::formatBytes(*es.kvCacheMemory, UnitSystem::Decimal),
                                                                 Units::formatBytes(card, UnitSystem::Decimal)));
    if (es.kvCacheMemory && !Engines::rule(s.engine).honoursKvCacheMemory())
        foreign(Input::KvCacheMemory);
    for (const auto &[value, flag] : {std::pair{es.freeMemoryBefore, "--free-memory-before"}, std::pair{es.freeMemoryAfter, "--free-memory-after"}})
        if (value && *value > card)
            r.warnings << Capacity::tr("%1 (%2) is more than the card holds (%3).")
                              .arg(QString::fromLatin1(flag), Units::formatBytes(*value, UnitSystem::Decimal), Units::formatBytes(card, UnitSystem::Decimal));
    if (r.engineFigures.kvSelfBytes > card)
        r.warnings << Capacity::tr("The engine's KV at %1 cells (%2) is more than the card holds (%3).")
                          .arg(formatCount(r.engineFigures.kvCacheTokens), Units::formatBytes(r.engineFigures.kvSelfBytes, UnitSystem::Decimal),
                               Units::formatBytes(card, UnitSystem::Decimal));
}

// What the plan `r` computed anyway but is worth saying, into its warnings: a context past the
// model's maximum, the importer's sizing notes, engine settings (addEngineSettingWarnings), a
// KV-head what-if, heads replicated past TP, a KV-cache format the engine or card cannot run
// (Runnability::of), and flags the scenario cannot honour.
// Throws InputError as addEngineSettingWarnings does.
void addWarnings(CapacityResult &r, const Scenario &s, const Budget &b)
{
    const Runnability runs = Runnability::of(s);
    r.runnable = runs.runnable;
    r.runnableReason = runs.reason;
    if (!runs.runnable)
        r.warnings << Capacity::tr("KV cache %1 is a what-if for another engine or card: %2.").arg(Dtypes::name(s.effectiveKvDtype()), runs.reason);
    const qint64 maxPos = s.effectiveMaxModelLen();
    r.contextBeyondMax = maxPos > 0 && s.contextTokens > maxPos;
    if (r.contextBeyondMax)
        r.warnings << (s.maxModelLen ? Capacity::tr("The context of %1 tokens is beyond --max-model-len %2: computed anyway.")
                                           .arg(formatCount(s.contextTokens), formatCount(maxPos))
                                     : Capacity::tr("The context of %1 tokens is beyond %2's maximum of %3 tokens: computed anyway.")
                                           .arg(formatCount(s.contextTokens), s.model.name, formatCount(maxPos)));
    // TensorRT-LLM refuses a request past its engine's max_seq_len, as vLLM past max_model_len.
    if (s.engine == Engine::Trtllm && s.engineSettings.trtMaxSeqLen && s.contextTokens > *s.engineSettings.trtMaxSeqLen)
        r.warnings << Capacity::tr("The context of %1 tokens is beyond %2 %3: TensorRT-LLM refuses longer requests; computed anyway.")
                          .arg(formatCount(s.contextTokens), s.field(Input::MaxSeqLen), formatCount(*s.engineSettings.trtMaxSeqLen));
    // Inputs that act on lengths that vary or on a trace's arrivals: at one fixed length they
    // change nothing, and say so (an attacker's --length-scale 1e6 printed the plan unchanged).
    if (!s.distribution) {
        const QString none = Capacity::tr("%1 has no effect without a length distribution (%3): %2.");
        const QString noRisk = Capacity::tr("every session is at the context, so no overflow is risked");
        if (s.fleetRisk)
            r.warnings << none.arg(s.field(Input::FleetRisk), noRisk, s.field(Input::Distribution));
        if (s.risk != Scenario{}.risk && !s.fleetRisk)
            r.warnings << none.arg(s.field(Input::Risk), noRisk, s.field(Input::Distribution));
        if (s.lengthScale != 1.0)
            r.warnings << none.arg(s.field(Input::LengthScale), Capacity::tr("there are no lengths to scale"), s.field(Input::Distribution));
        if (s.trafficMultiplier != 1.0)
            r.warnings << none.arg(s.field(Input::TrafficMultiplier), Capacity::tr("there are no arrivals to scale"), s.field(Input::Distribution));
    }
    // A release past the newest its rule was checked against: its terms are that release's.
    const EngineVersion checked = Engines::rule(s.engine).checkedVersion();
    const std::optional<EngineVersion> given = s.engine == Engine::Vllm
        ? std::optional(EngineVersion{s.engineSettings.vllmMajor, s.engineSettings.vllmMinor})
        : s.engineSettings.engineVersion;
    if (given && s.engine != Engine::Plain && !checked.atLeast(given->major, given->minor))
        // The rule's terms by release apply as they stand (vLLM's for 0.21 and later to 0.22): the
        // release is planned with the terms the rule gives the newest releases it knows, not with
        // the checked one's (an attacker read "planned with 0.11's terms" beside 0.21's CUDA graphs).
        r.warnings << Capacity::tr("%1 %2 is newer than %3, the newest release Headroom's rule was checked against: planned with the "
                                   "terms the rule gives the newest releases it knows, unchecked for %2.")
                          .arg(Engines::rule(s.engine).title(), given->text(), checked.text());
    // (A plan --json echo names the plain rule's release as 0.0, its checked one: no warning.)
    if (s.engine == Engine::Plain && s.engineSettings.engineVersion && *s.engineSettings.engineVersion != checked)
        r.warnings << Capacity::tr("The plain rule has no releases: the engine release %1 given is ignored.")
                          .arg(s.engineSettings.engineVersion->text());
    r.warnings << s.model.sizingNotes; // what the config importer assumed to size the model
    addEngineSettingWarnings(r, s, b.memory);
    if (s.kvHeadsOverride && *s.kvHeadsOverride != s.model.kvHeads)
        r.warnings << Capacity::tr("What-if: %1 KV heads instead of the published %2.")
                          .arg(*s.kvHeadsOverride).arg(s.model.kvHeads);
    if (s.model.kvHeads > 0 && s.tp > s.effectiveKvHeads())
        r.warnings << Capacity::tr("TP %1 exceeds %2 KV heads: each head is replicated on %3 GPUs.")
                          .arg(s.tp).arg(s.effectiveKvHeads()).arg(s.tp / s.effectiveKvHeads());
    // Flags the scenario cannot honour are said so, never dropped in silence (1 image is
    // the default, so only more are named).
    if (s.imagesPerRequest > 1 && !VisionPool::hasEncoder(s))
        r.warnings << Capacity::tr("%1 has no vision encoder: %2 %3 is ignored (no image tokens, no encoder cache).")
                          .arg(s.model.name, s.field(Input::ImagesPerRequest)).arg(s.imagesPerRequest);
    // Ollama starts no draft model (ollama/ollama issue 5800, open: llama.cpp's --model-draft is not passed through).
    if (s.engine == Engine::Ollama && (s.speculative.hasDraft() || s.speculative.speculativeTokens > 0))
        r.warnings << Capacity::tr("Ollama runs no speculative decoding (ollama/ollama issue 5800): %1 is planned as vLLM would hold it, "
                                   "not as Ollama runs the model.")
                          .arg(s.speculative.hasDraft() ? SidePools::draftField(s) : s.field(Input::SpeculativeTokens));
}

// The plan's answer into `r`, which becomes ok: a full pool's warning, whether the asked
// sessions fit, the verdict, and (a whole plan only, `work` wanting every figure) the
// single changes that would make them fit.
void addVerdict(CapacityResult &r, const Scenario &s, RiskWork &work)
{
    const qint64 want = std::max<qint64>(1, s.sessions);
    // The engines degrade sharply as the KV pool fills (preemption, recompute).
    if (r.maxSessions > 0 && r.sessionsExact - double(r.maxSessions) < 0.05 * double(r.maxSessions) && r.fits
        && s.sessions == r.maxSessions)
        r.warnings << Capacity::tr("Tight: %1 leaves only %2 of the KV budget free per GPU.")
                          .arg(Units::plural(r.maxSessions, Capacity::tr("session"), Capacity::tr("sessions")),
                               Units::formatBytes(r.freeBytesPerGpu, UnitSystem::Decimal));
    r.ok = true;
    r.askedFit = askedSessionsFit(s, r);
    r.verdict = capacityVerdict(s, r, UnitSystem::Decimal);
    // Against a distribution what fails is the count at the risk (capacityVerdict), not every
    // session at the context or at the longest length alone. Each fix is a variant's count
    // (at the risk: a heavy tail's takes up to a second), so only a whole plan has them.
    if ((!r.askedFit || (!answersByRisk(s) && r.maxSessions == 0)) && work.figures() == RiskWork::Figures::All)
        r.fixes = fixesFor(s, want, r, work);
}

// The plan of a scenario that failed with `e`: not ok, the error and its field only.
CapacityResult errorResult(const Scenario &s, const InputError &e)
{
    CapacityResult r;
    r.ok = false;
    r.errorField = e.field();
    // A message that opens with its verb ("is too large: ...", "must not be negative")
    // takes the field for its subject; a distribution is no number, so the sentence
    // names what is: the longest session it holds (every overflow of a shorter one
    // implies the longest's). "--distribution: is too large" said nothing to act on.
    const bool verbFirst = e.message().startsWith(QLatin1String("is ")) || e.message().startsWith(QLatin1String("must "));
    if (verbFirst && s.distribution && e.field() == s.field(Input::Distribution)) {
        const double top = double(s.distribution->maximum()) * s.lengthScale;
        r.error = QStringLiteral("%1: its longest session, %2 tokens, %3")
                      .arg(e.field(), contextIsDistributionLongest(s) ? formatCount(s.contextTokens) : formatCount(qint64(std::min(top, 9e18))), e.message());
    } else {
        r.error = e.text();
    }
    return r;
}

} // namespace

qint64 distributionLongest(const Scenario &s)
{
    const qint64 longest = s.distribution->scaled(s.lengthScale, s.field(Input::LengthScale)).maximum();
    return s.retainTokens ? std::min(longest, *s.retainTokens) : longest;
}

bool contextIsDistributionLongest(const Scenario &s)
{
    const double top = s.distribution ? double(s.distribution->maximum()) * s.lengthScale : 0.0;
    if (!(top >= 0.5 && top <= double(LengthDistribution::maxTokens)))
        return false;
    // LengthDistribution::scaled rounds each length the same way.
    const qint64 longest = std::llround(top);
    return s.contextTokens == (s.retainTokens ? std::min(longest, *s.retainTokens) : longest);
}

bool answersByRisk(const Scenario &s)
{
    return s.distribution && !s.preallocate;
}

bool askedSessionsFit(const Scenario &s, const CapacityResult &r)
{
    if (!r.ok)
        return false;
    return answersByRisk(s) ? s.sessions <= r.distribution.sessionsAtRisk : r.fits;
}

qint64 maxContextFor(const Scenario &s, qint64 sessions)
{
    const KvCost cost = costOf(s);
    const Budget b = budgetOf(s);
    if (sessions < 1 || b.budget <= 0)
        return 0;
    const qint64 perSession = b.budget / sessions;
    auto fits = [&](qint64 tokens) {
        try {
            return cost.sessionBytes(tokens, true) <= perSession;
        } catch (const InputError &) {
            return false; // overflow: certainly too long
        }
    };
    if (!fits(1))
        return 0;
    // sessionBytes is non-decreasing in tokens: double, then bisect.
    constexpr qint64 limit = qint64(1) << 50; // beyond any context: only windows and fixed state remain
    qint64 lo = 1, hi = 2;
    while (fits(hi)) {
        lo = hi;
        if (hi >= limit)
            return limit;
        hi *= 2;
    }
    while (hi - lo > 1) {
        const qint64 mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

QVector<QPair<qint64, qint64>> sessionsAcrossContexts(const Scenario &s, int points)
{
    QVector<QPair<qint64, qint64>> out;
    try {
        const KvCost cost = costOf(s);
        const Budget b = budgetOf(s);
        // Four times the maximum length, held to the 2^53 tokens a length may have (no wrap).
        const qint64 top = std::max<qint64>(131072, std::min(s.effectiveMaxModelLen(), LengthDistribution::maxTokens / 4) * 4);
        for (int i = 0; i < points; ++i) {
            const qint64 context = qint64(std::llround(1000.0 * std::pow(double(top) / 1000.0, double(i) / (points - 1))));
            const qint64 per = cost.sessionBytes(s.retainTokens ? std::min(context, *s.retainTokens) : context, true);
            out << qMakePair(context, b.budget > 0 && per > 0 ? b.budget / per : qint64(0));
        }
    } catch (const InputError &) {
        out.clear();
    }
    return out;
}

std::optional<qint64> uncappedSessions(const Scenario &s)
{
    if (!s.retainTokens)
        return std::nullopt;
    Scenario open = s;
    open.retainTokens.reset();
    RiskWork counts(RiskWork::Figures::Counts);
    const CapacityResult r = computeCapacity(open, counts);
    return r.ok ? std::optional<qint64>(r.distribution.sessionsAtRisk) : std::nullopt;
}

CapacityResult computeCapacity(const Scenario &s)
{
    RiskWork work;
    return computeCapacity(s, work);
}

CapacityResult computeCapacity(const Scenario &s, RiskWork &work)
{
    try {
        CapacityResult r;
        const KvCost cost = costOf(s);
        const Budget b = budgetOf(s);
        addKvFigures(r, s, cost, b);
        addMemoryFigures(r, s, cost, b);
        addSessionFigures(r, s, cost, b);
        addWarnings(r, s, b);
        // Each replica's risk in force (solved from a fleet risk): every risk-based figure below uses it.
        const Scenario v = withReplicaRisk(s, cost, r, work);
        r.distribution = distributionFigures(v, cost, b, r, work);
        if (answersByRisk(v)) { // the running cap is said of the answer: the risk-based count
            r.runningCap = r.distribution.kvSessionsAtRisk > 0 ? Engines::rule(v.engine).runningCap(v) : std::nullopt;
            r.kvSessions = r.distribution.kvSessionsAtRisk;
        }
        lengthWarnings(v, r);
        const auto price = v.effectivePrice();
        if (price && r.distribution.sessionsAtRisk > 0)
            r.costPerSessionHourUsd = *price * v.gpusPerReplica() / double(r.distribution.sessionsAtRisk);
        addVerdict(r, v, work);
        return r;
    } catch (const InputError &e) {
        return errorResult(s, e);
    }
}

} // namespace Headroom
