// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacity.h"
#include "plan/riskwork.h"

#include <QCoreApplication>
#include <optional>

namespace Headroom {

/// The parts computeCapacity (plan/capacity.cpp) is built from, one file each by what it does.
/// Internal to the plan: views and commands call plan/capacity.h.
namespace CapacityParts {

/// The translation context of the warnings, fixes and weights basis (lupdate reads
/// Capacity::tr into build/translations/headroom.ts).
struct Capacity
{
    Q_DECLARE_TR_FUNCTIONS(Capacity)
};

/// One GPU's memory as the plan carves it, bytes (budgetOf).
struct Budget
{
    qint64 weights = 0;
    QString weightsBasis;
    qint64 weightsPerGpu = 0;
    qint64 workspace = 0;
    qint64 memory = 0;
    qint64 engineMemory = 0;
    qint64 usable = 0;
    qint64 budget = 0;    // may be negative here
    qint64 activationPeak = 0;
    QString rule;
    qint64 spreadDown = 0, spreadUp = 0; // EngineBudget's spread before hardware
    QStringList spreadTerms;
    qint64 encoderWeights = 0;    // the vision encoder's weights as loaded (part of weights)
    qint64 encoderCache = 0;      // the encoder cache per GPU (part of workspace)
    // Side pools loaded with the model (vLLM counts the draft and the LoRA slots in
    // "Model loading took": both are built in load_model), so the engine rule sees them as weights.
    qint64 draftWeights = 0;
    qint64 draftWeightsPerGpu = 0;
    QString draftBasis;
    qint64 loraWhole = 0;
    qint64 loraPerGpu = 0;
};

// The memory one GPU gives the KV cache (plan/planbudget.cpp).

/// The memory of one GPU for `s`, bytes: the weights (given, the published checkpoint, else
/// parameters x bytes per weight, int4 checkpoints as loaded) and their share per GPU, the
/// vision encoder and side pools, and the engine rule's workspace, usable memory, KV budget
/// (may be negative) and spread before hardware (EngineRule::budget). Throws InputError naming
/// the field of a card, weight, engine batch size or parallelism out of range.
Budget budgetOf(const Scenario &s);

// What each session holds at admission, and what one token costs (plan/admission.cpp).

/// The lengths sessions would reach before any retention cap: the distribution
/// (scaled), else every session at the context; under preallocation the reserved
/// maximum. The cap is applied after (OverflowRisk, the truncated share), so a
/// 32,768-token cap on 128,000-token sessions drops history from every one of them.
LengthDistribution lengthsOf(const Scenario &s, qint64 reserved);

/// The output tokens the engine reserves beside each prompt at admission (AdmissionRule::
/// reservedOutputTokens: TensorRT-LLM's GUARANTEED_NO_EVICT with --max-output-tokens), empty when
/// it pages (or under preallocation). Throws InputError naming --max-output-tokens unless it is
/// from 1 to 2^53, and --output-tokens when that is more: a request stops at its max_tokens.
std::optional<qint64> reservedOutput(const Scenario &s);

/// The lengths sessions hold at admission under the engine's rule (EngineRule::admission), with
/// the retention `cap` (0: none) applied: `lengths` as they are when the engine pages; when it
/// reserves output, each session's reservation (reservationOf, on its capped length), or for a
/// trace whose every request is a session, each request's own prompt (capped) + n, at most
/// max_seq_len.
LengthDistribution admittedLengths(const Scenario &s, const LengthDistribution &lengths, qint64 cap);

/// The risk law of the sessions as the engine admits them: `lengths` under the retention `cap`
/// when it pages; their reservations (admittedLengths, the cap already in them) when it reserves
/// output.
RiskWork::Law &admittedLaw(RiskWork &work, const Scenario &s, const LengthDistribution &lengths, const KvCost &cost, qint64 cap);

/// The tokens one session reserves: its context (held to the retention cap) when the engine
/// pages; its reservation under an engine that reserves output (reservationOf); under
/// preallocation max_model_len. Throws InputError naming --max-model-len when preallocation
/// has none, --context when the context passes it.
qint64 reservedTokens(const Scenario &s);

/// The field the context comes from, for overflow messages: the distribution
/// when the context is its longest session (the command line sets it so), else --context.
QString contextField(const Scenario &s);

/// The field a reserved length comes from, for overflow messages.
QString reservedField(const Scenario &s);

/// The KV cost per token of `s` (kv/kvcost.h): its pipeline stage's layers at the KV format,
/// TP, block size and KV-head what-if, with a draft's layers and speculative lookahead slots.
/// Throws InputError naming --context below 1 token, the model without layers, or
/// --num-speculative-tokens out of range.
KvCost costOf(const Scenario &s);

/// The shared prefix (system prompt) of a conversation trace, held once per card and not once
/// per session (LengthDistribution::sharedPrefixTokens): its bytes on one GPU in whole blocks at
/// the full per-token rate (no window binds a 512-token prefix), 0 without one or under
/// preallocation. Throws InputError naming the distribution when the bytes pass 2^63.
qint64 sharedPrefixBytes(const Scenario &s, const KvCost &cost);

/// The KV budget the sessions share: the budget less the shared prefix held once (at least 0).
qint64 sessionsBudget(const Scenario &s, const KvCost &cost, qint64 budget);

// The single changes that hold the sessions asked (plan/fixes.cpp).

/// The single changes that hold `want` sessions, each with its count: at the risk when the plan
/// answers by it (answersByRisk), a retention cap by its worst case (every session at the cap).
QStringList fixesFor(const Scenario &s, qint64 want, const CapacityResult &r, RiskWork &work);

// The risk-based count, the fleet, speed and traffic figures (plan/riskfigures.cpp).

/// `s` with each replica's risk in force: its own, or the one FleetRisk::solve settles for its
/// fleet risk on the risk-based count at the plan `r`'s budget. --dp with a target is refused
/// here (both would size the fleet). Throws InputError naming --fleet-risk (out of range, or a
/// fleet too large for the solver's 1e-6 floor) or --dp.
Scenario withReplicaRisk(const Scenario &s, const KvCost &cost, const CapacityResult &r, RiskWork &work);

/// The figures against the scenario's lengths (a distribution, else every session at the
/// context; the reserved maximum under preallocation), for the plan `r` so far with KV
/// `cost` and budget `b`. Throws InputError naming the field of a bad risk input.
DistributionFigures distributionFigures(const Scenario &s, const KvCost &cost, const Budget &b, const CapacityResult &r, RiskWork &work);

} // namespace CapacityParts

} // namespace Headroom
