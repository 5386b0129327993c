// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/scenariofile.h"
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

namespace {

// Doubles round-trip through JSON exactly; qint64 above 2^53 does not, so
// byte counts and token counts are written as decimal strings when large.
QJsonValue big(qint64 v)
{
    return std::abs(v) < (qint64(1) << 53) ? QJsonValue(double(v)) : QJsonValue(QString::number(v));
}

// Any 64-bit whole number (a JSON number, or a decimal string above 2^53). `prefix` (e.g.
// "engine.") makes the field name the error carries: the key as the file spells it.
// `minimum`: the least the field holds (0 for a size), named in the refusal.
qint64 readBig(const QJsonObject &o, const char *key, qint64 fallback = 0, const QString &prefix = {},
               qint64 minimum = std::numeric_limits<qint64>::min())
{
    return JsonNumbers::whole(o, key, fallback, minimum, std::numeric_limits<qint64>::max(), prefix, true);
}

// A text the outputs print (a name, a source, a distribution's label): refused with a control
// character (U+0000-U+001F, U+007F-U+009F) or a bidirectional override (U+202A-U+202E,
// U+2066-U+2069), which reached the terminal and the report as they were ("fixed:1\0evil"
// printed a NUL byte; an escape sequence would have run; attacker's report).
QString readText(const QJsonObject &o, const char *key, const QString &prefix)
{
    const QString text = JsonNumbers::text(o, key, QString(), prefix, QStringLiteral("a text"));
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text.at(i).unicode();
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
            throw InputError(prefix + QLatin1String(key), QStringLiteral("holds the control character U+%1 at character %2")
                                                              .arg(uint(c), 4, 16, QLatin1Char('0')).arg(i + 1));
    }
    return text;
}

template <typename T>
QJsonValue optional(const std::optional<T> &v)
{
    if (!v)
        return QJsonValue();
    if constexpr (std::is_same_v<T, qint64>)
        return big(*v);
    else
        return QJsonValue(*v);
}

// A small whole number (layers, heads, dimensions, TP, block size, kinds) in
// [minimum, maximum], checked before it narrows to int.
int readInt(const QJsonObject &o, const char *key, qint64 fallback, qint64 minimum, const QString &prefix = {},
            qint64 maximum = 10'000'000)
{
    return int(JsonNumbers::whole(o, key, fallback, minimum, maximum, prefix, true));
}

// An input with a range rule (core/inputranges.h), or the fallback when absent.
double readReal(const QJsonObject &o, RealInput input, double fallback, const QString &prefix)
{
    const char *key = InputRanges::of(input).key;
    const QJsonValue v = o.value(QString::fromLatin1(key));
    if (v.isUndefined() || v.isNull())
        return fallback;
    const QString field = prefix + QString::fromLatin1(key);
    if (!v.isDouble())
        throw InputError(field, QStringLiteral("must be %1, got %2")
                                    .arg(InputRanges::describe(input), JsonNumbers::shown(v)));
    return InputRanges::check(input, v.toDouble(), field);
}

std::optional<double> readOptionalReal(const QJsonObject &o, RealInput input, const QString &prefix)
{
    const QJsonValue v = o.value(QString::fromLatin1(InputRanges::of(input).key));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    return readReal(o, input, 0, prefix);
}

std::optional<qint64> readOptionalBig(const QJsonObject &o, const char *key, const QString &prefix = {},
                                      qint64 minimum = std::numeric_limits<qint64>::min())
{
    const QJsonValue v = o.value(QString::fromLatin1(key));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    return readBig(o, key, 0, prefix, minimum);
}

QJsonArray bigArray(const QVector<qint64> &v)
{
    QJsonArray a;
    for (qint64 x : v)
        a.append(big(x));
    return a;
}

QJsonArray doubleArray(const QVector<double> &v)
{
    QJsonArray a;
    for (double x : v)
        a.append(x);
    return a;
}

QVector<qint64> readBigArray(const QJsonObject &o, const char *key)
{
    QVector<qint64> out;
    const QJsonArray a = o.value(QString::fromLatin1(key)).toArray();
    for (int i = 0; i < a.size(); ++i) {
        try {
            out << readBig(QJsonObject{{QString::fromLatin1(key), a.at(i)}}, key);
        } catch (const InputError &) {
            throw InputError(QStringLiteral("distribution.%1[%2]").arg(QString::fromLatin1(key)).arg(i), QStringLiteral("must be a whole number"));
        }
    }
    return out;
}

QVector<double> readDoubleArray(const QJsonObject &o, const char *key)
{
    QVector<double> out;
    for (const QJsonValue &v : o.value(QString::fromLatin1(key)).toArray()) {
        if (!v.isDouble() || !std::isfinite(v.toDouble()))
            throw InputError(QStringLiteral("distribution.") + QString::fromLatin1(key), QStringLiteral("must hold numbers"));
        out << v.toDouble();
    }
    return out;
}

QJsonObject modelToJson(const ModelShape &m)
{
    QJsonArray groups;
    for (const LayerGroup &g : m.groups)
        groups.append(QJsonObject{{QStringLiteral("kind"), int(g.kind)},
                                  {QStringLiteral("count"), g.count},
                                  {QStringLiteral("kv_heads"), g.kvHeads},
                                  {QStringLiteral("head_dim_k"), g.headDimK},
                                  {QStringLiteral("head_dim_v"), g.headDimV},
                                  {QStringLiteral("window"), big(g.window)},
                                  {QStringLiteral("latent_dim"), g.latentDim},
                                  {QStringLiteral("rope_dim"), g.ropeDim},
                                  {QStringLiteral("indexer_head_dim"), g.indexerHeadDim},
                                  {QStringLiteral("conv_state_values"), big(g.convStateValues)},
                                  {QStringLiteral("ssm_state_values"), big(g.ssmStateValues)}});
    return QJsonObject{{QStringLiteral("id"), m.id},
                       {QStringLiteral("name"), m.name},
                       {QStringLiteral("hf_id"), m.hfId},
                       {QStringLiteral("source"), m.source},
                       {QStringLiteral("source_date"), m.sourceDate},
                       {QStringLiteral("model_type"), m.modelType},
                       {QStringLiteral("num_attention_heads"), m.attentionHeads},
                       {QStringLiteral("num_key_value_heads"), m.kvHeads},
                       {QStringLiteral("head_dim"), m.headDim},
                       {QStringLiteral("hidden_size"), big(m.hiddenSize)},
                       {QStringLiteral("num_hidden_layers"), m.hiddenLayers},
                       {QStringLiteral("intermediate_size"), big(m.intermediateSize)},
                       {QStringLiteral("moe_intermediate_size"), big(m.moeIntermediateSize)},
                       {QStringLiteral("vocab_size"), big(m.vocabSize)},
                       {QStringLiteral("total_params"), big(m.totalParams)},
                       {QStringLiteral("active_params"), big(m.activeParams)},
                       {QStringLiteral("derived_params"), big(m.derivedParams)},
                       {QStringLiteral("derived_active_params"), big(m.derivedActiveParams)},
                       {QStringLiteral("checkpoint_bytes"), big(m.checkpointBytes)},
                       {QStringLiteral("vision_params"), big(m.visionParams)},
                       {QStringLiteral("tokens_per_image"), big(m.tokensPerImage)},
                       {QStringLiteral("max_position_embeddings"), big(m.maxPositionEmbeddings)},
                       {QStringLiteral("num_experts"), m.numExperts},
                       {QStringLiteral("num_experts_per_tok"), m.expertsPerToken},
                       {QStringLiteral("weights_dtype"), Dtypes::name(m.weightsDtype)},
                       {QStringLiteral("recurrent_state_dtype"), Dtypes::name(m.recurrentStateDtype)},
                       {QStringLiteral("groups"), groups}};
}

// One of a model's "groups", every figure checked against its kind ("model.groups." names
// the field a refusal carries). Throws InputError.
LayerGroup layerGroupFromJson(const QJsonObject &g)
{
    LayerGroup l;
    const QString gp = QStringLiteral("model.groups.");
    const qint64 kind = readBig(g, "kind", 0, gp);
    if (kind < int(LayerKind::FullAttention) || kind > int(LayerKind::Recurrent))
        throw InputError(gp + QStringLiteral("kind"), QStringLiteral("unknown layer kind %1").arg(kind));
    l.kind = LayerKind(kind);
    const bool heads = l.kind == LayerKind::FullAttention || l.kind == LayerKind::SlidingWindow;
    l.count = readInt(g, "count", 0, 1, gp);
    l.kvHeads = readInt(g, "kv_heads", 0, heads ? 1 : 0, gp);
    l.headDimK = readInt(g, "head_dim_k", 0, heads ? 1 : 0, gp);
    l.headDimV = readInt(g, "head_dim_v", 0, heads ? 1 : 0, gp);
    l.window = readBig(g, "window", 0, gp);
    if (l.kind == LayerKind::SlidingWindow && l.window < 1)
        throw InputError(gp + QStringLiteral("window"), QStringLiteral("a sliding-window group needs a window of at least 1 token"));
    l.latentDim = readInt(g, "latent_dim", 0, l.kind == LayerKind::Mla ? 1 : 0, gp);
    l.ropeDim = readInt(g, "rope_dim", 0, 0, gp);
    l.indexerHeadDim = readInt(g, "indexer_head_dim", 0, 0, gp);
    if (l.indexerHeadDim > 0 && l.kind != LayerKind::Mla)
        throw InputError(gp + QStringLiteral("indexer_head_dim"),
                         QStringLiteral("a sparse-attention indexer belongs to an MLA group; set it to 0 here"));
    l.convStateValues = readBig(g, "conv_state_values", 0, gp);
    l.ssmStateValues = readBig(g, "ssm_state_values", 0, gp);
    if (l.convStateValues < 0)
        throw InputError(gp + QStringLiteral("conv_state_values"), QStringLiteral("must not be negative"));
    if (l.ssmStateValues < 0 || (l.kind == LayerKind::Recurrent && l.convStateValues == 0 && l.ssmStateValues == 0))
        throw InputError(gp + QStringLiteral("ssm_state_values"), QStringLiteral("a recurrent group needs a positive state"));
    return l;
}

ModelShape modelFromJson(const QJsonObject &o)
{
    ModelShape m;
    const QString mp = QStringLiteral("model.");
    m.id = readText(o, "id", mp);
    m.name = readText(o, "name", mp);
    m.hfId = readText(o, "hf_id", mp);
    m.source = readText(o, "source", mp);
    m.sourceDate = readText(o, "source_date", mp);
    m.modelType = readText(o, "model_type", mp);
    m.attentionHeads = readInt(o, "num_attention_heads", 0, 0, mp);
    m.kvHeads = readInt(o, "num_key_value_heads", 0, 0, mp);
    m.headDim = readInt(o, "head_dim", 0, 0, mp);
    m.hiddenSize = readBig(o, "hidden_size", 0, mp);
    m.hiddenLayers = readInt(o, "num_hidden_layers", 0, 0, mp);
    m.intermediateSize = readBig(o, "intermediate_size", 0, mp);
    m.moeIntermediateSize = readBig(o, "moe_intermediate_size", 0, mp);
    m.vocabSize = readBig(o, "vocab_size", 0, mp);
    m.totalParams = readBig(o, "total_params", 0, mp);
    m.activeParams = readBig(o, "active_params", 0, mp);
    m.derivedParams = readBig(o, "derived_params", 0, mp);
    m.derivedActiveParams = readBig(o, "derived_active_params", 0, mp);
    m.checkpointBytes = readBig(o, "checkpoint_bytes", 0, mp);
    // A vision encoder (issue 14): its parameters lie within total_params.
    m.visionParams = readBig(o, "vision_params", 0, mp);
    m.tokensPerImage = readBig(o, "tokens_per_image", 0, mp);
    // Not checked against total_params: --params may set a smaller total than the shapes
    // count, and the encoder's share of the weights is capped at the whole (VisionPool).
    if (m.visionParams < 0)
        throw InputError(mp + QStringLiteral("vision_params"), QStringLiteral("must not be negative"));
    if (m.tokensPerImage < 0 || m.tokensPerImage > 1'000'000'000)
        throw InputError(mp + QStringLiteral("tokens_per_image"), QStringLiteral("must be from 0 to 1,000,000,000"));
    m.maxPositionEmbeddings = readBig(o, "max_position_embeddings", 0, mp);
    m.numExperts = readInt(o, "num_experts", 0, 0, mp);
    m.expertsPerToken = readInt(o, "num_experts_per_tok", 0, 0, mp);
    for (const char *k : {"total_params", "active_params", "checkpoint_bytes", "max_position_embeddings", "hidden_size", "intermediate_size",
                          "moe_intermediate_size", "vocab_size"})
        if (readBig(o, k, 0, mp) < 0)
            throw InputError(mp + QString::fromLatin1(k), QStringLiteral("must not be negative"));
    m.weightsDtype = Dtypes::parse(JsonNumbers::text(o, "weights_dtype", QStringLiteral("bf16"), mp, QStringLiteral("a precision name such as bf16")), QStringLiteral("model.weights_dtype"));
    m.recurrentStateDtype = Dtypes::parse(JsonNumbers::text(o, "recurrent_state_dtype", QStringLiteral("fp32"), mp, QStringLiteral("a precision name such as bf16")),
                                          QStringLiteral("model.recurrent_state_dtype"));
    const QJsonArray groups = JsonNumbers::array(o, "groups", mp);
    if (groups.isEmpty())
        throw InputError(QStringLiteral("model.groups"), QStringLiteral("a model needs its layer groups"));
    if (groups.size() > 1000)
        throw InputError(QStringLiteral("model.groups"), QStringLiteral("%1 layer groups: a model has a handful").arg(groups.size()));
    for (const QJsonValue &v : groups) {
        if (!v.isObject())
            throw InputError(QStringLiteral("model.groups"), QStringLiteral("must hold layer-group objects ({...})"));
        m.groups << layerGroupFromJson(v.toObject());
        // A thousand groups of 10^7 layers would pass 2^31: the whole model is held to
        // the same 10^7 as one group (a model has at most a few hundred layers).
        if (m.layersOf(LayerKind::FullAttention) + m.layersOf(LayerKind::SlidingWindow) + m.layersOf(LayerKind::Mla)
                + m.layersOf(LayerKind::Recurrent) > 10'000'000)
            throw InputError(QStringLiteral("model.groups.count"), QStringLiteral("the groups hold more than 10,000,000 layers in all"));
    }
    return m;
}

QJsonObject gpuToJson(const GpuSpec &g)
{
    return QJsonObject{{QStringLiteral("id"), g.id},
                       {QStringLiteral("kind"), QStringLiteral("gpu")},
                       {QStringLiteral("name"), g.name},
                       {QStringLiteral("vendor"), g.vendor},
                       {QStringLiteral("memory_bytes"), big(g.memoryBytes)},
                       {QStringLiteral("memory_source"), g.memorySource},
                       {QStringLiteral("torch_memory_bytes"), g.torchMemoryBytes > 0 ? big(g.torchMemoryBytes) : QJsonValue()},
                       {QStringLiteral("torch_memory_source"), g.torchMemorySource},
                       {QStringLiteral("marketed_memory"), g.marketedMemory},
                       {QStringLiteral("bandwidth_bytes_per_s"), g.bandwidthBytesPerSecond > 0 ? big(g.bandwidthBytesPerSecond) : QJsonValue()},
                       {QStringLiteral("bf16_dense_tflops"), g.bf16DenseTflops},
                       {QStringLiteral("native_formats"), g.nativeFormats ? QJsonValue(GpuSpec::formatsToJson(*g.nativeFormats)) : QJsonValue()},
                       {QStringLiteral("native_formats_source"), g.nativeFormatsSource},
                       {QStringLiteral("host_link_bytes_per_s"), g.hostLinkBytesPerSecond > 0 ? big(g.hostLinkBytesPerSecond) : QJsonValue()},
                       {QStringLiteral("peer_link_bytes_per_s"), g.peerLinkBytesPerSecond > 0 ? big(g.peerLinkBytesPerSecond) : QJsonValue()},
                       {QStringLiteral("source"), g.source},
                       {QStringLiteral("source_date"), g.sourceDate},
                       {QStringLiteral("price_usd_per_hour"), optional(g.priceUsdPerHour)},
                       {QStringLiteral("price_source"), g.priceSource},
                       {QStringLiteral("price_date"), g.priceDate}};
}

QJsonObject distributionToJson(const LengthDistribution &d)
{
    return QJsonObject{{QStringLiteral("kind"), int(d.kind)},
                       {QStringLiteral("spec"), d.spec},
                       {QStringLiteral("lengths"), bigArray(d.lengths)},
                       {QStringLiteral("probabilities"), doubleArray(d.probabilities)},
                       {QStringLiteral("prompt_lengths"), bigArray(d.promptLengths)},
                       {QStringLiteral("prompt_probabilities"), doubleArray(d.promptProbabilities)},
                       {QStringLiteral("arrival_rate_per_second"), d.arrivalRatePerSecond},
                       {QStringLiteral("mean_output_tokens"), d.meanOutputTokens},
                       {QStringLiteral("requests"), big(d.requests)},
                       {QStringLiteral("conversations"), big(d.conversations)},
                       {QStringLiteral("shared_prefix_tokens"), big(d.sharedPrefixTokens)}};
}

LengthDistribution distributionFromJson(const QJsonObject &o)
{
    LengthDistribution d;
    const QString dp = QStringLiteral("distribution.");
    const qint64 kind = readBig(o, "kind", 0, dp);
    if (kind < 0 || kind > int(LengthDistribution::Kind::Quantiles))
        throw InputError(dp + QStringLiteral("kind"), QStringLiteral("unknown kind %1").arg(kind));
    d.kind = LengthDistribution::Kind(kind);
    d.spec = readText(o, "spec", dp);
    d.lengths = readBigArray(o, "lengths");
    d.probabilities = readDoubleArray(o, "probabilities");
    d.promptLengths = readBigArray(o, "prompt_lengths");
    d.promptProbabilities = readDoubleArray(o, "prompt_probabilities");
    d.arrivalRatePerSecond = readReal(o, RealInput::ArrivalRate, 0, dp);
    d.meanOutputTokens = readReal(o, RealInput::MeanOutputTokens, 0, dp);
    d.requests = readBig(o, "requests", 0, dp);
    // A conversation trace's grouping and shared prefix (absent from files before them: 0).
    d.conversations = readBig(o, "conversations", 0, dp, 0);
    d.sharedPrefixTokens = readBig(o, "shared_prefix_tokens", 0, dp, 0);
    if (d.sharedPrefixTokens > LengthDistribution::maxTokens)
        throw InputError(dp + QStringLiteral("shared_prefix_tokens"), QStringLiteral("must be at most 2^53 tokens"));
    double sum = 0;
    for (double p : d.probabilities)
        sum += p;
    if (d.lengths.isEmpty() || d.lengths.size() != d.probabilities.size() || std::abs(sum - 1) > 1e-6
        || d.promptLengths.size() != d.promptProbabilities.size())
        throw InputError(QStringLiteral("distribution"), QStringLiteral("lengths and probabilities do not form a distribution"));
    for (int i = 0; i < d.lengths.size(); ++i)
        if (d.lengths.at(i) < 1 || (i > 0 && d.lengths.at(i) <= d.lengths.at(i - 1)) || d.probabilities.at(i) < 0)
            throw InputError(QStringLiteral("distribution.lengths"), QStringLiteral("must be positive and ascending"));
    if (d.lengths.last() > LengthDistribution::maxTokens)
        throw InputError(QStringLiteral("distribution.lengths"), QStringLiteral("must be at most 2^53 tokens"));
    if (!d.promptLengths.isEmpty()) {
        double promptSum = 0;
        for (int i = 0; i < d.promptLengths.size(); ++i) {
            if (d.promptLengths.at(i) < 1 || (i > 0 && d.promptLengths.at(i) <= d.promptLengths.at(i - 1)) || d.promptProbabilities.at(i) < 0)
                throw InputError(QStringLiteral("distribution.prompt_lengths"), QStringLiteral("must be positive and ascending"));
            promptSum += d.promptProbabilities.at(i);
        }
        if (std::abs(promptSum - 1) > 1e-6 || d.promptLengths.last() > d.lengths.last())
            throw InputError(QStringLiteral("distribution.prompt_probabilities"),
                             QStringLiteral("prompts must form a distribution no longer than the sessions"));
    }
    for (const auto &[value, key] : {std::pair{d.arrivalRatePerSecond, "arrival_rate_per_second"}, {d.meanOutputTokens, "mean_output_tokens"},
                                     {double(d.requests), "requests"}, {double(d.conversations), "conversations"},
                                     {double(d.sharedPrefixTokens), "shared_prefix_tokens"}})
        if (!(value >= 0))
            throw InputError(QStringLiteral("distribution.") + QString::fromLatin1(key), QStringLiteral("must not be negative"));
    return d;
}

// The engine settings as one object holds them: a .headroom file's "engine"
// (prefix "engine.", byte fields bare) or the "inputs" echo of plan --json
// (prefix "inputs.", byte fields ending in "_bytes"). Every value is range-checked.
// Pipeline, data and expert parallelism (engine flags --pp, --dp, --ep), one block.
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

// The whole-number inputs both versions hold: counts at least 1, bytes not negative.
void checkCounts(const Scenario &s)
{
    const QString ip = QStringLiteral("inputs.");
    if (s.contextTokens < 1)
        throw InputError(ip + QStringLiteral("context_tokens"), QStringLiteral("must be at least 1 token"));
    if (s.sessions < 0)
        throw InputError(ip + QStringLiteral("sessions"), QStringLiteral("must not be negative"));
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
void readSidePools(const QJsonObject &in, Scenario &s, const QString &ip)
{
    s.imagesPerRequest = readInt(in, "images_per_request", s.imagesPerRequest, 0, ip, VisionPool::maxImagesPerRequest);
    s.decodingShare = readOptionalReal(in, RealInput::DecodingShare, ip);
    s.hostKvMemoryBytes = readOptionalBig(in, "host_kv_memory_bytes", ip, 0);
    s.gpusPerNode = readInt(in, "gpus_per_node", s.gpusPerNode, 1, ip, 1024);
}

// The inputs both versions spell alike: length scale, cap, risk, margin, target and the
// serving model's fractions, each under its range rule; then the whole-number checks.
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
    readSidePools(in, s, ip);
    checkCounts(s);
}

// The scaled distribution stays within LengthDistribution::maxTokens, so
// every later scaled() holds.
void checkScale(const Scenario &s)
{
    if (s.distribution && double(s.distribution->maximum()) * s.lengthScale > double(LengthDistribution::maxTokens))
        throw InputError(QStringLiteral("inputs.length_scale"), QStringLiteral("x %1 makes the longest session longer than 2^53 tokens").arg(s.lengthScale));
}

int readCount(const QJsonObject &o, CountInput input, int fallback, const QString &prefix);

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

// Version 0: the output of `headroom plan --json`, whose "inputs" name presets.
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

// A whole number of a side pool by its range rule (core/inputranges.h), named "speculative.key".
int readCount(const QJsonObject &o, CountInput input, int fallback, const QString &prefix)
{
    const CountRange &r = InputRanges::of(input);
    const qint64 v = JsonNumbers::whole(o, r.key, fallback, r.low, r.high, prefix, true);
    return InputRanges::check(input, v, prefix + QString::fromLatin1(r.key));
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
