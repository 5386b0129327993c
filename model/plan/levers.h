// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"
#include "inputs/scenario.h"

#include <QJsonObject>
#include <QVector>
#include <optional>

namespace Headroom {

class RiskWork;

/// One concrete option under one of the four levers, priced.
struct LeverOption
{
    QString lever;            ///< "precision", "attention", "retention", "memory" or "side pools"
    QString option;           ///< e.g. "KV cache fp8", "TP 2", "cap at 32,768 tokens"
    Scenario scenario;        ///< the scenario with this option applied
    qint64 sessionsPerGroup = 0; ///< sessions per TP group at the scenario's risk
    double sessionsPerGpu = 0;   ///< per group / GPUs in it, so TP options compare fairly
    double change = 0;           ///< sessions per GPU against now, as a ratio - 1 (inf from 0)
    std::optional<double> costPerSessionHourUsd;
    std::optional<double> costPerMillionTokensUsd;
    std::optional<double> itlMs; ///< at its risk-based count
    QString sideEffect;          ///< the price paid in another currency
    bool meetsTarget = false;
    QString missesTargetReason;  ///< why it does not meet the target, in words (empty when it does)
    /// The option changes what the user said they need, so it answers another
    /// question: a retention cap below the context asked for, a head count or
    /// model that needs retraining or another model, a latency past the
    /// target. Shown, never the cheapest meeting the target.
    bool changesRequirement = false;
    QString changesRequirementReason; ///< why, in words (empty when it does not)
    /// Whether the chosen engine (at its release) and the option's card run its KV-cache
    /// format (Runnability::of): an option that does not is a what-if for another engine
    /// or card, shown greyed, never the cheapest and never advised.
    bool runnable = true;
    QString runnableReason;      ///< why it runs or not, naming the engine and release or the card, cited
    bool cheapest = false;       ///< cheapest runnable option that meets the target and keeps the requirement

    /// Whether the option answers the question as asked: it meets the target, keeps the
    /// requirement and runs on the engine and card (the cheapest and the advice are drawn
    /// from these alone).
    bool offerable() const { return meetsTarget && !changesRequirement && runnable; }
};

/// The inter-token latency past which an option is not offered when no target names one: 200 ms
/// per token, 5 tokens per second, about a person's reading speed. The levers and the report's
/// cheaper choice both hold to it.
constexpr double defaultLeverMaxItlMs = 200.0;

/// What the user needs: sessions per GPU, and/or a ceiling on inter-token latency.
struct LeverTarget
{
    std::optional<double> sessionsPerGpu;
    std::optional<double> maxItlMs;
    bool decodeFromHost = false; ///< offloaded sessions decode from host memory (the link on every step), not only wait there
};

/// The levers for one scenario: options sorted by cost per session-hour
/// (unpriced last), the current scenario as the reference, and the answer
/// in one sentence a manager can repeat.
struct LeverReport
{
    LeverOption current;
    QVector<LeverOption> options;
    QString answer;
    QJsonObject toJson() const;
};

/// Whether `card` counts as a larger card than one of `memoryBytes` (the card planned):
/// at least 10% more memory. A card a few hundred MB larger (the A100 80GB's 85.9 GB beside
/// the H100 SXM's 85.5 GB, both as the driver reports them) is a card of the same size, no
/// lever. The one rule for the levers' larger cards and the report's "next card up".
bool isLargerCard(const GpuSpec &card, qint64 memoryBytes);

/// The tensor-parallel sizes the levers price (those above the plan's), `plan --solve
/// min-gpus` searches and the report's sensitivity recomputes: 1, 2, 4 and 8 (the GPUs of
/// one 8-GPU node, the largest NVLink domain of the preset cards; engines split heads
/// evenly, so a TP must divide them, which computeCapacity checks).
QVector<int> tensorParallelSizes();

/// Prices the four levers against `now` (all through computeCapacity), each lever's
/// options from its own LeverEvaluator (plan/leverevaluator.h, LeverEvaluators::all):
/// - precision: fp8, int8, nvfp4, int4 caches smaller than the current one
///   (quality risk to measure);
/// - attention: fewer KV heads (GQA what-if: retraining or quality) and the
///   presets in `models` of similar size (0.5x to 2x the parameters) with fewer
///   KV bytes per token that serve the sessions' longest length (a different model);
/// - retention: caps at 8,192, 32,768, 65,536 and 131,072 tokens below the
///   longest session (share losing history, tokens dropped), and a shared
///   system prompt of `sharedPrefixTokens` stored once per GPU (prefix caching);
/// - memory: larger cards from `gpus` (isLargerCard; their price and the memory
///   they add), TP 2/4/8 (KV heads
///   replicated past kv_heads), more replicas for the scenario's target
///   sessions (the same per card, a larger fleet), and host memory of
///   `hostMemoryPerGpu` per card: by default it keeps idle sessions warm
///   (left out when it keeps none: at a decoding share of 1 every session
///   decodes, so nothing waits in host memory and the figures are today's)
///   (plan/warmsessions.h: retained sessions per node at the scenario's decoding
///   share, priced per retained session-hour, a returning session waiting its
///   resume time, decode latency unchanged); with LeverTarget::decodeFromHost
///   the offloaded KV is read over the link every decode step (added
///   inter-token latency = offloaded bytes / link bandwidth).
/// - side pools (issue #14): a smaller draft preset of the same vocabulary,
///   one MTP / EAGLE layer, half the speculative tokens, no speculative
///   decoding (changes the requirement), half the LoRA slots, half the rank
///   and LoRA on attention only (both need retrained adapters).
/// A target marks which options meet it (without a latency target, options
/// slower than 200 ms per token do not); the cheapest of those that keeps the
/// requirement and runs (LeverOption::offerable) is flagged. Every option says
/// whether its KV-cache format runs under the scenario's engine and on its card
/// (LeverOption::runnable, Runnability::of).
LeverReport evaluateLevers(const Scenario &now, const QVector<ModelShape> &models, const QVector<GpuSpec> &gpus,
                           const LeverTarget &target, qint64 sharedPrefixTokens = 0,
                           qint64 hostMemoryPerGpu = 256'000'000'000);
/// The same report, its plans sharing `work` (RiskWork::Figures::Counts) with the runs
/// made on it before: `levers` checks the current plan first, and its count (its law
/// and tails against a distribution) is then not settled twice.
LeverReport evaluateLevers(RiskWork &work, const Scenario &now, const QVector<ModelShape> &models, const QVector<GpuSpec> &gpus,
                           const LeverTarget &target, qint64 sharedPrefixTokens = 0,
                           qint64 hostMemoryPerGpu = 256'000'000'000);

/// A failure report explained: "it failed at N sessions of about T tokens".
struct Diagnosis
{
    qint64 residentTokens = 0;        ///< N x T
    qint64 kvBudgetTokens = 0;        ///< tokens the KV budget holds at full rate (whole blocks)
    double budgetShare = 0;           ///< resident bytes / KV budget bytes
    bool explainedByKv = false;       ///< resident bytes reach 95% of the budget or more
    qint64 expectedFailureSessions = 0; ///< the first session count that overflows at T tokens
    QString cheapestFix;              ///< the cheapest lever that holds N sessions, or why none does
    QString sentence;                 ///< the explanation in words
    QJsonObject toJson() const;
};

/// Diagnoses a failure at `failedAtSessions` sessions of `contextTokens` on `s`.
/// Throws InputError naming --failed-at-sessions / --context for bad input.
Diagnosis diagnoseFailure(const Scenario &s, qint64 failedAtSessions, qint64 contextTokens, const QVector<ModelShape> &models,
                          const QVector<GpuSpec> &gpus);

/// Inverse questions (headroom plan --solve):
/// the longest context (or, against a distribution, retention cap) at which
/// `sessions` sessions fit at the scenario's risk (0 when not even 1 token);
qint64 solveMaxContext(const Scenario &s, qint64 sessions);
/// the fewest GPUs over tensorParallelSizes() (valid splits only) holding `target`
/// sessions at the risk, and the TP that achieves it ({0, 0} when none does);
QPair<qint64, int> solveMinGpus(const Scenario &s, qint64 target);
/// and the largest max_model_len at which one session fits (vLLM's hint when it
/// cannot start), no more than the model's max_position_embeddings.
qint64 solveMaxModelLen(const Scenario &s);

} // namespace Headroom
