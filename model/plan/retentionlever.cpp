// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/retentionlever.h"
#include "core/inputerror.h"
#include "kv/kvcost.h"
#include "plan/capacity.h"

#include <cmath>

namespace Headroom {

using Units::formatCount;

namespace {

// The caps below the longest session (and below a cap already set), each with the share of
// `lengths` that lose history and the tokens they drop; a cap below the context asked for
// changes the requirement.
QVector<LeverOption> caps(const LeverEvaluator &lever, const LeverContext &c, const LengthDistribution &lengths)
{
    QVector<LeverOption> out;
    const Scenario &now = c.now;
    const qint64 longest = c.base.distribution.maxTokens;
    for (qint64 cap : {8192, 32768, 65536, 131072}) {
        if (cap >= longest || (now.retainTokens && cap >= *now.retainTokens))
            continue;
        Scenario v = now;
        v.retainTokens = cap;
        LeverOption o = lever.price(c, Levers::tr("cap at %1 tokens").arg(formatCount(cap)), v,
                              historyLostWords(lengths.shareAbove(cap), lengths.conversations > 0, lengths.meanDroppedByThoseLosing(cap),
                                               lengths.meanDropped(cap), lengths.droppedQuantile(cap, 0.99)));
        if (cap < now.contextTokens) {
            o.changesRequirement = true;
            o.changesRequirementReason = Levers::tr("keeps %1 of the %2 tokens of context asked for").arg(formatCount(cap), formatCount(now.contextTokens));
        }
        out << o;
    }
    return out;
}

// A shared system prompt of `c.sharedPrefixTokens`, prefix-cached: every session holds its own
// tokens past it, the prefix is stored once per GPU (in the workspace). None under
// preallocation, without a prefix, or when its KV cannot be sized.
QVector<LeverOption> sharedPrefix(const LeverEvaluator &lever, const LeverContext &c, const LengthDistribution &lengths)
{
    const Scenario &now = c.now;
    const qint64 prefix = c.sharedPrefixTokens;
    if (prefix <= 0 || now.preallocate)
        return {};
    try {
        const KvCost cost(now.model, c.base.kvDtype, now.tp, now.effectiveBlockSize(), now.kvHeadsOverride);
        Scenario v = now;
        v.distribution = lengths.scaled(1.0, now.field(Input::LengthScale));
        for (qint64 &l : v.distribution->lengths)
            l = std::max<qint64>(1, l - prefix);
        v.distribution->spec = lengths.spec + Levers::tr(" less a shared %1-token prefix").arg(formatCount(prefix));
        v.lengthScale = 1.0;
        v.workspaceBytes = Units::add(now.effectiveWorkspaceBytes(), cost.sessionBytes(prefix, true), QStringLiteral("--shared-prefix"));
        return {lever.price(c, Levers::tr("shared %1-token system prompt, prefix-cached").arg(formatCount(prefix)), v,
                      Levers::tr("none, when prompts really are shared"))};
    } catch (const InputError &) {
        return {};
    }
}

} // namespace

QVector<LeverOption> RetentionLever::options(const LeverContext &c) const
{
    const Scenario &now = c.now;
    const LengthDistribution lengths = now.distribution ? now.distribution->scaled(now.lengthScale, now.field(Input::LengthScale))
                                                        : LengthDistribution::fixed(now.contextTokens);
    QVector<LeverOption> out = caps(*this, c, lengths);
    out << sharedPrefix(*this, c, lengths);
    return out;
}

} // namespace Headroom
