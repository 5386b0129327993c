// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"
#include "inputs/scenario.h"
#include "lengths/overflowrisk.h"

#include <map>
#include <memory>
#include <vector>

namespace Headroom {

/// Risk work shared by many capacity runs against one distribution (the levers
/// table prices tens of variants of one scenario): the one-session law
/// (OverflowRisk) of each distinct law of per-GPU session bytes is built once,
/// and each tail it settles (the count at a budget and risk, the overflow
/// probability of a count at a budget) is computed once. Two variants share a
/// law when their sessions hold the same bytes per GPU with the same
/// probabilities (length for length, after the retention cap): a larger card,
/// host memory, replicas or LoRA slots change only the budget, so they share
/// the current scenario's law; a cache precision, head count, TP or cap builds
/// its own. Every figure equals the one OverflowRisk gives directly.
/// Not thread-safe: one per thread (one per levers pricing).
class RiskWork
{
public:
    /// The figures the runs need: All (every figure computeCapacity gives); Window
    /// (all but CapacityResult::fixes, each a count of a variant: the window prices
    /// the levers apart, off its thread); or Counts (the count at the risk, its mean
    /// session bytes, latency and cost: DistributionFigures' admissionLimit,
    /// overflowProbability and the prompt-only admission figures are left at their
    /// defaults, unread by the levers; no fixes).
    enum class Figures { All, Window, Counts };

    /// One distinct law with the tails settled on it so far.
    class Law
    {
    public:
        Law(const LengthDistribution &lengths, const KvCost &cost, qint64 cap);
        const OverflowRisk &risk() const { return m_risk; }
        /// OverflowRisk::sessionsAtRisk, computed once per (budget, eps).
        RiskCount sessionsAtRisk(qint64 budgetBytes, double eps);
        /// OverflowRisk::overflowProbability, computed once per (sessions, budget).
        double overflowProbability(qint64 sessions, qint64 budgetBytes);
        /// Whether (lengths, cost, cap) gives this law: the same probabilities and the same
        /// per-GPU bytes for each length (capped), compared only when the probabilities agree.
        bool serves(const LengthDistribution &lengths, const KvCost &cost, qint64 cap);

    private:
        // The per-GPU bytes of each length capped at `cap`, as OverflowRisk prices it.
        static QVector<qint64> bytesOf(const LengthDistribution &lengths, const KvCost &cost, qint64 cap);
        const QVector<qint64> &bytes();

        LengthDistribution m_lengths;
        KvCost m_cost;
        qint64 m_cap = 0;
        QVector<qint64> m_bytes; // computed on the first comparison that needs it
        bool m_bytesKnown = false;
        OverflowRisk m_risk;
        std::map<std::pair<qint64, double>, RiskCount> m_counts;
        std::map<std::pair<qint64, qint64>, double> m_overflow;
    };

    explicit RiskWork(Figures figures = Figures::All)
        : m_figures(figures)
    {
    }
    Figures figures() const { return m_figures; }
    /// The law of sessions of `lengths` (tokens) priced by `cost` (per GPU) and
    /// held to `cap` tokens (0 = none): one built before when it serves, else a new one.
    Law &law(const LengthDistribution &lengths, const KvCost &cost, qint64 cap);

private:
    Figures m_figures;
    std::vector<std::unique_ptr<Law>> m_laws;
};

/// computeCapacity(scenario) sharing `work` with the other runs that use it:
/// the same result, field for field, but for the figures `work` leaves out (RiskWork::Figures).
CapacityResult computeCapacity(const Scenario &scenario, RiskWork &work);

} // namespace Headroom
