// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/capacityparts.h"
#include "engines/enginerule.h"
#include "plan/sidepools.h"
#include "plan/visionpool.h"
#include "core/inputerror.h"
#include "core/inputranges.h"

namespace Headroom::CapacityParts {

using Units::formatCount;

namespace {

// Parameters a quantized checkpoint keeps in 16-bit: the input embeddings and the output
// head, vocab x hidden each. Every format here quantizes linear layers only: vLLM's AWQ/GPTQ
// and fp8 linear methods (vllm/model_executor/layers/quantization/awq.py, gptq.py, fp8.py)
// leave the vocabulary embedding and lm_head in the model's dtype (E05 loaded 5.29 GiB for
// Qwen2.5-7B-AWQ, E24 3.88 GiB for Mistral-7B GPTQ; an attacker's fp8 Llama-3.1-8B was sized
// 8.03 GB with its 1.05 B embedding parameters at 1 B each). Counted untied (two matrices);
// 0 for a 16- or 32-bit format, or when the shape lacks vocab or hidden size.
qint64 sixteenBitParams(const Scenario &s)
{
    if (Dtypes::bytesFor(s.effectiveWeightsDtype(), 1024, {}) >= 2048 || s.model.vocabSize <= 0 || s.model.hiddenSize <= 0)
        return 0;
    const QString f = s.field(Input::Model);
    const qint64 e = Units::mul(Units::mul(s.model.vocabSize, s.model.hiddenSize, f, "parameter count"), 2, f, "parameter count");
    return e < s.model.totalParams ? e : 0;
}

// The routed experts' parameters (layers x experts x 3 x hidden x expert size: gate, up and down
// projections), at most the total; 0 for a dense model or one without its shapes. Where the
// active count is known, also at most what it leaves: total - active = the experts a token does
// not use, (E - k) / E of them, so routed <= (total - active) x E / (E - k). That bound holds
// the layers every layer count misses: DeepSeek-V3's first_k_dense_replace 3 dense layers (an
// attacker's EP plan put all 671 B parameters on the experts' ranks; 654 B are routed experts).
qint64 routedExpertParams(const ModelShape &m, const QString &field)
{
    if (m.numExperts <= 0 || m.hiddenSize <= 0 || m.totalParams <= 0)
        return 0;
    const qint64 expertSize = m.moeIntermediateSize > 0 ? m.moeIntermediateSize : m.intermediateSize;
    qint64 routed = std::min(m.totalParams, Units::mul(Units::mul(Units::mul(m.layers(), m.numExperts, field, "parameter count"),
                                                                  Units::mul(3, m.hiddenSize, field, "parameter count"), field, "parameter count"),
                                                       expertSize, field, "parameter count"));
    if (m.activeParams > 0 && m.activeParams < m.totalParams && m.expertsPerToken > 0 && m.expertsPerToken < m.numExperts)
        routed = std::min(routed, qint64((long double)(m.totalParams - m.activeParams) * m.numExperts / (m.numExperts - m.expertsPerToken)));
    return routed;
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
    // The experts are spread over GPUs the deployment holds: vLLM's EP group is TP x DP
    // (--enable-expert-parallel, docs "Expert Parallel Deployment"), SGLang's and TensorRT-LLM's
    // lie within TP (ep_size, moe_expert_parallel_size). An EP wider than TP x DP, or not a whole
    // share of it, sized experts on GPUs no fleet here has (--tp 1 --dp 3 --ep 8: 3 GPUs, each
    // holding an eighth of the experts).
    if (s.ep && *s.ep > 1 && (qint64(s.tp) * s.dp < *s.ep || (qint64(s.tp) * s.dp) % *s.ep != 0))
        throw InputError(f, QStringLiteral("%1 expert-parallel GPUs, but the deployment has TP %2 × DP %3 = %4: the experts are spread over "
                                           "GPUs the fleet holds (vLLM: EP = TP × DP; SGLang, TensorRT-LLM: EP within TP), so TP × DP must be "
                                           "a multiple of it")
                                .arg(*s.ep).arg(s.tp).arg(s.dp).arg(qint64(s.tp) * s.dp));
    const qint64 split = qint64(std::max(1, s.tp)) * std::max(1, s.pp);
    const qint64 expertParams = s.ep ? routedExpertParams(m, s.field(Input::Model)) : 0;
    if (expertParams <= 0)
        return Units::ceilDiv(weights, split);
    // The experts' bytes in the weights' format (the embeddings and head stay 16-bit, and
    // gpt-oss keeps all but its experts in bf16: their share of the parameters put 9.22 GB on
    // each GPU of gpt-oss-120b where 11.95 GB is held); weights given by hand split by share.
    const qint64 experts = s.weightsBytes ? qint64((long double)weights * (long double)expertParams / (long double)m.totalParams)
                                          : std::min(weights, Dtypes::bytesFor(s.effectiveWeightsDtype(), expertParams, s.field(Input::Params)));
    return Units::add(Units::ceilDiv(weights - experts, split), Units::ceilDiv(experts, qint64(*s.ep) * std::max(1, s.pp)), f);
}

// The weights from the parameter count in their format (b.weights, b.weightsBasis): every
// parameter at the format's size, MXFP4 mixture-of-experts checkpoints with their experts alone
// quantized, and other quantized formats with the embeddings and head in 16-bit. Throws
// InputError naming --params when the count is unknown, or on overflow.
void weightsFromParameters(const Scenario &s, Budget &b)
{
    if (s.model.totalParams <= 0)
        throw InputError(s.field(Input::Params),
                         QStringLiteral("the parameter count of %1 is unknown: give --params or --weights").arg(s.model.name));
    const Dtype d = s.effectiveWeightsDtype();
    b.weights = Dtypes::bytesFor(d, s.model.totalParams, s.field(Input::Params));
    b.weightsBasis = Capacity::tr("%1 parameters × %2 (%3)")
                         .arg(formatCount(s.model.totalParams), Dtypes::describeSize(d), Dtypes::name(d));
    // MXFP4 checkpoints of mixture-of-experts models quantize the routed experts only: gpt-oss's
    // config.json lists self_attn, the router, embed_tokens and lm_head in modules_to_not_convert
    // (20.9 B parameters: 19.1 B of experts at 4.25 bits + 1.8 B in bf16 = 12.8 GiB, the model
    // card's checkpoint size; every parameter at 4.25 bits was 11.1 GB).
    if (const qint64 experts = d == Dtype::MXFP4 ? routedExpertParams(s.model, s.field(Input::Model)) : 0; experts > 0) {
        const QString f = s.field(Input::Params);
        b.weights = Units::add(Dtypes::bytesFor(Dtype::MXFP4, experts, f), Units::mul(s.model.totalParams - experts, 2, f), f);
        b.weightsBasis = Capacity::tr("%1 parameters as loaded: %2 routed-expert parameters in mxfp4 + %3 others (attention, router, "
                                        "embeddings, output head) in 16-bit")
                             .arg(formatCount(s.model.totalParams), formatCount(experts), formatCount(s.model.totalParams - experts));
    } else if (const qint64 embeddings = sixteenBitParams(s); embeddings > 0) {
        const QString f = s.field(Input::Params);
        const qint64 linear = s.model.totalParams - embeddings;
        // The linear weights in the format (int4: + one fp16 scale and one packed 4-bit zero per
        // group of 128, 2.5 B per 128 weights), embeddings and lm_head in 16-bit.
        const qint64 scales = d == Dtype::INT4 ? Units::mul(linear, 5, f) / 256 : 0;
        b.weights = Units::add(Units::add(Dtypes::bytesFor(d, linear, f), scales, f), Units::mul(embeddings, 2, f), f);
        b.weightsBasis = Capacity::tr("%1 parameters as loaded: %2 %3%4 + %5 embedding and output-head parameters in 16-bit")
                             .arg(formatCount(s.model.totalParams), formatCount(linear), Dtypes::name(d),
                                  d == Dtype::INT4 ? Capacity::tr(" (+ group-128 scales)") : QString(), formatCount(embeddings));
    }
}

} // namespace

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
        weightsFromParameters(s, b);
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

} // namespace Headroom::CapacityParts
