// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"
#include "inputs/scenario.h"
#include "core/units.h"

namespace Headroom {

/// The capacity engine: Scenario in, CapacityResult out. Pure: no I/O, no
/// QObject, cheap enough to rerun on every slider tick.
///
/// GPU memory = weights + workspace + KV cache (seed-figures.md, "Rules"):
/// - weights = the override, else the published checkpoint size (when no
///   weights precision was chosen), else total parameters x bytes per weight;
///   split evenly over the TP group (ceil).
/// - budget per GPU = usable - weights per GPU - workspace, usable = card
///   (plain) or floor(card x gpu_memory_utilization) (vLLM rule).
/// - sessions per TP group = floor(budget / bytes one session reserves on a
///   GPU), a session reserving its context (paged, KvCost) or the maximum
///   context under preallocation.
/// - cost per session-hour = $ per GPU-hour x TP / sessions.
/// Errors (returned, never thrown): ok = false with the field named.
CapacityResult computeCapacity(const Scenario &scenario);

/// The derivation with the numbers plugged in, one line per step, the way a
/// person explains it at a whiteboard ("2 x 8 KV heads x 128 x 2 B = 4,096 B
/// per layer"). Figures in `units`; exact bytes alongside.
QStringList explainCapacity(const Scenario &scenario, const CapacityResult &result, UnitSystem units);

/// One sentence a person repeats: what fits and what limits it, figures in `units`.
QString capacityVerdict(const Scenario &scenario, const CapacityResult &result, UnitSystem units);

/// The longest session the scenario's distribution holds, after the length scale and the
/// retention cap: the context the command line sets without --context, and the window when
/// lengths are loaded. Throws InputError naming --length-scale when the scaled lengths do not
/// hold (LengthDistribution::scaled). Requires a distribution.
qint64 distributionLongest(const Scenario &scenario);

/// Whether the scenario's context is the longest session its distribution
/// holds, after the length scale and the retention cap (what the command line
/// sets without --context). False without a distribution.
bool contextIsDistributionLongest(const Scenario &scenario);

/// Whether the plan's answer is the risk-based count (DistributionFigures::sessionsAtRisk):
/// a distribution of lengths is given and sessions are not preallocated. The per-session
/// figures (at the context or the distribution's longest) are then its worst case, not the answer.
bool answersByRisk(const Scenario &scenario);

/// Whether the sessions asked fit by the plan's answer: at the risk (answersByRisk), else every
/// one at its reserved length (CapacityResult::fits). False for a plan without an answer.
bool askedSessionsFit(const Scenario &scenario, const CapacityResult &result);

/// Sessions held by `gpus` GPUs as the whole count it is: "15 sessions per GPU", "15 sessions
/// per 4 GPUs" ("15 per 4 GPUs" without the noun). Under tensor parallelism a session spans
/// every GPU of its group, so no GPU holds a count of its own: a quotient per GPU ("3.75") is
/// no number of sessions anything holds, and is never shown as one.
QString sessionsPerGpus(qint64 sessions, int gpus, bool noun = true);

/// The sessions at the risk of `scenario` without its retention cap (what the cap buys: the
/// window's "The cap: +11 sessions per GPU", plan's sessions_at_risk_without_cap), or nothing
/// without a cap or when that plan has no answer. Counts only: no fixes or fleet figures.
std::optional<qint64> uncappedSessions(const Scenario &scenario);

/// The GPUs a count of sessions is held by, as a phrase after the count: "" on one GPU,
/// " per replica of 4 GPUs (TP 4)" under tensor parallelism, " per replica of 4 GPUs (TP 2 × PP 2)"
/// once pipeline stages share the replica (each stage holds its own layers' KV of every session).
QString perReplicaOf(const Scenario &scenario);

/// What bounds the count of `r`: "the KV cache budget is the limit", or the engine's running
/// cap where it cut the KV cache's count ("vLLM's max_num_seqs 3 is the limit: the KV cache holds 45").
QString limitWords(const Scenario &scenario, const CapacityResult &r);

/// One replica's GPUs and how they are split: "1 GPU", "4 GPUs (TP 4)", "8 GPUs (TP 4 × PP 2)".
QString replicaShape(const Scenario &scenario);

/// What one copy of the model is, as the noun for `n` of them: "GPU"/"GPUs" when a replica is
/// one GPU, "replica"/"replicas" once TP or PP spreads it over more (a count of sessions is
/// held by a whole replica; perReplicaOf names its GPUs the first time).
QString replicaNoun(const Scenario &scenario, qint64 n = 1);

/// Every value of `scenario` that overrides its model or card, in words, one a line, each said
/// as a what-if with the value it replaces: "KV heads 4 (what-if; the model has 8)", card
/// memory, weights, workspace, the length scale (bytes in `units`). Empty when none is in
/// force. The report's page 1 and the presenter list them.
QStringList whatIfsInForce(const Scenario &scenario, UnitSystem units);

/// What a retention cap costs the users, in one phrase for every surface (the plan, the
/// levers, the window, the report), each average named by the sessions it is over:
/// "47.05% of sessions lose history: 14,375 tokens on average over those who lose history;
/// 6,764 on average over all sessions (p99 over all: 20,000)". `share` (0 to 1) of the
/// sessions ("conversations" when `conversations`) lose history, `meanByThoseLosing`
/// tokens each on average (E[L - cap | L > cap]), `meanOverAll` over every session
/// (E[max(L - cap, 0)]), `p99OverAll` the p99 of max(L - cap, 0). When all lose
/// history (`share` 1) the two averages are equal and said once: "all sessions lose
/// history: 91,808 tokens on average each (p99: 91,808)".
QString historyLostWords(double share, bool conversations, double meanByThoseLosing, double meanOverAll, qint64 p99OverAll);
/// historyLostWords from the distribution's figures of `r` (truncatedShare,
/// meanTokensDroppedByThoseLosing, meanTokensDropped, p99TokensDropped). Empty when nothing is lost.
QString historyLost(const CapacityResult &r);

/// What the retention cap of `scenario` buys against no cap, in words: "+11 sessions per GPU
/// (+275% of the sessions without it) at 1 in 100 (1e-2) risk, against no cap", from the plan
/// `result` and the count `uncapped` without the cap (uncappedSessions). The window's "The cap"
/// line and plan's "Retention cap gains" row.
QString capEffect(const Scenario &scenario, const CapacityResult &result, qint64 uncapped);

/// The length every per-session figure (session bytes, the sessions that fit
/// at it, KV for the asked sessions) is for, said outright: "131,072 tokens
/// (the preallocated maximum)" under preallocation, "8,192 tokens (the
/// retention cap)" when the cap is at or below the context, "14,089 tokens
/// (the longest in the trace)" (or "(the longest of the distribution)") when
/// the context is the distribution's longest session
/// (contextIsDistributionLongest, the rule that also names the field of an
/// overflow), else "128,000 tokens (the context)". The derivation, the
/// window, the command line and the report use it so one basis shows everywhere.
QString sessionBasis(const Scenario &scenario, const CapacityResult &result);

/// Sessions that fit (per TP group, at a fixed context, each held to the
/// retention cap when one is set) at `points` context lengths spaced
/// logarithmically from 1,000 tokens to four times the model's maximum (at
/// least 131,072): the "sessions against context" curve.
QVector<QPair<qint64, qint64>> sessionsAcrossContexts(const Scenario &scenario, int points = 32);

/// The largest context (tokens) at which `sessions` sessions still fit the
/// scenario's KV budget, or 0 when not even one token does. Throws InputError
/// for an invalid scenario.
qint64 maxContextFor(const Scenario &scenario, qint64 sessions);

} // namespace Headroom
