// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/scenario.h"
#include "engines/enginerule.h"
#include "core/units.h"

#include <QFileInfo>

namespace Headroom {

Dtype Scenario::effectiveWeightsDtype() const
{
    if (weightsDtype)
        return *weightsDtype;
    // A float32 checkpoint is served in bf16, as engines' dtype "auto" does.
    return model.weightsDtype == Dtype::FP32 ? Dtype::BF16 : model.weightsDtype;
}

Dtype Scenario::effectiveKvDtype() const
{
    if (kvDtype)
        return *kvDtype;
    const Dtype w = effectiveWeightsDtype();
    return (w == Dtype::FP16 || w == Dtype::BF16) ? w : Dtype::BF16;
}

qint64 Scenario::effectiveWorkspaceBytes() const
{
    if (workspaceBytes)
        return *workspaceBytes;
    return Units::add(runtimeReserveBytes, field(Input::RuntimeReserve), activationBytes, field(Input::Activation));
}

QJsonObject Scenario::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("model"), model.id);
    // A config.json or trace named by a relative path is relative to where the plan ran; its
    // absolute path beside it lets the output reopen from any folder (ScenarioFile reads it first).
    if (model.id.contains(QLatin1Char('/')) || model.id.endsWith(QLatin1String(".json")))
        o.insert(QStringLiteral("model_file"), QFileInfo(model.id).absoluteFilePath());
    o.insert(QStringLiteral("model_name"), model.name);
    o.insert(QStringLiteral("gpu"), gpu.id);
    o.insert(QStringLiteral("gpu_name"), gpu.name);
    o.insert(QStringLiteral("layers"), model.layers());
    o.insert(QStringLiteral("num_attention_heads"), model.attentionHeads);
    o.insert(QStringLiteral("num_key_value_heads"), kvHeadsOverride.value_or(model.kvHeads));
    o.insert(QStringLiteral("head_dim"), model.headDim);
    o.insert(QStringLiteral("total_params"), model.totalParams);
    o.insert(QStringLiteral("active_params"), model.activeParams);
    o.insert(QStringLiteral("derived_params"), model.derivedParams);
    o.insert(QStringLiteral("tp"), tp);
    o.insert(QStringLiteral("context_tokens"), contextTokens);
    o.insert(QStringLiteral("sessions"), sessions);
    o.insert(QStringLiteral("weights_dtype"), Dtypes::name(effectiveWeightsDtype()));
    o.insert(QStringLiteral("kv_dtype"), Dtypes::name(effectiveKvDtype()));
    o.insert(QStringLiteral("kv_heads_override"), kvHeadsOverride ? QJsonValue(*kvHeadsOverride) : QJsonValue());
    o.insert(QStringLiteral("gpu_memory_bytes"), effectiveGpuMemoryBytes());
    o.insert(QStringLiteral("weights_bytes_override"), weightsBytes ? QJsonValue(*weightsBytes) : QJsonValue());
    o.insert(QStringLiteral("workspace_bytes_per_gpu"), effectiveWorkspaceBytes());
    // --workspace as given (null: the default, or the engine's own estimate), so the echo reopens as the same plan.
    o.insert(QStringLiteral("workspace_bytes_override"), workspaceBytes ? QJsonValue(*workspaceBytes) : QJsonValue());
    o.insert(QStringLiteral("engine"), Engines::name(engine));
    o.insert(QStringLiteral("gpu_memory_utilization"), gpuMemoryUtilization);
    const EngineSettings &e = engineSettings;
    auto opt = [](const std::optional<qint64> &v) { return v ? QJsonValue(*v) : QJsonValue(); };
    o.insert(QStringLiteral("kv_cache_memory_bytes"), opt(e.kvCacheMemory));
    o.insert(QStringLiteral("free_memory_before_bytes"), opt(e.freeMemoryBefore));
    o.insert(QStringLiteral("free_memory_after_bytes"), opt(e.freeMemoryAfter));
    o.insert(QStringLiteral("activation_peak_bytes"), opt(e.activationPeak));
    o.insert(QStringLiteral("non_torch_bytes"), opt(e.nonTorch));
    o.insert(QStringLiteral("cuda_graph_bytes"), opt(e.cudaGraph));
    o.insert(QStringLiteral("mem_fraction_static"), e.memFractionStatic ? QJsonValue(*e.memFractionStatic) : QJsonValue());
    o.insert(QStringLiteral("free_gpu_memory_fraction"), e.freeGpuMemoryFraction);
    o.insert(QStringLiteral("max_num_batched_tokens"), opt(e.maxNumBatchedTokens));
    o.insert(QStringLiteral("vllm_version"), QStringLiteral("%1.%2").arg(e.vllmMajor).arg(e.vllmMinor));
    // The chosen engine's release in force and its build settings (engine flags).
    o.insert(QStringLiteral("engine_version"), Engines::rule(engine).version(*this).text());
    o.insert(QStringLiteral("pp"), pp);
    o.insert(QStringLiteral("dp"), dp);
    o.insert(QStringLiteral("ep"), ep ? QJsonValue(*ep) : QJsonValue());
    o.insert(QStringLiteral("max_num_seqs"), opt(e.maxNumSeqs));
    o.insert(QStringLiteral("max_batch_size"), opt(e.trtMaxBatchSize));
    o.insert(QStringLiteral("max_num_tokens"), opt(e.trtMaxNumTokens));
    o.insert(QStringLiteral("max_seq_len"), opt(e.trtMaxSeqLen));
    o.insert(QStringLiteral("engine_memory_bytes"), effectiveEngineMemoryBytes());
    o.insert(QStringLiteral("n_ctx"), opt(e.nCtx));
    o.insert(QStringLiteral("n_seq"), e.nSeq);
    o.insert(QStringLiteral("n_batch"), e.nBatch);
    o.insert(QStringLiteral("block_size"), blockSize);
    o.insert(QStringLiteral("max_model_len"), effectiveMaxModelLen());
    o.insert(QStringLiteral("preallocate"), preallocate);
    o.insert(QStringLiteral("price_usd_per_gpu_hour"), effectivePrice() ? QJsonValue(*effectivePrice()) : QJsonValue());
    o.insert(QStringLiteral("distribution"), distribution ? QJsonValue(distribution->spec) : QJsonValue());
    if (distribution && distribution->spec.startsWith(QLatin1String("trace:")))
        o.insert(QStringLiteral("distribution_file"), QFileInfo(distribution->spec.mid(6)).absoluteFilePath());
    o.insert(QStringLiteral("length_scale"), lengthScale);
    o.insert(QStringLiteral("retain_tokens"), retainTokens ? QJsonValue(*retainTokens) : QJsonValue());
    o.insert(QStringLiteral("risk"), risk);
    o.insert(QStringLiteral("margin"), marginFraction);
    o.insert(QStringLiteral("target_sessions"), targetSessions ? QJsonValue(*targetSessions) : QJsonValue());
    o.insert(QStringLiteral("bandwidth_efficiency"), bandwidthEfficiency);
    o.insert(QStringLiteral("compute_utilization"), computeUtilization);
    o.insert(QStringLiteral("traffic_multiplier"), trafficMultiplier);
    o.insert(QStringLiteral("images_per_request"), imagesPerRequest);
    o.insert(QStringLiteral("decoding_share"), decodingShare ? QJsonValue(*decodingShare) : QJsonValue());
    o.insert(QStringLiteral("host_kv_memory_bytes"), hostKvMemoryBytes ? QJsonValue(*hostKvMemoryBytes) : QJsonValue());
    o.insert(QStringLiteral("gpus_per_node"), gpusPerNode);
    // Side pools: null when off.
    o.insert(QStringLiteral("draft_model"), speculative.draftModel ? QJsonValue(speculative.draftModel->id) : QJsonValue());
    o.insert(QStringLiteral("draft_layers"), speculative.draftLayers);
    o.insert(QStringLiteral("num_speculative_tokens"), speculative.speculativeTokens);
    o.insert(QStringLiteral("max_loras"), lora.maxLoras);
    o.insert(QStringLiteral("max_lora_rank"), lora.on() ? QJsonValue(lora.maxRank) : QJsonValue());
    o.insert(QStringLiteral("lora_modules"), lora.on() ? QJsonValue(lora.effectiveModules().join(QLatin1Char(','))) : QJsonValue());
    return o;
}

ModelShape Scenario::stageModel() const
{
    if (pp <= 1)
        return model;
    ModelShape m = model;
    m.groups.clear();
    for (LayerGroup g : model.groups) {
        const int count = int(Units::ceilDiv(g.count, pp));
        g.count = 0;
        m.addLayers(g, count);
    }
    return m;
}

bool Scenario::operator==(const Scenario &o) const
{
    return model == o.model && gpu == o.gpu && tp == o.tp && pp == o.pp && dp == o.dp && ep == o.ep && contextTokens == o.contextTokens
        && sessions == o.sessions && weightsDtype == o.weightsDtype && kvDtype == o.kvDtype
        && kvHeadsOverride == o.kvHeadsOverride && gpuMemoryBytes == o.gpuMemoryBytes
        && weightsBytes == o.weightsBytes && workspaceBytes == o.workspaceBytes
        && runtimeReserveBytes == o.runtimeReserveBytes && activationBytes == o.activationBytes
        && engine == o.engine && engineSettings == o.engineSettings && gpuMemoryUtilization == o.gpuMemoryUtilization && gpuMemoryUtilizationGiven == o.gpuMemoryUtilizationGiven && blockSize == o.blockSize
        && maxModelLen == o.maxModelLen && preallocate == o.preallocate
        && priceUsdPerGpuHour == o.priceUsdPerGpuHour && distribution == o.distribution && lengthScale == o.lengthScale
        && retainTokens == o.retainTokens && risk == o.risk && marginFraction == o.marginFraction
        && targetSessions == o.targetSessions && bandwidthEfficiency == o.bandwidthEfficiency
        && computeUtilization == o.computeUtilization && trafficMultiplier == o.trafficMultiplier
        && imagesPerRequest == o.imagesPerRequest && decodingShare == o.decodingShare
        && hostKvMemoryBytes == o.hostKvMemoryBytes && gpusPerNode == o.gpusPerNode
        && speculative == o.speculative && lora == o.lora;
}

QDebug operator<<(QDebug dbg, const Scenario &s)
{
    QDebugStateSaver saver(dbg);
    dbg.nospace() << "Scenario(" << s.model.id << " on " << s.gpu.id << ", TP " << s.tp << ", " << s.contextTokens
                  << " tokens x " << s.sessions << ", kv " << Dtypes::name(s.effectiveKvDtype()) << ", engine "
                  << Engines::name(s.engine) << ')';
    return dbg;
}

} // namespace Headroom
