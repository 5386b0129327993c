// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/scenarioparts.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "io/configimporter.h"

#include <QDir>
#include <QFileInfo>

namespace Headroom::ScenarioParts {

namespace {

// The side pools a plan --json "inputs" echo holds (draft_model by preset id or config.json
// path, draft_layers, num_speculative_tokens, max_loras, max_lora_rank, lora_modules; null
// when off), so that a plan output reopens as the same plan (without them a draft and its
// LoRA slots were dropped in silence).
void readPlanOutputPools(const QJsonObject &in, Scenario &s, const ScenarioFile::ModelLookup &models, const QString &folder,
                         const QString &ip)
{
    const QJsonValue draft = in.value(QStringLiteral("draft_model"));
    if (draft.isString()) {
        const QString id = draft.toString();
        try {
            if (id.contains(QLatin1Char('/')) || id.endsWith(QLatin1String(".json"))) {
                const QString config = folder.isEmpty() || !QFileInfo(id).isRelative() ? id : QDir(folder).filePath(id);
                s.speculative.draftModel = ConfigImporter::fromFile(config, ip + QStringLiteral("draft_model"));
                s.speculative.draftModel->id = id;
            } else {
                s.speculative.draftModel = models(id);
            }
        } catch (const InputError &e) {
            throw InputError(ip + QStringLiteral("draft_model"), e.message());
        }
    } else if (!draft.isUndefined() && !draft.isNull()) {
        throw InputError(ip + QStringLiteral("draft_model"), QStringLiteral("must be a preset id or a config.json path, or null"));
    }
    s.speculative.draftLayers = readCount(in, CountInput::DraftLayers, 0, ip);
    if (s.speculative.draftModel && s.speculative.draftLayers > 0)
        throw InputError(ip + QStringLiteral("draft_layers"), QStringLiteral("give either a draft model or MTP / EAGLE layers, not both; set it to 0"));
    s.speculative.speculativeTokens = readCount(in, CountInput::SpeculativeTokens, 0, ip);
    s.lora.maxLoras = readCount(in, CountInput::MaxLoras, 0, ip);
    if (in.value(QStringLiteral("max_lora_rank")).isNull() || in.value(QStringLiteral("max_lora_rank")).isUndefined())
        s.lora.maxRank = 16;
    else
        s.lora.maxRank = readCount(in, CountInput::MaxLoraRank, 16, ip);
    const QJsonValue m = in.value(QStringLiteral("lora_modules"));
    if (m.isString()) {
        s.lora.modules = LoraSlots::parseModules(m.toString(), ip + QStringLiteral("lora_modules"));
        if (s.lora.modules == LoraSlots::allModules())
            s.lora.modules.clear();
    } else if (!m.isUndefined() && !m.isNull()) {
        throw InputError(ip + QStringLiteral("lora_modules"), QStringLiteral("must be a comma list such as \"q,k,v,o\", or null"));
    }
}

// The model a plan --json "inputs" echo names (version 0): a preset by id through `models`,
// or a config.json by its path, read again; refusals name "inputs.model". Throws InputError.
ModelShape planOutputModel(const QJsonObject &in, const ScenarioFile::ModelLookup &models, const QString &folder, const QString &ip)
{
    const QString modelId = JsonNumbers::text(in, "model", QString(), ip, QStringLiteral("a preset id or a config.json path"));
    if (modelId == QLatin1String("custom"))
        throw InputError(QStringLiteral("inputs.model"), QStringLiteral("a custom shape is not named in a plan output: save it with plan --save FILE.headroom"));
    // A model the plan read from a config.json is named by its path (as --model took it:
    // a slash or .json), read again from there, a relative path from beside this file.
    if (!modelId.contains(QLatin1Char('/')) && !modelId.endsWith(QLatin1String(".json"))) {
        // The lookups' refusals (an unknown preset) name the plan output's own field.
        try {
            return models(modelId);
        } catch (const InputError &e) {
            throw InputError(QStringLiteral("inputs.model"), e.message());
        }
    }
    // The absolute path the plan wrote beside it first (a relative one is the plan's folder's, not this file's).
    const QString written = JsonNumbers::text(in, "model_file", QString(), ip, QStringLiteral("a path"));
    const QString config = !written.isEmpty() && QFileInfo::exists(written)            ? written
                           : folder.isEmpty() || !QFileInfo(modelId).isRelative() ? modelId
                                                                                  : QDir(folder).filePath(modelId);
    ModelShape model = ConfigImporter::fromFile(config, QStringLiteral("inputs.model"));
    model.id = modelId; // the plan's own name for it, so a plan from this file prints the same
    if (const QString name = readText(in, "model_name", ip); !name.isEmpty())
        model.name = name; // (a name taken from the path would say the folder it was read from)
    const qint64 total = readBig(in, "total_params", 0, ip), active = readBig(in, "active_params", 0, ip);
    if (total > 0 && total != model.totalParams) {
        // --params gave the count, as app/commands/planflags.cpp applies it.
        model.totalParams = total;
        model.activeParams = active > 0 ? std::min(active, total) : total;
        model.checkpointBytes = 0;
    }
    return model;
}

// The card a plan --json "inputs" echo names: a preset through `gpus` (refusals name
// "inputs.gpu"), or "custom" with its gpu_memory_bytes. Throws InputError.
GpuSpec planOutputGpu(const QJsonObject &in, const ScenarioFile::GpuLookup &gpus, const QString &ip)
{
    const QString gpu = JsonNumbers::text(in, "gpu", QString(), ip, QStringLiteral("a GPU preset id or \"custom\""));
    if (gpu == QLatin1String("custom"))
        return GpuSpec::custom(readBig(in, "gpu_memory_bytes", 0, ip));
    try {
        return gpus(gpu);
    } catch (const InputError &e) {
        throw InputError(QStringLiteral("inputs.gpu"), e.message());
    }
}

// The lengths a plan --json "inputs" echo names by their spec ("distribution"), when it
// names any. Throws InputError("inputs.distribution").
void readPlanOutputDistribution(const QJsonObject &in, Scenario &s, const QString &folder)
{
    const QString ip = QStringLiteral("inputs.");
    QString spec = JsonNumbers::text(in, "distribution", QString(), ip, QStringLiteral("a distribution spec such as \"trace:FILE\""));
    if (spec.isEmpty())
        return;
    // A relative trace path is the plan's own, beside the file it printed: resolved
    // against the file's folder, never the current one.
    // Else (an output written before distribution_file) resolved against this file's folder.
    const QString written = JsonNumbers::text(in, "distribution_file", QString(), ip, QStringLiteral("a path"));
    if (spec.startsWith(QLatin1String("trace:")) && !written.isEmpty() && QFileInfo::exists(written))
        spec = QStringLiteral("trace:") + written;
    else if (spec.startsWith(QLatin1String("trace:")) && !folder.isEmpty() && QFileInfo(spec.mid(6)).isRelative())
        spec = QStringLiteral("trace:") + QDir(folder).filePath(spec.mid(6));
    s.distribution = LengthDistribution::parse(spec, QStringLiteral("inputs.distribution"));
}

} // namespace

Scenario migrateFromPlanOutput(const QJsonObject &plan, const ScenarioFile::ModelLookup &models, const ScenarioFile::GpuLookup &gpus,
                               const QString &folder)
{
    const QJsonObject in = JsonNumbers::object(plan, "inputs", QString());
    if (!models || !gpus)
        throw InputError(QStringLiteral("inputs"), QStringLiteral("a plan output names presets, and no preset store is at hand"));
    const QString ip = QStringLiteral("inputs.");
    Scenario s;
    s.model = planOutputModel(in, models, folder, ip);
    s.gpu = planOutputGpu(in, gpus, ip);
    s.tp = readInt(in, "tp", 1, 1, ip);
    s.contextTokens = readBig(in, "context_tokens", s.contextTokens, ip);
    s.sessions = readBig(in, "sessions", 1, ip);
    s.weightsDtype = Dtypes::parse(JsonNumbers::text(in, "weights_dtype", QStringLiteral("bf16"), ip, QStringLiteral("a precision name such as bf16")), QStringLiteral("inputs.weights_dtype"));
    s.kvDtype = Dtypes::parse(JsonNumbers::text(in, "kv_dtype", QStringLiteral("bf16"), ip, QStringLiteral("a precision name such as bf16")), QStringLiteral("inputs.kv_dtype"));
    if (!in.value(QStringLiteral("kv_heads_override")).isUndefined() && !in.value(QStringLiteral("kv_heads_override")).isNull())
        s.kvHeadsOverride = readInt(in, "kv_heads_override", 0, 1, ip);
    if (readBig(in, "gpu_memory_bytes", 0, ip) != s.gpu.memoryBytes)
        s.gpuMemoryBytes = readBig(in, "gpu_memory_bytes", 0, ip);
    s.weightsBytes = readOptionalBig(in, "weights_bytes_override", ip);
    // The override as given (outputs since workspace_bytes_override); an older output's
    // effective workspace is an override only when it is not the default, else an engine
    // that estimates its own (vLLM) would lose its estimate on reopening.
    if (in.contains(QStringLiteral("workspace_bytes_override")))
        s.workspaceBytes = readOptionalBig(in, "workspace_bytes_override", ip);
    else if (const qint64 w = readBig(in, "workspace_bytes_per_gpu", s.effectiveWorkspaceBytes(), ip); w != s.effectiveWorkspaceBytes())
        s.workspaceBytes = w;
    s.engine = Engines::parse(JsonNumbers::text(in, "engine", QStringLiteral("plain"), ip, QStringLiteral("an engine name (plain, vllm, sglang, trtllm, llamacpp or ollama)")), QStringLiteral("inputs.engine"));
    s.gpuMemoryUtilization = readReal(in, RealInput::GpuMemoryUtilization, s.gpuMemoryUtilization, ip);
    s.blockSize = readInt(in, "block_size", 16, 1, ip);
    s.preallocate = JsonNumbers::truth(in, "preallocate", false, ip);
    if (const auto price = readOptionalReal(in, RealInput::Price, ip); price && price != s.gpu.priceUsdPerHour)
        s.priceUsdPerGpuHour = price;
    s.maxModelLen = readOptionalBig(in, "max_model_len", ip);
    if (s.maxModelLen == s.model.maxPositionEmbeddings)
        s.maxModelLen.reset();
    s.gpuMemoryUtilizationGiven = s.engine == Engine::Vllm;
    s.engineSettings = readEngineSettings(in, s.engine, QStringLiteral("inputs."), "_bytes");
    readParallelism(in, s, QStringLiteral("inputs."));
    readPlanOutputDistribution(in, s, folder);
    readLengthsAndServing(in, s, ip);
    readPlanOutputPools(in, s, models, folder, ip);
    checkScale(s);
    s.names.useAll(InputSource::PlanOutput);
    return s;
}

} // namespace Headroom::ScenarioParts
