// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandline.h"

#include "plan/capacity.h"
#include "io/configimporter.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "plan/levers.h"
#include "plan/riskwork.h"
#include "plan/visionpool.h"
#include "io/logcalibration.h"
#include "core/outputtarget.h"
#include "io/scenarioecho.h"
#include "io/scenariofile.h"
#include "core/inputranges.h"
#include "presetbundle.h"
#include "presetstore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <cmath>
#include <memory>

namespace Headroom {

namespace {

/// The translation context of the command line's human output (lupdate reads
/// Cli::tr into build/translations/headroom.ts as "CommandLine").
struct Cli
{
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

const QStringList subcommands = {QStringLiteral("plan"),   QStringLiteral("presets"),  QStringLiteral("calibrate"),
                                 QStringLiteral("report"), QStringLiteral("levers"),   QStringLiteral("diagnose")};

QCommandLineOption opt(const char *name, const char *help, const char *valueName = nullptr)
{
    return valueName ? QCommandLineOption(QString::fromLatin1(name), QString::fromUtf8(help), QString::fromLatin1(valueName))
                     : QCommandLineOption(QString::fromLatin1(name), QString::fromUtf8(help));
}

void addPlanOptions(QCommandLineParser &p)
{
    p.addOptions({
        opt("model", "Model preset id (see `headroom presets list`) or a HuggingFace config.json path.", "ID|PATH"),
        opt("layers", "Custom shape: num_hidden_layers.", "N"),
        opt("heads", "Custom shape: num_attention_heads (optional; checks TP).", "N"),
        opt("kv-heads", "num_key_value_heads: the custom shape's, or a what-if override of the preset's.", "N"),
        opt("head-dim", "Custom shape: head_dim.", "N"),
        opt("params", "Total parameters (8e9 or 8000000000); sets the count a config.json lacks.", "N"),
        opt("gpu", "GPU preset id, e.g. h100-sxm-80gb.", "ID"),
        opt("gpu-memory", "Memory per card, with a unit: 80GB, 79.6GiB. Alone, a custom card.", "SIZE"),
        opt("weights", "Weights of the whole model, split over the TP group: 16GB.", "SIZE"),
        opt("workspace", "Workspace per card (activations + runtime reserve); default 4GB.", "SIZE"),
        opt("tp", "Tensor-parallel GPUs per replica (default 1).", "N"),
        opt("context", "Resident tokens per session (prompt + output).", "TOKENS"),
        opt("sessions", "Concurrent sessions to check (default 1).", "N"),
        opt("weights-dtype", "Weight precision: fp32 bf16 fp16 fp8 int8 int4 nvfp4 mxfp4 (q8_0 q4_0 as ggml blocks).", "D"),
        opt("kv-dtype", "KV-cache precision: fp32 bf16 fp16 fp8 int8 int4 nvfp4 mxfp4 q8_0 q4_0.", "D"),
        opt("engine", "Budget rule and printed figures: plain, vllm, sglang, trtllm, llamacpp or ollama.", "E"),
        opt("kv-cache-memory", "Pin the KV budget per GPU, as vLLM's --kv-cache-memory (or a printed figure).", "SIZE"),
        opt("free-memory-before", "Measured free memory per GPU before the weights load (SGLang).", "SIZE"),
        opt("free-memory-after", "Measured free memory per GPU after the weights load (SGLang, TensorRT-LLM).", "SIZE"),
        opt("activation-peak", "vLLM's measured activation peak per GPU.", "SIZE"),
        opt("non-torch", "vLLM's measured non-torch memory per GPU.", "SIZE"),
        opt("cuda-graph", "vLLM's measured CUDA-graph memory per GPU.", "SIZE"),
        opt("vllm-version", "vLLM version family, e.g. 0.6, 0.10, 0.11 (default 0.11); the same as --engine-version for vllm.", "X.Y"),
        // Engine versions and build settings (engine flags, one block).
        opt("engine-version", "The chosen engine's release, X.Y or X.Y.Z (default: the newest its rule was checked against, "
                              "named in the derivation).", "X.Y"),
        opt("max-num-seqs", "vLLM's max_num_seqs (sizes the sampler's dummy pass; default 1024 on 70 GiB+ non-A100 cards, else 256).", "N"),
        opt("max-batch-size", "TensorRT-LLM build setting max_batch_size (default 2048).", "N"),
        opt("max-num-tokens", "TensorRT-LLM build setting max_num_tokens (default 8192).", "N"),
        opt("max-seq-len", "TensorRT-LLM build setting max_seq_len (default: max_model_len).", "N"),
        opt("pp", "Pipeline-parallel stages per replica: each GPU holds ceil(layers / N) layers (default 1).", "N"),
        opt("dp", "Data-parallel replicas (fleet size; default 1).", "N"),
        opt("ep", "Expert-parallel GPUs the routed experts are split over (e.g. TP x DP with vLLM's --enable-expert-parallel).", "N"),
        opt("max-num-batched-tokens", "vLLM's max_num_batched_tokens (sets the activation estimate).", "N"),
        opt("mem-fraction-static", "SGLang's mem_fraction_static (default: SGLang 0.5's rule by card memory and TP; 0.4: 0.88, 0.87, 0.85, 0.81 by TP).", "F"),
        opt("free-gpu-memory-fraction", "TensorRT-LLM's free_gpu_memory_fraction (default 0.9).", "F"),
        opt("tokens-per-block", "TensorRT-LLM tokens per block (default 32; 64 in older builds).", "N"),
        opt("n-ctx", "llama.cpp n_ctx / Ollama num_ctx (cells).", "N"),
        opt("n-seq", "llama.cpp n_seq_max / Ollama num_parallel (default 1).", "N"),
        opt("n-batch", "llama.cpp n_ubatch / Ollama batch (default 512).", "N"),
        opt("gpu-memory-utilization", "vLLM's gpu_memory_utilization (default 0.9).", "F"),
        opt("block-size", "Tokens per KV block (default 16; 1 = no paging).", "N"),
        opt("max-model-len", "Maximum context per session (default: max_position_embeddings).", "N"),
        opt("preallocate", "Reserve the maximum context for every session."),
        opt("price", "Price in dollars per GPU-hour (overrides the preset's).", "USD"),
        opt("distribution", "Session lengths: trace:PATH, lognormal:median=N,p99=N[,max=N] (or p90=N), "
                            "quantiles:p50=N,p90=N,p99=N[,p99.9=N],max=N, fixed:N.", "SPEC"),
        opt("length-scale", "Multiply every length of the distribution (a short trace standing in for long contexts).", "K"),
        opt("retain", "Retained-context cap: each session keeps min(L, TOKENS).", "TOKENS"),
        opt("risk", "Accepted probability that the KV pool overflows: 0.01, 2e-4, 0.02% or \"1 in 5,000\" (default 0.01; down to 1e-6).", "P"),
        opt("margin", "Headroom kept free when setting the admission limit (default 0.05).", "F"),
        opt("target-sessions", "Concurrent sessions the fleet must hold (sizes gpus_needed).", "N"),
        opt("bandwidth-efficiency", "Achieved / peak memory bandwidth in decode (default 0.8).", "F"),
        opt("compute-utilization", "Achieved / peak dense TFLOPS (default 0.5).", "F"),
        opt("traffic-multiplier", "Scale a trace's arrival rate for Little's law (default 1).", "K"),
        opt("images-per-request", "Images per request on a vision model (default 1): their tokens count against the context; "
                                  "0 = text only (no encoder cache; under vLLM the encoder is not loaded either).", "N"),
        opt("decoding-share", "Share of retained sessions decoding at once (default 1: all of them); the rest wait in host memory.", "F"),
        opt("turn-seconds", "With --think-seconds: a turn's decode time; the decoding share is turn / (turn + think).", "S"),
        opt("think-seconds", "With --turn-seconds: the idle time between one turn and the next.", "S"),
        opt("host-kv-memory", "Host memory for KV per node (vLLM KV offloading, LMCache, SGLang --hicache-size), e.g. 1TB.", "SIZE"),
        opt("gpus-per-node", "Cards per node sharing that host memory (default 8).", "N"),
        // Side pools beside weights and KV (each off unless given).
        opt("draft-model", "Speculative decoding: a draft model, preset id or config.json path (none: off).", "ID|PATH"),
        opt("draft-layers", "Speculative decoding: MTP / EAGLE heads as N layers of the target's shape (0: off).", "N"),
        opt("num-speculative-tokens", "Speculative decoding: tokens proposed per step, lookahead slots per session (0: off).", "K"),
        opt("max-loras", "LoRA adapter slots resident on the card, as vLLM's --max-loras (0: off).", "N"),
        opt("max-lora-rank", "LoRA slots' rank, as vLLM's --max-lora-rank (default 16).", "R"),
        opt("lora-modules", "LoRA-adapted linear layers: a comma list of q,k,v,o,gate,up,down (default all).", "LIST"),
        opt("units", "Units for text output: GB (10^9, default) or GiB (2^30).", "GB|GiB"),
        opt("json", "Print one JSON object (bytes as integers)."),
        opt("scenario", "Start from a .headroom scenario file (or a saved plan --json); flags override it.", "FILE"),
        opt("save", "plan: also save the resolved scenario to FILE (.headroom); - writes it to standard output in place of the plan.", "FILE"),
        opt("solve", "plan: max-context (for --sessions), min-gpus (for --target-sessions) or max-model-len.", "WHAT"),
        opt("target-sessions-per-gpu", "levers: the sessions per GPU an option must reach.", "F"),
        opt("max-itl-ms", "levers: the inter-token latency an option must keep under.", "MS"),
        opt("shared-prefix", "levers: a system prompt of TOKENS shared by every session (prefix caching).", "TOKENS"),
        opt("host-memory", "levers: host memory per GPU for offloading cold KV (default 256GB).", "SIZE"),
        opt("decode-from-host", "levers: offloaded sessions decode from host memory (the link on every step) rather than wait there."),
        opt("failed-at-sessions", "diagnose: the session count at which the service failed.", "N"),
        QCommandLineOption({QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("report: the PDF to write (a file: - is refused, a PDF is binary)."), QStringLiteral("FILE")),
        opt("page-size", "report: A4 (default) or Letter.", "SIZE"),
    });
}

const PresetStore *openStore(QTextStream &err)
{
    static PresetStore *store = nullptr;
    static bool tried = false;
    if (!tried) {
        tried = true;
        auto *s = new PresetStore(PresetStore::defaultPath());
        QString error;
        if (s->open(&error)) {
            store = s;
            if (!s->warning().isEmpty())
                err << "warning: " << s->warning() << '\n';
        } else {
            err << "warning: " << error << (error.endsWith(QLatin1Char('.')) ? " " : ". ") << "Using the built-in presets only.\n";
            delete s;
        }
    }
    return store;
}

PresetRecord findPreset(const QString &id, const QString &kind, const QString &field, QTextStream &err)
{
    PresetRecord r;
    if (const PresetStore *store = openStore(err)) {
        r = store->find(id);
    } else {
        for (const PresetRecord &b : PresetStore::builtInPresets())
            if (b.id == id)
                r = b;
    }
    if (r.id.isEmpty() || r.kind != kind)
        throw InputError(field, QStringLiteral("unknown %1 preset \"%2\"; `headroom presets list` shows the ids").arg(kind, id));
    return r;
}

// Every preset of one kind that reads (the store's, else the built-ins).
template <typename T>
QVector<T> allPresets(const QString &kind, T (*read)(const QJsonObject &), QTextStream &err)
{
    QVector<T> out;
    const PresetStore *store = openStore(err);
    for (const PresetRecord &r : store ? store->list(kind) : PresetStore::builtInPresets()) {
        if (r.kind != kind)
            continue;
        try {
            out << read(r.json);
        } catch (const InputError &) {
            // A damaged user preset is left out of the options, not fatal.
        }
    }
    return out;
}

QVector<ModelShape> allModels(QTextStream &err)
{
    return allPresets<ModelShape>(QStringLiteral("model"), &ConfigImporter::fromPreset, err);
}

QVector<GpuSpec> allGpus(QTextStream &err)
{
    return allPresets<GpuSpec>(QStringLiteral("gpu"), [](const QJsonObject &o) { return GpuSpec::fromPreset(o); }, err);
}

ModelShape presetModel(const QString &id, QTextStream &err)
{
    return ConfigImporter::fromPreset(findPreset(id, QStringLiteral("model"), QStringLiteral("model"), err).json);
}

GpuSpec presetGpu(const QString &id, QTextStream &err)
{
    return GpuSpec::fromPreset(findPreset(id, QStringLiteral("gpu"), QStringLiteral("gpu"), err).json);
}

QString value(const QCommandLineParser &p, const char *name)
{
    return p.value(QString::fromLatin1(name));
}

bool isSet(const QCommandLineParser &p, const char *name)
{
    return p.isSet(QString::fromLatin1(name));
}

// The files this command reads, which none of its outputs may replace (OutputTarget::check):
// the preset store, --scenario, a --model or --config path, a trace:PATH distribution.
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

qint64 countOpt(const QCommandLineParser &p, const char *name, qint64 minimum = 1)
{
    return Units::parseCount(value(p, name), QStringLiteral("--") + QString::fromLatin1(name), minimum);
}

int smallOpt(const QCommandLineParser &p, const char *name)
{
    const qint64 v = countOpt(p, name);
    if (v > 1'000'000)
        throw InputError(QStringLiteral("--") + QString::fromLatin1(name), QStringLiteral("%1 is implausibly large").arg(v));
    return int(v);
}

ModelShape presetModel(const QString &id, QTextStream &err);

// The vision encoder's and the host tier's flags (issue 14).
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
GpuSpec presetGpu(const QString &id, QTextStream &err);

// The engine's version, build settings and parallelism: --engine-version (for vLLM the
// same as --vllm-version), --max-num-seqs, --max-batch-size, --max-num-tokens,
// --max-seq-len, --pp, --dp, --ep.
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
    if (isSet(p, "pp"))
        s.pp = smallOpt(p, "pp");
    if (isSet(p, "dp"))
        s.dp = smallOpt(p, "dp");
    if (isSet(p, "ep"))
        s.ep = smallOpt(p, "ep");
}

// An engine that sizes its pool before any request (vLLM, SGLang, TensorRT-LLM) prints
// figures that do not depend on --context: with --max-model-len given, the context
// defaults to it.
bool contextFromMaxModelLen(const QCommandLineParser &p)
{
    if (!isSet(p, "engine") || !isSet(p, "max-model-len"))
        return false;
    const Engine e = Engines::parse(value(p, "engine"), QStringLiteral("--engine"));
    return e == Engine::Vllm || e == Engine::Sglang || e == Engine::Trtllm;
}

// The side pools' flags (issue #14) onto `s`, each by its range rule (core/inputranges.h).
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
        }
        else if (m.contains(QLatin1Char('/')) || m.endsWith(QLatin1String(".json")) || QFileInfo(m).isFile())
            sd.draftModel = ConfigImporter::fromFile(m, QStringLiteral("--draft-model"));
        else
            sd.draftModel = ConfigImporter::fromPreset(findPreset(m, QStringLiteral("model"), QStringLiteral("--draft-model"), err).json);
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

// An engine flag the chosen engine does not read is refused, naming the flag and the engines
// whose setting it is (one check for every engine flag: EngineRule::settings); never ignored.
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

// The scenario the plan flags (and --scenario FILE) give. `checkEngineFlags`: refuse an engine
// flag the scenario's engine does not read (calibrate checks against the log's engine instead).
Scenario scenarioFrom(const QCommandLineParser &p, QTextStream &err, bool requireContext = true, bool checkEngineFlags = true)
{
    // A real-valued flag, by its one range rule (core/inputranges.h), into `into`.
    auto real = [&](RealInput input, auto &into) {
        const QString flag = QString::fromLatin1(InputRanges::of(input).flag);
        if (p.isSet(flag.mid(2)))
            into = InputRanges::parse(input, p.value(flag.mid(2)), flag);
    };
    Scenario s;
    bool fromFile = false;
    if (isSet(p, "scenario")) {
        // The file first; every flag given then overrides it.
        QStringList warnings;
        s = ScenarioFile::read(value(p, "scenario"), nullptr, [&err](const QString &id) { return presetModel(id, err); },
                               [&err](const QString &id) { return presetGpu(id, err); }, &warnings);
        for (const QString &w : std::as_const(warnings))
            err << "warning: " << w << '\n';
        fromFile = true;
    }
    const bool custom = isSet(p, "layers") || isSet(p, "head-dim");
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
        const QString m = value(p, "model");
        // Preset ids never hold a slash: a path does, or ends in .json, or names a file.
        if (m.contains(QLatin1Char('/')) || m.endsWith(QLatin1String(".json")) || QFileInfo(m).isFile())
            s.model = ConfigImporter::fromFile(m, QStringLiteral("--model"));
        else
            s.model = ConfigImporter::fromPreset(findPreset(m, QStringLiteral("model"), QStringLiteral("--model"), err).json);
        if (isSet(p, "kv-heads"))
            s.kvHeadsOverride = smallOpt(p, "kv-heads");
    } else if (custom) {
        for (const char *need : {"layers", "kv-heads", "head-dim"})
            if (!isSet(p, need))
                throw InputError(QStringLiteral("--") + QString::fromLatin1(need), QStringLiteral("is needed for a custom shape"));
        LayerGroup g;
        g.kind = LayerKind::FullAttention;
        g.kvHeads = smallOpt(p, "kv-heads");
        g.headDimK = g.headDimV = smallOpt(p, "head-dim");
        s.model.id = QStringLiteral("custom");
        s.model.name = QStringLiteral("Custom model");
        s.model.kvHeads = g.kvHeads;
        s.model.headDim = g.headDimK;
        s.model.attentionHeads = isSet(p, "heads") ? smallOpt(p, "heads") : 0;
        if (s.model.attentionHeads > 0 && (g.kvHeads > s.model.attentionHeads || s.model.attentionHeads % g.kvHeads != 0))
            throw InputError(QStringLiteral("--kv-heads"), QStringLiteral("%1 must divide --heads %2").arg(g.kvHeads).arg(s.model.attentionHeads));
        s.model.addLayers(g, smallOpt(p, "layers"));
    } else if (requireContext && !fromFile) {
        throw InputError(QStringLiteral("--model"), QStringLiteral("give a preset id or config.json path, or a custom shape with --layers, --kv-heads and --head-dim"));
    } else if (fromFile && isSet(p, "kv-heads")) {
        s.kvHeadsOverride = smallOpt(p, "kv-heads");
    }
    if (isSet(p, "params")) {
        s.model.totalParams = countOpt(p, "params");
        s.model.activeParams = s.model.activeParams > 0 ? std::min(s.model.activeParams, s.model.totalParams) : s.model.totalParams;
        s.model.checkpointBytes = 0;
    }

    if (isSet(p, "gpu")) {
        s.gpu = GpuSpec::fromPreset(findPreset(value(p, "gpu"), QStringLiteral("gpu"), QStringLiteral("--gpu"), err).json);
        s.gpuMemoryBytes.reset(); // the file's memory override belonged to its card
        s.priceUsdPerGpuHour.reset();
    }
    if (isSet(p, "gpu-memory")) {
        const qint64 mem = Units::parseSize(value(p, "gpu-memory"), QStringLiteral("--gpu-memory"));
        if (isSet(p, "gpu") || fromFile)
            s.gpuMemoryBytes = mem;
        else
            s.gpu = GpuSpec::custom(mem);
    } else if (!isSet(p, "gpu") && requireContext && !fromFile) {
        throw InputError(QStringLiteral("--gpu"), QStringLiteral("give a GPU preset id, or --gpu-memory SIZE for a custom card"));
    }
    if (isSet(p, "weights"))
        s.weightsBytes = Units::parseSize(value(p, "weights"), QStringLiteral("--weights"));
    if (isSet(p, "workspace"))
        s.workspaceBytes = Units::parseSize(value(p, "workspace"), QStringLiteral("--workspace"), true);
    if (isSet(p, "tp"))
        s.tp = smallOpt(p, "tp");
    if (isSet(p, "distribution"))
        s.distribution = LengthDistribution::parse(value(p, "distribution"), QStringLiteral("--distribution"));
    real(RealInput::LengthScale, s.lengthScale);
    if (isSet(p, "retain"))
        s.retainTokens = countOpt(p, "retain");
    if (isSet(p, "risk")) // "1 in 5,000", "0.2%", "2e-4": the window's forms, one reader
        s.risk = InputRanges::parseRisk(value(p, "risk"), QStringLiteral("--risk"));
    real(RealInput::Margin, s.marginFraction);
    if (isSet(p, "target-sessions"))
        s.targetSessions = countOpt(p, "target-sessions");
    real(RealInput::BandwidthEfficiency, s.bandwidthEfficiency);
    real(RealInput::ComputeUtilization, s.computeUtilization);
    real(RealInput::TrafficMultiplier, s.trafficMultiplier);
    readSidePoolOptions(p, s);
    if (!isSet(p, "context") && requireContext && !s.distribution && !fromFile && !contextFromMaxModelLen(p))
        throw InputError(QStringLiteral("--context"), QStringLiteral("is required: resident tokens per session, e.g. --context 100000 (or give --distribution)"));
    if (isSet(p, "context")) {
        s.contextTokens = countOpt(p, "context");
    } else if (s.distribution && !(fromFile && !isSet(p, "distribution") && !isSet(p, "retain") && !isSet(p, "length-scale"))) {
        // The longest session the distribution holds, after the scale and the cap.
        const qint64 longest = s.distribution->scaled(s.lengthScale, s.field(Input::LengthScale)).maximum();
        s.contextTokens = s.retainTokens ? std::min(longest, *s.retainTokens) : longest;
    }
    if (isSet(p, "sessions"))
        s.sessions = countOpt(p, "sessions");
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
        static const QRegularExpression re(QStringLiteral("^v?(\\d{1,3})\\.(\\d{1,3})(\\.\\d+)?\\z"));
        const auto m = re.match(value(p, "vllm-version").trimmed());
        if (!m.hasMatch())
            throw InputError(QStringLiteral("--vllm-version"), QStringLiteral("must look like 0.10 or 0.11.2, got \"%1\"").arg(value(p, "vllm-version")));
        e.vllmMajor = m.captured(1).toInt();
        e.vllmMinor = m.captured(2).toInt();
    }
    if (isSet(p, "max-num-batched-tokens"))
        e.maxNumBatchedTokens = countOpt(p, "max-num-batched-tokens");
    real(RealInput::MemFractionStatic, e.memFractionStatic);
    real(RealInput::FreeGpuMemoryFraction, e.freeGpuMemoryFraction);
    if (isSet(p, "tokens-per-block"))
        e.trtTokensPerBlock = smallOpt(p, "tokens-per-block");
    if (isSet(p, "n-ctx"))
        e.nCtx = countOpt(p, "n-ctx");
    if (isSet(p, "n-seq"))
        e.nSeq = smallOpt(p, "n-seq");
    if (isSet(p, "n-batch"))
        e.nBatch = smallOpt(p, "n-batch");
    s.gpuMemoryUtilizationGiven = s.gpuMemoryUtilizationGiven || isSet(p, "gpu-memory-utilization");
    real(RealInput::GpuMemoryUtilization, s.gpuMemoryUtilization);
    if (isSet(p, "block-size"))
        s.blockSize = smallOpt(p, "block-size");
    if (isSet(p, "max-model-len"))
        s.maxModelLen = countOpt(p, "max-model-len");
    if (!isSet(p, "context") && !s.distribution && !fromFile && contextFromMaxModelLen(p))
        s.contextTokens = *s.maxModelLen;
    engineVersionAndBuild(p, s);
    sidePoolsFrom(p, s, err);
    if (isSet(p, "preallocate"))
        s.preallocate = true;
    real(RealInput::Price, s.priceUsdPerGpuHour);
    // A value given by flag is named by its flag from here on, whatever file it overrode.
    for (int i = 0; i < inputCount; ++i)
        if (isSet(p, InputRanges::spelling(Input(i)).flag + 2))
            s.names.use(Input(i), InputSource::Flag);
    if (custom)
        s.names.set(Input::Model, QStringLiteral("--layers"));
    if (isSet(p, "gpu") && !isSet(p, "gpu-memory"))
        s.names.set(Input::GpuMemory, QStringLiteral("--gpu"));
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

int runPlan(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    // Solving for the context needs none given.
    const bool solvingLength = isSet(p, "solve") && (value(p, "solve") == QLatin1String("max-context") || value(p, "solve") == QLatin1String("max-model-len"));
    const Scenario s = scenarioFrom(p, err, !solvingLength || isSet(p, "context"));
    const UnitSystem units = unitsFrom(p);
    const CapacityResult r = computeCapacity(s);
    if (!r.ok) {
        err << "error: " << r.error << '\n';
        return 1;
    }
    const QStringList derivation = explainCapacity(s, r, units);
    QJsonObject solved;
    if (isSet(p, "solve")) {
        const QString what = value(p, "solve");
        if (what == QLatin1String("max-context")) {
            // 0 is no length: null, with the reason beside it (an added field; empty when solved).
            const qint64 tokens = solveMaxContext(s, s.sessions);
            solved.insert(QStringLiteral("solved_context_tokens"), tokens > 0 ? QJsonValue(tokens) : QJsonValue());
            QString why;
            if (tokens <= 0)
                why = r.kvBudgetBytesPerGpu <= 0
                    ? QStringLiteral("no context fits: the weights and workspace leave no KV budget on the card (%1 of weights per GPU)")
                          .arg(Units::formatBytes(r.weightsBytesPerGpu, units))
                    : QStringLiteral("no context fits: %1 do not fit the %2 KV budget per GPU at the risk even at 1 token each")
                          .arg(Units::plural(s.sessions, QStringLiteral("session"), QStringLiteral("sessions")),
                               Units::formatBytes(r.kvBudgetBytesPerGpu, units));
            solved.insert(QStringLiteral("solved_context_tokens_reason"), why);
        } else if (what == QLatin1String("min-gpus")) {
            if (!s.targetSessions)
                throw InputError(QStringLiteral("--solve"), QStringLiteral("min-gpus needs --target-sessions N"));
            const auto [gpus, tp] = solveMinGpus(s, *s.targetSessions);
            solved.insert(QStringLiteral("solved_gpus"), gpus > 0 ? QJsonValue(gpus) : QJsonValue());
            solved.insert(QStringLiteral("solved_tp"), tp > 0 ? QJsonValue(tp) : QJsonValue());
        } else if (what == QLatin1String("max-model-len")) {
            solved.insert(QStringLiteral("solved_max_model_len"), solveMaxModelLen(s));
        } else {
            throw InputError(QStringLiteral("--solve"), QStringLiteral("must be max-context, min-gpus or max-model-len, got \"%1\"").arg(what));
        }
    }
    if (isSet(p, "save")) {
        const QString path = value(p, "save");
        OutputTarget::check(path, OutputTarget::Kind::Scenario, inputFiles(p), QStringLiteral("--save"));
        if (OutputTarget::isStandardOutput(path)) {
            // "-": the scenario is the whole of standard output, in place of the plan.
            if (isSet(p, "json"))
                throw InputError(QStringLiteral("--save"), QStringLiteral("- (standard output) would mix the scenario with the --json plan; "
                                                                          "give the scenario a file name, or leave out --json"));
            ScenarioFile::write(path, s, s.model.name + QStringLiteral(" on ") + s.gpu.name, inputFiles(p));
            return 0;
        }
        ScenarioFile::write(path, s, QFileInfo(path).completeBaseName(), inputFiles(p));
    }
    if (isSet(p, "json")) {
        QJsonObject o = r.toJson();
        for (const QString &key : solved.keys())
            o.insert(key, solved.value(key));
        o.insert(QStringLiteral("inputs"), scenarioEcho(s));
        // The length reserved_tokens_per_session is, in the derivation's words (added field).
        o.insert(QStringLiteral("session_basis"), sessionBasis(s, r));
        o.insert(QStringLiteral("derivation"), QJsonArray::fromStringList(derivation));
        out << QString::fromUtf8(JsonNumbers::toJson(o));
        return 0;
    }
    auto fmt = [units](qint64 b) { return Units::formatBytes(b, units); };
    auto both = [fmt](qint64 b) { return QStringLiteral("%1 (%2)").arg(Units::formatExactBytes(b), fmt(b)); };
    const QString basis = sessionBasis(s, r);
    out << Cli::tr("%1 on %2%3; every per-session figure at %4\n\n")
               .arg(s.model.name, s.tp > 1 ? QStringLiteral("%1 x ").arg(s.tp) : QString(), s.gpu.name, basis);
    // Label and value rows, the values aligned after the longest label.
    QVector<QPair<QString, QString>> rows;
    auto row = [&rows](const QString &label, const QString &value) { rows << qMakePair(label, value); };
    const QString perGpu = Cli::tr(" per GPU");
    row(Cli::tr("KV bytes per token"), both(r.kvBytesPerToken)
        + (s.tp > 1 ? Cli::tr("; %1%2").arg(both(r.kvBytesPerTokenPerGpu), perGpu) : QString()));
    if (r.draftKvBytesPerToken > 0)
        row(Cli::tr("Draft KV per token"), both(r.draftKvBytesPerToken));
    row(Cli::tr("Bytes per session"), both(r.reservedSessionBytesPerGpu) + (s.tp > 1 ? perGpu : QString())
        + (r.draftKvBytesPerToken > 0 ? Cli::tr(" with the draft's KV") : QString()));
    if (r.draftWeightsBytes > 0)
        row(Cli::tr("Draft weights per GPU"), Cli::tr("%1 (whole draft %2)").arg(fmt(r.draftWeightsBytesPerGpu), fmt(r.draftWeightsBytes)));
    if (r.loraBytesPerGpu > 0)
        row(Cli::tr("LoRA slots per GPU"), fmt(r.loraBytesPerGpu));
    row(Cli::tr("KV budget per GPU"), fmt(r.kvBudgetBytesPerGpu));
    // Under a distribution this count is one of several: its label names its length.
    row(s.distribution ? Cli::tr("Sessions at %1 tokens").arg(Units::formatCount(r.reservedTokensPerSession)) : Cli::tr("Sessions that fit"),
        Units::formatCount(r.maxSessions) + (s.tp > 1 ? Cli::tr(" per TP group") : QString()));
    row(s.distribution ? Cli::tr("KV for %1 at %2 tokens").arg(Units::plural(s.sessions, Cli::tr("session"), Cli::tr("sessions")),
                                                              Units::formatCount(r.reservedTokensPerSession))
                       : Cli::tr("KV for %1").arg(Units::plural(s.sessions, Cli::tr("session"), Cli::tr("sessions"))),
        fmt(r.kvBytesForSessionsPerGpu) + perGpu + (r.fits ? Cli::tr(" (fits)") : Cli::tr(" (does not fit)")));
    auto perSessionHour = [](double usd) { return Units::formatUsdPer(usd, Cli::tr("session-hour"), Cli::tr("session-hours")); };
    if (r.costPerSessionHourUsd)
        row(Cli::tr("Cost"), perSessionHour(*r.costPerSessionHourUsd)
            + (s.distribution ? Cli::tr(" (at the risk-based count)") : QString()));
    if (VisionPool::hasEncoder(s))
        row(Cli::tr("Vision encoder"), Cli::tr("%1, encoder cache %2 per GPU, %3 image tokens per request")
                                           .arg(r.encoderLoaded ? Cli::tr("%1 of weights").arg(fmt(r.encoderWeightsBytes)) : Cli::tr("not loaded"),
                                                fmt(r.encoderCacheBytesPerGpu), Units::formatCount(r.imageTokensPerRequest)));
    if (s.decodingShare || s.hostKvMemoryBytes) {
        const WarmSessions &w = r.warm;
        auto ms = [](const std::optional<double> &v) { return v ? Units::formatDecimal(*v, 1) + QStringLiteral(" ms") : Cli::tr("unknown"); };
        row(Cli::tr("Sessions warm per node"), Cli::tr("%1 retained (%2 decoding per GPU); resume %3 against recompute %4")
                                                   .arg(Units::formatCount(w.retainedPerNode), Units::formatDecimal(w.decodingPerGpu, 2),
                                                        ms(w.atContext.resumeMs), ms(w.atContext.recomputeMs)));
    }
    const DistributionFigures &d = r.distribution;
    QVector<QPair<QString, QString>> lengthRows;
    if (s.distribution) {
        std::swap(rows, lengthRows);
        row(Cli::tr("Sessions at risk"), Cli::tr("%1 (at a %2 risk of overflowing the KV pool)")
                                             .arg(Units::formatCount(d.sessionsAtRisk), Units::formatRisk(s.risk)));
        // The worst case is its own row only when it is not the count above at the same length.
        const qint64 longest = s.retainTokens ? std::min(d.maxTokens, *s.retainTokens) : d.maxTokens;
        if (longest != r.reservedTokensPerSession || s.preallocate)
            row(Cli::tr("Worst case"), Cli::tr("%1 (every session at %2 tokens, the longest%3)")
                                           .arg(Units::formatCount(d.sessionsWorstCase), Units::formatCount(longest),
                                                longest < d.maxTokens ? Cli::tr(" at the cap") : QString()));
        const double mean = d.meanTokens - (s.retainTokens ? d.meanTokensDropped : 0.0);
        row(Cli::tr("At the mean"), Cli::tr("%1 (every session at %2 tokens)")
                                        .arg(Units::formatCount(d.sessionsAtMean), Units::formatCount(qint64(std::llround(mean)))));
        row(Cli::tr("Admission limit"), Cli::tr("%1 (the budget less a %2% margin)")
                                            .arg(Units::formatCount(d.admissionLimit), Units::formatDecimal(s.marginFraction * 100, 2)));
        row(Cli::tr("Overflow probability"), Cli::tr("%1 at %2").arg(Units::formatRisk(d.overflowProbability),
                                                                     Units::plural(s.sessions, Cli::tr("session"), Cli::tr("sessions"))));
        row(Cli::tr("Lengths (tokens)"), Cli::tr("mean %1, p50 %2, p90 %3, p99 %4, max %5")
                                             .arg(Units::formatCount(qint64(std::llround(d.meanTokens))), Units::formatCount(d.p50),
                                                  Units::formatCount(d.p90), Units::formatCount(d.p99), Units::formatCount(d.maxTokens)));
        if (s.retainTokens)
            row(Cli::tr("Retention cap"), Cli::tr("%1% of sessions lose history; %2 tokens dropped on average, p99 %3")
                                              .arg(Units::formatDecimal(d.truncatedShare * 100, 2),
                                                   Units::formatCount(qint64(std::llround(d.meanTokensDropped))),
                                                   Units::formatCount(d.p99TokensDropped)));
        if (d.hasPrompts)
            row(Cli::tr("Admitting by prompt"), Cli::tr("%1, a %2 overflow risk once they have grown")
                                                    .arg(Units::plural(d.admissionByPrompt, Cli::tr("session"), Cli::tr("sessions")),
                                                         Units::formatRisk(d.riskAtGrownSize)));
        std::swap(rows, lengthRows);
    }
    QVector<QPair<QString, QString>> serviceRows;
    std::swap(rows, serviceRows);
    if (d.itlMsAtRisk)
        row(Cli::tr("Decode at %1").arg(Units::plural(d.sessionsAtRisk, Cli::tr("session"), Cli::tr("sessions"))),
            Cli::tr("%1 ms per token, %2 tokens/s per GPU")
                .arg(Units::formatDecimal(*d.itlMsAtRisk, 1), Units::formatCount(qint64(std::llround(d.tokensPerSecondPerGpu.value_or(0))))));
    if (d.costPerMillionTokensUsd)
        row(Cli::tr("Cost per million output tokens"), Units::formatUsd(*d.costPerMillionTokensUsd));
    if (d.gpusNeeded)
        row(Cli::tr("Fleet for %1").arg(Units::plural(*s.targetSessions, Cli::tr("session"), Cli::tr("sessions"))),
            Units::plural(*d.gpusNeeded, Cli::tr("GPU"), Cli::tr("GPUs"))
                + (d.fleetCostPerHourUsd ? Cli::tr(", %1 per hour, %2 per month").arg(Units::formatUsd(*d.fleetCostPerHourUsd), Units::formatUsd(*d.fleetCostPerMonthUsd))
                                         : QString()));
    // Engines admitting the count to deploy (the admission limit) on that fleet may hold fewer
    // than the target: the fleet that holds it with the margin too.
    if (d.gpusNeeded && d.gpusNeededAtAdmissionLimit && *d.gpusNeededAtAdmissionLimit > *d.gpusNeeded)
        row(Cli::tr("With the margin"),
            Cli::tr("%1 (admitting %2 per TP group; %3 hold %4)")
                .arg(Units::plural(*d.gpusNeededAtAdmissionLimit, Cli::tr("GPU"), Cli::tr("GPUs")), Units::formatCount(d.admissionLimit),
                     Units::plural(*d.gpusNeeded, Cli::tr("GPU"), Cli::tr("GPUs")),
                     Units::formatCount(d.admissionLimit * (*d.gpusNeeded / s.gpusPerReplica()))));
    std::swap(rows, serviceRows);
    qsizetype width = 0;
    for (const auto *block : {&rows, &lengthRows, &serviceRows})
        for (const auto &[label, value] : *block)
            width = std::max(width, label.size());
    auto print = [&](const QVector<QPair<QString, QString>> &block) {
        for (const auto &[label, value] : block)
            out << QString(label + QLatin1Char(':')).leftJustified(width + 1) << ' ' << value << '\n';
    };
    print(rows);
    if (!lengthRows.isEmpty()) {
        out << '\n';
        print(lengthRows);
    }
    print(serviceRows);
    for (const QString &key : solved.keys()) {
        if (key.endsWith(QLatin1String("_reason")))
            continue;
        const QString why = solved.value(key + QStringLiteral("_reason")).toString();
        out << key << ": " << (solved.value(key).isNull() ? Cli::tr("none") : Units::formatCount(solved.value(key).toInteger()))
            << (why.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(why)) << '\n';
    }
    out << '\n' << r.verdict << '\n';
    for (const QString &f : r.fixes)
        out << Cli::tr("  fix: %1").arg(f) << '\n';
    for (const QString &w : r.warnings)
        out << Cli::tr("note: %1").arg(w) << '\n';
    out << '\n' << Cli::tr("Derivation:") << '\n';
    for (const QString &line : derivation)
        out << "  " << line << '\n';
    return 0;
}

// The model a log names, when Headroom knows it: a preset whose hf_id or name the printed name
// names (LogCalibration::namesModel: "meta-llama/Llama-3.1-8B-Instruct" is the llama-3.1-8b
// preset's config), or a config.json at the printed path (vLLM's model='/models/x' is a folder).
std::optional<ModelShape> modelForLog(const QString &printed, QTextStream &err)
{
    if (printed.isEmpty())
        return std::nullopt;
    const PresetStore *store = openStore(err);
    for (const PresetRecord &r : store ? store->list(QStringLiteral("model")) : PresetStore::builtInPresets()) {
        if (r.kind != QLatin1String("model"))
            continue;
        const QString hf = r.json.value(QStringLiteral("hf_id")).toString();
        if ((!hf.isEmpty() && LogCalibration::namesModel(printed, hf)) || LogCalibration::namesModel(printed, r.id))
            return ConfigImporter::fromPreset(r.json);
    }
    const QFileInfo path(printed);
    for (const QFileInfo &config : {QFileInfo(path.filePath() + QStringLiteral("/config.json")), path})
        if (config.isFile() && config.fileName() == QLatin1String("config.json"))
            return ConfigImporter::fromFile(config.filePath(), QStringLiteral("LOGFILE"));
    return std::nullopt;
}

int runCalibrate(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 2) {
        err << "usage: headroom calibrate LOGFILE [--model ID|PATH] [--gpu ID] [--json]\n";
        return 2;
    }
    QFile file(pos.at(1));
    const QFileInfo info(pos.at(1));
    if (!info.isFile() || info.size() > 64 * Units::MiB || !file.open(QIODevice::ReadOnly))
        throw InputError(QStringLiteral("LOGFILE"), QStringLiteral("cannot read %1 (a text log of at most 64 MiB)").arg(pos.at(1)));
    const LogReading reading = LogCalibration::read(QString::fromUtf8(file.readAll()), QStringLiteral("LOGFILE"));
    Scenario base = scenarioFrom(p, err, false, false);
    if (base.model.groups.isEmpty()) {
        if (const auto known = modelForLog(reading.model, err))
            base.model = *known;
        else if (reading.engine != Engine::LlamaCpp)
            throw InputError(QStringLiteral("--model"),
                             reading.model.isEmpty()
                                 ? QStringLiteral("the log names no model: give --model with a preset id (`headroom presets list`) or the "
                                                  "model's config.json path, e.g. --model llama-3.1-8b")
                                 : QStringLiteral("the log names model \"%1\", which no preset names and no config.json here holds: give "
                                                  "--model with its config.json path (e.g. --model %2/config.json, from the model's "
                                                  "Hugging Face page) or a preset id of the same shape (`headroom presets list`)")
                                       .arg(reading.model, reading.model.section(QLatin1Char('/'), -1)));
    }
    if (base.gpu.memoryBytes <= 0)
        base.gpu = GpuSpec::custom(reading.totalMemory.value_or(reading.freeBefore.value_or(80 * Units::GiB)));
    if (base.model.totalParams <= 0 && !base.weightsBytes && !reading.weights)
        base.weightsBytes = 0; // llama.cpp logs size the cache, not the weights
    const Scenario calibrated = LogCalibration::apply(reading, base);
    refuseForeignFlags(p, calibrated.engine); // against the log's engine
    const QVector<CalibrationRow> rows = LogCalibration::compare(reading, base);
    const QStringList notes = LogCalibration::warnings(reading, calibrated, rows);
    if (isSet(p, "json")) {
        QJsonObject o = LogCalibration::toJson(reading, rows);
        o.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(notes));
        o.insert(QStringLiteral("inputs"), scenarioEcho(calibrated));
        out << QString::fromUtf8(JsonNumbers::toJson(o));
        return 0;
    }
    out << Engines::name(reading.engine) << " log" << (reading.version.isEmpty() ? QString() : QStringLiteral(" (v%1)").arg(reading.version))
        << ", model " << (reading.model.isEmpty() ? calibrated.model.name : reading.model) << ": " << reading.linesUsed << " of "
        << reading.linesRead << " lines read\n\n";
    // "predicted": before hardware (the log's settings, none of its measurements); "from measured":
    // the same figure from the log's measured terms, which checks the per-token rule alone.
    out << QStringLiteral("%1 %2 %3 %4 %5\n").arg(Cli::tr("figure").leftJustified(46), Cli::tr("printed").rightJustified(15),
                                                  Cli::tr("predicted").rightJustified(15), Cli::tr("difference").rightJustified(10),
                                                  Cli::tr("from measured").rightJustified(15));
    for (const CalibrationRow &row : rows)
        out << QStringLiteral("%1 %2 %3 %4 %5\n")
                   .arg(row.figure.leftJustified(46), row.format(row.printed).rightJustified(15), row.format(row.predicted).rightJustified(15),
                        (std::isfinite(row.difference()) ? QStringLiteral("%1%").arg(row.difference() * 100, 0, 'f', 2) : QStringLiteral("n/a")).rightJustified(10),
                        row.format(row.measured).rightJustified(15));
    for (const QString &note : notes)
        out << Cli::tr("note: %1").arg(note) << '\n';
    return 0;
}

int runLevers(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const Scenario s = scenarioFrom(p, err);
    LeverTarget target;
    if (isSet(p, "target-sessions-per-gpu"))
        target.sessionsPerGpu = Units::parseFraction(value(p, "target-sessions-per-gpu"), QStringLiteral("--target-sessions-per-gpu"), 0, 1e9);
    target.decodeFromHost = isSet(p, "decode-from-host");
    if (isSet(p, "max-itl-ms"))
        target.maxItlMs = Units::parseFraction(value(p, "max-itl-ms"), QStringLiteral("--max-itl-ms"), 0, 1e9);
    const qint64 prefix = isSet(p, "shared-prefix") ? countOpt(p, "shared-prefix") : 0;
    const LengthDistribution lengths = s.distribution ? s.distribution->scaled(s.lengthScale, s.field(Input::LengthScale)) : LengthDistribution::fixed(s.contextTokens);
    if (prefix >= lengths.lengths.first())
        throw InputError(QStringLiteral("--shared-prefix"), QStringLiteral("%1 tokens is not below the shortest session (%2 tokens): a shared prefix is part of every session")
                                                                 .arg(Units::formatCount(prefix), Units::formatCount(lengths.lengths.first())));
    const qint64 host = isSet(p, "host-memory") ? Units::parseSize(value(p, "host-memory"), QStringLiteral("--host-memory"), true) : 256'000'000'000;
    // The current plan only to refuse a scenario with an error: its counts suffice (the
    // admission and overflow figures a full plan adds are never printed here, and
    // with a trace they cost a second law and its transforms).
    RiskWork check(RiskWork::Figures::Counts);
    const CapacityResult now = computeCapacity(s, check);
    if (!now.ok) {
        err << "error: " << now.error << '\n';
        return 1;
    }
    const LeverReport report = evaluateLevers(check, s, allModels(err), allGpus(err), target, prefix, host); // the check's count reused
    if (isSet(p, "json")) {
        out << QString::fromUtf8(JsonNumbers::toJson(report.toJson()));
        return 0;
    }
    // One money column: per session-hour, or per 1,000 (1,000,000) session-hours when an
    // option's figure is below a cent, every row in the same unit (Units::formatUsdPer's rule).
    double smallest = report.current.costPerSessionHourUsd.value_or(INFINITY);
    for (const LeverOption &o : report.options)
        if (o.costPerSessionHourUsd && o.sessionsPerGroup > 0 && *o.costPerSessionHourUsd > 0)
            smallest = std::min(smallest, *o.costPerSessionHourUsd);
    qint64 per = 1;
    while (std::isfinite(smallest) && smallest * double(per) < 0.01 && per < 1'000'000'000)
        per *= 1000;
    const bool targetSet = target.sessionsPerGpu || target.maxItlMs;
    out << Cli::tr("Now: %1 %2 per GPU%3")
               .arg(Units::formatDecimal(report.current.sessionsPerGpu),
                    report.current.sessionsPerGpu == 1.0 ? Cli::tr("session") : Cli::tr("sessions"),
                    report.current.costPerSessionHourUsd
                        ? Cli::tr(", %1").arg(Units::formatUsdPer(*report.current.costPerSessionHourUsd, Cli::tr("session-hour"), Cli::tr("session-hours")))
                        : QString())
        << "\n\n";
    const QString money = per == 1 ? Cli::tr("$/session-h") : Cli::tr("$/%1 session-h").arg(Units::formatCount(per));
    struct Line { QString lever, option, perGpu, cost, effect; };
    QVector<Line> lines{{Cli::tr("lever"), Cli::tr("option"), Cli::tr("per GPU"), money, Cli::tr("price paid")}};
    for (const LeverOption &o : report.options)
        lines << Line{o.lever, o.option, QLocale(QLocale::English, QLocale::UnitedStates).toString(o.sessionsPerGpu, 'f', 2), // decimals aligned
                      o.costPerSessionHourUsd && o.sessionsPerGroup > 0 ? Units::formatUsd(*o.costPerSessionHourUsd * double(per)) : QStringLiteral("—"),
                      o.sideEffect
                          + (o.cheapest ? (targetSet ? Cli::tr("  <- cheapest meeting the target") : Cli::tr("  <- cheapest"))
                             : o.changesRequirement ? Cli::tr("  [changes the requirement: %1]").arg(o.changesRequirementReason)
                                                    : QString())};
    qsizetype w[4] = {0, 0, 0, 0};
    for (const Line &l : lines) {
        w[0] = std::max(w[0], l.lever.size());
        w[1] = std::max(w[1], l.option.size());
        w[2] = std::max(w[2], l.perGpu.size());
        w[3] = std::max(w[3], l.cost.size());
    }
    for (const Line &l : lines)
        out << l.lever.leftJustified(w[0]) << "  " << l.option.leftJustified(w[1]) << "  " << l.perGpu.rightJustified(w[2]) << "  "
            << l.cost.rightJustified(w[3]) << "  " << l.effect << '\n';
    out << '\n' << report.answer << '\n';
    return 0;
}

int runDiagnose(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    if (!isSet(p, "failed-at-sessions"))
        throw InputError(QStringLiteral("--failed-at-sessions"), QStringLiteral("is required: the session count at which it failed"));
    if (!isSet(p, "context"))
        throw InputError(QStringLiteral("--context"), QStringLiteral("is required: the tokens per session when it failed"));
    const Scenario s = scenarioFrom(p, err);
    const Diagnosis d = diagnoseFailure(s, countOpt(p, "failed-at-sessions"), countOpt(p, "context"), allModels(err), allGpus(err));
    if (isSet(p, "json"))
        out << QString::fromUtf8(JsonNumbers::toJson(d.toJson()));
    else
        out << d.sentence << '\n';
    return 0;
}

int runPresetsList(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const PresetStore *store = openStore(err);
    QVector<PresetRecord> all = store ? store->list() : PresetStore::builtInPresets();
    if (store)
        for (const QString &problem : store->problems())
            err << "warning: " << problem << '\n';
    std::sort(all.begin(), all.end(), [](const PresetRecord &a, const PresetRecord &b) {
        return a.kind != b.kind ? a.kind > b.kind : a.id < b.id; // models first, then GPUs, by id
    });
    if (p.isSet(QStringLiteral("json"))) {
        QJsonArray a;
        for (const PresetRecord &r : all)
            a.append(QJsonObject{{QStringLiteral("id"), r.id},
                                 {QStringLiteral("kind"), r.kind},
                                 {QStringLiteral("name"), r.name},
                                 {QStringLiteral("source"), r.source},
                                 {QStringLiteral("built_in"), r.builtIn}});
        out << QString::fromUtf8(JsonNumbers::toJson(a));
        return 0;
    }
    for (const PresetRecord &r : all) {
        QString detail;
        if (r.kind == QLatin1String("gpu")) {
            const QJsonValue price = r.json.value(QStringLiteral("price_usd_per_hour"));
            detail = QStringLiteral("%1, %2").arg(Units::formatBytes(r.json.value(QStringLiteral("memory_bytes")).toInteger(), UnitSystem::Decimal),
                                                 price.isDouble() ? Units::formatUsd(price.toDouble()) + QStringLiteral("/GPU-hour")
                                                                  : QStringLiteral("set a price"));
        } else if (r.json.contains(QStringLiteral("total_params"))) {
            detail = QStringLiteral("%1 parameters").arg(Units::formatCount(r.json.value(QStringLiteral("total_params")).toInteger()));
        } else {
            // No published count (a preset from a config.json): the one a plan uses, counted from its shapes.
            try {
                const qint64 derived = ConfigImporter::fromPreset(r.json).totalParams;
                detail = derived > 0 ? QStringLiteral("%1 parameters (counted from its config)").arg(Units::formatCount(derived))
                                     : QStringLiteral("parameters unknown: give --params");
            } catch (const InputError &e) {
                detail = e.text();
            }
        }
        out << r.kind.leftJustified(6) << r.id.leftJustified(30) << r.name.leftJustified(28) << detail
            << (r.builtIn ? "" : "  (yours)") << '\n';
    }
    return 0;
}

// The presets subcommands' field flags: flag, preset JSON field, kind it
// applies to (empty: both) and how its value is read.
enum class PresetValue { Text, Size, Rate, Count, Number };
struct PresetFlag
{
    const char *flag;
    const char *field;
    const char *kind;
    PresetValue type;
    const char *help;
    const char *valueName;
};
const PresetFlag presetFlags[] = {
    {"name", "name", "", PresetValue::Text, "presets add/edit: the display name.", "TEXT"},
    {"source", "source", "", PresetValue::Text, "presets add/edit: where the figures come from.", "TEXT"},
    {"source-date", "source_date", "", PresetValue::Text, "presets add/edit: date of the source, YYYY-MM-DD.", "DATE"},
    {"notes", "notes", "", PresetValue::Text, "presets add/edit: free notes.", "TEXT"},
    {"vendor", "vendor", "gpu", PresetValue::Text, "presets add/edit (GPU): the vendor.", "TEXT"},
    {"memory", "memory_bytes", "gpu", PresetValue::Size, "presets add/edit (GPU): memory per card as the driver reports it: 81559MiB, 80GB "
                                                         "(a new figure drops torch_memory_bytes, which was measured with the old one).", "SIZE"},
    {"memory-source", "memory_source", "gpu", PresetValue::Text, "presets add/edit (GPU): where the memory figure comes from.", "TEXT"},
    {"marketed-memory", "marketed_memory", "gpu", PresetValue::Text, "presets add/edit (GPU): memory as marketed, e.g. \"80 GB HBM3\".", "TEXT"},
    {"bandwidth", "bandwidth_bytes_per_s", "gpu", PresetValue::Rate, "presets add/edit (GPU): memory bandwidth per second: 3.35TB/s.", "SIZE/s"},
    {"tflops", "bf16_dense_tflops", "gpu", PresetValue::Number, "presets add/edit (GPU): dense BF16 TFLOPS (no sparsity).", "F"},
    {"host-link", "host_link", "gpu", PresetValue::Text, "presets add/edit (GPU): the host link, e.g. \"PCIe 5.0 x16\".", "TEXT"},
    {"host-link-bandwidth", "host_link_bytes_per_s", "gpu", PresetValue::Rate, "presets add/edit (GPU): host link bandwidth, one direction: 64GB/s.", "SIZE/s"},
    {"price", "price_usd_per_hour", "gpu", PresetValue::Number, nullptr, nullptr}, // the plan flag, read the same way
    {"price-source", "price_source", "gpu", PresetValue::Text, "presets add/edit (GPU): where the price comes from (a contract, a quote).", "TEXT"},
    {"price-date", "price_date", "gpu", PresetValue::Text, "presets add/edit (GPU): date of the price, YYYY-MM-DD.", "DATE"},
    {"hf-id", "hf_id", "model", PresetValue::Text, "presets add/edit (model): the HuggingFace repository id.", "ORG/NAME"},
    {"params", "total_params", "model", PresetValue::Count, nullptr, nullptr}, // the plan flag
    {"active-params", "active_params", "model", PresetValue::Count, "presets add/edit (model): parameters active per token (MoE).", "N"},
    {"params-source", "params_source", "model", PresetValue::Text, "presets add/edit (model): where the parameter count comes from.", "TEXT"},
    {"checkpoint", "checkpoint_bytes", "model", PresetValue::Size, "presets add/edit (model): size of the published checkpoint.", "SIZE"},
};

void addPresetOptions(QCommandLineParser &p)
{
    for (const PresetFlag &f : presetFlags)
        if (f.help)
            p.addOption(opt(f.flag, f.help, f.valueName));
    p.addOptions({
        opt("config", "presets add/edit (model): the HuggingFace config.json (or a model preset file) giving the shape.", "PATH"),
        opt("from", "presets add: start from a copy of preset ID (a built-in or yours), then apply the flags.", "ID"),
        opt("clear", "presets edit: remove an optional field (flag or JSON name; --clear price: no published price).", "FIELD"),
        opt("replace", "presets import: overwrite your presets with the same ids (the old ones go to a backup bundle)."),
    });
}

// Applies the field flags given to `preset` (of `kind`). Throws InputError naming the flag.
bool applyPresetFlags(const QCommandLineParser &p, const QString &kind, QJsonObject &preset)
{
    bool changed = false;
    for (const PresetFlag &f : presetFlags) {
        if (!isSet(p, f.flag))
            continue;
        const QString flag = QStringLiteral("--") + QString::fromLatin1(f.flag);
        if (*f.kind && kind != QLatin1String(f.kind))
            throw InputError(flag, QStringLiteral("applies to %1 presets only").arg(QLatin1String(f.kind)));
        const QString v = value(p, f.flag);
        QJsonValue j;
        switch (f.type) {
        case PresetValue::Text: j = v; break;
        case PresetValue::Size: j = QJsonValue(Units::parseSize(v, flag)); break; // qint64, kept exact
        case PresetValue::Rate: {
            QString size = v.trimmed();
            if (size.endsWith(QLatin1String("/s")))
                size.chop(2);
            j = QJsonValue(Units::parseSize(size, flag));
            break;
        }
        case PresetValue::Count: j = QJsonValue(Units::parseCount(v, flag)); break;
        case PresetValue::Number: j = Units::parseFraction(v, flag, 0, 1e6); break; // TFLOPS or dollars, in (0, 10^6]
        }
        // torch's total (torch_memory_bytes) was measured on the card as it was: a new memory
        // figure makes it stale, and above the new figure a preset the store refuses.
        if (QLatin1String(f.field) == QLatin1String("memory_bytes") && preset.value(QLatin1String(f.field)) != j) {
            preset.remove(QStringLiteral("torch_memory_bytes"));
            preset.remove(QStringLiteral("torch_memory_source"));
        }
        preset.insert(QLatin1String(f.field), j);
        changed = true;
    }
    if (isSet(p, "config")) {
        if (kind != QLatin1String("model"))
            throw InputError(QStringLiteral("--config"), QStringLiteral("applies to model presets only"));
        const QJsonObject read = PresetStore::modelPresetFromFile(value(p, "config"), QStringLiteral("--config"));
        preset.insert(QStringLiteral("config"), read.value(QStringLiteral("config")));
        if (!preset.contains(QStringLiteral("source")))
            preset.insert(QStringLiteral("source"), read.value(QStringLiteral("source")));
        if (!preset.contains(QStringLiteral("name")) && read.contains(QStringLiteral("name")))
            preset.insert(QStringLiteral("name"), read.value(QStringLiteral("name")));
        changed = true;
    }
    return changed;
}

// PresetStore::validate with the field named as the flag that sets it.
void validateFromFlags(const QJsonObject &preset)
{
    try {
        PresetStore::validate(preset);
    } catch (const InputError &e) {
        for (const PresetFlag &f : presetFlags)
            if (e.field() == QLatin1String(f.field))
                throw InputError(QStringLiteral("--") + QString::fromLatin1(f.flag), e.message());
        throw;
    }
}

// The store the presets subcommands write to; nullptr (with the error printed) when it cannot be opened.
std::unique_ptr<PresetStore> writableStore(QTextStream &err)
{
    auto store = std::make_unique<PresetStore>(PresetStore::defaultPath());
    QString error;
    if (!store->open(&error)) {
        err << "error: " << error << '\n';
        return nullptr;
    }
    if (!store->warning().isEmpty())
        err << "warning: " << store->warning() << '\n';
    return store;
}

QString builtInRefusal(const QString &id, const QString &kind, const char *verb)
{
    return QStringLiteral("\"%1\" is a built-in preset, which cannot be %2 (built-ins are refreshed with each release); "
                          "`headroom presets add %3 my-%1 --from %1` makes your own copy")
        .arg(id, QLatin1String(verb), kind);
}

int runPresetsAdd(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 4 || (pos.at(2) != QLatin1String("gpu") && pos.at(2) != QLatin1String("model"))) {
        err << "usage: headroom presets add gpu ID --name TEXT --memory SIZE [--bandwidth SIZE/s --tflops F --price USD ...]\n"
               "       headroom presets add model ID --config config.json [--name TEXT --params N ...]\n"
               "       headroom presets add gpu|model ID --from EXISTING-ID [field flags]\n";
        return 2;
    }
    const QString kind = pos.at(2), id = pos.at(3);
    auto store = writableStore(err);
    if (!store)
        return 1;
    QJsonObject preset;
    if (isSet(p, "from")) {
        const PresetRecord from = store->find(value(p, "from"));
        if (from.id.isEmpty() || from.kind != kind)
            throw InputError(QStringLiteral("--from"), QStringLiteral("unknown %1 preset \"%2\"; `headroom presets list` shows the ids").arg(kind, value(p, "from")));
        preset = from.json;
    } else if (kind == QLatin1String("model") && !isSet(p, "config")) {
        throw InputError(QStringLiteral("--config"), QStringLiteral("give the model's config.json (or --from an existing preset)"));
    } else if (kind == QLatin1String("gpu") && !isSet(p, "memory")) {
        throw InputError(QStringLiteral("--memory"), QStringLiteral("give the memory per card, e.g. --memory 81559MiB (or --from an existing preset)"));
    }
    preset.insert(QStringLiteral("id"), id);
    preset.insert(QStringLiteral("kind"), kind);
    applyPresetFlags(p, kind, preset);
    if (!preset.contains(QStringLiteral("name")))
        preset.insert(QStringLiteral("name"), id);
    validateFromFlags(preset);
    const PresetRecord existing = store->find(id);
    if (!existing.id.isEmpty() || PresetStore::isBuiltInId(id))
        throw InputError(QStringLiteral("ID"), existing.builtIn || existing.id.isEmpty()
                                                   ? QStringLiteral("\"%1\" is a built-in preset; choose another id").arg(id)
                                                   : QStringLiteral("\"%1\" is already one of your presets; `headroom presets edit %1` changes it").arg(id));
    QString error;
    if (!store->saveUserPreset(preset, &error)) {
        err << "error: " << error << '\n';
        return 1;
    }
    out << "added " << kind << " preset " << id << " (" << preset.value(QStringLiteral("name")).toString() << ")\n";
    return 0;
}

int runPresetsEdit(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 3) {
        err << "usage: headroom presets edit ID [field flags, e.g. --price 1.80 --price-date 2026-12-01] [--clear FIELD]\n";
        return 2;
    }
    auto store = writableStore(err);
    if (!store)
        return 1;
    const PresetRecord r = store->find(pos.at(2));
    if (r.id.isEmpty())
        throw InputError(QStringLiteral("ID"), QStringLiteral("there is no preset \"%1\"; `headroom presets list` shows the ids").arg(pos.at(2)));
    if (r.builtIn)
        throw InputError(QStringLiteral("ID"), builtInRefusal(r.id, r.kind, "edited"));
    QJsonObject preset = r.json;
    bool changed = applyPresetFlags(p, r.kind, preset);
    for (const QString &name : p.values(QStringLiteral("clear"))) {
        QString field = name;
        for (const PresetFlag &f : presetFlags)
            if (name == QLatin1String(f.flag) || name == QStringLiteral("--") + QLatin1String(f.flag))
                field = QString::fromLatin1(f.field);
        static const QStringList required = {QStringLiteral("id"), QStringLiteral("kind"), QStringLiteral("name"),
                                             QStringLiteral("memory_bytes"), QStringLiteral("config")};
        if (required.contains(field))
            throw InputError(QStringLiteral("--clear"), QStringLiteral("%1 is required and cannot be cleared").arg(name));
        if (!preset.contains(field))
            throw InputError(QStringLiteral("--clear"), QStringLiteral("preset %1 has no field \"%2\"").arg(r.id, name));
        if (field == QLatin1String("price_usd_per_hour"))
            preset.insert(field, QJsonValue::Null); // as the built-ins say "set a price"
        else
            preset.remove(field);
        changed = true;
    }
    if (!changed) {
        err << "error: nothing to change: give a field flag (see `headroom --help`) or --clear FIELD\n";
        return 2;
    }
    validateFromFlags(preset);
    QString error;
    if (!store->saveUserPreset(preset, &error)) {
        err << "error: " << error << '\n';
        return 1;
    }
    out << "edited " << r.kind << " preset " << r.id << '\n';
    return 0;
}

int runPresetsRemove(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() < 3) {
        err << "usage: headroom presets remove ID [ID...]\n";
        return 2;
    }
    auto store = writableStore(err);
    if (!store)
        return 1;
    // Every id is checked before any is removed.
    for (const QString &id : pos.mid(2)) {
        const PresetRecord r = store->find(id);
        if (r.id.isEmpty())
            throw InputError(QStringLiteral("ID"), QStringLiteral("there is no preset \"%1\"; `headroom presets list` shows the ids").arg(id));
        if (r.builtIn)
            throw InputError(QStringLiteral("ID"), builtInRefusal(r.id, r.kind, "removed"));
    }
    for (const QString &id : pos.mid(2)) {
        QString error;
        if (!store->removeUserPreset(id, &error)) {
            err << "error: " << error << '\n';
            return 1;
        }
        out << "removed preset " << id << '\n';
    }
    return 0;
}

int runPresetsExport(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() < 3) {
        err << "usage: headroom presets export FILE.json [ID...]   (default: all of your presets)\n";
        return 2;
    }
    auto store = writableStore(err);
    if (!store)
        return 1;
    QVector<PresetRecord> chosen;
    if (pos.size() == 3) {
        for (const PresetRecord &r : store->list())
            if (!r.builtIn)
                chosen << r;
        if (chosen.isEmpty())
            throw InputError(QStringLiteral("ID"), QStringLiteral("you have no presets of your own to export; `headroom presets add` makes one"));
    } else {
        QStringList ids = pos.mid(3);
        ids.removeDuplicates(); // an id named twice is exported once: import refuses a bundle that repeats one
        for (const QString &id : ids) {
            const PresetRecord r = store->find(id);
            if (r.id.isEmpty())
                throw InputError(QStringLiteral("ID"), QStringLiteral("there is no preset \"%1\"").arg(id));
            if (r.builtIn)
                throw InputError(QStringLiteral("ID"), QStringLiteral("\"%1\" is a built-in preset, which every Headroom has; export your own").arg(id));
            chosen << r;
        }
    }
    for (const QString &problem : store->problems())
        err << "warning: " << problem << '\n';
    QString error;
    if (!PresetBundle::save(pos.at(2), chosen, &error, {{store->path(), QStringLiteral("the preset store")}}))
        throw InputError(QStringLiteral("FILE"), error);
    // With "-" the bundle is the whole of standard output; the count goes to stderr.
    (OutputTarget::isStandardOutput(pos.at(2)) ? err : out)
        << "exported " << chosen.size() << (chosen.size() == 1 ? " preset" : " presets") << " to "
        << (OutputTarget::isStandardOutput(pos.at(2)) ? QStringLiteral("standard output") : pos.at(2)) << '\n';
    return 0;
}

int runPresetsImport(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 3) {
        err << "usage: headroom presets import FILE.json [--replace]\n";
        return 2;
    }
    QStringList warnings;
    const QVector<QJsonObject> presets = PresetBundle::read(pos.at(2), &warnings);
    for (const QString &w : std::as_const(warnings))
        err << "warning: " << w << '\n';
    auto store = writableStore(err);
    if (!store)
        return 1;
    PresetStore::ImportResult result;
    QString error;
    if (!store->importPresets(presets, isSet(p, "replace"), &result, &error)) {
        err << "error: " << error << '\n';
        return 1;
    }
    out << "imported " << pos.at(2) << ": " << result.added.size() << " added, " << result.replaced.size() << " replaced, "
        << result.unchanged.size() << " unchanged\n";
    if (!result.backupPath.isEmpty())
        out << "the replaced presets as they were: " << result.backupPath << '\n';
    return 0;
}

int runPresets(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QString verb = p.positionalArguments().value(1);
    if (verb == QLatin1String("list"))
        return runPresetsList(p, out, err);
    if (verb == QLatin1String("add"))
        return runPresetsAdd(p, out, err);
    if (verb == QLatin1String("edit"))
        return runPresetsEdit(p, out, err);
    if (verb == QLatin1String("remove"))
        return runPresetsRemove(p, out, err);
    if (verb == QLatin1String("export"))
        return runPresetsExport(p, out, err);
    if (verb == QLatin1String("import"))
        return runPresetsImport(p, out, err);
    err << "usage: headroom presets list|add|edit|remove|export|import (see --help)\n";
    return 2;
}

} // namespace

bool CommandLine::wants(const QStringList &arguments)
{
    if (arguments.size() < 2)
        return false;
    const QString first = arguments.at(1);
    // A command word is always a command, even when a file of that name lies in the current
    // folder (./plan opens that file); another word that is not a file is reported as an
    // unknown command, not taken for the window; a file opens in the window.
    static const QStringList commands{QStringLiteral("plan"), QStringLiteral("presets"), QStringLiteral("calibrate"),
                                      QStringLiteral("report"), QStringLiteral("levers"), QStringLiteral("diagnose")};
    if (commands.contains(first))
        return true;
    if (!first.startsWith(QLatin1Char('-')))
        return !QFileInfo(first).isFile();
    return first == QLatin1String("--help") || first == QLatin1String("-h") || first == QLatin1String("--version");
}

int CommandLine::run(const QStringList &arguments, QTextStream &out, QTextStream &err, const ReportWriterHook &writeReport)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Headroom: how many long LLM sessions fit on a GPU, and what they cost.\n\n"
        "Commands:\n"
        "  plan            capacity of one scenario (figures, derivation; --json)\n"
        "  presets list    built-in and your model and GPU presets (--json)\n"
        "  presets add gpu|model ID, edit ID, remove ID: your own presets (field flags below)\n"
        "  presets export FILE|- [ID...], import FILE [--replace]: share your presets as one JSON bundle (-: stdout)\n"
        "  calibrate LOG   read a vLLM, SGLang or llama.cpp start-up log; printed vs predicted (--json)\n"
        "  report          the PDF capacity report: the plan flags or --scenario FILE, and -o report.pdf\n"
        "  levers          the four levers priced: precision, attention, retention, memory (--json)\n"
        "  diagnose        explain a failure: --failed-at-sessions N --context TOKENS (--json)\n"
        "Without a command, the window opens."));
    p.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsOptions);
    p.addPositionalArgument(QStringLiteral("command"), QStringLiteral("plan, presets list|add|edit|remove|export|import, calibrate LOG, report, levers or diagnose"));
    const QCommandLineOption help = p.addHelpOption();
    const QCommandLineOption version = p.addVersionOption();
    addPlanOptions(p);
    addPresetOptions(p);
    if (!p.parse(arguments)) {
        err << "error: " << p.errorText() << '\n';
        return 2;
    }
    if (p.isSet(help) || (arguments.size() > 1 && arguments.at(1) == QLatin1String("help"))) {
        out << p.helpText();
        return 0;
    }
    if (p.isSet(version)) {
        out << QCoreApplication::applicationName() << ' ' << QCoreApplication::applicationVersion() << '\n';
        return 0;
    }
    // A flag given twice (`--gpu a --gpu b`) is refused, naming it: QCommandLineParser::value keeps the
    // last and dropped the first in silence. `presets edit --clear F` alone may repeat (one field each).
    for (const QString &name : p.optionNames()) {
        if (name == QLatin1String("clear"))
            continue;
        const QStringList given = p.values(name);
        const QString flag = (name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + name;
        if (given.size() > 1) {
            err << "error: " << flag << ": given " << given.size() << " times (" << given.join(QStringLiteral(", "))
                << "); give it once, with the value you mean\n";
            return 2;
        }
        if (given.isEmpty() && p.optionNames().count(name) > 1) {
            err << "error: " << flag << ": given " << p.optionNames().count(name) << " times; give it once\n";
            return 2;
        }
    }
    const QStringList pos = p.positionalArguments();
    // The options only some commands read: any other command refuses them, never ignores them
    // (`plan -o x.txt` printed the plan and wrote no file).
    static const struct { const char *option; const char *commands; const char *hint; } commandOptions[] = {
        {"output", "report", " (plan, levers and diagnose print to standard output: redirect it, > FILE; plan --save FILE keeps the scenario)"},
        {"page-size", "report", ""},
        {"save", "plan", ""},
        {"solve", "plan", ""},
        {"failed-at-sessions", "diagnose", ""},
        {"target-sessions-per-gpu", "levers", ""},
        {"max-itl-ms", "levers", ""},
        {"shared-prefix", "levers", ""},
        {"host-memory", "levers", ""},
        {"decode-from-host", "levers", ""},
        {"config", "presets", ""},
        {"from", "presets", ""},
        {"clear", "presets", ""},
        {"replace", "presets", ""},
    };
    if (subcommands.contains(pos.value(0))) {
        for (const auto &c : commandOptions)
            if (p.isSet(QString::fromLatin1(c.option)) && pos.value(0) != QLatin1String(c.commands)) {
                err << "error: --" << c.option << ": only `headroom " << c.commands << "` reads it, not " << pos.value(0) << c.hint << '\n';
                return 2;
            }
        // The preset field flags (--name, --source, --memory, ...) are presets add/edit's alone.
        for (const PresetFlag &f : presetFlags)
            if (f.help && p.isSet(QString::fromLatin1(f.flag)) && pos.value(0) != QLatin1String("presets")) {
                err << "error: --" << f.flag << ": only `headroom presets add/edit` reads it, not " << pos.value(0) << '\n';
                return 2;
            }
    }
    try {
        if (pos.value(0) == QLatin1String("plan")) {
            if (pos.size() > 1) {
                err << "error: unexpected argument \"" << pos.at(1) << "\"\n";
                return 2;
            }
            return runPlan(p, out, err);
        }
        if (pos.value(0) == QLatin1String("presets"))
            return runPresets(p, out, err);
        if (pos.value(0) == QLatin1String("calibrate"))
            return runCalibrate(p, out, err);
        if (pos.value(0) == QLatin1String("levers"))
            return runLevers(p, out, err);
        if (pos.value(0) == QLatin1String("diagnose"))
            return runDiagnose(p, out, err);
        if (pos.value(0) == QLatin1String("report")) {
            if (!p.isSet(QStringLiteral("output"))) {
                err << "error: -o/--output: give the PDF to write, e.g. -o report.pdf\n";
                return 2;
            }
            const QString size = p.isSet(QStringLiteral("page-size")) ? p.value(QStringLiteral("page-size")) : QStringLiteral("A4");
            if (size.compare(QLatin1String("A4"), Qt::CaseInsensitive) != 0 && size.compare(QLatin1String("Letter"), Qt::CaseInsensitive) != 0)
                throw InputError(QStringLiteral("--page-size"), QStringLiteral("must be A4 or Letter, got \"%1\"").arg(size));
            OutputTarget::check(p.value(QStringLiteral("output")), OutputTarget::Kind::Pdf, inputFiles(p), QStringLiteral("--output"));
            const Scenario s = scenarioFrom(p, err);
            const CapacityResult r = computeCapacity(s);
            if (!r.ok) {
                err << "error: " << r.error << '\n';
                return 1;
            }
            const QString name = p.isSet(QStringLiteral("scenario")) ? QFileInfo(p.value(QStringLiteral("scenario"))).completeBaseName()
                                                                      : s.model.name + QStringLiteral(" on ") + s.gpu.name;
            const QString problem = writeReport ? writeReport(s, r, name, unitsFrom(p), p.value(QStringLiteral("output")), size)
                                                : QStringLiteral("this build cannot draw reports");
            if (!problem.isEmpty()) {
                err << "error: " << problem << '\n';
                return 1;
            }
            out << "wrote " << p.value(QStringLiteral("output")) << '\n';
            return 0;
        }
    } catch (const InputError &e) {
        err << "error: " << e.text() << '\n';
        return 1;
    }
    err << "error: unknown command \"" << pos.value(0) << "\"; use plan, presets, calibrate, report, levers or diagnose (see --help)\n";
    return 2;
}

} // namespace Headroom
