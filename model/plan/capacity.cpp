// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/capacity.h"
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

namespace {

/// The translation context of the warnings, fixes and weights basis (lupdate reads
/// Capacity::tr into build/translations/headroom.ts).
struct Capacity
{
    Q_DECLARE_TR_FUNCTIONS(Capacity)
};

using Units::formatCount;

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

// Parameters an int4 (AWQ/GPTQ) checkpoint keeps in 16-bit: the input embeddings and
// the output head, vocab x hidden each (vLLM's AWQ/GPTQ linear methods quantize
// linear layers only: vllm/model_executor/layers/quantization/awq.py, gptq.py;
// E05 loaded 5.29 GiB for Qwen2.5-7B-AWQ, E24 3.88 GiB for Mistral-7B GPTQ).
// Counted untied (two matrices); 0 when the shape lacks vocab or hidden size.
qint64 int4SixteenBitParams(const Scenario &s)
{
    if (s.effectiveWeightsDtype() != Dtype::INT4 || s.model.vocabSize <= 0 || s.model.hiddenSize <= 0)
        return 0;
    const QString f = s.field(Input::Model);
    const qint64 e = Units::mul(Units::mul(s.model.vocabSize, s.model.hiddenSize, f, "parameter count"), 2, f, "parameter count");
    return e < s.model.totalParams ? e : 0;
}

// Weights one GPU holds, bytes: the dense part split over TP x PP; under --ep the routed
// experts (layers x experts x 3 x hidden x expert size parameters, their share of the
// weights) split over EP x PP instead (vLLM --enable-expert-parallel: attention stays
// TP-sharded, experts are spread over the EP group; vllm/model_executor/layers/fused_moe/layer.py).
qint64 weightsPerGpuOf(const Scenario &s, qint64 weights)
{
    const QString f = s.field(Input::Ep);
    for (const auto &[v, input] : {std::pair{s.pp, Input::Pp}, std::pair{s.dp, Input::Dp}, std::pair{s.ep.value_or(1), Input::Ep}})
        if (v < 1)
            throw InputError(s.field(input), QStringLiteral("must be at least 1, got %1").arg(v));
    const ModelShape &m = s.model;
    // vLLM's pipeline stages each hold at least one layer (get_pp_indices,
    // vllm/distributed/utils.py, splits num_hidden_layers over pp_size; more stages than
    // layers leave a stage without layers, which vLLM refuses).
    if (s.pp > m.layers())
        throw InputError(s.field(Input::Pp), QStringLiteral("%1 pipeline stages for %2 layers: each stage needs at least one layer")
                                                 .arg(s.pp).arg(m.layers()));
    // Expert parallelism spreads a mixture-of-experts model's routed experts; a dense model has
    // none (vLLM --enable-expert-parallel applies to FusedMoE layers only), and more EP ranks than
    // experts leave a rank without one.
    if (s.ep && *s.ep > 1 && m.numExperts <= 0)
        throw InputError(s.field(Input::Ep), QStringLiteral("%1 is a dense model (no experts): expert parallelism applies to mixture-of-experts "
                                                            "models only; leave it out").arg(m.name));
    if (s.ep && m.numExperts > 0 && *s.ep > m.numExperts)
        throw InputError(s.field(Input::Ep), QStringLiteral("%1 expert-parallel GPUs for %2 experts per layer: each GPU needs at least one expert")
                                                 .arg(*s.ep).arg(m.numExperts));
    const qint64 split = qint64(std::max(1, s.tp)) * std::max(1, s.pp);
    qint64 expertParams = 0;
    if (s.ep && m.numExperts > 0 && m.hiddenSize > 0 && m.totalParams > 0) {
        const qint64 expertSize = m.moeIntermediateSize > 0 ? m.moeIntermediateSize : m.intermediateSize;
        const QString mf = s.field(Input::Model);
        expertParams = std::min(m.totalParams, Units::mul(Units::mul(Units::mul(m.layers(), m.numExperts, mf, "parameter count"),
                                                                     Units::mul(3, m.hiddenSize, mf, "parameter count"), mf, "parameter count"),
                                                          expertSize, mf, "parameter count"));
    }
    if (expertParams <= 0)
        return Units::ceilDiv(weights, split);
    const qint64 experts = qint64((long double)weights * (long double)expertParams / (long double)m.totalParams);
    return Units::add(Units::ceilDiv(weights - experts, split), Units::ceilDiv(experts, qint64(*s.ep) * std::max(1, s.pp)), f);
}

Budget budgetOf(const Scenario &s)
{
    Budget b;
    if (s.sessions < 0)
        throw InputError(s.field(Input::Sessions), QStringLiteral("must not be negative"));
    b.memory = s.effectiveGpuMemoryBytes();
    if (b.memory <= 0)
        throw InputError(s.field(Input::GpuMemory), QStringLiteral("must be larger than zero"));
    // Engine batch sizes: vLLM's max_num_seqs (default 256 / 1024) and TensorRT-LLM's
    // max_batch_size (default 2048) held to the 10^6 every small count the command line takes
    // has (InputRanges::small).
    for (const auto &[value, input] : {std::pair{s.engineSettings.maxNumSeqs, Input::MaxNumSeqs}, {s.engineSettings.trtMaxBatchSize, Input::MaxBatchSize}})
        if (value && (*value < 1 || *value > 1'000'000))
            throw InputError(s.field(input), QStringLiteral("must be a whole number from 1 to 1,000,000, got %1").arg(formatCount(*value)));
    if (b.memory > InputLimits::maxCardBytes)
        throw InputError(s.field(Input::GpuMemory), QStringLiteral("%1 B is more than any card holds: at most 1 PiB (%2 B) per card")
                                                        .arg(formatCount(b.memory), formatCount(InputLimits::maxCardBytes)));
    if (s.effectiveWorkspaceBytes() < 0)
        throw InputError(s.field(Input::Workspace), QStringLiteral("must not be negative"));
    if (s.weightsBytes) {
        b.weights = *s.weightsBytes;
        b.weightsBasis = Capacity::tr("given");
    } else if (!s.weightsDtype && s.model.checkpointBytes > 0) {
        b.weights = s.model.checkpointBytes;
        b.weightsBasis = Capacity::tr("published checkpoint size");
    } else {
        if (s.model.totalParams <= 0)
            throw InputError(s.field(Input::Params),
                             QStringLiteral("the parameter count of %1 is unknown: give --params or --weights").arg(s.model.name));
        const Dtype d = s.effectiveWeightsDtype();
        b.weights = Dtypes::bytesFor(d, s.model.totalParams, s.field(Input::Params));
        b.weightsBasis = Capacity::tr("%1 parameters × %2 (%3)")
                             .arg(formatCount(s.model.totalParams), Dtypes::describeSize(d), Dtypes::name(d));
        if (const qint64 embeddings = int4SixteenBitParams(s); embeddings > 0) {
            const QString f = s.field(Input::Params);
            const qint64 linear = s.model.totalParams - embeddings;
            // int4 linear weights + one fp16 scale and one packed 4-bit zero per group of 128
            // (2.5 B per 128 weights), embeddings and lm_head in 16-bit.
            b.weights = Units::add(Units::add(Dtypes::bytesFor(Dtype::INT4, linear, f), Units::mul(linear, 5, f) / 256, f),
                                   Units::mul(embeddings, 2, f), f);
            b.weightsBasis = Capacity::tr("%1 parameters as loaded: %2 int4 (+ group-128 scales) + %3 embedding and "
                                            "output-head parameters in 16-bit")
                                 .arg(formatCount(s.model.totalParams), formatCount(linear), formatCount(embeddings));
        }
    }
    if (b.weights < 0)
        throw InputError(s.field(Input::Weights), QStringLiteral("must not be negative"));
    // A vision encoder: in the weights unless the engine skips it; its cache in the workspace.
    VisionPool::imageTokensPerRequest(s);
    b.encoderWeights = VisionPool::encoderWeightsBytes(s, b.weights);
    if (!VisionPool::towerLoaded(s)) {
        b.weights -= b.encoderWeights;
        b.encoderWeights = 0;
    }
    b.weightsPerGpu = weightsPerGpuOf(s, b.weights);
    if (s.speculative.hasDraft()) {
        b.draftWeights = SidePools::draftWeightsBytes(s, b.weights, &b.draftBasis);
        b.draftWeightsPerGpu = Units::ceilDiv(b.draftWeights, std::max(1, s.tp));
    }
    b.loraWhole = SidePools::loraBytes(s, false);
    b.loraPerGpu = SidePools::loraBytes(s, true);
    const QString sideField = s.lora.on() ? s.field(Input::MaxLoras) : SidePools::draftField(s);
    const EngineBudget e = engineBudget(s, Units::add(Units::add(b.weightsPerGpu, b.draftWeightsPerGpu, sideField), b.loraPerGpu, sideField));
    b.usable = e.usable;
    b.engineMemory = e.memory;
    b.encoderCache = VisionPool::encoderCacheBytes(s);
    b.workspace = Units::add(e.workspace, b.encoderCache, s.field(Input::MaxNumBatchedTokens));
    b.budget = Units::sub(e.budget, b.encoderCache, s.field(Input::MaxNumBatchedTokens));
    b.activationPeak = e.activationPeak;
    b.rule = e.rule;
    b.spreadDown = e.spreadDown;
    // The high end cannot hold more than the card leaves after the weights.
    b.spreadUp = std::clamp<qint64>(e.memory - b.weightsPerGpu - b.budget, 0, e.spreadUp);
    b.spreadTerms = e.spreadTerms;
    return b;
}

// The lengths sessions would reach before any retention cap: the distribution
// (scaled), else every session at the context; under preallocation the reserved
// maximum. The cap is applied after (OverflowRisk, the truncated share), so a
// 32,768-token cap on 128,000-token sessions drops history from every one of them.
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

// The most tokens a session may reserve at admission: TensorRT-LLM's max_seq_len (its build
// setting, else max_model_len); 0 when neither is known.
qint64 admissionCeiling(const Scenario &s)
{
    return s.engineSettings.trtMaxSeqLen.value_or(s.effectiveMaxModelLen());
}

// The output tokens the engine reserves beside each prompt at admission (AdmissionRule::
// reservedOutputTokens: TensorRT-LLM's GUARANTEED_NO_EVICT with --max-output-tokens), empty when
// it pages (or under preallocation). Throws InputError naming --max-output-tokens unless it is
// from 1 to 2^53, and --output-tokens when that is more: a request stops at its max_tokens.
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

// The lengths sessions hold at admission under the engine's rule (EngineRule::admission), with
// the retention `cap` (0: none) applied: `lengths` as they are when the engine pages; when it
// reserves output, each session's reservation (reservationOf, on its capped length), or for a
// trace whose every request is a session, each request's own prompt (capped) + n, at most
// max_seq_len.
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

// The risk law of the sessions as the engine admits them: `lengths` under the retention `cap`
// when it pages; their reservations (admittedLengths, the cap already in them) when it reserves
// output.
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

// The field the context comes from, for overflow messages: the distribution
// when the context is its longest session (the command line sets it so), else --context.
QString contextField(const Scenario &s)
{
    return contextIsDistributionLongest(s) ? s.field(Input::Distribution) : s.field(Input::Context);
}

// The field a reserved length comes from, for overflow messages.
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

// The shared prefix (system prompt) of a conversation trace, held once per card and not once
// per session (LengthDistribution::sharedPrefixTokens): its bytes on one GPU in whole blocks at
// the full per-token rate (no window binds a 512-token prefix), 0 without one or under
// preallocation. Throws InputError naming the distribution when the bytes pass 2^63.
qint64 sharedPrefixBytes(const Scenario &s, const KvCost &cost)
{
    if (!s.distribution || s.preallocate || s.distribution->sharedPrefixTokens <= 0)
        return 0;
    const qint64 block = std::max(1, s.effectiveBlockSize());
    return Units::mul(Units::ceilDiv(s.distribution->sharedPrefixTokens, block) * block, cost.bytesPerTokenPerGpu(),
                      s.field(Input::Distribution), "shared prefix bytes");
}

// The KV budget the sessions share: the budget less the shared prefix held once (at least 0).
qint64 sessionsBudget(const Scenario &s, const KvCost &cost, qint64 budget)
{
    return std::max<qint64>(0, budget - sharedPrefixBytes(s, cost));
}

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
        if (answersByRisk(s))
            return admittedLaw(work, s, lengthsOf(s, reserved), cost, s.retainTokens.value_or(0))
                .sessionsAtRisk(sessionsBudget(s, cost, b.budget), s.risk).sessions;
        return b.budget / per;
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

// The single changes that hold `want` sessions, each with its count: at the risk when the plan
// answers by it (answersByRisk), a retention cap by its worst case (every session at the cap).
QStringList fixesFor(const Scenario &s, qint64 want, const CapacityResult &r, RiskWork &work)
{
    QStringList out;
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
        const qint64 cap = maxContextFor(s, want);
        // A cap is a lever a reader can act on only while the typical session keeps its history:
        // against a distribution at most half of the sessions lose any (a 128-token cap on a chat
        // trace answers another question), at one length (every session at the context) each
        // keeps at least half of it (a 656-token cap on 8,192-token chats was offered). Said with
        // what it does and whom it costs.
        const LengthDistribution lengths = lengthsOf(s, r.reservedTokensPerSession);
        const bool oneLength = lengths.lengths.size() == 1;
        const bool sensible = oneLength ? 2 * cap >= lengths.maximum() : lengths.shareAbove(cap) <= 0.5;
        if (cap > 0 && cap < s.contextTokens && sensible)
            out << Capacity::tr("retention cap at %1 tokens (each session keeps only its latest %1 tokens; %2): %3")
                       .arg(formatCount(cap),
                            oneLength ? Capacity::tr("every session drops %1 of its %2").arg(formatCount(lengths.maximum() - cap), formatCount(lengths.maximum()))
                                      : Capacity::tr("%1% of sessions lose history").arg(Units::formatDecimal(lengths.shareAbove(cap) * 100, 2)),
                            Units::plural(want, Capacity::tr("session"), Capacity::tr("sessions")));
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

// The inputs the risk-based count reads, checked: the risk (1e-6 to 0.5), the admission
// margin (0 to below 1) and the retention cap (at least 1 token). Throws InputError naming the field.
void checkRiskInputs(const Scenario &s)
{
    if (!(s.risk >= 1e-6 && s.risk <= 0.5))
        throw InputError(s.field(Input::Risk), QStringLiteral("must be between 1e-6 and 0.5, got %1").arg(s.risk));
    if (!(s.marginFraction >= 0 && s.marginFraction < 1))
        throw InputError(s.field(Input::Margin), QStringLiteral("must be at least 0 and below 1"));
    if (s.retainTokens && *s.retainTokens < 1)
        throw InputError(s.field(Input::Retain), QStringLiteral("must be at least 1 token"));
    if (s.outputTokens && *s.outputTokens < 1)
        throw InputError(s.field(Input::OutputTokens), QStringLiteral("must be at least 1 token"));
    if (s.outputTokens && !s.distribution && *s.outputTokens > s.contextTokens)
        throw InputError(s.field(Input::OutputTokens), QStringLiteral("%1 tokens is more than the context, %2 tokens: the output is part of "
                                                                      "each session's length (prompt + output)")
                                                           .arg(Units::formatCount(*s.outputTokens), Units::formatCount(s.contextTokens)));
}

// The lengths' own figures into `d` (tokens): mean, quantiles and maximum, what the retention
// `cap` (0: none) drops, and the shares longer than the context or than max_model_len.
void addLengthFigures(DistributionFigures &d, const Scenario &s, const LengthDistribution &lengths, qint64 cap)
{
    d.meanTokens = lengths.mean();
    d.p50 = lengths.quantile(0.5);
    d.p90 = lengths.quantile(0.9);
    d.p99 = lengths.quantile(0.99);
    d.maxTokens = lengths.maximum();
    if (cap > 0) {
        d.truncatedShare = lengths.shareAbove(cap);
        d.meanTokensDropped = lengths.meanDropped(cap);
        d.meanTokensDroppedByThoseLosing = lengths.meanDroppedByThoseLosing(cap);
        d.p99TokensDropped = lengths.droppedQuantile(cap, 0.99);
    }
    // Lengths past the context or past what an engine holds are counted all the same,
    // and said so (computeCapacity's warnings): the cap, when given, holds them first.
    const qint64 longest = cap > 0 ? std::min(d.maxTokens, cap) : d.maxTokens;
    if (s.distribution && !s.preallocate && !contextIsDistributionLongest(s) && longest > s.contextTokens)
        d.shareLongerThanContext = lengths.shareAbove(s.contextTokens);
    if (const qint64 maxLen = s.effectiveMaxModelLen(); s.distribution && !s.preallocate && maxLen > 0 && longest > maxLen)
        d.shareLongerThanMaxModelLen = lengths.shareAbove(maxLen);
}

// The counts against the KV `budget` per GPU into `d`: the risk-based count and how it was
// settled, the worst case and the count at the mean; unless `work` wants counts only, the
// admission limit, the overflow probability at the asked sessions, and admission by prompt.
void addRiskFigures(DistributionFigures &d, const Scenario &s, const LengthDistribution &lengths, const KvCost &cost, qint64 cap,
                    qint64 budget, RiskWork &work)
{
    // Counted at what each session holds at admission under the engine's rule: its length when
    // the engine pages, its prompt + the reserved output under GUARANTEED_NO_EVICT.
    const std::optional<qint64> reserved = reservedOutput(s);
    const bool reservesOutput = reserved.has_value();
    if (reserved) {
        const LengthDistribution admitted = admittedLengths(s, lengths, cap);
        d.reservedOutputTokens = *reserved;
        d.reservedMaxTokens = admitted.maximum();
        d.reservedMeanTokens = admitted.mean();
    }
    RiskWork::Law &law = admittedLaw(work, s, lengths, cost, cap);
    d.meanSessionBytesPerGpu = law.risk().meanBytes();
    const double atMean = double(s.sessions) * d.meanSessionBytesPerGpu;
    d.kvBytesForSessionsAtMeanPerGpu = atMean < 9.2e18 ? qint64(std::llround(atMean)) : std::numeric_limits<qint64>::max();
    const RiskCount count = law.sessionsAtRisk(budget, s.risk);
    d.sessionsAtRisk = count.sessions;
    d.riskMethod = count.method;
    d.riskTailAt = count.tailAt;
    d.riskTailAbove = count.tailAbove;
    d.riskErrorBound = count.errorBound;
    d.riskRoundingBytes = count.roundingBytes;
    d.sessionsWorstCase = law.risk().sessionsWorstCase(budget);
    d.sessionsAtMean = law.risk().sessionsAtMean(budget);
    if (work.figures() != RiskWork::Figures::Counts) {
        // The margin's bytes taken off (at most 0.9 of the budget, so within 64 bits): the
        // budget times (1 - margin) as a double rounds up to 2^63 within 512 B of it.
        const qint64 admissionBudget = budget - std::min(budget, qint64(std::ceil(double(budget) * s.marginFraction)));
        d.admissionLimit = law.sessionsAtRisk(admissionBudget, s.risk).sessions;
        d.overflowProbability = law.overflowProbability(s.sessions, budget);
    }
    if (!lengths.promptLengths.isEmpty() && !s.preallocate && !reservesOutput && work.figures() != RiskWork::Figures::Counts) {
        // Admission that counts prompts only lets in more sessions than their grown size allows.
        LengthDistribution prompts = lengths;
        prompts.lengths = lengths.promptLengths;
        prompts.probabilities = lengths.promptProbabilities;
        d.hasPrompts = true;
        d.admissionByPrompt = work.law(prompts, cost, cap).sessionsAtRisk(budget, s.risk).sessions;
        d.riskAtGrownSize = law.overflowProbability(d.admissionByPrompt, budget);
    }
}

// The sessions the fleet is sized for (DistributionFigures::fleetTargetSessions): the target,
// else the sessions asked when one replica holds fewer than them (`perReplica` at the risk)
// and no --dp fleet is given.
std::optional<qint64> fleetTarget(const Scenario &s, qint64 perReplica)
{
    if (s.targetSessions)
        return s.targetSessions;
    if (s.dp <= 1 && s.sessions > perReplica && perReplica > 0)
        return s.sessions;
    return std::nullopt;
}

// The fleet for the scenario's target sessions into `d`: whole replicas at the risk-based count
// and at the admission limit, and its cost per hour and per month (730 hours) at the price.
// Throws InputError naming --target-sessions when the GPU count passes 2^63 - 1.
void addFleetFigures(DistributionFigures &d, const Scenario &s)
{
    // Each replica's overflow probability at the sessions it holds, and the fleet's over its
    // replicas (independent: plan/fleetrisk.h): the target's fleet, else --dp replicas.
    d.replicaRisk = s.risk;
    d.riskOfFleet = s.fleetRisk.has_value();
    d.replicaOverflowProbability = d.sessionsAtRisk > 0 ? d.riskTailAt : 0.0;
    d.fleetTargetSessions = fleetTarget(s, d.sessionsAtRisk);
    d.fleetTargetFromSessions = d.fleetTargetSessions && !s.targetSessions;
    const std::optional<qint64> target = d.fleetTargetSessions;
    if (target && d.sessionsAtRisk > 0)
        d.fleetReplicas = Units::ceilDiv(*target, d.sessionsAtRisk);
    else if (!target)
        d.fleetReplicas = s.dp;
    if (d.fleetReplicas) {
        d.fleetGpus = Units::mul(*d.fleetReplicas, s.gpusPerReplica(),
                                 s.field(s.targetSessions ? Input::TargetSessions : target ? Input::Sessions : Input::Dp), "GPU count");
        d.fleetOverflowProbability = FleetRisk::fleetOverflowProbability(d.replicaOverflowProbability, *d.fleetReplicas);
        if (const auto price = s.effectivePrice()) {
            d.fleetCostPerHourUsd = *price * double(*d.fleetGpus);
            d.fleetCostPerMonthUsd = *d.fleetCostPerHourUsd * 730.0;
        }
    }
    if (!target || d.sessionsAtRisk <= 0)
        return;
    d.gpusNeeded = d.fleetGpus;
    if (d.fleetTargetFromSessions && d.fleetReplicas && *d.fleetReplicas > 0) {
        d.sessionsPerReplica = Units::ceilDiv(*target, *d.fleetReplicas);
        d.kvBytesForReplicaSessionsAtMeanPerGpu = qint64(std::llround(double(d.sessionsPerReplica) * d.meanSessionBytesPerGpu));
    }
    if (d.admissionLimit > 0)
        d.gpusNeededAtAdmissionLimit = Units::mul(Units::ceilDiv(*target, d.admissionLimit), s.gpusPerReplica(),
                                                  s.field(s.targetSessions ? Input::TargetSessions : Input::Sessions), "GPU count");
}

// `s` with each replica's risk in force: its own, or the one FleetRisk::solve settles for its
// fleet risk on the risk-based count at the plan `r`'s budget. --dp with a target is refused
// here (both would size the fleet). Throws InputError naming --fleet-risk (out of range, or a
// fleet too large for the solver's 1e-6 floor) or --dp.
Scenario withReplicaRisk(const Scenario &s, const KvCost &cost, const CapacityResult &r, RiskWork &work)
{
    if (s.targetSessions && s.dp > 1)
        throw InputError(s.field(Input::Dp), QStringLiteral("%1 replicas and %2 %3 both size the fleet: give one (the target sizes it "
                                                             "from the sessions each replica holds; %4 is the fleet without a target)")
                                                 .arg(Units::formatCount(s.dp), s.field(Input::TargetSessions), Units::formatCount(*s.targetSessions),
                                                      s.field(Input::Dp)));
    if (!s.fleetRisk)
        return s;
    Scenario v = s;
    const double fleet = InputRanges::check(RealInput::FleetRisk, *s.fleetRisk, s.field(Input::FleetRisk));
    const qint64 cap = s.preallocate ? 0 : s.retainTokens.value_or(0);
    RiskWork::Law &law = admittedLaw(work, s, lengthsOf(s, r.reservedTokensPerSession), cost, cap);
    const qint64 budget = sessionsBudget(s, cost, r.kvBudgetBytesPerGpu);
    const FleetRisk::Solution solved = FleetRisk::solve(
        fleet, s.targetSessions ? s.targetSessions : s.dp <= 1 && s.sessions > 1 ? std::optional<qint64>(s.sessions) : std::nullopt, s.dp,
        [&](double p) { return law.sessionsAtRisk(budget, p).sessions; },
        InputRanges::of(RealInput::Risk).low, s.field(Input::FleetRisk));
    v.risk = solved.replicaRisk;
    return v;
}

// Little's law on a trace with arrival times, into `d` (trafficConcurrency, plan/servingestimate.h).
void addTrafficFigures(DistributionFigures &d, const Scenario &s, const LengthDistribution &lengths, qint64 weightsPerGpu)
{
    if (lengths.arrivalRatePerSecond <= 0)
        return;
    d.arrivalRatePerSecond = lengths.arrivalRatePerSecond * s.trafficMultiplier;
    if (!d.ttftMs)
        return;
    if (const auto c = trafficConcurrency(s, weightsPerGpu, d.meanSessionBytesPerGpu, *d.arrivalRatePerSecond, *d.ttftMs, lengths.meanOutputTokens,
                                          1000.0 * double(std::max<qint64>(1, d.sessionsAtRisk)))) {
        d.concurrencyFromTraffic = c->requests;
        d.concurrencyItlMs = c->itlMs;
    }
}

// The figures against the scenario's lengths (a distribution, else every session at the
// context; the reserved maximum under preallocation), for the plan `r` so far with KV
// `cost` and budget `b`. Throws InputError naming the field of a bad risk input.
DistributionFigures distributionFigures(const Scenario &s, const KvCost &cost, const Budget &b, const CapacityResult &r, RiskWork &work)
{
    DistributionFigures d;
    checkRiskInputs(s);
    const LengthDistribution lengths = lengthsOf(s, r.reservedTokensPerSession);
    const qint64 cap = s.preallocate ? 0 : s.retainTokens.value_or(0);
    addLengthFigures(d, s, lengths, cap);
    d.conversations = lengths.conversations;
    d.sharedPrefixTokens = s.preallocate ? 0 : lengths.sharedPrefixTokens;
    d.sharedPrefixBytesPerGpu = sharedPrefixBytes(s, cost);
    addRiskFigures(d, s, lengths, cost, cap, sessionsBudget(s, cost, r.kvBudgetBytesPerGpu), work);
    // Throughput and cost at the risk-based count.
    addFleetFigures(d, s);
    addSpeedFigures(d, s, lengths, b.weightsPerGpu);
    addTrafficFigures(d, s, lengths, b.weightsPerGpu);
    return d;
}

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
    // A fleet-wide risk bounds the overflow of lengths that vary; at one fixed length there is none.
    if (s.fleetRisk && !s.distribution)
        r.warnings << Capacity::tr("%1 has no effect without a length distribution (--distribution): every session is at the context, "
                                   "so no overflow is risked.").arg(s.field(Input::FleetRisk));
    // A release past the newest its rule was checked against: its terms are that release's.
    const EngineVersion checked = Engines::rule(s.engine).checkedVersion();
    const std::optional<EngineVersion> given = s.engine == Engine::Vllm
        ? std::optional(EngineVersion{s.engineSettings.vllmMajor, s.engineSettings.vllmMinor})
        : s.engineSettings.engineVersion;
    if (given && s.engine != Engine::Plain && !checked.atLeast(given->major, given->minor))
        r.warnings << Capacity::tr("%1 %2 is newer than %3, the newest release Headroom's rule was checked against: planned with %3's terms.")
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
