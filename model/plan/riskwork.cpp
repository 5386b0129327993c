// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/riskwork.h"
#include "core/inputerror.h"

namespace Headroom {

RiskWork::Law::Law(const LengthDistribution &lengths, const KvCost &cost, qint64 cap)
    : m_lengths(lengths)
    , m_cost(cost)
    , m_cap(cap)
    , m_risk(lengths, cost, cap)
{
}

RiskCount RiskWork::Law::sessionsAtRisk(qint64 budgetBytes, double eps)
{
    const auto key = std::make_pair(budgetBytes, eps);
    const auto it = m_counts.find(key);
    return it != m_counts.end() ? it->second : m_counts.emplace(key, m_risk.sessionsAtRisk(budgetBytes, eps)).first->second;
}

double RiskWork::Law::overflowProbability(qint64 sessions, qint64 budgetBytes)
{
    const auto key = std::make_pair(sessions, budgetBytes);
    const auto it = m_overflow.find(key);
    return it != m_overflow.end() ? it->second : m_overflow.emplace(key, m_risk.overflowProbability(sessions, budgetBytes)).first->second;
}

QVector<qint64> RiskWork::Law::bytesOf(const LengthDistribution &lengths, const KvCost &cost, qint64 cap)
{
    // The bytes OverflowRisk's constructor gives each length (the field it names, too),
    // priced once per paged block count (a trace's 2,788 lengths fall on 354 of them).
    return OverflowRisk::sessionBytes(lengths, cost, cap);
}

const QVector<qint64> &RiskWork::Law::bytes()
{
    if (!m_bytesKnown) {
        m_bytes = bytesOf(m_lengths, m_cost, m_cap);
        m_bytesKnown = true;
    }
    return m_bytes;
}

bool RiskWork::Law::serves(const LengthDistribution &lengths, const KvCost &cost, qint64 cap)
{
    if (lengths.lengths.isEmpty() || lengths.probabilities != m_lengths.probabilities) // (no law is built of no lengths)
        return false;
    // The same lengths priced by the same per-GPU figures under the same cap: the same bytes,
    // without pricing each length again (most options change only the budget).
    if (cap == m_cap && cost.samePerGpuSessionBytes(m_cost) && lengths.lengths == m_lengths.lengths)
        return true;
    try {
        // A cheap rejection first: the longest session's bytes (lengths ascend).
        const qint64 longest = cap > 0 ? std::min(lengths.lengths.last(), cap) : lengths.lengths.last();
        if (cost.sessionBytes(longest, true, QStringLiteral("--distribution")) != bytes().last())
            return false;
        return bytesOf(lengths, cost, cap) == bytes();
    } catch (const InputError &) {
        return false; // a law that cannot be priced: OverflowRisk's own constructor says why
    }
}

RiskWork::Law &RiskWork::law(const LengthDistribution &lengths, const KvCost &cost, qint64 cap)
{
    for (const std::unique_ptr<Law> &l : m_laws)
        if (l->serves(lengths, cost, cap))
            return *l;
    m_laws.push_back(std::make_unique<Law>(lengths, cost, cap));
    return *m_laws.back();
}

} // namespace Headroom
