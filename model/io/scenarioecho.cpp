// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/scenarioecho.h"
#include "engines/enginerule.h"
#include "plan/timeconstants.h"

#include <QFileInfo>

namespace Headroom {

namespace {

QJsonValue orNull(const std::optional<qint64> &v)
{
    return v ? QJsonValue(*v) : QJsonValue();
}

QJsonValue orNull(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue();
}

/// The model, the card, the precisions and the memory overrides.
void echoModelAndCard(const Scenario &s, QJsonObject &o)
{
    o.insert(QStringLiteral("model"), s.model.id);
    // A config.json or trace named by a relative path is relative to where the plan ran; its
    // absolute path beside it lets the output reopen from any folder (ScenarioFile reads it first).
    if (s.model.id.contains(QLatin1Char('/')) || s.model.id.endsWith(QLatin1String(".json")))
        o.insert(QStringLiteral("model_file"), QFileInfo(s.model.id).absoluteFilePath());
    o.insert(QStringLiteral("model_name"), s.model.name);
    o.insert(QStringLiteral("gpu"), s.gpu.id);
    o.insert(QStringLiteral("gpu_name"), s.gpu.name);
    o.insert(QStringLiteral("layers"), s.model.layers());
    o.insert(QStringLiteral("num_attention_heads"), s.model.attentionHeads);
    o.insert(QStringLiteral("num_key_value_heads"), s.kvHeadsOverride.value_or(s.model.kvHeads));
    o.insert(QStringLiteral("head_dim"), s.model.headDim);
    o.insert(QStringLiteral("total_params"), s.model.totalParams);
    o.insert(QStringLiteral("active_params"), s.model.activeParams);
    o.insert(QStringLiteral("derived_params"), s.model.derivedParams);
    o.insert(QStringLiteral("tp"), s.tp);
    o.insert(QStringLiteral("context_tokens"), s.contextTokens);
    o.insert(QStringLiteral("sessions"), s.sessions);
    o.insert(QStringLiteral("weights_dtype"), Dtypes::name(s.effectiveWeightsDtype()));
    o.insert(QStringLiteral("kv_dtype"), Dtypes::name(s.effectiveKvDtype()));
    o.insert(QStringLiteral("kv_heads_override"), s.kvHeadsOverride ? QJsonValue(*s.kvHeadsOverride) : QJsonValue());
    o.insert(QStringLiteral("gpu_memory_bytes"), s.effectiveGpuMemoryBytes());
    o.insert(QStringLiteral("weights_bytes_override"), orNull(s.weightsBytes));
    o.insert(QStringLiteral("workspace_bytes_per_gpu"), s.effectiveWorkspaceBytes());
    // --workspace as given (null: the default, or the engine's own estimate), so the echo reopens as the same plan.
    o.insert(QStringLiteral("workspace_bytes_override"), orNull(s.workspaceBytes));
    o.insert(QStringLiteral("price_usd_per_gpu_hour"), orNull(s.effectivePrice()));
}

/// The engine, its release in force, its settings and its build settings (engine flags), and
/// the parallelism.
void echoEngine(const Scenario &s, QJsonObject &o)
{
    const EngineSettings &e = s.engineSettings;
    o.insert(QStringLiteral("engine"), Engines::name(s.engine));
    o.insert(QStringLiteral("gpu_memory_utilization"), s.gpuMemoryUtilization);
    o.insert(QStringLiteral("kv_cache_memory_bytes"), orNull(e.kvCacheMemory));
    o.insert(QStringLiteral("free_memory_before_bytes"), orNull(e.freeMemoryBefore));
    o.insert(QStringLiteral("free_memory_after_bytes"), orNull(e.freeMemoryAfter));
    o.insert(QStringLiteral("activation_peak_bytes"), orNull(e.activationPeak));
    o.insert(QStringLiteral("non_torch_bytes"), orNull(e.nonTorch));
    o.insert(QStringLiteral("cuda_graph_bytes"), orNull(e.cudaGraph));
    o.insert(QStringLiteral("mem_fraction_static"), orNull(e.memFractionStatic));
    o.insert(QStringLiteral("free_gpu_memory_fraction"), e.freeGpuMemoryFraction);
    o.insert(QStringLiteral("max_num_batched_tokens"), orNull(e.maxNumBatchedTokens));
    o.insert(QStringLiteral("vllm_version"), QStringLiteral("%1.%2").arg(e.vllmMajor).arg(e.vllmMinor));
    o.insert(QStringLiteral("engine_version"), Engines::rule(s.engine).version(s).text());
    o.insert(QStringLiteral("pp"), s.pp);
    o.insert(QStringLiteral("dp"), s.dp);
    o.insert(QStringLiteral("ep"), s.ep ? QJsonValue(*s.ep) : QJsonValue());
    o.insert(QStringLiteral("max_num_seqs"), orNull(e.maxNumSeqs));
    o.insert(QStringLiteral("max_batch_size"), orNull(e.trtMaxBatchSize));
    o.insert(QStringLiteral("max_num_tokens"), orNull(e.trtMaxNumTokens));
    o.insert(QStringLiteral("max_seq_len"), orNull(e.trtMaxSeqLen));
    o.insert(QStringLiteral("scheduler_policy"), SchedulerPolicies::name(e.schedulerPolicy));
    o.insert(QStringLiteral("max_output_tokens"), orNull(e.maxOutputTokens));
    o.insert(QStringLiteral("engine_memory_bytes"), s.effectiveEngineMemoryBytes());
    o.insert(QStringLiteral("n_ctx"), orNull(e.nCtx));
    o.insert(QStringLiteral("n_seq"), e.nSeq);
    o.insert(QStringLiteral("n_batch"), e.nBatch);
    o.insert(QStringLiteral("block_size"), s.blockSize);
    o.insert(QStringLiteral("max_model_len"), s.effectiveMaxModelLen());
    o.insert(QStringLiteral("preallocate"), s.preallocate);
}

/// The lengths, the risk, the serving assumptions, the host tier and the side pools (null when off).
void echoLengthsAndPools(const Scenario &s, QJsonObject &o)
{
    o.insert(QStringLiteral("distribution"), s.distribution ? QJsonValue(s.distribution->spec) : QJsonValue());
    if (s.distribution && s.distribution->spec.startsWith(QLatin1String("trace:")))
        o.insert(QStringLiteral("distribution_file"), QFileInfo(s.distribution->spec.mid(6)).absoluteFilePath());
    o.insert(QStringLiteral("length_scale"), s.lengthScale);
    o.insert(QStringLiteral("retain_tokens"), orNull(s.retainTokens));
    o.insert(QStringLiteral("output_tokens"), orNull(s.outputTokens));
    o.insert(QStringLiteral("risk"), s.risk);
    o.insert(QStringLiteral("fleet_risk"), s.fleetRisk ? QJsonValue(*s.fleetRisk) : QJsonValue());
    o.insert(QStringLiteral("margin"), s.marginFraction);
    o.insert(QStringLiteral("target_sessions"), orNull(s.targetSessions));
    // The fractions as given (null: the engine's fitted ones, so a saved plan reopened under
    // another engine takes that engine's), and the fractions in force.
    const TimeConstants time = timeConstants(s);
    o.insert(QStringLiteral("bandwidth_efficiency"), s.bandwidthEfficiency ? QJsonValue(*s.bandwidthEfficiency) : QJsonValue());
    o.insert(QStringLiteral("compute_utilization"), s.computeUtilization ? QJsonValue(*s.computeUtilization) : QJsonValue());
    o.insert(QStringLiteral("bandwidth_efficiency_in_force"), time.bandwidthFraction);
    o.insert(QStringLiteral("compute_utilization_in_force"), time.computeFraction);
    o.insert(QStringLiteral("traffic_multiplier"), s.trafficMultiplier);
    o.insert(QStringLiteral("images_per_request"), s.imagesPerRequest);
    o.insert(QStringLiteral("decoding_share"), orNull(s.decodingShare));
    o.insert(QStringLiteral("host_kv_memory_bytes"), orNull(s.hostKvMemoryBytes));
    o.insert(QStringLiteral("gpus_per_node"), s.gpusPerNode);
    o.insert(QStringLiteral("draft_model"), s.speculative.draftModel ? QJsonValue(s.speculative.draftModel->id) : QJsonValue());
    o.insert(QStringLiteral("draft_layers"), s.speculative.draftLayers);
    o.insert(QStringLiteral("num_speculative_tokens"), s.speculative.speculativeTokens);
    o.insert(QStringLiteral("max_loras"), s.lora.maxLoras);
    o.insert(QStringLiteral("max_lora_rank"), s.lora.on() ? QJsonValue(s.lora.maxRank) : QJsonValue());
    o.insert(QStringLiteral("lora_modules"), s.lora.on() ? QJsonValue(s.lora.effectiveModules().join(QLatin1Char(','))) : QJsonValue());
}

} // namespace

QJsonObject scenarioEcho(const Scenario &s)
{
    QJsonObject o;
    echoModelAndCard(s, o);
    echoEngine(s, o);
    echoLengthsAndPools(s, o);
    return o;
}

} // namespace Headroom
