// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/scenarioparts.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "plan/visionpool.h"

namespace Headroom::ScenarioParts {

namespace {

// The whole-number inputs both versions hold: counts at least 1, bytes not negative.
void checkCounts(const Scenario &s)
{
    const QString ip = QStringLiteral("inputs.");
    if (s.contextTokens < 1)
        throw InputError(ip + QStringLiteral("context_tokens"), QStringLiteral("must be at least 1 token"));
    // At least one session, as --sessions and a version-1 file hold it: a plan output with 0
    // was taken, saved, and refused on reopening (the fuzzer's find).
    if (s.sessions < 1)
        throw InputError(ip + QStringLiteral("sessions"), QStringLiteral("must be at least 1, got %1").arg(s.sessions));
    if (s.gpu.memoryBytes < 1)
        throw InputError(ip + QStringLiteral("gpu_memory_bytes"), QStringLiteral("must be at least 1 byte"));
    for (const auto &[value, key] : {std::pair{s.maxModelLen, "max_model_len"}, {s.retainTokens, "retain_tokens"}, {s.outputTokens, "output_tokens"}, {s.targetSessions, "target_sessions"}})
        if (value && *value < 1)
            throw InputError(ip + QString::fromLatin1(key), QStringLiteral("must be at least 1"));
    if (s.gpuMemoryBytes && *s.gpuMemoryBytes < 1)
        throw InputError(ip + QStringLiteral("gpu_memory_bytes"), QStringLiteral("must be at least 1 byte"));
    for (const auto &[value, key] : {std::pair{s.weightsBytes, "weights_bytes"}, {s.workspaceBytes, "workspace_bytes"}})
        if (value && *value < 0)
            throw InputError(ip + QString::fromLatin1(key), QStringLiteral("must not be negative"));
    for (const auto &[value, key] : {std::pair{s.runtimeReserveBytes, "runtime_reserve_bytes"}, {s.activationBytes, "activation_bytes"}})
        if (value < 0)
            throw InputError(ip + QString::fromLatin1(key), QStringLiteral("must not be negative"));
}

// The vision encoder's images and the host tier (issue 14), the same keys in a file
// and in a plan --json "inputs" echo.
void readVisionAndHostTier(const QJsonObject &in, Scenario &s, const QString &ip)
{
    s.imagesPerRequest = readInt(in, "images_per_request", s.imagesPerRequest, 0, ip, VisionPool::maxImagesPerRequest);
    s.decodingShare = readOptionalReal(in, RealInput::DecodingShare, ip);
    s.hostKvMemoryBytes = readOptionalBig(in, "host_kv_memory_bytes", ip, 0);
    s.gpusPerNode = readInt(in, "gpus_per_node", s.gpusPerNode, 1, ip, 1024);
}

} // namespace

void readParallelism(const QJsonObject &o, Scenario &s, const QString &prefix)
{
    s.pp = readInt(o, "pp", 1, 1, prefix, 1'000'000);
    s.dp = readInt(o, "dp", 1, 1, prefix, 1'000'000);
    if (!o.value(QStringLiteral("ep")).isUndefined() && !o.value(QStringLiteral("ep")).isNull())
        s.ep = readInt(o, "ep", 1, 1, prefix, 1'000'000);
}

EngineSettings readEngineSettings(const QJsonObject &o, Engine engine, const QString &prefix, const char *byteSuffix)
{
    EngineSettings es;
    auto bytes = [&](const char *key) {
        const QByteArray name = QByteArray(key) + byteSuffix;
        return readOptionalBig(o, name.constData(), prefix, 0);
    };
    auto positive = [&](const char *key) { return readOptionalBig(o, key, prefix, 1); };
    es.kvCacheMemory = bytes("kv_cache_memory");
    es.freeMemoryBefore = bytes("free_memory_before");
    es.freeMemoryAfter = bytes("free_memory_after");
    es.activationPeak = bytes("activation_peak");
    es.nonTorch = bytes("non_torch");
    es.cudaGraph = bytes("cuda_graph");
    es.memFractionStatic = readOptionalReal(o, RealInput::MemFractionStatic, prefix);
    es.freeGpuMemoryFraction = readReal(o, RealInput::FreeGpuMemoryFraction, es.freeGpuMemoryFraction, prefix);
    es.maxNumBatchedTokens = positive("max_num_batched_tokens");
    const QString version = QStringLiteral("a release such as \"0.11\" (in quotes)");
    const EngineVersion vllm = EngineVersion::parse(JsonNumbers::text(o, "vllm_version", QStringLiteral("0.11"), prefix, version),
                                                    prefix + QStringLiteral("vllm_version"));
    es.vllmMajor = vllm.major;
    es.vllmMinor = vllm.minor;
    es.nCtx = positive("n_ctx");
    // In the command line's range (InputRanges::small: at most 1,000,000).
    es.nSeq = readInt(o, "n_seq", 1, 1, prefix, 1'000'000);
    es.nBatch = readInt(o, "n_batch", 512, 1, prefix, 1'000'000);
    es.trtTokensPerBlock = readInt(o, "tokens_per_block", 32, 1, prefix, 1'000'000);
    // Engine versions and build settings (engine flags, one block).
    if (const QString v = JsonNumbers::text(o, "engine_version", QString(), prefix, version); !v.isEmpty()) {
        const EngineVersion given = EngineVersion::parse(v, prefix + QStringLiteral("engine_version"));
        // For vLLM the same as vllm_version (as --engine-version is --vllm-version): one release.
        if (engine == Engine::Vllm) {
            if (o.contains(QStringLiteral("vllm_version")) && (given.major != es.vllmMajor || given.minor != es.vllmMinor))
                throw InputError(prefix + QStringLiteral("engine_version"), QStringLiteral("%1 disagrees with vllm_version %2.%3: give one release")
                                                                               .arg(v).arg(es.vllmMajor).arg(es.vllmMinor));
            es.vllmMajor = given.major;
            es.vllmMinor = given.minor;
        } else {
            es.engineVersion = given;
        }
    }
    es.maxNumSeqs = positive("max_num_seqs");
    es.trtMaxBatchSize = positive("max_batch_size");
    es.trtMaxNumTokens = positive("max_num_tokens");
    es.trtMaxSeqLen = positive("max_seq_len");
    // Admission (issue 32): TensorRT-LLM's capacity scheduler and the output it reserves.
    if (const QJsonValue policy = o.value(QStringLiteral("scheduler_policy")); !policy.isUndefined() && !policy.isNull()) {
        if (!policy.isString())
            throw InputError(prefix + QStringLiteral("scheduler_policy"), QStringLiteral("must be \"guaranteed-no-evict\" or \"max-utilization\""));
        es.schedulerPolicy = SchedulerPolicies::parse(policy.toString(), prefix + QStringLiteral("scheduler_policy"));
    }
    es.maxOutputTokens = positive("max_output_tokens");
    return es;
}

void readLengthsAndServing(const QJsonObject &in, Scenario &s, const QString &ip)
{
    s.lengthScale = readReal(in, RealInput::LengthScale, 1.0, ip);
    s.retainTokens = readOptionalBig(in, "retain_tokens", ip);
    s.outputTokens = readOptionalBig(in, "output_tokens", ip);
    s.risk = readReal(in, RealInput::Risk, s.risk, ip);
    s.fleetRisk = readOptionalReal(in, RealInput::FleetRisk, ip);
    s.marginFraction = readReal(in, RealInput::Margin, s.marginFraction, ip);
    s.targetSessions = readOptionalBig(in, "target_sessions", ip);
    s.bandwidthEfficiency = readOptionalReal(in, RealInput::BandwidthEfficiency, ip);
    s.computeUtilization = readOptionalReal(in, RealInput::ComputeUtilization, ip);
    s.trafficMultiplier = readReal(in, RealInput::TrafficMultiplier, s.trafficMultiplier, ip);
    readVisionAndHostTier(in, s, ip);
    checkCounts(s);
}

void checkScale(const Scenario &s)
{
    if (s.distribution && double(s.distribution->maximum()) * s.lengthScale > double(LengthDistribution::maxTokens))
        throw InputError(QStringLiteral("inputs.length_scale"), QStringLiteral("x %1 makes the longest session longer than 2^53 tokens").arg(s.lengthScale));
}

} // namespace Headroom::ScenarioParts
