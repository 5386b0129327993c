// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/scenariofile.h"
#include "io/scenarioparts.h"
#include "core/filekind.h"
#include "io/scenariokeys.h"
#include "core/unknownkeys.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "core/units.h"
#include "core/inputranges.h"
#include "io/configimporter.h"
#include "core/outputtarget.h"
#include "plan/visionpool.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <cmath>


namespace Headroom {

using namespace ScenarioParts;

namespace {

// Side pools (issue #14): "speculative" and "lora" objects, absent or null when off.
QJsonValue speculativeToJson(const SpeculativeDecoding &sd)
{
    if (!sd.on())
        return QJsonValue();
    return QJsonObject{{QStringLiteral("draft_model"), sd.draftModel ? QJsonValue(modelToJson(*sd.draftModel)) : QJsonValue()},
                       {QStringLiteral("draft_layers"), sd.draftLayers},
                       {QStringLiteral("num_speculative_tokens"), sd.speculativeTokens}};
}

QJsonValue loraToJson(const LoraSlots &l)
{
    if (!l.on())
        return QJsonValue();
    return QJsonObject{{QStringLiteral("max_loras"), l.maxLoras},
                       {QStringLiteral("max_lora_rank"), l.maxRank},
                       {QStringLiteral("modules"), l.effectiveModules().join(QLatin1Char(','))}};
}

void readSidePools(const QJsonObject &o, Scenario &s)
{
    for (const char *key : {"speculative", "lora"}) {
        const QJsonValue v = o.value(QString::fromLatin1(key));
        if (!v.isUndefined() && !v.isNull() && !v.isObject())
            throw InputError(QString::fromLatin1(key), QStringLiteral("must be an object, or null when off"));
    }
    if (o.value(QStringLiteral("speculative")).isObject()) {
        const QJsonObject sp = o.value(QStringLiteral("speculative")).toObject();
        const QString pp = QStringLiteral("speculative.");
        SpeculativeDecoding &sd = s.speculative;
        const QJsonValue d = sp.value(QStringLiteral("draft_model"));
        if (d.isObject()) {
            try {
                sd.draftModel = modelFromJson(d.toObject());
            } catch (const InputError &e) {
                throw InputError(pp + QStringLiteral("draft_") + e.field(), e.message());
            }
        } else if (!d.isUndefined() && !d.isNull()) {
            throw InputError(pp + QStringLiteral("draft_model"), QStringLiteral("must be a model object, or null"));
        }
        sd.draftLayers = readCount(sp, CountInput::DraftLayers, 0, pp);
        if (sd.draftModel && sd.draftLayers > 0)
            throw InputError(pp + QStringLiteral("draft_layers"), QStringLiteral("give either a draft model or MTP / EAGLE layers, not both; set it to 0"));
        sd.speculativeTokens = readCount(sp, CountInput::SpeculativeTokens, 0, pp);
    }
    if (o.value(QStringLiteral("lora")).isObject()) {
        const QJsonObject lo = o.value(QStringLiteral("lora")).toObject();
        const QString lp = QStringLiteral("lora.");
        s.lora.maxLoras = readCount(lo, CountInput::MaxLoras, 0, lp);
        s.lora.maxRank = readCount(lo, CountInput::MaxLoraRank, 16, lp);
        const QJsonValue m = lo.value(QStringLiteral("modules"));
        if (m.isString())
            s.lora.modules = LoraSlots::parseModules(m.toString(), lp + QStringLiteral("modules"));
        else if (!m.isUndefined() && !m.isNull())
            throw InputError(lp + QStringLiteral("modules"), QStringLiteral("must be a comma list such as \"q,k,v,o\""));
    }
}

} // namespace

QJsonObject ScenarioFile::toJson(const Scenario &s, const QString &name)
{
    const EngineSettings &e = s.engineSettings;
    QJsonObject engine{{QStringLiteral("engine"), Engines::name(s.engine)},
                       {QStringLiteral("kv_cache_memory"), optional(e.kvCacheMemory)},
                       {QStringLiteral("free_memory_before"), optional(e.freeMemoryBefore)},
                       {QStringLiteral("free_memory_after"), optional(e.freeMemoryAfter)},
                       {QStringLiteral("activation_peak"), optional(e.activationPeak)},
                       {QStringLiteral("non_torch"), optional(e.nonTorch)},
                       {QStringLiteral("cuda_graph"), optional(e.cudaGraph)},
                       {QStringLiteral("mem_fraction_static"), optional(e.memFractionStatic)},
                       {QStringLiteral("free_gpu_memory_fraction"), e.freeGpuMemoryFraction},
                       {QStringLiteral("max_num_batched_tokens"), optional(e.maxNumBatchedTokens)},
                       {QStringLiteral("vllm_version"), QStringLiteral("%1.%2").arg(e.vllmMajor).arg(e.vllmMinor)},
                       {QStringLiteral("n_ctx"), optional(e.nCtx)},
                       {QStringLiteral("n_seq"), e.nSeq},
                       {QStringLiteral("n_batch"), e.nBatch},
                       {QStringLiteral("tokens_per_block"), e.trtTokensPerBlock},
                       {QStringLiteral("gpu_memory_utilization"), s.gpuMemoryUtilization},
                       {QStringLiteral("gpu_memory_utilization_given"), s.gpuMemoryUtilizationGiven},
                       {QStringLiteral("block_size"), s.blockSize}};
    // Engine versions and build settings (engine flags, one block).
    engine.insert(QStringLiteral("engine_version"), e.engineVersion ? QJsonValue(e.engineVersion->text()) : QJsonValue());
    engine.insert(QStringLiteral("max_num_seqs"), optional(e.maxNumSeqs));
    engine.insert(QStringLiteral("max_batch_size"), optional(e.trtMaxBatchSize));
    engine.insert(QStringLiteral("max_num_tokens"), optional(e.trtMaxNumTokens));
    engine.insert(QStringLiteral("max_seq_len"), optional(e.trtMaxSeqLen));
    engine.insert(QStringLiteral("scheduler_policy"), SchedulerPolicies::name(e.schedulerPolicy));
    engine.insert(QStringLiteral("max_output_tokens"), optional(e.maxOutputTokens));
    engine.insert(QStringLiteral("pp"), s.pp);
    engine.insert(QStringLiteral("dp"), s.dp);
    engine.insert(QStringLiteral("ep"), optional(s.ep));
    QJsonObject inputs{{QStringLiteral("tp"), s.tp},
                       {QStringLiteral("context_tokens"), big(s.contextTokens)},
                       {QStringLiteral("sessions"), big(s.sessions)},
                       {QStringLiteral("weights_dtype"), s.weightsDtype ? QJsonValue(Dtypes::name(*s.weightsDtype)) : QJsonValue()},
                       {QStringLiteral("kv_dtype"), s.kvDtype ? QJsonValue(Dtypes::name(*s.kvDtype)) : QJsonValue()},
                       {QStringLiteral("kv_heads_override"), s.kvHeadsOverride ? QJsonValue(*s.kvHeadsOverride) : QJsonValue()},
                       {QStringLiteral("gpu_memory_bytes"), optional(s.gpuMemoryBytes)},
                       {QStringLiteral("weights_bytes"), optional(s.weightsBytes)},
                       {QStringLiteral("workspace_bytes"), optional(s.workspaceBytes)},
                       {QStringLiteral("runtime_reserve_bytes"), big(s.runtimeReserveBytes)},
                       {QStringLiteral("activation_bytes"), big(s.activationBytes)},
                       {QStringLiteral("max_model_len"), optional(s.maxModelLen)},
                       {QStringLiteral("preallocate"), s.preallocate},
                       {QStringLiteral("price_usd_per_gpu_hour"), optional(s.priceUsdPerGpuHour)},
                       {QStringLiteral("length_scale"), s.lengthScale},
                       {QStringLiteral("retain_tokens"), optional(s.retainTokens)},
                       {QStringLiteral("output_tokens"), optional(s.outputTokens)},
                       {QStringLiteral("risk"), s.risk},
                       {QStringLiteral("fleet_risk"), optional(s.fleetRisk)},
                       {QStringLiteral("margin"), s.marginFraction},
                       {QStringLiteral("target_sessions"), optional(s.targetSessions)},
                       {QStringLiteral("bandwidth_efficiency"), optional(s.bandwidthEfficiency)},
                       {QStringLiteral("compute_utilization"), optional(s.computeUtilization)},
                       {QStringLiteral("traffic_multiplier"), s.trafficMultiplier},
                       {QStringLiteral("images_per_request"), s.imagesPerRequest},
                       {QStringLiteral("decoding_share"), optional(s.decodingShare)},
                       {QStringLiteral("host_kv_memory_bytes"), optional(s.hostKvMemoryBytes)},
                       {QStringLiteral("gpus_per_node"), s.gpusPerNode}};
    return QJsonObject{{QStringLiteral("format"), QStringLiteral("headroom-scenario")},
                       {QStringLiteral("version"), formatVersion},
                       {QStringLiteral("name"), name},
                       {QStringLiteral("model"), modelToJson(s.model)},
                       {QStringLiteral("gpu"), gpuToJson(s.gpu)},
                       {QStringLiteral("engine"), engine},
                       {QStringLiteral("inputs"), inputs},
                       {QStringLiteral("distribution"), s.distribution ? QJsonValue(distributionToJson(*s.distribution)) : QJsonValue()},
                       {QStringLiteral("speculative"), speculativeToJson(s.speculative)},
                       {QStringLiteral("lora"), loraToJson(s.lora)}};
}

Scenario ScenarioFile::fromJson(const QJsonObject &o, QString *name, const ModelLookup &models, const GpuLookup &gpus, const QString &folder,
                                QStringList *unknownKeys)
{
    if (!o.contains(QStringLiteral("format")) && o.value(QStringLiteral("inputs")).isObject() && o.contains(QStringLiteral("kv_bytes_per_token"))) {
        if (name)
            *name = QString();
        return migrateFromPlanOutput(o, models, gpus, folder);
    }
    if (o.value(QStringLiteral("format")).toString() != QLatin1String("headroom-scenario"))
        throw InputError(QStringLiteral("format"), QStringLiteral("is not a Headroom scenario"));
    if (!o.contains(QStringLiteral("version")))
        throw InputError(QStringLiteral("version"), QStringLiteral("is missing: a Headroom scenario holds the version of its format (%1)").arg(formatVersion));
    const qint64 version = readBig(o, "version");
    if (version > formatVersion)
        throw InputError(QStringLiteral("version"), QStringLiteral("%1 was written by a newer Headroom (this one reads up to %2)").arg(version).arg(formatVersion));
    if (version < 1)
        throw InputError(QStringLiteral("version"), QStringLiteral("%1 is not a known version").arg(version));
    Scenario s;
    if (name)
        *name = readText(o, "name", QString());
    s.model = modelFromJson(JsonNumbers::object(o, "model", QString()));
    try {
        s.gpu = GpuSpec::fromPreset(JsonNumbers::object(o, "gpu", QString()), true);
    } catch (const InputError &e) {
        throw InputError(QStringLiteral("gpu.") + e.field(), e.message());
    }
    const QJsonObject e = JsonNumbers::object(o, "engine", QString());
    if (!e.contains(QStringLiteral("engine")))
        throw InputError(QStringLiteral("engine.engine"), QStringLiteral("is missing (plain, vllm, sglang, trtllm, llamacpp or ollama)"));
    s.engine = Engines::parse(JsonNumbers::text(e, "engine", QStringLiteral("plain"), QStringLiteral("engine."), QStringLiteral("an engine name (plain, vllm, sglang, trtllm, llamacpp or ollama)")), QStringLiteral("engine.engine"));
    s.engineSettings = readEngineSettings(e, s.engine, QStringLiteral("engine."), "");
    readParallelism(e, s, QStringLiteral("engine."));
    const QString ep = QStringLiteral("engine.");
    s.gpuMemoryUtilization = readReal(e, RealInput::GpuMemoryUtilization, s.gpuMemoryUtilization, ep);
    s.gpuMemoryUtilizationGiven = JsonNumbers::truth(e, "gpu_memory_utilization_given", false, ep);
    s.blockSize = readInt(e, "block_size", 16, 1, ep, 1'000'000);
    const QJsonObject in = JsonNumbers::object(o, "inputs", QString());
    const QString ip = QStringLiteral("inputs.");
    // What every file holds is required, never read as a default (an attacker's file without
    // context_tokens was planned at 100,000 tokens in silence). Ranges as the command line's.
    s.tp = readInt(in, "tp", 0, 1, ip, 1'000'000);
    s.contextTokens = readBig(in, "context_tokens", 0, ip, 1);
    s.sessions = readBig(in, "sessions", 0, ip, 1);
    const QJsonObject distribution = JsonNumbers::object(o, "distribution", QString());
    if (const QString d = JsonNumbers::text(in, "weights_dtype", QString(), ip, QStringLiteral("a precision name such as bf16")); !d.isEmpty())
        s.weightsDtype = Dtypes::parse(d, QStringLiteral("inputs.weights_dtype"));
    if (const QString d = JsonNumbers::text(in, "kv_dtype", QString(), ip, QStringLiteral("a precision name such as bf16")); !d.isEmpty())
        s.kvDtype = Dtypes::parse(d, QStringLiteral("inputs.kv_dtype"));
    if (!in.value(QStringLiteral("kv_heads_override")).isUndefined() && !in.value(QStringLiteral("kv_heads_override")).isNull())
        s.kvHeadsOverride = readInt(in, "kv_heads_override", 0, 1, ip);
    s.gpuMemoryBytes = readOptionalBig(in, "gpu_memory_bytes", ip);
    s.weightsBytes = readOptionalBig(in, "weights_bytes", ip);
    s.workspaceBytes = readOptionalBig(in, "workspace_bytes", ip);
    s.runtimeReserveBytes = readBig(in, "runtime_reserve_bytes", s.runtimeReserveBytes, ip);
    s.activationBytes = readBig(in, "activation_bytes", s.activationBytes, ip);
    s.maxModelLen = readOptionalBig(in, "max_model_len", ip);
    s.preallocate = JsonNumbers::truth(in, "preallocate", false, ip);
    s.priceUsdPerGpuHour = readOptionalReal(in, RealInput::Price, ip);
    readLengthsAndServing(in, s, ip);
    if (o.value(QStringLiteral("distribution")).isObject())
        s.distribution = distributionFromJson(distribution);
    checkScale(s);
    readSidePools(o, s);
    // Whatever the plan finds wrong later is named as this file spells it.
    s.names.useAll(InputSource::ScenarioFile);
    if (!s.gpuMemoryBytes) // the card's own memory, in the file's gpu section
        s.names.set(Input::GpuMemory, QStringLiteral("gpu.memory_bytes"));
    if (unknownKeys)
        *unknownKeys << ScenarioKeys::unknown(o);
    return s;
}

void ScenarioFile::write(const QString &path, const Scenario &scenario, const QString &name, const QVector<OutputTarget::Protected> &protect)
{
    OutputTarget::check(path, OutputTarget::Kind::Scenario, protect, QStringLiteral("file"));
    if (const QString problem = OutputTarget::write(path, JsonNumbers::toJson(toJson(scenario, name))); !problem.isEmpty())
        throw InputError(QStringLiteral("file"), problem);
}

Scenario ScenarioFile::read(const QString &path, QString *name, const ModelLookup &models, const GpuLookup &gpus, QStringList *warnings)
{
    const QFileInfo info(path);
    if (!info.isFile())
        throw InputError(QStringLiteral("file"), QStringLiteral("%1 is not a readable file").arg(path));
    if (info.size() > 256 * Units::MiB)
        throw InputError(QStringLiteral("file"), QStringLiteral("%1 is too large for a scenario").arg(path));
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw InputError(QStringLiteral("file"), QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    const QByteArray bytes = f.readAll();
    // A trace, config.json or bundle given here is named as what it is, with the flag that reads it.
    FileKind::expect(path, bytes, {FileKind::Kind::Scenario, FileKind::Kind::PlanJson},
                     QStringLiteral("a scenario"), QStringLiteral("file"));
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError) {
        const QByteArray before = bytes.left(err.offset);
        throw InputError(QStringLiteral("file"), QStringLiteral("%1 is damaged: %2 at line %3").arg(path, err.errorString()).arg(before.count('\n') + 1));
    }
    if (!doc.isObject())
        throw InputError(QStringLiteral("file"), QStringLiteral("%1 is not a Headroom scenario").arg(path));
    QStringList unknown;
    Scenario s;
    try {
        s = fromJson(doc.object(), name, models, gpus, info.absolutePath(), &unknown);
    } catch (const InputError &e) {
        throw InputError(e.field(), QStringLiteral("%1 (in %2)").arg(e.message(), path));
    }
    if (warnings)
        *warnings << unknownKeyWarnings(unknown, path);
    return s;
}

} // namespace Headroom
