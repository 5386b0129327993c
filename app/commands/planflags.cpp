// SPDX-License-Identifier: GPL-3.0-or-later
#include "commands/planflags.h"

#include "commands/options.h"
#include "commands/presetlookup.h"
#include "core/inputerror.h"
#include "engines/enginerule.h"
#include "core/inputranges.h"
#include "io/configimporter.h"
#include "io/scenariofile.h"
#include "plan/capacity.h"
#include "plan/visionpool.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <cmath>

namespace Headroom {

QVector<OutputTarget::Protected> inputFiles(const QCommandLineParser &p)
{
    QVector<OutputTarget::Protected> files{{PresetStore::defaultPath(), QStringLiteral("the preset store")}};
    for (const char *name : {"scenario", "model", "config"})
        if (isSet(p, name))
            files.append({value(p, name), QStringLiteral("the --%1 file").arg(QLatin1String(name))});
    if (isSet(p, "distribution") && value(p, "distribution").trimmed().startsWith(QLatin1String("trace:"), Qt::CaseInsensitive))
        files.append({value(p, "distribution").trimmed().mid(6), QStringLiteral("the --distribution trace")});
    return files;
}

namespace {

/// A real-valued flag, by its one range rule (core/inputranges.h), into `into` when given.
/// Throws InputError naming the flag.
template <typename T>
void readReal(const QCommandLineParser &p, RealInput input, T &into)
{
    const QString flag = QString::fromLatin1(InputRanges::of(input).flag);
    if (p.isSet(flag.mid(2)))
        into = InputRanges::parse(input, p.value(flag.mid(2)), flag);
}

/// The model `m` names: a config.json path (preset ids never hold a slash: a path does, or
/// ends in .json, or names a file), else a model preset id. Throws InputError naming `field`.
ModelShape namedModel(const QString &m, const QString &field, QTextStream &err)
{
    if (m.contains(QLatin1Char('/')) || m.endsWith(QLatin1String(".json")) || QFileInfo(m).isFile())
        return ConfigImporter::fromFile(m, field);
    return presetModel(m, err, field);
}

/// The vision encoder's and the host tier's flags (issue 14) into `s`: --images-per-request,
/// --decoding-share (or --turn-seconds with --think-seconds), --host-kv-memory, --gpus-per-node.
/// Throws InputError naming the flag.
void readSidePoolOptions(const QCommandLineParser &p, Scenario &s)
{
    if (isSet(p, "images-per-request")) {
        const qint64 n = countOpt(p, "images-per-request", 0);
        if (n > VisionPool::maxImagesPerRequest)
            throw InputError(QStringLiteral("--images-per-request"), QStringLiteral("must be at most %1 (vLLM's default per-prompt limit), got %2")
                                                                        .arg(VisionPool::maxImagesPerRequest).arg(n));
        s.imagesPerRequest = int(n);
    }
    if (isSet(p, "decoding-share") && (isSet(p, "turn-seconds") || isSet(p, "think-seconds")))
        throw InputError(QStringLiteral("--decoding-share"), QStringLiteral("give it, or --turn-seconds with --think-seconds, not both"));
    if (isSet(p, "decoding-share"))
        s.decodingShare = InputRanges::parse(RealInput::DecodingShare, value(p, "decoding-share"), QStringLiteral("--decoding-share"));
    if (isSet(p, "turn-seconds") != isSet(p, "think-seconds"))
        throw InputError(isSet(p, "turn-seconds") ? QStringLiteral("--think-seconds") : QStringLiteral("--turn-seconds"),
                         QStringLiteral("is needed too: the decoding share is turn / (turn + think)"));
    if (isSet(p, "turn-seconds")) {
        auto seconds = [&](const char *name) {
            bool ok = false;
            const double v = value(p, name).toDouble(&ok);
            if (!ok || !std::isfinite(v) || v < 0 || v > 1e9)
                throw InputError(QStringLiteral("--") + QString::fromLatin1(name), QStringLiteral("must be a number of seconds from 0 to 1e9"));
            return v;
        };
        const double turn = seconds("turn-seconds"), think = seconds("think-seconds");
        if (!(turn > 0))
            throw InputError(QStringLiteral("--turn-seconds"), QStringLiteral("must be above 0: a turn takes some time"));
        s.decodingShare = InputRanges::check(RealInput::DecodingShare, turn / (turn + think), QStringLiteral("--think-seconds"));
    }
    if (isSet(p, "host-kv-memory"))
        s.hostKvMemoryBytes = Units::parseSize(value(p, "host-kv-memory"), QStringLiteral("--host-kv-memory"), true);
    if (isSet(p, "gpus-per-node")) {
        const qint64 n = countOpt(p, "gpus-per-node");
        if (n > 1024)
            throw InputError(QStringLiteral("--gpus-per-node"), QStringLiteral("must be at most 1,024, got %1").arg(n));
        s.gpusPerNode = int(n);
    }
}

/// The engine's version, build settings and parallelism: --engine-version (for vLLM the
/// same as --vllm-version), --max-num-seqs, --max-batch-size, --max-num-tokens,
/// --max-seq-len, --scheduler-policy, --max-output-tokens, --pp, --dp, --ep.
void engineVersionAndBuild(const QCommandLineParser &p, Scenario &s)
{
    EngineSettings &e = s.engineSettings;
    if (isSet(p, "engine-version")) {
        const EngineVersion v = EngineVersion::parse(value(p, "engine-version"), QStringLiteral("--engine-version"));
        if (s.engine == Engine::Vllm) {
            e.vllmMajor = v.major;
            e.vllmMinor = v.minor;
        } else {
            e.engineVersion = v;
        }
    }
    if (isSet(p, "max-num-seqs"))
        e.maxNumSeqs = countOpt(p, "max-num-seqs");
    if (isSet(p, "max-batch-size"))
        e.trtMaxBatchSize = countOpt(p, "max-batch-size");
    if (isSet(p, "max-num-tokens"))
        e.trtMaxNumTokens = countOpt(p, "max-num-tokens");
    if (isSet(p, "max-seq-len"))
        e.trtMaxSeqLen = countOpt(p, "max-seq-len");
    if (isSet(p, "scheduler-policy"))
        e.schedulerPolicy = SchedulerPolicies::parse(value(p, "scheduler-policy"), QStringLiteral("--scheduler-policy"));
    if (isSet(p, "max-output-tokens"))
        e.maxOutputTokens = countOpt(p, "max-output-tokens");
    if (isSet(p, "pp"))
        s.pp = smallOpt(p, "pp");
    if (isSet(p, "dp"))
        s.dp = smallOpt(p, "dp");
    if (isSet(p, "ep"))
        s.ep = smallOpt(p, "ep");
}

/// An engine that sizes its pool before any request (vLLM, SGLang, TensorRT-LLM) prints
/// figures that do not depend on --context: with --max-model-len given, the context
/// defaults to it.
bool contextFromMaxModelLen(const QCommandLineParser &p)
{
    if (!isSet(p, "engine") || !isSet(p, "max-model-len"))
        return false;
    const Engine e = Engines::parse(value(p, "engine"), QStringLiteral("--engine"));
    return e == Engine::Vllm || e == Engine::Sglang || e == Engine::Trtllm;
}

/// The side pools' flags (issue #14) onto `s`, each by its range rule (core/inputranges.h).
void sidePoolsFrom(const QCommandLineParser &p, Scenario &s, QTextStream &err)
{
    auto count = [&](CountInput input, int &into) {
        const QString flag = QString::fromLatin1(InputRanges::of(input).flag);
        if (p.isSet(flag.mid(2)))
            into = InputRanges::check(input, Units::parseCount(p.value(flag.mid(2)), flag, 0), flag);
    };
    SpeculativeDecoding &sd = s.speculative;
    if (isSet(p, "draft-model")) {
        const QString m = value(p, "draft-model");
        if (m.trimmed().compare(QLatin1String("none"), Qt::CaseInsensitive) == 0) {
            // Off: the draft, its MTP layers and (unless given again) its lookahead.
            sd = SpeculativeDecoding{};
        } else {
            sd.draftModel = namedModel(m, QStringLiteral("--draft-model"), err);
        }
        if (sd.draftModel)
            sd.draftLayers = 0;
    }
    count(CountInput::DraftLayers, sd.draftLayers);
    if (isSet(p, "draft-model") && isSet(p, "draft-layers") && sd.draftModel && sd.draftLayers > 0)
        throw InputError(QStringLiteral("--draft-layers"), QStringLiteral("give either a draft model or MTP / EAGLE layers, not both"));
    if (sd.draftLayers > 0)
        sd.draftModel.reset();
    count(CountInput::SpeculativeTokens, sd.speculativeTokens);
    if (sd.hasDraft() && sd.speculativeTokens == 0)
        throw InputError(QStringLiteral("--num-speculative-tokens"), QStringLiteral("is needed with a draft: the tokens it proposes per step, e.g. 4"));
    LoraSlots &l = s.lora;
    count(CountInput::MaxLoras, l.maxLoras);
    count(CountInput::MaxLoraRank, l.maxRank);
    if (isSet(p, "lora-modules"))
        l.modules = LoraSlots::parseModules(value(p, "lora-modules"), QStringLiteral("--lora-modules"));
    if ((isSet(p, "max-lora-rank") || isSet(p, "lora-modules")) && !l.on())
        throw InputError(QStringLiteral("--max-loras"), QStringLiteral("is needed with --max-lora-rank or --lora-modules: the adapter slots, e.g. 4"));
}

/// The --scenario file's scenario (its warnings on `err`), else an empty one: every flag
/// given then overrides it. Throws InputError naming the file's field.
Scenario startingScenario(const QCommandLineParser &p, QTextStream &err)
{
    if (!isSet(p, "scenario"))
        return Scenario{};
    QStringList warnings;
    const Scenario s = namingTheFile(QStringLiteral("--scenario"), [&] {
        return ScenarioFile::read(value(p, "scenario"), nullptr, [&err](const QString &id) { return presetModel(id, err); },
                                  [&err](const QString &id) { return presetGpu(id, err); }, &warnings);
    });
    for (const QString &w : std::as_const(warnings))
        err << "warning: " << w << '\n';
    return s;
}

/// Whether the flags give a custom shape (--layers, --head-dim) in place of --model.
bool customShapeGiven(const QCommandLineParser &p)
{
    return isSet(p, "layers") || isSet(p, "head-dim");
}

/// The custom shape --layers, --kv-heads, --head-dim (and --heads) give, added to `m` as one
/// full-attention group. Throws InputError naming a missing flag, or --kv-heads when it does
/// not divide --heads.
void addCustomShape(const QCommandLineParser &p, ModelShape &m)
{
    for (const char *need : {"layers", "kv-heads", "head-dim"})
        if (!isSet(p, need))
            throw InputError(QStringLiteral("--") + QString::fromLatin1(need), QStringLiteral("is needed for a custom shape"));
    LayerGroup g;
    g.kind = LayerKind::FullAttention;
    g.kvHeads = smallOpt(p, "kv-heads");
    g.headDimK = g.headDimV = smallOpt(p, "head-dim");
    m.id = QStringLiteral("custom");
    m.name = QStringLiteral("Custom model");
    m.kvHeads = g.kvHeads;
    m.headDim = g.headDimK;
    m.attentionHeads = isSet(p, "heads") ? smallOpt(p, "heads") : 0;
    if (m.attentionHeads > 0 && (g.kvHeads > m.attentionHeads || m.attentionHeads % g.kvHeads != 0))
        throw InputError(QStringLiteral("--kv-heads"), QStringLiteral("%1 must divide --heads %2").arg(g.kvHeads).arg(m.attentionHeads));
    m.addLayers(g, smallOpt(p, "layers"));
}

/// The model into `s`: --model (a preset id or a config.json path; it drops the file's
/// model's what-ifs and weight figures), a custom shape, or the file's; --kv-heads as a
/// what-if on a named model; --params. Throws InputError naming the flag, or --model when
/// `required` and neither the flags nor a file give one.
void readModel(const QCommandLineParser &p, Scenario &s, bool fromFile, bool required, QTextStream &err)
{
    const bool custom = customShapeGiven(p);
    if (isSet(p, "model") && custom)
        throw InputError(QStringLiteral("--model"), QStringLiteral("give either --model or a custom shape (--layers, --kv-heads, --head-dim), not both"));
    if (isSet(p, "model") && isSet(p, "heads"))
        throw InputError(QStringLiteral("--heads"), QStringLiteral("applies to a custom shape only; the preset or config.json gives num_attention_heads"));
    if (isSet(p, "model") && fromFile) {
        // A new model drops the old one's what-ifs and weight figures, unless given again.
        s.kvHeadsOverride.reset();
        s.weightsBytes.reset();
        s.weightsDtype.reset();
    }
    if (isSet(p, "model")) {
        s.model = namedModel(value(p, "model"), QStringLiteral("--model"), err);
        if (isSet(p, "kv-heads"))
            s.kvHeadsOverride = smallOpt(p, "kv-heads");
    } else if (custom) {
        addCustomShape(p, s.model);
    } else if (required && !fromFile) {
        throw InputError(QStringLiteral("--model"), QStringLiteral("give a preset id or config.json path, or a custom shape with --layers, --kv-heads and --head-dim"));
    } else if (fromFile && isSet(p, "kv-heads")) {
        s.kvHeadsOverride = smallOpt(p, "kv-heads");
    }
    if (isSet(p, "params")) {
        s.model.totalParams = countOpt(p, "params");
        s.model.activeParams = s.model.activeParams > 0 ? std::min(s.model.activeParams, s.model.totalParams) : s.model.totalParams;
        s.model.checkpointBytes = 0;
    }
}

/// The card into `s`: --gpu (a preset; it drops the file's memory override and price),
/// --gpu-memory (that card's memory, or alone a custom card); then --weights, --workspace and
/// --tp. Throws InputError naming the flag, or --gpu when `required` and neither the flags
/// nor a file give a card.
void readGpu(const QCommandLineParser &p, Scenario &s, bool fromFile, bool required, QTextStream &err)
{
    if (isSet(p, "gpu")) {
        s.gpu = presetGpu(value(p, "gpu"), err, QStringLiteral("--gpu"));
        s.gpuMemoryBytes.reset(); // the file's memory override belonged to its card
        s.priceUsdPerGpuHour.reset();
    }
    if (isSet(p, "gpu-memory")) {
        const qint64 mem = Units::parseSize(value(p, "gpu-memory"), QStringLiteral("--gpu-memory"));
        if (isSet(p, "gpu") || fromFile)
            s.gpuMemoryBytes = mem;
        else
            s.gpu = GpuSpec::custom(mem);
    } else if (!isSet(p, "gpu") && required && !fromFile) {
        throw InputError(QStringLiteral("--gpu"), QStringLiteral("give a GPU preset id, or --gpu-memory SIZE for a custom card"));
    }
    if (isSet(p, "weights"))
        s.weightsBytes = Units::parseSize(value(p, "weights"), QStringLiteral("--weights"));
    if (isSet(p, "workspace"))
        s.workspaceBytes = Units::parseSize(value(p, "workspace"), QStringLiteral("--workspace"), true);
    if (isSet(p, "tp"))
        s.tp = smallOpt(p, "tp");
}

/// The workload into `s`: --distribution, --length-scale, --retain, --risk, --margin,
/// --target-sessions, and the decode and traffic factors. Throws InputError naming the flag.
void readWorkload(const QCommandLineParser &p, Scenario &s)
{
    if (isSet(p, "distribution"))
        s.distribution = LengthDistribution::parse(value(p, "distribution"), QStringLiteral("--distribution"));
    readReal(p, RealInput::LengthScale, s.lengthScale);
    if (isSet(p, "retain"))
        s.retainTokens = tokenOpt(p, "retain");
    if (isSet(p, "output-tokens"))
        s.outputTokens = countOpt(p, "output-tokens");
    // Each replica's risk or the whole fleet's: one of the two (a flag overrides a file's either).
    if (isSet(p, "risk") && isSet(p, "fleet-risk"))
        throw InputError(QStringLiteral("--fleet-risk"), QStringLiteral("give --risk (each replica's) or --fleet-risk (the whole fleet's), not both"));
    if (isSet(p, "risk")) { // "1 in 5,000", "0.2%", "2e-4": the window's forms, one reader
        s.risk = InputRanges::parseRisk(value(p, "risk"), QStringLiteral("--risk"));
        s.fleetRisk.reset();
    }
    if (isSet(p, "fleet-risk"))
        s.fleetRisk = InputRanges::parseRisk(value(p, "fleet-risk"), QStringLiteral("--fleet-risk"), nullptr, RealInput::FleetRisk);
    readReal(p, RealInput::Margin, s.marginFraction);
    if (isSet(p, "target-sessions"))
        s.targetSessions = countOpt(p, "target-sessions");
    // Both size the fleet: the target from the sessions each replica holds, --dp as given.
    if (isSet(p, "dp") && isSet(p, "target-sessions"))
        throw InputError(QStringLiteral("--dp"), QStringLiteral("conflicts with --target-sessions: both size the fleet; give --target-sessions "
                                                                "(the replicas it needs are worked out) or --dp N (N replicas), not both"));
    readReal(p, RealInput::BandwidthEfficiency, s.bandwidthEfficiency);
    readReal(p, RealInput::ComputeUtilization, s.computeUtilization);
    readReal(p, RealInput::TrafficMultiplier, s.trafficMultiplier);
}

/// The tokens per session and the session count into `s`: --context, else the longest
/// session the distribution holds after the scale and the cap (unless the file's
/// distribution stands unchanged); --sessions. Throws InputError naming the flag, or
/// --context when `required` and nothing gives a length.
void readContextAndSessions(const QCommandLineParser &p, Scenario &s, bool fromFile, bool required)
{
    if (!isSet(p, "context") && required && !s.distribution && !fromFile && !contextFromMaxModelLen(p))
        throw InputError(QStringLiteral("--context"), QStringLiteral("is required: resident tokens per session, e.g. --context 100000 (or give --distribution)"));
    if (isSet(p, "context")) {
        s.contextTokens = tokenOpt(p, "context");
    } else if (s.distribution && !(fromFile && !isSet(p, "distribution") && !isSet(p, "retain") && !isSet(p, "length-scale"))) {
        s.contextTokens = distributionLongest(s); // after the scale and the cap

    }
    if (isSet(p, "sessions"))
        s.sessions = countOpt(p, "sessions");
}

/// The precisions, the engine and its memory settings into `s`: --weights-dtype, --kv-dtype,
/// --engine, the measured sizes, --vllm-version, the fractions, the llama.cpp and TensorRT-LLM
/// settings, --block-size and --max-model-len. Throws InputError naming the flag.
void readEngineSettings(const QCommandLineParser &p, Scenario &s)
{
    if (isSet(p, "weights-dtype"))
        s.weightsDtype = Dtypes::parse(value(p, "weights-dtype"), QStringLiteral("--weights-dtype"));
    if (isSet(p, "kv-dtype"))
        s.kvDtype = Dtypes::parse(value(p, "kv-dtype"), QStringLiteral("--kv-dtype"));
    if (isSet(p, "engine"))
        s.engine = Engines::parse(value(p, "engine"), QStringLiteral("--engine"));
    EngineSettings &e = s.engineSettings;
    auto size = [&](const char *name, std::optional<qint64> &into, bool allowZero) {
        if (isSet(p, name))
            into = Units::parseSize(value(p, name), QStringLiteral("--") + QString::fromLatin1(name), allowZero);
    };
    size("kv-cache-memory", e.kvCacheMemory, false);
    size("free-memory-before", e.freeMemoryBefore, false);
    size("free-memory-after", e.freeMemoryAfter, false);
    size("activation-peak", e.activationPeak, true);
    size("non-torch", e.nonTorch, true);
    size("cuda-graph", e.cudaGraph, true);
    if (isSet(p, "vllm-version")) {
        const EngineVersion v = EngineVersion::parse(value(p, "vllm-version"), QStringLiteral("--vllm-version"));
        // One release: --engine-version is vLLM's too (as a scenario file's engine_version).
        if (isSet(p, "engine-version")) {
            const EngineVersion other = EngineVersion::parse(value(p, "engine-version"), QStringLiteral("--engine-version"));
            if (other.major != v.major || other.minor != v.minor)
                throw InputError(QStringLiteral("--engine-version"), QStringLiteral("%1 disagrees with --vllm-version %2: give one release")
                                                                         .arg(value(p, "engine-version"), value(p, "vllm-version")));
        }
        e.vllmMajor = v.major;
        e.vllmMinor = v.minor;
    }
    if (isSet(p, "max-num-batched-tokens"))
        e.maxNumBatchedTokens = countOpt(p, "max-num-batched-tokens");
    readReal(p, RealInput::MemFractionStatic, e.memFractionStatic);
    readReal(p, RealInput::FreeGpuMemoryFraction, e.freeGpuMemoryFraction);
    if (isSet(p, "tokens-per-block"))
        e.trtTokensPerBlock = smallOpt(p, "tokens-per-block");
    if (isSet(p, "n-ctx"))
        e.nCtx = countOpt(p, "n-ctx");
    if (isSet(p, "n-seq"))
        e.nSeq = smallOpt(p, "n-seq");
    if (isSet(p, "n-batch"))
        e.nBatch = smallOpt(p, "n-batch");
    s.gpuMemoryUtilizationGiven = s.gpuMemoryUtilizationGiven || isSet(p, "gpu-memory-utilization");
    readReal(p, RealInput::GpuMemoryUtilization, s.gpuMemoryUtilization);
    if (isSet(p, "block-size"))
        s.blockSize = smallOpt(p, "block-size");
    if (isSet(p, "max-model-len"))
        s.maxModelLen = tokenOpt(p, "max-model-len");
}

/// Names each value given by flag by its flag from here on, whatever file it overrode (the
/// derivation and the errors cite "--tp", not the file's field).
void nameFlagSources(const QCommandLineParser &p, Scenario &s)
{
    for (int i = 0; i < inputCount; ++i)
        if (isSet(p, InputRanges::spelling(Input(i)).flag + 2))
            s.names.use(Input(i), InputSource::Flag);
    if (customShapeGiven(p))
        s.names.set(Input::Model, QStringLiteral("--layers"));
    if (isSet(p, "gpu") && !isSet(p, "gpu-memory"))
        s.names.set(Input::GpuMemory, QStringLiteral("--gpu"));
}

} // namespace

Scenario scenarioFrom(const QCommandLineParser &p, QTextStream &err, bool requireContext, bool checkEngineFlags)
{
    const bool fromFile = isSet(p, "scenario");
    Scenario s = startingScenario(p, err);
    readModel(p, s, fromFile, requireContext, err);
    readGpu(p, s, fromFile, requireContext, err);
    readWorkload(p, s);
    readSidePoolOptions(p, s);
    readContextAndSessions(p, s, fromFile, requireContext);
    readEngineSettings(p, s);
    if (!isSet(p, "context") && !s.distribution && !fromFile && contextFromMaxModelLen(p))
        s.contextTokens = *s.maxModelLen;
    engineVersionAndBuild(p, s);
    sidePoolsFrom(p, s, err);
    if (isSet(p, "preallocate"))
        s.preallocate = true;
    readReal(p, RealInput::Price, s.priceUsdPerGpuHour);
    nameFlagSources(p, s);
    if (checkEngineFlags)
        refuseForeignFlags(p, s.engine);
    return s;
}

UnitSystem unitsFrom(const QCommandLineParser &p)
{
    if (!isSet(p, "units"))
        return UnitSystem::Decimal;
    const QString u = value(p, "units").toLower();
    if (u == QLatin1String("gb"))
        return UnitSystem::Decimal;
    if (u == QLatin1String("gib"))
        return UnitSystem::Binary;
    throw InputError(QStringLiteral("--units"), QStringLiteral("must be GB or GiB, got \"%1\"").arg(value(p, "units")));
}

void refuseForeignFlags(const QCommandLineParser &p, Engine engine)
{
    for (int i = 0; i < inputCount; ++i) {
        const char *flag = InputRanges::spelling(Input(i)).flag;
        if (flag && isSet(p, flag + 2))
            if (const QString why = Engines::foreignSetting(engine, Input(i)); !why.isEmpty())
                throw InputError(QString::fromLatin1(flag), why);
    }
    // --vllm-version is vLLM's alone (--engine-version names any engine's release).
    if (isSet(p, "vllm-version") && engine != Engine::Vllm)
        throw InputError(QStringLiteral("--vllm-version"), QStringLiteral("is a setting of the vllm engine only; the %1 engine does not read it: "
                                                                          "add --engine vllm, or give --engine-version for the %1 engine's release")
                                                               .arg(Engines::name(engine)));
}

} // namespace Headroom
