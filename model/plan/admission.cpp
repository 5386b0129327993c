// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/capacityparts.h"
#include "engines/enginerule.h"
#include "plan/sidepools.h"
#include "core/inputerror.h"
#include "core/inputranges.h"

namespace Headroom::CapacityParts {

using Units::formatCount;

namespace {

// The most tokens a session may reserve at admission: TensorRT-LLM's max_seq_len (its build
// setting, else max_model_len); 0 when neither is known.
qint64 admissionCeiling(const Scenario &s)
{
    return s.engineSettings.trtMaxSeqLen.value_or(s.effectiveMaxModelLen());
}

// What a session of `length` tokens reserves at admission when the engine reserves `n` output
// tokens beside each prompt: its prompt (the length less its output: --output-tokens, else a
// trace's `meanOutput` when it gives one, else half the length, as the speed figures take it; at
// most n) + n, at most admissionCeiling, and never less than the length itself: a session the
// engine holds is charged at least what it holds (one longer than max_seq_len is refused by the
// engine, and warned of, not counted smaller). Lengths within 2^53: no overflow.
qint64 reservationOf(const Scenario &s, qint64 length, double meanOutput, qint64 n)
{
    const qint64 guess = meanOutput > 0 ? qint64(std::llround(meanOutput)) : length / 2;
    const qint64 output = std::min({s.outputTokens.value_or(guess), n, length});
    const qint64 reserved = length - output + n;
    const qint64 ceiling = admissionCeiling(s);
    return std::max(length, ceiling > 0 ? std::min(reserved, ceiling) : reserved);
}

} // namespace

LengthDistribution lengthsOf(const Scenario &s, qint64 reserved)
{
    if (s.preallocate)
        return LengthDistribution::fixed(reserved);
    if (!s.distribution)
        return LengthDistribution::fixed(std::max<qint64>(1, s.contextTokens));
    if (!(s.lengthScale > 0 && s.lengthScale <= 1e6))
        throw InputError(s.field(Input::LengthScale), QStringLiteral("must be above 0 and at most 1,000,000"));
    return s.distribution->scaled(s.lengthScale, s.field(Input::LengthScale));
}

std::optional<qint64> reservedOutput(const Scenario &s)
{
    const std::optional<qint64> n = s.preallocate ? std::nullopt : Engines::rule(s.engine).admission(s).reservedOutputTokens;
    if (!n)
        return n;
    if (*n < 1 || *n > InputLimits::maxTokens)
        throw InputError(s.field(Input::MaxOutputTokens), QStringLiteral("must be from 1 to 2^53 tokens, got %1").arg(*n));
    if (s.outputTokens && *s.outputTokens > *n)
        throw InputError(s.field(Input::OutputTokens), QStringLiteral("%1 tokens is more than the %2 of %3: a request stops at its maximum "
                                                                      "output, so no session generates more")
                                                           .arg(formatCount(*s.outputTokens), s.field(Input::MaxOutputTokens), formatCount(*n)));
    return n;
}

LengthDistribution admittedLengths(const Scenario &s, const LengthDistribution &lengths, qint64 cap)
{
    const std::optional<qint64> n = reservedOutput(s);
    if (!n)
        return lengths;
    const auto capped = [cap](qint64 l) { return cap > 0 ? std::min(l, cap) : l; };
    if (!lengths.promptLengths.isEmpty() && lengths.conversations == 0) {
        LengthDistribution d = lengths;
        d.lengths = lengths.promptLengths;
        d.probabilities = lengths.promptProbabilities;
        const qint64 ceiling = admissionCeiling(s);
        return d.mapped([&](qint64 prompt) {
            const qint64 p = capped(prompt);
            return std::max(p, ceiling > 0 ? std::min(p + *n, ceiling) : p + *n);
        });
    }
    return lengths.mapped([&](qint64 length) { return reservationOf(s, capped(length), lengths.meanOutputTokens, *n); });
}

RiskWork::Law &admittedLaw(RiskWork &work, const Scenario &s, const LengthDistribution &lengths, const KvCost &cost, qint64 cap)
{
    if (!reservedOutput(s))
        return work.law(lengths, cost, cap);
    return work.law(admittedLengths(s, lengths, cap), cost, 0);
}

qint64 reservedTokens(const Scenario &s)
{
    // A retention cap holds every session to min(L, cap), the context included.
    if (!s.preallocate) {
        const qint64 length = s.retainTokens ? std::min(s.contextTokens, *s.retainTokens) : s.contextTokens;
        const std::optional<qint64> n = reservedOutput(s);
        if (!n)
            return length;
        // The longest reservation when the context is the distribution's longest length.
        if (contextIsDistributionLongest(s))
            return admittedLengths(s, lengthsOf(s, 0), s.retainTokens.value_or(0)).maximum();
        return reservationOf(s, length, 0, *n);
    }
    const qint64 maxLen = s.effectiveMaxModelLen();
    if (maxLen <= 0)
        throw InputError(s.field(Input::MaxModelLen),
                         QStringLiteral("is needed for preallocation: %1 states no max_position_embeddings").arg(s.model.name));
    if (s.contextTokens > maxLen)
        throw InputError(s.field(Input::Context),
                         QStringLiteral("%1 tokens exceed the %2-token maximum every session reserves under preallocation "
                                        "(raise --max-model-len)")
                             .arg(formatCount(s.contextTokens), formatCount(maxLen)));
    return maxLen;
}

QString contextField(const Scenario &s)
{
    return contextIsDistributionLongest(s) ? s.field(Input::Distribution) : s.field(Input::Context);
}

QString reservedField(const Scenario &s)
{
    return s.preallocate ? s.field(Input::MaxModelLen) : contextField(s);
}

KvCost costOf(const Scenario &s)
{
    if (s.contextTokens < 1)
        throw InputError(s.field(Input::Context), QStringLiteral("must be at least 1 token, got %1").arg(s.contextTokens));
    if (s.model.groups.isEmpty())
        throw InputError(s.field(Input::Model), QStringLiteral("has no layers"));
    // Each pipeline stage holds its own layers' KV (the stage model).
    KvCost cost(s.stageModel(), s.effectiveKvDtype(), s.tp, s.effectiveBlockSize(), s.kvHeadsOverride, s.kvCostNames());
    // Side pools: a draft's layers share the block pool; speculative tokens add lookahead slots.
    if (s.speculative.hasDraft())
        cost.addDraft(SidePools::draftCost(s));
    cost.setLookahead(InputRanges::check(CountInput::SpeculativeTokens, s.speculative.speculativeTokens,
                                         s.field(Input::SpeculativeTokens)));
    return cost;
}

qint64 sharedPrefixBytes(const Scenario &s, const KvCost &cost)
{
    if (!s.distribution || s.preallocate || s.distribution->sharedPrefixTokens <= 0)
        return 0;
    const qint64 block = std::max(1, s.effectiveBlockSize());
    return Units::mul(Units::ceilDiv(s.distribution->sharedPrefixTokens, block) * block, cost.bytesPerTokenPerGpu(),
                      s.field(Input::Distribution), "shared prefix bytes");
}

qint64 sessionsBudget(const Scenario &s, const KvCost &cost, qint64 budget)
{
    return std::max<qint64>(0, budget - sharedPrefixBytes(s, cost));
}

} // namespace Headroom::CapacityParts
