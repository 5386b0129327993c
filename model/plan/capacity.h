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

/// What a retention cap costs the users, in one phrase for every surface: "7.31% of
/// conversations lose history: 25,262 tokens on average among them (over all: 1,847 on
/// average, p99 59,804)" ("sessions" when the lengths are per request), from the distribution's figures
/// of `r` (truncatedShare, meanTokensDropped over all, its p99). Empty when nothing is lost.
QString historyLost(const CapacityResult &r);

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
